//! The HTTP side of `/mcp`: `POST` takes one JSON-RPC message and answers one JSON response
//! (or 202 with no body); every other HTTP method answers 405 with `Allow: POST` and the
//! JSON-RPC error -32000. There is no event stream and no `Mcp-Session-Id`.
//!
//! Order of checks, for every request: credential first (the tool call's own route, or the
//! status check), so a bad credential gets 401 whatever else is wrong; then the browser
//! `Origin` (403); then the protocol checks planned by [`super::dispatch`].

use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::header::{ALLOW, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use herald_protocol::ErrorCode;
use serde_json::Value;

use super::dispatch::{self, Plan, Reply};
use super::forward::{self, Answer};
use super::jsonrpc::{self, RpcError, INVALID_REQUEST, SERVER_ERROR};
use super::origin::{origin_allowed, public_base};
use super::Mcp;
use crate::error::ApiError;

/// The largest POST body, in bytes; a larger one answers 413 with JSON-RPC -32600.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// `POST /mcp`.
pub(super) async fn post(State(mcp): State<Mcp>, headers: HeaderMap, body: Body) -> Response {
    let plan = match to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => dispatch::plan(&headers, &bytes),
        Err(_) => Plan::Answer(Reply::Json {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            body: jsonrpc::error(
                &Value::Null,
                &RpcError::new(
                    INVALID_REQUEST,
                    format!("Invalid Request: the body is over {MAX_BODY_BYTES} bytes."),
                ),
            ),
        }),
    };
    let origin_ok = origin_allowed(mcp.state.config(), &headers);
    if let (true, Plan::Tool { id, kind, request }) = (origin_ok, &plan) {
        // The tool's own route authenticates the caller and is the one charge.
        let answer = match forward::call(&mcp.api, &headers, request).await {
            Ok(answer) => answer,
            Err(e) => return ApiError::internal(e).into_response(),
        };
        if let Some(refusal) = credential_refusal(&mcp, &headers, &answer) {
            return refusal;
        }
        let result = dispatch::tool_result(answer.status.is_success(), &answer.body, &answer.raw);
        return reply(dispatch::success(*kind, id, result));
    }
    if let Some(refusal) = status_check(&mcp, &headers).await {
        return refusal;
    }
    if !origin_ok {
        return foreign_origin();
    }
    match plan {
        Plan::Answer(answer) => reply(answer),
        Plan::Events { id, method, params } => {
            reply(super::events::answer(&mcp.state, &headers, &id, method, params.as_ref()).await)
        }
        // Only reached with a foreign origin, answered above.
        Plan::Tool { .. } => foreign_origin(),
    }
}

/// Any other HTTP method on `/mcp`: 405, `Allow: POST`, JSON-RPC -32000 (after the
/// credential check, like every request).
pub(super) async fn not_allowed(State(mcp): State<Mcp>, headers: HeaderMap) -> Response {
    if let Some(refusal) = status_check(&mcp, &headers).await {
        return refusal;
    }
    let body = jsonrpc::error(
        &Value::Null,
        &RpcError::new(
            SERVER_ERROR,
            "Method not allowed: POST one JSON-RPC message; the relay offers no event stream.",
        ),
    );
    let mut response = json_text(StatusCode::METHOD_NOT_ALLOWED, jsonrpc::encode(&body));
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static("POST"));
    response
}

/// Runs the status check that authenticates (and is charged for) a request that is not a tool
/// call. Only a 401 or 403 stops the request; a used-up budget (429) does not. Any other
/// failure of the check is a relay defect and answers 500, never a pass.
async fn status_check(mcp: &Mcp, headers: &HeaderMap) -> Option<Response> {
    let answer = match forward::status_check(&mcp.api, headers).await {
        Ok(answer) => answer,
        Err(e) => return Some(ApiError::internal(e).into_response()),
    };
    if let Some(refusal) = credential_refusal(mcp, headers, &answer) {
        return Some(refusal);
    }
    if answer.status.is_success() || answer.status == StatusCode::TOO_MANY_REQUESTS {
        None
    } else {
        Some(ApiError::internal(format!("status check answered {}", answer.status)).into_response())
    }
}

/// A 401 or 403 from a route, answered as the route's body. A 401 carries
/// `WWW-Authenticate: Bearer resource_metadata="<base>/.well-known/oauth-protected-resource"`
/// (`<base>` from [`public_base`], the same as the metadata's),
/// plus `error="invalid_token"` when the request sent a bearer token ([`bearer_token_sent`]);
/// a 403 carries none.
fn credential_refusal(mcp: &Mcp, headers: &HeaderMap, answer: &Answer) -> Option<Response> {
    match answer.status {
        StatusCode::UNAUTHORIZED => {
            let base = public_base(mcp.state.config(), headers);
            let mut challenge =
                format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource\"");
            if bearer_token_sent(headers) {
                challenge.push_str(", error=\"invalid_token\"");
            }
            let mut response = json_text(StatusCode::UNAUTHORIZED, answer.raw.clone());
            match HeaderValue::from_str(&challenge) {
                Ok(value) => {
                    response.headers_mut().insert(WWW_AUTHENTICATE, value);
                }
                Err(_) => {
                    response
                        .headers_mut()
                        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                }
            }
            Some(response)
        }
        StatusCode::FORBIDDEN => Some(json_text(StatusCode::FORBIDDEN, answer.raw.clone())),
        _ => None,
    }
}

/// True when the request sent a token: an `Authorization` header of the `Bearer` scheme (any
/// case) with a non-empty token. No header, an empty `Bearer`, or another scheme sent none.
fn bearer_token_sent(headers: &HeaderMap) -> bool {
    headers
        .get_all(AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| match v.trim().split_once(' ') {
            Some((scheme, token)) => {
                scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()
            }
            None => false,
        })
}

fn foreign_origin() -> Response {
    ApiError::with_message(
        ErrorCode::Forbidden,
        "This Origin may not call /mcp; only the relay's own origin may.",
    )
    .into_response()
}

fn reply(reply: Reply) -> Response {
    match reply {
        Reply::Accepted => StatusCode::ACCEPTED.into_response(),
        Reply::Json { status, body } => json_text(status, jsonrpc::encode(&body)),
    }
}

/// A JSON body written as the given text (key order kept).
fn json_text(status: StatusCode, text: String) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        text,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_nonempty_bearer_token_counts_as_sent() {
        for (value, want) in [
            ("Bearer hrk_x", true),
            ("bearer hrk_x", true),
            ("Bearer", false),
            ("Bearer ", false),
            ("Basic dXNlcjpwYXNz", false),
            ("hrk_x", false),
        ] {
            let mut h = HeaderMap::new();
            h.insert(AUTHORIZATION, HeaderValue::from_static(value));
            assert_eq!(bearer_token_sent(&h), want, "{value}");
        }
        assert!(!bearer_token_sent(&HeaderMap::new()));
    }

    #[test]
    fn the_405_body_is_a_jsonrpc_error() {
        let body = jsonrpc::error(&Value::Null, &RpcError::new(SERVER_ERROR, "x"));
        assert_eq!(body["error"]["code"], json!(-32000));
        assert_eq!(body["id"], Value::Null);
    }
}
