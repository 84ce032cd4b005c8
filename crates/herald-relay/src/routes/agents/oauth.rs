//! The OAuth 2.0 device authorization grant (RFC 8628) that gives a connector its access
//! token, and the metadata documents that lead an MCP client to it (RFC 9728, RFC 8414).
//! No credential is needed on these routes.
//!
//! The base URL in the metadata is the relay's normalized `--public-url` when set (behind a
//! proxy or TLS terminator), else `http://` + the request's valid `Host`, else
//! `http://localhost` (`crate::mcp::origin`).
//!
//! Flow: the connector posts `client_id` to `/oauth/device_authorization` and gets a
//! `device_code` (secret, 32 random bytes, stored hashed) and a `user_code` (8 letters,
//! shown `XXXX-XXXX`, 10 minutes). The person types the code on a device
//! (`POST /connectors/approve`). The connector polls `/oauth/token` every `interval` seconds:
//! `authorization_pending`, `slow_down` (polled too fast; the interval grows by 5 s),
//! `access_denied`, `expired_token`, or — once — `{access_token: "hra_…", token_type:
//! "Bearer", scope}`. Later polls get `invalid_grant`: the token is handed out once and never
//! expires; the person revokes it on a device.

use std::collections::HashMap;

use axum::extract::rejection::FormRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::{Form, Json};
use herald_protocol::agents::{
    format_user_code, AuthorizationServerMetadata, DeviceAuthorizationResponse,
    ProtectedResourceMetadata, TokenResponse, CONNECTOR_SCOPE, CONNECTOR_TOKEN_PREFIX,
    DEVICE_CODE_EXPIRES_IN_SECS, DEVICE_CODE_GRANT_TYPE, MAX_CREDENTIAL_NAME_CHARS,
    POLL_INTERVAL_SECS, USER_CODE_ALPHABET, USER_CODE_LEN,
};
use herald_protocol::ErrorCode;
use ring::rand::SecureRandom;
use serde::Serialize;

use crate::auth::{new_token, token_hash};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::agents::{AgentError, NewDeviceGrant, PollOutcome};

/// Longest accepted `client_id`.
const MAX_CLIENT_FIELD_CHARS: usize = 200;
/// Draws of a user code before giving up (a collision among live codes is ~1e-10).
const USER_CODE_ATTEMPTS: usize = 4;

/// The relay's public base URL as clients reach it (one computation with `/mcp`'s 401:
/// [`crate::mcp::origin::public_base`]).
pub(crate) fn origin(state: &AppState, headers: &HeaderMap) -> String {
    crate::mcp::origin::public_base(state.config(), headers)
}

