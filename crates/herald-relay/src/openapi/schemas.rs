//! Schemas of bodies the relay builds or parses itself rather than through a herald-protocol
//! type: the health answer, the OAuth form bodies and token errors (RFC 8628 names), and
//! JSON-RPC messages of `POST /mcp`. Each mirrors the code named in its doc comment.

use utoipa::ToSchema;

/// `GET /health` (`routes::health`).
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only
pub struct Health {
    /// Always `true`.
    ok: bool,
}

/// `POST /oauth/device_authorization` form (`routes/agents/oauth.rs`,
/// `application/x-www-form-urlencoded`; each parameter at most once).
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only
pub struct DeviceAuthorizationForm {
    /// The connector's OAuth client id, 1–200 characters, no control characters.
    #[schema(min_length = 1, max_length = 200)]
    client_id: String,
    /// Shown to the person on approval; at most 100 characters, no control or bidirectional
    /// formatting characters.
    #[schema(max_length = 100)]
    client_name: Option<String>,
    /// Requested scope; the one scope granted is `notify`.
    scope: Option<String>,
}

/// `POST /oauth/token` form (`routes/agents/oauth.rs`; RFC 8628 §3.4).
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only
pub struct TokenForm {
    /// `urn:ietf:params:oauth:grant-type:device_code`.
    grant_type: String,
    /// The `device_code` of `POST /oauth/device_authorization`.
    device_code: String,
    /// The same `client_id` as in the authorization request.
    client_id: String,
}

/// An OAuth error (`OAuthErrorBody` in `routes/agents/oauth.rs`): the catalog's error body
/// plus RFC 6749's `error_description`, equal to `message`.
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only
pub struct OAuthError {
    /// `invalid_request`, `unsupported_grant_type`, `authorization_pending`, `slow_down`,
    /// `access_denied`, `expired_token` or `invalid_grant`.
    #[schema(value_type = herald_protocol::ErrorCode)]
    error: String,
    error_description: String,
    message: String,
    fields: Vec<String>,
}

/// One JSON-RPC 2.0 message (`mcp/jsonrpc.rs`): a request (`id` and `method`), a notification
/// (`method`, no `id`) or a response. Tools and methods: docs/mcp.md.
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only
pub struct JsonRpcMessage {
    /// `2.0`.
    jsonrpc: String,
    /// A string or a number; absent in a notification.
    id: Option<serde_json::Value>,
    /// e.g. `initialize`, `ping`, `tools/list`, `tools/call`, `server/discover`.
    method: Option<String>,
    /// An object.
    params: Option<serde_json::Value>,
}

/// The JSON-RPC 2.0 answer (`mcp/jsonrpc.rs`): `result` or `error`. A tool's failure is a
/// result with `isError: true` and the route's error body as structured content.
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only
pub struct JsonRpcResponse {
    /// `2.0`.
    jsonrpc: String,
    /// The request's id (`null` when it could not be read).
    id: serde_json::Value,
    /// The method's result.
    result: Option<serde_json::Value>,
    /// `{code, message, data?}`.
    error: Option<JsonRpcError>,
}

/// A JSON-RPC error object.
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only
pub struct JsonRpcError {
    /// -32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid
    /// params, -32603 internal, -32000 server error, -32020 header mismatch, -32022
    /// unsupported protocol version.
    code: i64,
    message: String,
    data: Option<serde_json::Value>,
}

/// Raw bytes of an encrypted file (`application/octet-stream` bodies of `/files/{id}`).
pub struct Binary;

impl utoipa::PartialSchema for Binary {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
            .content_media_type("application/octet-stream")
            .description(Some(
                "Raw bytes: an age file (docs/files.md), opaque to the relay.",
            ))
            .into()
    }
}

impl ToSchema for Binary {}
