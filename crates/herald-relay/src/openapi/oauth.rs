//! Operations of `routes/agents/oauth.rs` (OAuth metadata and the device authorization grant,
//! docs/agents.md) and `mcp/` (`POST /mcp`, docs/mcp.md).
#![allow(dead_code)] // the functions only carry `#[utoipa::path]`

use herald_protocol::agents::{
    AuthorizationServerMetadata, DeviceAuthorizationResponse, ProtectedResourceMetadata,
    TokenResponse,
};
use herald_protocol::ErrorBody;
use utoipa::OpenApi;

use super::responses::{PayloadTooLarge, RateLimited, Unauthorized};
use super::schemas::{
    DeviceAuthorizationForm, JsonRpcMessage, JsonRpcResponse, OAuthError, TokenForm,
};

/// OAuth and MCP.
#[derive(OpenApi)]
#[openapi(paths(
    protected_resource,
    protected_resource_mcp,
    authorization_server,
    device_authorization,
    token,
    device_page,
    mcp,
))]
pub(super) struct OAuthApi;

/// Protected-resource metadata of `/mcp` (RFC 9728).
#[utoipa::path(
    get,
    path = "/.well-known/oauth-protected-resource",
    tag = "oauth",
    operation_id = "protectedResource",
    responses((status = 200, description = "The metadata; URLs use the relay's public origin.", body = ProtectedResourceMetadata))
)]
fn protected_resource() {}

/// The same metadata at the path-suffixed location RFC 9728 derives for `/mcp`.
#[utoipa::path(
    get,
    path = "/.well-known/oauth-protected-resource/mcp",
    tag = "oauth",
    operation_id = "protectedResourceMcp",
    responses((status = 200, description = "The metadata.", body = ProtectedResourceMetadata))
)]
fn protected_resource_mcp() {}

/// Authorization-server metadata (RFC 8414): device flow only.
#[utoipa::path(
    get,
    path = "/.well-known/oauth-authorization-server",
    tag = "oauth",
    operation_id = "authorizationServer",
    responses((status = 200, description = "The metadata.", body = AuthorizationServerMetadata))
)]
fn authorization_server() {}

/// Start the device authorization grant (RFC 8628 §3.1), no credential.
#[utoipa::path(
    post,
    path = "/oauth/device_authorization",
    tag = "oauth",
    operation_id = "deviceAuthorization",
    request_body(content = DeviceAuthorizationForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "A device code (secret, for polling) and a user code to show the person; `Cache-Control: no-store`.", body = DeviceAuthorizationResponse),
        (status = 400, description = "`invalid_request` (`client_id`, `client_name`, or not a form).", body = OAuthError),
        (status = 413, response = PayloadTooLarge),
        (status = 429, response = RateLimited),
    )
)]
fn device_authorization() {}

/// Poll for the connector's access token (RFC 8628 §3.4), no credential.
#[utoipa::path(
    post,
    path = "/oauth/token",
    tag = "oauth",
    operation_id = "token",
    request_body(content = TokenForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The `hra_…` access token, handed out once; `Cache-Control: no-store`.", body = TokenResponse),
        (status = 400, description = "`authorization_pending`, `slow_down`, `access_denied`, `expired_token`, `invalid_grant`, `unsupported_grant_type`, `invalid_request`.", body = OAuthError),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn token() {}

/// Where the person approves a connector: a static page pointing to the desktop app.
#[utoipa::path(
    get,
    path = "/oauth/device",
    tag = "oauth",
    operation_id = "devicePage",
    responses((status = 200, description = "An HTML page (`Content-Security-Policy: default-src 'none'`).", content_type = "text/html", body = String))
)]
fn device_page() {}

/// One JSON-RPC 2.0 message to the relay's MCP server; one JSON answer.
///
/// Every request is authenticated first (401 with a `resource_metadata` challenge, 403 for a
/// device session or connection), then its `Origin` is checked (403), then the protocol.
/// Any method but POST answers 405 with `Allow: POST` and JSON-RPC error -32000.
#[utoipa::path(
    post,
    path = "/mcp",
    tag = "mcp",
    operation_id = "mcp",
    params(
        ("MCP-Protocol-Version" = Option<String>, Header, description = "The MCP protocol version (`2026-07-28` marks a stateless client, which must also send `Mcp-Method` and, for tools/call, `Mcp-Name`)."),
        ("Mcp-Method" = Option<String>, Header, description = "The JSON-RPC method (stateless clients)."),
        ("Mcp-Name" = Option<String>, Header, description = "The tool name of a tools/call (stateless clients)."),
    ),
    request_body(content = JsonRpcMessage, description = "One message, at most 64 KiB; a batch (array) is refused."),
    security(("agentKey" = []), ("connector" = [])),
    responses(
        (status = 200, description = "The JSON-RPC response (a tool failure is a result with `isError: true`).", body = JsonRpcResponse),
        (status = 202, description = "A notification or a response from the client: accepted, no body."),
        (status = 400, description = "JSON-RPC -32700 (invalid JSON), -32600 (not one JSON-RPC 2.0 message), -32602, -32020 or -32022.", body = JsonRpcResponse),
        (status = 401, response = Unauthorized),
        (status = 403, description = "`forbidden`: a device session or connection, or a foreign `Origin`.", body = ErrorBody),
        (status = 404, description = "JSON-RPC -32601 for a stateless client (method not found).", body = JsonRpcResponse),
        (status = 413, description = "JSON-RPC -32600: the body is over 64 KiB.", body = JsonRpcResponse),
    )
)]
fn mcp() {}
