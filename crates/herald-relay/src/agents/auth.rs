//! Agent credentials on the wire (docs/agents.md, "Credentials"): agent keys `hrk_…` and
//! connector tokens `hra_…`, both `prefix + base64url(32 random bytes)`, stored as SHA-256
//! and compared in constant time, like device sessions and connection bearers.
//!
//! Least privilege, both ways:
//! - an agent credential may call only `/v1/*` and `/mcp` (plus the public OAuth and
//!   metadata routes, which need no credential): [`least_privilege`] answers every other
//!   route 403 `forbidden` (401 when the credential is unknown or revoked), before the route
//!   runs;
//! - a device session or connection gets 403 on `/v1/*` ([`AgentAuth`]).

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use herald_protocol::agents::{AGENT_KEY_PREFIX, CONNECTOR_TOKEN_PREFIX};
use herald_protocol::wire::{CONNECTION_BEARER_PREFIX, DEVICE_BEARER_PREFIX};
use herald_protocol::AccountId;
use subtle::ConstantTimeEq;

use crate::auth::{token_hash, Auth};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::agents::AgentCredential;

/// An authenticated agent credential.
#[derive(Debug, Clone)]
pub struct AgentAuth {
    pub account: AccountId,
    pub credential: AgentCredential,
    /// The agent key's or connector's name.
    pub name: String,
}

/// The bearer token of a request, if any (any prefix).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

fn is_agent_token(token: &str) -> bool {
    token.starts_with(AGENT_KEY_PREFIX) || token.starts_with(CONNECTOR_TOKEN_PREFIX)
}

/// Looks an `hrk_`/`hra_` token up: unknown, revoked, or under the wrong prefix → 401.
async fn lookup(state: &AppState, token: &str) -> Result<AgentAuth, ApiError> {
    let hash = token_hash(token);
    let row = state
        .agent_store(move |s| s.agent_credential(&hash))
        .await?
        .ok_or_else(ApiError::unauthorized)?;
    let matches: bool = row.token_hash.ct_eq(&hash).into();
    let prefix_ok = match row.credential {
        AgentCredential::AgentKey(_) => token.starts_with(AGENT_KEY_PREFIX),
        AgentCredential::Connector(_) => token.starts_with(CONNECTOR_TOKEN_PREFIX),
    };
    if !matches || row.revoked || !prefix_ok {
        return Err(ApiError::unauthorized());
    }
    Ok(AgentAuth {
        account: row.account,
        credential: row.credential,
        name: row.name,
    })
}

/// Authenticates the agent credential in `headers` (for `/mcp` and the `/v1/*` routes).
///
/// Errors: 401 `unauthorized` when no bearer was sent or it is unknown or revoked; 403
/// `forbidden` for a valid device session or connection bearer (they may not call agent
/// routes). Callers that must tell "no token" from "a rejected token" (the MCP endpoint's
/// `WWW-Authenticate`) look at the header themselves.
pub async fn authenticate_agent(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<AgentAuth, ApiError> {
    let token = bearer(headers).ok_or_else(ApiError::unauthorized)?;
    if is_agent_token(token) {
        return lookup(state, token).await;
    }
    if token.starts_with(DEVICE_BEARER_PREFIX) || token.starts_with(CONNECTION_BEARER_PREFIX) {
        // A valid device or connection: 403; an invalid one: 401 (from the extractor).
        let mut parts = axum::http::Request::builder()
            .body(())
            .map_err(ApiError::internal)?
            .into_parts()
            .0;
        parts.headers = headers.clone();
        Auth::from_request_parts(&mut parts, state).await?;
        return Err(ApiError::forbidden());
    }
    Err(ApiError::unauthorized())
}

impl FromRequestParts<AppState> for AgentAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate_agent(state, &parts.headers).await
    }
}

/// Paths an agent credential may be sent to.
pub(crate) fn agent_may_call(path: &str) -> bool {
    path.starts_with("/v1/")
        || path == "/mcp"
        || path.starts_with("/.well-known/")
        || path.starts_with("/oauth/")
}

/// Middleware over every route: a request carrying an agent credential to a route outside
/// `/v1/*` and `/mcp` is answered 403 (401 when the credential is not valid) before the
/// route runs.
pub(crate) async fn least_privilege(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let token = bearer(request.headers())
        .filter(|t| is_agent_token(t))
        .map(str::to_owned);
    match token {
        Some(token) if !agent_may_call(request.uri().path()) => {
            match lookup(&state, &token).await {
                Ok(_) => ApiError::forbidden().into_response(),
                Err(e) => e.into_response(),
            }
        }
        _ => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_paths() {
        for (path, allowed) in [
            ("/v1/notify", true),
            ("/v1/status", true),
            ("/mcp", true),
            ("/mcp/x", false),
            ("/messages", false),
            ("/agent-keys", false),
            ("/v1", false),
            ("/health", false),
            ("/.well-known/oauth-authorization-server", true),
            ("/oauth/token", true),
        ] {
            assert_eq!(agent_may_call(path), allowed, "{path}");
        }
    }
}