pub(super) async fn protected_resource(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Json<ProtectedResourceMetadata> {
    let origin = origin(&state, &headers);
    Json(ProtectedResourceMetadata {
        resource: format!("{origin}/mcp"),
        authorization_servers: vec![origin],
        bearer_methods_supported: vec!["header".into()],
        scopes_supported: vec![CONNECTOR_SCOPE.into()],
        resource_name: "Herald relay".into(),
    })
}

pub(super) async fn authorization_server(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Json<AuthorizationServerMetadata> {
    let origin = origin(&state, &headers);
    Json(AuthorizationServerMetadata {
        device_authorization_endpoint: format!("{origin}/oauth/device_authorization"),
        token_endpoint: format!("{origin}/oauth/token"),
        issuer: origin,
        grant_types_supported: vec![DEVICE_CODE_GRANT_TYPE.into()],
        token_endpoint_auth_methods_supported: vec!["none".into()],
        response_types_supported: vec![],
        scopes_supported: vec![CONNECTOR_SCOPE.into()],
    })
}

/// An OAuth error (RFC 6749 §5.2): the catalog body plus `error_description`.
#[derive(Serialize)]
struct OAuthErrorBody {
    error: String,
    error_description: String,
    message: String,
    fields: Vec<String>,
}

/// A refusal of the OAuth routes: an OAuth error (400, `no-store`) or a catalog error.
pub(super) enum OAuthRefusal {
    OAuth {
        code: ErrorCode,
        description: Option<&'static str>,
        field: Option<&'static str>,
    },
    Api(ApiError),
}

impl From<ApiError> for OAuthRefusal {
    fn from(e: ApiError) -> Self {
        OAuthRefusal::Api(e)
    }
}

fn oauth_error(
    code: ErrorCode,
    description: Option<&'static str>,
    field: Option<&'static str>,
) -> OAuthRefusal {
    OAuthRefusal::OAuth {
        code,
        description,
        field,
    }
}

impl IntoResponse for OAuthRefusal {
    fn into_response(self) -> Response {
        let (code, description, field) = match self {
            OAuthRefusal::Api(e) => return e.into_response(),
            OAuthRefusal::OAuth {
                code,
                description,
                field,
            } => (code, description, field),
        };
        let message = description.unwrap_or(code.default_message()).to_owned();
        let body = OAuthErrorBody {
            error: code.as_str().to_owned(),
            error_description: message.clone(),
            message,
            fields: field.map(|f| vec![f.to_owned()]).unwrap_or_default(),
        };
        let status = StatusCode::from_u16(code.status()).unwrap_or(StatusCode::BAD_REQUEST);
        let mut response = (status, Json(body)).into_response();
        no_store(&mut response);
        response
    }
}

fn no_store(response: &mut Response) {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

type Params = Result<Form<Vec<(String, String)>>, FormRejection>;

/// The form's parameters by name. A body over the route's limit is 413 `payload_too_large`; a
/// body that is not a form, or a parameter sent more than once, is `invalid_request` (RFC 6749
/// §3.1: parameters must not be included more than once).
fn params(form: Params) -> Result<HashMap<String, String>, OAuthRefusal> {
    let Form(pairs) = form.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return OAuthRefusal::Api(ApiError::new(ErrorCode::PayloadTooLarge));
        }
        oauth_error(
            ErrorCode::InvalidRequest,
            Some("The body must be application/x-www-form-urlencoded."),
            None,
        )
    })?;
    let mut map = HashMap::with_capacity(pairs.len());
    for (name, value) in pairs {
        if map.insert(name, value).is_some() {
            return Err(oauth_error(
                ErrorCode::InvalidRequest,
                Some("A parameter may be sent only once."),
                None,
            ));
        }
    }
    Ok(map)
}

/// `client_name`: at most [`MAX_CREDENTIAL_NAME_CHARS`] characters (the limit of a
/// connector's name), no control or bidirectional formatting characters.
fn client_name(p: &HashMap<String, String>) -> Result<Option<String>, OAuthRefusal> {
    match p.get("client_name").map(|v| v.trim()) {
        None | Some("") => Ok(None),
        Some(v) if herald_protocol::text::check_label(v, MAX_CREDENTIAL_NAME_CHARS).is_ok() => {
            Ok(Some(v.to_owned()))
        }
        Some(_) => Err(oauth_error(
            ErrorCode::InvalidRequest,
            Some("client_name has at most 100 characters and no control or bidirectional formatting characters."),
            Some("client_name"),
        )),
    }
}

/// `client_id`: at most 200 characters without control characters.
fn client_field(
    p: &HashMap<String, String>,
    name: &'static str,
) -> Result<Option<String>, OAuthRefusal> {
    match p.get(name).map(|v| v.trim()) {
        None | Some("") => Ok(None),
        Some(v)
            if v.chars().count() <= MAX_CLIENT_FIELD_CHARS && !v.chars().any(char::is_control) =>
        {
            Ok(Some(v.to_owned()))
        }
        Some(_) => Err(oauth_error(
            ErrorCode::InvalidRequest,
            Some("A client field has at most 200 characters and no control characters."),
            Some(name),
        )),
    }
}

fn new_user_code() -> Result<String, ApiError> {
    let rng = ring::rand::SystemRandom::new();
    let mut code = String::with_capacity(USER_CODE_LEN);
    while code.len() < USER_CODE_LEN {
        let mut byte = [0u8; 1];
        rng.fill(&mut byte)
            .map_err(|_| ApiError::internal("system randomness failed"))?;
        // Rejection sampling keeps the 20 letters equally likely (240 = 12 × 20).
        if byte[0] < 240 {
            code.push(USER_CODE_ALPHABET[(byte[0] % 20) as usize] as char);
        }
    }
    Ok(code)
}

