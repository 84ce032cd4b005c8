//! The inbox API: one module per resource. Handlers parse and check shapes, call the store on
//! the blocking pool, nudge sockets, and answer with wire types from herald-protocol or an
//! error from the catalog.

mod accounts;
mod agents;
mod connections;
mod device_checks;
mod devices;
mod epoch;
mod files;
mod keys;
mod messages;
mod paging;
mod pairings;
mod path_check;
mod relay_date;
mod secrets;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use herald_protocol::wire::MAX_ENVELOPE_BYTES;
use herald_protocol::ErrorCode;
use serde::de::DeserializeOwned;
use tower_http::trace::TraceLayer;

use crate::error::ApiError;
use crate::state::AppState;

/// Body limit of the small routes (accounts, connections).
const SMALL_BODY_LIMIT: usize = 64 * 1024;
/// Body limit of routes carrying an envelope: the envelope limit plus room for the JSON around
/// it. Larger envelopes inside the limit are refused by the envelope check, also with 413.
const ENVELOPE_BODY_LIMIT: usize = MAX_ENVELOPE_BYTES + 64 * 1024;

/// The relay's routes over `state`.
pub fn router(state: AppState) -> Router {
    let small = Router::new()
        .route("/accounts", post(accounts::create))
        .route(
            "/connections",
            post(connections::create).get(connections::list),
        )
        .route("/connections/{id}", delete(connections::revoke))
        .route("/keys", get(keys::get))
        .route("/keys/backup", get(keys::get_backup).put(keys::put_backup))
        .route(
            "/keys/backup/{recovery_key_id}",
            get(devices::backup_by_key_id),
        )
        .route("/keys/devices", post(devices::enrol).get(devices::list))
        .route("/keys/devices/{id}", delete(devices::revoke))
        .route("/keys/bundle", get(devices::bundle))
        .route("/keys/reset", post(devices::reset))
        .route("/keys/pairings", post(pairings::create).get(pairings::list))
        .route("/keys/pairings/{id}", get(pairings::get))
        .route("/keys/pairings/{id}/response", post(pairings::respond))
        .route("/keys/pairings/{id}/confirmation", post(pairings::confirm))
        .route("/keys/pairings/{id}/failed", post(pairings::fail))
        .route("/keys/pairings/{id}/complete", post(pairings::complete))
        .route("/health", get(health))
        .route("/openapi.json", get(crate::openapi::serve))
        .route("/ws", get(crate::ws::upgrade))
        .route("/messages", get(messages::list))
        .route("/messages/{id}", get(messages::get))
        .route("/messages/{id}/thread", get(messages::thread))
        .route("/messages/{id}/cancel", post(messages::cancel))
        .route("/files", post(files::reserve))
        .route(
            "/messages/{id}/secret/collect",
            post(secrets::collect_answer),
        )
        .route(
            "/messages/{id}/offer-key",
            get(secrets::offer_state).put(secrets::put_offer_key),
        )
        .route(
            "/messages/{id}/secret-payload/collect",
            post(secrets::collect_payload),
        )
        .layer(DefaultBodyLimit::max(SMALL_BODY_LIMIT));
    let envelopes = Router::new()
        .route("/messages", post(messages::send))
        .route("/messages/{id}/answer", post(messages::answer))
        .route("/messages/{id}/secret-payload", post(secrets::put_payload))
        .layer(DefaultBodyLimit::max(ENVELOPE_BODY_LIMIT));
    // Streams up to the reserved size; the handler stops one byte past it.
    let uploads = Router::new()
        .route("/files/{id}", get(files::download).put(files::upload))
        .layer(DefaultBodyLimit::max(files::UPLOAD_BODY_LIMIT));
    let api: Router = small
        .merge(envelopes)
        .merge(uploads)
        .merge(agents::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // A non-UTF-8 id: the catalog's 404, not axum's 400 text/plain (docs/openapi.md).
        .layer(axum::middleware::from_fn(path_check::utf8_path))
        // Agent credentials may call only /v1/* and /mcp (docs/agents.md).
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::agents::auth::least_privilege,
        ))
        .with_state(state.clone());
    // POST /mcp sends its tool calls through `api` in-process (docs/mcp.md).
    let clock = state.clone();
    crate::mcp::router(state, api.clone())
        .merge(api)
        // Every 429 says when to retry (docs/protocol.md, "Connection limits").
        .layer(axum::middleware::map_response_with_state(
            clock.clone(),
            crate::limits::retry_after,
        ))
        // `Date` from the relay's clock: clients judge expiry by it (docs/faults.md).
        .layer(axum::middleware::map_response_with_state(
            clock,
            relay_date::relay_date,
        ))
        .layer(TraceLayer::new_for_http())
}

async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "ok": true }))
}

async fn not_found() -> ApiError {
    ApiError::not_found()
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(ErrorCode::MethodNotAllowed)
}

/// A JSON body, with the raw bytes kept (idempotency hashes them), read by herald-protocol's
/// strict reader (`herald_protocol::json`, shared with the CLI and `herald mcp`). Over the
/// route's limit → 413 `payload_too_large`; not JSON, a key given twice in one object, or not
/// the expected shape → 400 `bad_request` naming the offending path in `fields` when known
/// (`{"error": "bad_request", "message": "The request body …: expiresIn: expected a whole
/// number ≥ 0, found a string", "fields": ["expiresIn"]}`). Messages never echo input values.
pub struct JsonBody<T> {
    pub value: T,
    pub raw: Bytes,
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let raw = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(ErrorCode::PayloadTooLarge)
            } else {
                ApiError::new(ErrorCode::BadRequest)
            }
        })?;
        let value = herald_protocol::json::from_slice::<T>(&raw).map_err(|e| bad_json(&e))?;
        Ok(JsonBody { value, raw })
    }
}

/// The 400 for a body the strict reader refused: what is wrong, and `fields` = its path.
pub(crate) fn bad_json(e: &herald_protocol::json::JsonError) -> ApiError {
    let message = if e.syntax {
        format!("The request body is not valid JSON: {}.", e.message)
    } else {
        format!("The request body does not have the expected shape: {e}.")
    };
    let err = ApiError::with_message(ErrorCode::BadRequest, message);
    if e.path.is_empty() {
        err
    } else {
        err.fields([e.path.clone()])
    }
}
