//! `POST /mcp`: the relay as a remote MCP server (JSON-RPC 2.0 over Streamable HTTP in its
//! simplest form: one message per POST, one JSON answer, no event stream, no session).
//! Normative description: docs/mcp.md.
//!
//! Layout, one-way: [`jsonrpc`] frames messages; [`version`] tells session-less from stateless
//! (2026-07-28) clients and checks their headers; [`tools`] defines the four tools and the route
//! each forwards to; [`info`] is what the server says about itself; [`dispatch`] plans an
//! answer without side effects; [`forward`] calls the relay's own routes in-process;
//! [`origin`] knows the relay's origin; [`events`] answers the reply-event methods (MCP
//! Events extension); [`http`] runs it all for one request.

mod dispatch;
mod events;
mod forward;
mod http;
mod info;
mod jsonrpc;
/// The relay's origin; the OAuth metadata routes can share it.
pub(crate) mod origin;
mod tools;
mod version;

/// The pure parts of `POST /mcp` (framing, client checks, planning), for the fuzz targets in
/// crates/herald-fuzz-targets and fuzz/. Not an API: no side effects, no relay state.
#[doc(hidden)]
pub mod fuzzing {
    pub use super::dispatch::{plan, Plan, Reply};
    pub use super::events::EventsMethod;
    pub use super::jsonrpc::{classify, encode, Incoming, RequestId, RpcError};
    pub use super::tools::ToolRequest;
    pub use super::version::ClientKind;
}

use axum::routing::post;
use axum::Router;

use crate::state::AppState;

/// What the `/mcp` handlers hold: the relay state and the relay's own routes (`api`), which
/// tool calls and status checks are sent through in-process.
#[derive(Clone)]
pub(crate) struct Mcp {
    state: AppState,
    api: Router,
}

/// The `/mcp` route over `api`, the relay's other routes with their state applied. Merge the
/// result with `api`.
pub(crate) fn router(state: AppState, api: Router) -> Router {
    Router::new()
        .route("/mcp", post(http::post).fallback(http::not_allowed))
        .with_state(Mcp { state, api })
}
