//! What the relay says about itself: server info, the instructions text, and the bodies of
//! `initialize` and `server/discover` (docs/mcp.md).

use serde_json::{json, Value};

use super::version::{SERVER_INFO_META, SUPPORTED_VERSIONS};

/// `serverInfo.name`.
pub const SERVER_NAME: &str = "herald-relay";
/// `serverInfo.title`.
pub const SERVER_TITLE: &str = "Herald cloud relay";
/// `serverInfo.version`: the relay crate's version.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The instructions given to `initialize` and `server/discover`: the tools, how an agent gets a
/// credential (agent key or OAuth device flow), and the reply event.
pub const INSTRUCTIONS: &str = "\
Herald reaches the user on their own computer. Send notifications to the user's Mac with \
send_notification (title required; text and presentation fields only: buttons, commands, \
callbacks and scripts are refused). Read what happened to it with get_receipt (received, \
displayed, spoken, replied, suppressed by quiet hours). When you set expectReply, wait for the \
answer with wait_for_reply: each call waits at most 55 seconds and returns timedOut: true when \
nothing came, so call it again to keep waiting. Call herald_status first when you need a fast \
answer: it says whether the user's Herald is online and whether quiet hours are on. \
Notifications are not end-to-end encrypted: the relay sees them in transit and stores them \
sealed to the user's account key. \
Credentials: send an agent key (hrk_...) the user created in Herald, or a connector token \
(hra_...) from the OAuth device flow: read /.well-known/oauth-protected-resource, ask the \
authorization server's device authorization endpoint for a user code, have the user approve \
that code in the Herald desktop app, then poll the token endpoint. A connector token works \
until the user revokes it. \
Reply event: a 2026-07-28 client can be told the moment the user answers instead of waiting. \
The relay offers the MCP Events extension (io.modelcontextprotocol/events) with one event, \
notification.replied, delivered by webhook only: call events/subscribe with arguments \
{notificationId} (or none, for every notification you send) and delivery {url: an https URL \
you control, secret: whsec_ followed by the base64 of 24 to 64 random bytes}. The relay first \
POSTs a signed verification challenge that your endpoint must echo, then POSTs each reply \
(the wait_for_reply answer) signed per Standard Webhooks with your secret (webhook-id, \
webhook-timestamp, webhook-signature, X-MCP-Subscription-Id). Subscribe again before \
refreshBefore to keep it; events/unsubscribe ends it. Other clients call wait_for_reply, \
which returns as soon as the user answers.";

/// `ttlMs` of cacheable 2026-07-28 results (`tools/list`, `server/discover`): 0, the answer
/// may not be reused.
pub const CACHE_TTL_MS: u64 = 0;
/// `cacheScope` of cacheable 2026-07-28 results: only for this caller.
pub const CACHE_SCOPE: &str = "private";

/// `{name, title, version}`.
pub fn server_info() -> Value {
    json!({ "name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION })
}

/// The result `_meta` of a stateless reply: the server's name, title and version.
pub fn stateless_meta() -> Value {
    json!({ SERVER_INFO_META: server_info() })
}

/// The server's capabilities: tools only, and the tool list never changes.
pub fn capabilities() -> Value {
    json!({ "tools": { "listChanged": false } })
}

/// The capabilities `server/discover` reports: the tools, and the Events extension
/// (`extensions["io.modelcontextprotocol/events"]`, SEP-3415) for the reply event. The same
/// settings also appear as a top-level `events` member, the form earlier drafts of the
/// extension used and some clients still read. `initialize` (session-less) has neither.
pub fn discover_capabilities() -> Value {
    json!({
        "tools": { "listChanged": false },
        "extensions": { super::events::EXTENSION_ID: { "listChanged": false } },
        "events": { "listChanged": false },
    })
}

/// The `initialize` result for the negotiated `version`.
pub fn initialize(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
}

/// The `server/discover` result (before the stateless additions): every supported version,
/// the capabilities, the instructions, and caching hints (`ttlMs` 0: do not reuse;
/// `cacheScope` private).
pub fn discover() -> Value {
    json!({
        "supportedVersions": SUPPORTED_VERSIONS,
        "capabilities": discover_capabilities(),
        "instructions": INSTRUCTIONS,
        "ttlMs": CACHE_TTL_MS,
        "cacheScope": CACHE_SCOPE,
    })
}
