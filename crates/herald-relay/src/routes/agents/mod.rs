//! The agent side's routes (docs/agents.md):
//! - agent endpoints, for agent keys and connector tokens: `POST /v1/notify`,
//!   `GET /v1/receipts/{notificationId}`, `GET /v1/replies/{notificationId}?wait=N`,
//!   `GET /v1/status` (`notify.rs`);
//! - OAuth device flow and metadata, no credential: `/.well-known/oauth-protected-resource`,
//!   `/.well-known/oauth-authorization-server`, `POST /oauth/device_authorization`,
//!   `POST /oauth/token`, `GET /oauth/device` (`oauth.rs`);
//! - device routes, device session only: `/agent-keys` (`keys.rs`), `/connectors`
//!   (`connectors.rs`), `/notifications` and `/quiet-hours` (`device.rs`).

mod connectors;
mod device;
mod keys;
mod notify;
mod oauth;

use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use axum::Router;

use crate::state::AppState;

/// The agent side's routes, merged into the relay's router.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/notify", post(notify::notify))
        .route("/v1/receipts/{id}", get(notify::receipt_route))
        .route("/v1/replies/{id}", get(notify::replies))
        .route("/v1/status", get(notify::status))
        .route(
            "/.well-known/oauth-protected-resource",
            get(oauth::protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(oauth::protected_resource),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::authorization_server),
        )
        .route(
            "/oauth/device_authorization",
            post(oauth::device_authorization),
        )
        .route("/oauth/token", post(oauth::token))
        .route("/oauth/device", get(oauth::device_page))
        .route("/agent-keys", post(keys::create).get(keys::list))
        .route("/agent-keys/{id}", delete(keys::revoke))
        .route("/connectors", get(connectors::list))
        .route("/connectors/approve", post(connectors::approve))
        .route("/connectors/deny", post(connectors::deny))
        .route("/connectors/{id}", delete(connectors::revoke))
        .route("/notifications", get(device::feed))
        .route("/notifications/{id}/receipt", post(device::receipt_update))
        .route("/notifications/{id}/reply", post(device::reply))
        .route(
            "/quiet-hours",
            get(device::get_quiet_hours).put(device::put_quiet_hours),
        )
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

/// Body limit of every agent-side route (a notify body is at most ~20 KB of text).
const BODY_LIMIT: usize = 64 * 1024;
