//! `GET /openapi.json`: the OpenAPI 3.1 document of every route the relay serves
//! (docs/openapi.md).
//!
//! Generated with utoipa. Body schemas come from the wire types themselves (herald-protocol
//! derives `utoipa::ToSchema` under its `openapi` feature); the operations are declared in this
//! module, one file per group of routes, as `#[utoipa::path]` items named after the handlers
//! they describe. The router (`routes/mod.rs` and the routers it merges) stays the only source
//! of routing: `tests/integration/openapi.rs` reads every `.route(...)` of the relay's source and fails when
//! a route is missing from this document or the document names a route the router lacks, and
//! schemathesis (`tests/openapi/run.sh`) checks a live relay against it.
//!
//! Added to every operation by [`CommonResponses`]: `500 internal`, and `401`/`403` on the
//! routes agent credentials may not call (the least-privilege layer answers them before the
//! route runs).

mod agents;
mod devices;
mod inbox;
mod messages;
mod oauth;
mod responses;
mod schemas;
mod security;

use std::sync::OnceLock;

use axum::body::Bytes;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use utoipa::openapi::path::Operation;
use utoipa::openapi::{RefOr, Response as OaResponse};
use utoipa::{Modify, OpenApi, ToResponse};

/// The document's frame: info, tags and shared components. [`document`] adds the operations
/// of the files of this module and the shared responses.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Herald relay",
        description = "The Herald relay's HTTP API: the end-to-end encrypted inbox (accounts, \
                       keys, devices, messages, files, secrets), agent notifications, the OAuth \
                       device flow of connectors, and the MCP endpoint. Normative description: \
                       docs/protocol.md, docs/devices.md, docs/files.md, docs/secrets.md, \
                       docs/agents.md, docs/mcp.md. Every error body is `ErrorBody` \
                       (`{\"error\", \"message\", \"fields\"}`) with the status of its code \
                       (OAuth token errors add `error_description`).",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    components(
        schemas(
            herald_protocol::ErrorBody,
            herald_protocol::wire::ServerFrame,
        ),
        responses(
            responses::Unauthorized,
            responses::Forbidden,
            responses::NotFound,
            responses::PayloadTooLarge,
            responses::RateLimited,
            responses::BudgetExceeded,
            responses::Internal,
        ),
    ),
    tags(
        (name = "inbox", description = "Accounts, connections and the key directory (docs/protocol.md)."),
        (name = "messages", description = "Messages, requests, answers and threads (docs/protocol.md)."),
        (name = "files", description = "Encrypted files (docs/files.md)."),
        (name = "secrets", description = "Secret answers and secret offers (docs/secrets.md)."),
        (name = "devices", description = "More devices: recovery, enrolment, pairing, revocation, reset (docs/devices.md)."),
        (name = "agents", description = "Agent endpoints for agent keys and connectors (docs/agents.md)."),
        (name = "agent-admin", description = "A device's management of agent keys, connectors, notifications and quiet hours (docs/agents.md)."),
        (name = "oauth", description = "OAuth metadata and the device authorization grant of connectors (docs/agents.md)."),
        (name = "mcp", description = "The relay as a remote MCP server (docs/mcp.md)."),
        (name = "meta", description = "Health, live updates and this document."),
    ),
)]
pub struct ApiDoc;

/// Adds the responses every operation shares: `500 internal`, and `401`/`403` on the routes
/// an agent credential may not call.
struct CommonResponses;

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let agent_path = crate::agents::auth::agent_may_call(path);
            for operation in operations(item) {
                add(operation, "500", responses::Internal::response());
                if !agent_path {
                    add(operation, "401", responses::Unauthorized::response());
                    add(operation, "403", responses::Forbidden::response());
                }
            }
        }
    }
}

/// Every operation of a path item.
fn operations(item: &mut utoipa::openapi::PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        item.get.as_mut(),
        item.put.as_mut(),
        item.post.as_mut(),
        item.delete.as_mut(),
        item.options.as_mut(),
        item.head.as_mut(),
        item.patch.as_mut(),
        item.trace.as_mut(),
    ]
    .into_iter()
    .flatten()
}

/// Adds a reference to the shared response `(name, _)` under `status`, unless the operation
/// documents that status itself.
fn add(operation: &mut Operation, status: &str, (name, _): (&str, RefOr<OaResponse>)) {
    let responses = &mut operation.responses.responses;
    if !responses.contains_key(status) {
        responses.insert(
            status.to_owned(),
            RefOr::Ref(utoipa::openapi::Ref::from_response_name(name)),
        );
    }
}

/// The whole document: [`ApiDoc`] with every group of operations merged in (each group owns
/// its paths: no path is declared in two groups), then the security schemes and the shared
/// responses.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    for group in [
        inbox::InboxApi::openapi(),
        messages::MessagesApi::openapi(),
        devices::DevicesApi::openapi(),
        agents::AgentsApi::openapi(),
        oauth::OAuthApi::openapi(),
    ] {
        doc.merge(group);
    }
    security::SecuritySchemes.modify(&mut doc);
    CommonResponses.modify(&mut doc);
    doc
}

/// The document as JSON, as `GET /openapi.json` serves it: [`document`] plus what utoipa
/// cannot say: the shared responses' headers are `required` (every 401 carries
/// `WWW-Authenticate`, every budget and `rate_limited` 429 `Retry-After`).
pub fn document_json() -> serde_json::Value {
    let mut json = serde_json::to_value(document()).unwrap_or_default();
    for (response, header) in [
        ("Unauthorized", responses::WWW_AUTHENTICATE),
        ("BudgetExceeded", responses::RETRY_AFTER),
        ("RateLimited", responses::RETRY_AFTER),
    ] {
        if let Some(header) = json
            .pointer_mut(&format!(
                "/components/responses/{response}/headers/{header}"
            ))
            .and_then(serde_json::Value::as_object_mut)
        {
            header.insert("required".into(), true.into());
        }
    }
    json
}

/// [`document_json`] serialized, built once.
fn json() -> &'static Bytes {
    static JSON: OnceLock<Bytes> = OnceLock::new();
    JSON.get_or_init(|| match serde_json::to_vec(&document_json()) {
        Ok(bytes) => Bytes::from(bytes),
        // Serializing a JSON value cannot fail; keep the route answering JSON regardless.
        Err(e) => {
            tracing::error!(error = %e, "serializing the OpenAPI document failed");
            Bytes::from_static(b"{}")
        }
    })
}

/// `GET /openapi.json` (no credential): this document.
pub(crate) async fn serve() -> Response {
    let mut response = json().clone().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
