//! Operations of `routes/agents/` but OAuth: the agent endpoints (`/v1/*`) and a device's
//! agent keys, connectors, notification feed and quiet hours (docs/agents.md).
#![allow(dead_code)] // the functions only carry `#[utoipa::path]`

use herald_protocol::agents::{
    AgentKeyCreated, AgentKeyList, ApproveConnectorRequest, ConnectorInfo, ConnectorList,
    CreateAgentKeyRequest, DenyConnectorRequest,
};
use herald_protocol::notify::{
    NotificationPage, NotificationRecord, NotifyRequest, QuietHours, QuietHoursView, Receipt,
    ReceiptUpdate, ReplyRequest, ReplyResult, StatusResponse,
};
use herald_protocol::{AgentKeyId, ConnectorId, ErrorBody, NotificationId};
use utoipa::OpenApi;

use super::responses::{BudgetExceeded, Forbidden, NotFound, PayloadTooLarge, Unauthorized};

/// Agent endpoints and their administration by devices.
#[derive(OpenApi)]
#[openapi(paths(
    notify,
    receipt,
    replies,
    status,
    create_agent_key,
    list_agent_keys,
    revoke_agent_key,
    list_connectors,
    approve_connector,
    deny_connector,
    revoke_connector,
    notification_feed,
    notification_receipt,
    notification_reply,
    get_quiet_hours,
    put_quiet_hours,
))]
pub(super) struct AgentsApi;

/// Send a notification to the account's devices.
#[utoipa::path(
    post,
    path = "/v1/notify",
    tag = "agents",
    operation_id = "notify",
    request_body = NotifyRequest,
    security(("agentKey" = []), ("connector" = [])),
    responses(
        (status = 201, description = "Stored and sealed; the receipt with `duplicate: false`.", body = Receipt),
        (status = 200, description = "The `notificationId` was seen before: its receipt with `duplicate: true`, nothing queued.", body = Receipt),
        (status = 400, description = "`bad_request` (not a JSON object), `forbidden_fields` (fields outside the whitelist, listed in `fields`), `invalid_request` (whitelisted fields break their rule: every one listed in `fields`).", body = ErrorBody),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 413, response = PayloadTooLarge),
        (status = 429, response = BudgetExceeded),
    )
)]
fn notify() {}

/// A notification's receipt (kept 24 hours).
#[utoipa::path(
    get,
    path = "/v1/receipts/{notificationId}",
    tag = "agents",
    operation_id = "getReceipt",
    params(("notificationId" = String, Path, description = "The agent's `notificationId` (or the one the relay made).")),
    security(("agentKey" = []), ("connector" = [])),
    responses(
        (status = 200, description = "The receipt.", body = Receipt),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = NotFound),
        (status = 429, response = BudgetExceeded),
    )
)]
fn receipt() {}

/// A notification's reply, waiting up to `wait` seconds for it.
#[utoipa::path(
    get,
    path = "/v1/replies/{notificationId}",
    tag = "agents",
    operation_id = "getReply",
    params(
        ("notificationId" = String, Path, description = "The agent's `notificationId`."),
        ("wait" = Option<u64>, Query, minimum = 0, maximum = 60, description = "Seconds to wait for a reply, 0–60 (default 0); spent from the daily poll budget."),
    ),
    security(("agentKey" = []), ("connector" = [])),
    responses(
        (status = 200, description = "The reply, or `replied: false` (with `timedOut: true` when one may still come).", body = ReplyResult),
        (status = 400, description = "`invalid_request` (`wait`).", body = ErrorBody),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 404, response = NotFound),
        (status = 429, response = BudgetExceeded),
    )
)]
fn replies() {}

/// Whether a device is online, when one was last seen, and whether quiet hours hold.
#[utoipa::path(
    get,
    path = "/v1/status",
    tag = "agents",
    operation_id = "getStatus",
    security(("agentKey" = []), ("connector" = [])),
    responses(
        (status = 200, description = "Exactly `online`, `lastSeenAt`, `quietHours`.", body = StatusResponse),
        (status = 401, response = Unauthorized),
        (status = 403, response = Forbidden),
        (status = 429, response = BudgetExceeded),
    )
)]
fn status() {}

/// Make an agent key.
#[utoipa::path(
    post,
    path = "/agent-keys",
    tag = "agent-admin",
    operation_id = "createAgentKey",
    request_body = CreateAgentKeyRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 201, description = "Made; `key` (`hrk_…`) is shown once.", body = AgentKeyCreated),
        (status = 400, description = "`bad_request` or `invalid_request` (`name`).", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn create_agent_key() {}

/// The account's agent keys, oldest first, revoked ones included.
#[utoipa::path(
    get,
    path = "/agent-keys",
    tag = "agent-admin",
    operation_id = "listAgentKeys",
    security(("deviceSession" = [])),
    responses((status = 200, description = "The keys (never their secrets).", body = AgentKeyList))
)]
fn list_agent_keys() {}