pub(super) async fn device_authorization(
    State(state): State<AppState>,
    client: crate::limits::ClientIp,
    headers: HeaderMap,
    form: Params,
) -> Result<Response, OAuthRefusal> {
    let p = params(form)?;
    let client_id = client_field(&p, "client_id")?.ok_or_else(|| {
        oauth_error(
            ErrorCode::InvalidRequest,
            Some("client_id is required."),
            Some("client_id"),
        )
    })?;
    let client_name = client_name(&p)?;
    let now = state.now();
    if !state.agents().device_authorizations.spend(client, now) {
        return Err(ApiError::new(ErrorCode::RateLimited).into());
    }
    let device_code = new_token("")?;
    let expires_at = now + chrono::TimeDelta::seconds(DEVICE_CODE_EXPIRES_IN_SECS as i64);
    for _ in 0..USER_CODE_ATTEMPTS {
        let user_code = new_user_code()?;
        let grant = NewDeviceGrant {
            device_code_hash: token_hash(&device_code),
            user_code: user_code.clone(),
            client_id: client_id.clone(),
            client_name: client_name.clone(),
            now,
            expires_at,
            interval_secs: POLL_INTERVAL_SECS,
        };
        let store = state.agents().store.clone();
        let stored = tokio::task::spawn_blocking(move || store.create_device_grant(grant))
            .await
            .map_err(ApiError::internal)?;
        match stored {
            Ok(()) => {
                let mut response = Json(DeviceAuthorizationResponse {
                    device_code,
                    user_code: format_user_code(&user_code),
                    verification_uri: format!("{}/oauth/device", origin(&state, &headers)),
                    expires_in: DEVICE_CODE_EXPIRES_IN_SECS,
                    interval: POLL_INTERVAL_SECS,
                })
                .into_response();
                no_store(&mut response);
                return Ok(response);
            }
            Err(AgentError::UserCodeTaken) => continue,
            Err(e) => return Err(ApiError::internal(e).into()),
        }
    }
    Err(ApiError::internal("no free user code").into())
}

pub(super) async fn token(
    State(state): State<AppState>,
    form: Params,
) -> Result<Response, OAuthRefusal> {
    let p = params(form)?;
    match p.get("grant_type").map(String::as_str) {
        Some(DEVICE_CODE_GRANT_TYPE) => {}
        Some(_) => {
            return Err(oauth_error(
                ErrorCode::UnsupportedGrantType,
                None,
                Some("grant_type"),
            ))
        }
        None => {
            return Err(oauth_error(
                ErrorCode::InvalidRequest,
                Some("grant_type is required."),
                Some("grant_type"),
            ))
        }
    }
    let (Some(device_code), Some(client_id)) = (p.get("device_code"), p.get("client_id")) else {
        return Err(oauth_error(
            ErrorCode::InvalidRequest,
            Some("device_code and client_id are required."),
            None,
        ));
    };
    let access_token = new_token(CONNECTOR_TOKEN_PREFIX)?;
    let (code_hash, hash, client_id, now) = (
        token_hash(device_code),
        token_hash(&access_token),
        client_id.trim().to_owned(),
        state.now(),
    );
    let outcome = state
        .agent_store(move |s| s.poll_device_grant(&code_hash, &client_id, &hash, now))
        .await?;
    let code = match outcome {
        PollOutcome::Issued(connector) => {
            tracing::info!(connector = %connector, "connector token issued");
            let mut response = Json(TokenResponse {
                access_token,
                token_type: "Bearer".into(),
                scope: CONNECTOR_SCOPE.into(),
            })
            .into_response();
            no_store(&mut response);
            return Ok(response);
        }
        PollOutcome::Pending => ErrorCode::AuthorizationPending,
        PollOutcome::SlowDown => ErrorCode::SlowDown,
        PollOutcome::Denied => ErrorCode::AccessDenied,
        PollOutcome::Expired => ErrorCode::ExpiredToken,
        PollOutcome::Invalid => ErrorCode::InvalidGrant,
    };
    Err(oauth_error(code, None, None))
}

/// `verification_uri`: where a person lands who follows the connector's link. Approval
/// happens in Herald on a device, never on a web page, so this only says where.
pub(super) async fn device_page() -> Response {
    let mut response = Html(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Approve a connector — Herald</title></head><body>\
         <h1>Approve a connector</h1>\
         <p>Open Herald on your computer, go to <b>Settings → Agents</b>, choose \
         <b>Approve a connector</b> and type the code the connector shows (XXXX-XXXX).</p>\
         <p>On a headless device: <code>herald connector approve XXXX-XXXX</code>.</p>\
         <p>Only approve a code you started yourself, within 10 minutes.</p>\
         </body></html>",
    )
    .into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'"),
    );
    response
}
