//! Calls the relay's own routes in-process. A tool call, and the status check every other MCP
//! request costs, is one request through the same axum [`Router`] that serves HTTP, made with
//! `tower::ServiceExt::oneshot`, carrying the caller's `Authorization`, `Host` and
//! `User-Agent` headers. So authentication, budgets, validation and errors are the route's.

use axum::body::{to_bytes, Body};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, HOST, USER_AGENT};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use serde_json::Value;
use tower::ServiceExt;

use super::tools::ToolRequest;

/// The largest route answer read back, in bytes.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// Why an in-process call produced no usable answer (a relay defect, answered as internal).
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error("building the in-process request: {0}")]
    Build(#[from] axum::http::Error),
    #[error("reading the route's answer: {0}")]
    Read(String),
    #[error("the route answered {0} with a body that is not JSON")]
    NotJson(StatusCode),
}

/// A route's answer: its status, its JSON body, and that body's text exactly as the route
/// sent it (key order kept; tool results and refusals pass this text on unchanged).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    pub body: Value,
    pub raw: String,
}

/// Makes `request` against `api` as the caller of `caller` (whose headers are copied).
pub async fn call(
    api: &Router,
    caller: &HeaderMap,
    request: &ToolRequest,
) -> Result<Answer, ForwardError> {
    let mut builder = Request::builder()
        .method(request.method.clone())
        .uri(&request.uri);
    for name in [AUTHORIZATION, HOST, USER_AGENT] {
        if let Some(value) = caller.get(&name) {
            builder = builder.header(name, value.clone());
        }
    }
    let body = match &request.body {
        Some(json) => {
            builder = builder.header(CONTENT_TYPE, "application/json");
            Body::from(json.to_string())
        }
        None => Body::empty(),
    };
    let response = match api.clone().oneshot(builder.body(body)?).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let status = response.status();
    let bytes = to_bytes(response.into_body(), MAX_ANSWER_BYTES)
        .await
        .map_err(|e| ForwardError::Read(e.to_string()))?;
    let body = serde_json::from_slice(&bytes).map_err(|_| ForwardError::NotJson(status))?;
    // Valid JSON is valid UTF-8.
    let raw = String::from_utf8(bytes.to_vec()).map_err(|_| ForwardError::NotJson(status))?;
    Ok(Answer { status, body, raw })
}

/// The status check (`GET /v1/status`) that authenticates, and is charged for, every MCP
/// request other than a tool call.
pub async fn status_check(api: &Router, caller: &HeaderMap) -> Result<Answer, ForwardError> {
    let request = ToolRequest {
        method: Method::GET,
        uri: "/v1/status".to_owned(),
        body: None,
    };
    call(api, caller, &request).await
}