/// Revoke an agent key: 401 from its next request on.
#[utoipa::path(
    delete,
    path = "/agent-keys/{id}",
    tag = "agent-admin",
    operation_id = "revokeAgentKey",
    params(("id" = AgentKeyId, Path, description = "The agent key.")),
    security(("deviceSession" = [])),
    responses(
        (status = 204, description = "Revoked."),
        (status = 404, response = NotFound),
        (status = 409, description = "`already_revoked`: it was revoked before; nothing changed.", body = ErrorBody),
    )
)]
fn revoke_agent_key() {}

/// The account's connectors, oldest first, revoked ones included.
#[utoipa::path(
    get,
    path = "/connectors",
    tag = "agent-admin",
    operation_id = "listConnectors",
    security(("deviceSession" = [])),
    responses((status = 200, description = "The connectors.", body = ConnectorList))
)]
fn list_connectors() {}

/// Approve the connector showing a user code.
#[utoipa::path(
    post,
    path = "/connectors/approve",
    tag = "agent-admin",
    operation_id = "approveConnector",
    request_body = ApproveConnectorRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "Approved; the connector collects its token with its next poll.", body = ConnectorInfo),
        (status = 400, description = "`bad_request` or `invalid_request` (`userCode`, `name`).", body = ErrorBody),
        (status = 404, description = "`not_found` (`userCode`): no connector waits with this code.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn approve_connector() {}

/// Deny the connector showing a user code.
#[utoipa::path(
    post,
    path = "/connectors/deny",
    tag = "agent-admin",
    operation_id = "denyConnector",
    request_body = DenyConnectorRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 204, description = "Denied; its next poll gets `access_denied`."),
        (status = 400, description = "`bad_request` or `invalid_request` (`userCode`).", body = ErrorBody),
        (status = 404, description = "`not_found` (`userCode`): no connector waits with this code.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn deny_connector() {}

/// Revoke a connector: 401 from its next request on.
#[utoipa::path(
    delete,
    path = "/connectors/{id}",
    tag = "agent-admin",
    operation_id = "revokeConnector",
    params(("id" = ConnectorId, Path, description = "The connector.")),
    security(("deviceSession" = [])),
    responses(
        (status = 204, description = "Revoked."),
        (status = 404, response = NotFound),
        (status = 409, description = "`already_revoked`: it was revoked before; nothing changed.", body = ErrorBody),
    )
)]
fn revoke_connector() {}

/// The device feed of sealed notifications, by revision.
#[utoipa::path(
    get,
    path = "/notifications",
    tag = "agent-admin",
    operation_id = "notificationFeed",
    params(
        ("after" = Option<u64>, Query, description = "Revision cursor, 0 to 2^63 − 1 (default 0)."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1–500 (default 100)."),
    ),
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "A page.", body = NotificationPage),
        (status = 400, description = "`invalid_request` (`after` or `limit`).", body = ErrorBody),
    )
)]
fn notification_feed() {}

/// Set receipts of a notification (displayed, spoken, suppressed; only `true`).
#[utoipa::path(
    post,
    path = "/notifications/{id}/receipt",
    tag = "agent-admin",
    operation_id = "notificationReceipt",
    params(("id" = NotificationId, Path, description = "The notification.")),
    request_body = ReceiptUpdate,
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "The record with its receipt.", body = NotificationRecord),
        (status = 400, description = "`bad_request` or `invalid_request` (a `false`, or nothing set).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn notification_receipt() {}

/// The one typed reply to a notification that expects one.
#[utoipa::path(
    post,
    path = "/notifications/{id}/reply",
    tag = "agent-admin",
    operation_id = "notificationReply",
    params(("id" = NotificationId, Path, description = "The notification.")),
    request_body = ReplyRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "The record with its receipt.", body = NotificationRecord),
        (status = 400, description = "`bad_request` or `invalid_request` (`text`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`not_a_request` (no reply expected), `already_answered`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn notification_reply() {}

/// The account's quiet hours and whether they hold now.
#[utoipa::path(
    get,
    path = "/quiet-hours",
    tag = "agent-admin",
    operation_id = "getQuietHours",
    security(("deviceSession" = [])),
    responses((status = 200, description = "The settings (defaults when never set).", body = QuietHoursView))
)]
fn get_quiet_hours() {}

/// Set the account's quiet hours.
#[utoipa::path(
    put,
    path = "/quiet-hours",
    tag = "agent-admin",
    operation_id = "putQuietHours",
    request_body = QuietHours,
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "The settings as stored.", body = QuietHoursView),
        (status = 400, description = "`bad_request` or `invalid_request` (`start`, `end`, `timezone`).", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn put_quiet_hours() {}
