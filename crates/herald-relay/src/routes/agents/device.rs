//! Device routes of the notification side (device session only; docs/agents.md):
//! - `GET /notifications?after=<cursor>&limit=<n>`: the feed of the account's notifications
//!   changed after a revision (sealed content + receipt), like `GET /messages`;
//! - `POST /notifications/{id}/receipt {displayed?, spoken?, suppressed?}`: stamps each by the
//!   relay's clock, once (repeats change nothing);
//! - `POST /notifications/{id}/reply {text}`: the one typed reply (1–4,000 characters), only
//!   when the notification expects one; wakes waiting `GET /v1/replies`;
//! - `GET /quiet-hours`, `PUT /quiet-hours {enabled, start, end, timezone}`.
//!
//! Every change takes the account's next revision and nudges the account's sockets.

use axum::extract::{Path, RawQuery, State};
use axum::Json;
use herald_protocol::notify::{
    NotificationPage, NotificationRecord, NotificationSource, QuietHours, QuietHoursView,
    ReceiptUpdate, ReplyRequest, DEFAULT_NOTIFICATION_PAGE, MAX_NOTIFICATION_PAGE, MAX_REPLY_CHARS,
};
use herald_protocol::{AccountId, NotificationId, Revision};

use super::super::JsonBody;
use super::notify::receipt;
use crate::agents::quiet;
use crate::auth::DeviceAuth;
use crate::error::ApiError;
use crate::hub::Change;
use crate::state::AppState;
use crate::store::agents::{NotificationRow, ReceiptFlags};

fn record(row: NotificationRow) -> NotificationRecord {
    NotificationRecord {
        receipt: receipt(&row, None),
        id: row.id,
        revision: row.revision,
        source: NotificationSource {
            kind: row.source_kind,
            id: row.source_id,
            name: row.source_name,
        },
        sealed: row.sealed,
    }
}

fn nudge(state: &AppState, account: &AccountId, revision: Revision) {
    state.hub().publish(
        account,
        Change::Message {
            revision,
            sender_connection: None,
        },
    );
}

/// `after` and `limit` of `GET /notifications`.
fn page_query(raw: Option<&str>) -> Result<(Revision, u32), ApiError> {
    super::super::paging::page_query(raw, DEFAULT_NOTIFICATION_PAGE, MAX_NOTIFICATION_PAGE)
}

pub(super) async fn feed(
    State(state): State<AppState>,
    auth: DeviceAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<NotificationPage>, ApiError> {
    let (after, limit) = page_query(query.as_deref())?;
    let account = auth.account.clone();
    let (rows, has_more) = state
        .agent_store(move |s| s.notifications_after(&account, after, limit))
        .await?;
    let cursor = rows.last().map(|r| r.revision).unwrap_or(after);
    Ok(Json(NotificationPage {
        records: rows.into_iter().map(record).collect(),
        cursor,
        has_more,
    }))
}

fn notification_id(raw: &str) -> Result<NotificationId, ApiError> {
    NotificationId::parse(raw).ok_or_else(ApiError::not_found)
}

pub(super) async fn receipt_update(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
    JsonBody { value: update, .. }: JsonBody<ReceiptUpdate>,
) -> Result<Json<NotificationRecord>, ApiError> {
    let id = notification_id(&id)?;
    for (name, value) in [
        ("displayed", update.displayed),
        ("spoken", update.spoken),
        ("suppressed", update.suppressed),
    ] {
        if value == Some(false) {
            return Err(ApiError::invalid(
                name,
                "A receipt can only be set (true), never taken back.",
            ));
        }
    }
    let flags = ReceiptFlags {
        displayed: update.displayed == Some(true),
        spoken: update.spoken == Some(true),
        suppressed: update.suppressed == Some(true),
    };
    if !(flags.displayed || flags.spoken || flags.suppressed) {
        return Err(ApiError::invalid(
            "displayed",
            "Set at least one of displayed, spoken, suppressed.",
        ));
    }
    let (account, now) = (auth.account.clone(), state.now());
    let (row, changed) = state
        .agent_store(move |s| s.set_receipts(&account, &id, flags, now))
        .await?;
    if changed {
        nudge(&state, &auth.account, row.revision);
    }
    Ok(Json(record(row)))
}

pub(super) async fn reply(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<ReplyRequest>,
) -> Result<Json<NotificationRecord>, ApiError> {
    let id = notification_id(&id)?;
    let text = req.text;
    let allowed = |c: char| c == '\n' || c == '\t' || c == '\r';
    if text.trim().is_empty()
        || text.chars().count() > MAX_REPLY_CHARS
        || text.chars().any(|c| c.is_control() && !allowed(c))
    {
        return Err(ApiError::invalid(
            "text",
            "A reply has 1 to 4,000 characters and no control characters but line breaks and tabs.",
        ));
    }
    let (account, now) = (auth.account.clone(), state.now());
    let row = state
        .agent_store(move |s| s.set_reply(&account, &id, &text, now))
        .await?;
    nudge(&state, &auth.account, row.revision);
    tracing::info!(account = %auth.account, notification = %row.id, "notification replied");
    // The reply event (docs/mcp.md): webhook deliveries on background tasks, never awaited.
    match serde_json::to_value(super::notify::reply_result(&row, false)) {
        Ok(data) => state.reply_posted(&auth.account, &row, data),
        Err(e) => tracing::error!(error = %e, "building the reply event failed"),
    }
    Ok(Json(record(row)))
}

async fn view(state: &AppState, account: &AccountId) -> Result<QuietHoursView, ApiError> {
    let owned = account.clone();
    let settings = state
        .agent_store(move |s| s.quiet_hours(&owned))
        .await?
        .unwrap_or_default();
    Ok(QuietHoursView {
        active: quiet::active(&settings, state.now()),
        settings,
    })
}

pub(super) async fn get_quiet_hours(
    State(state): State<AppState>,
    auth: DeviceAuth,
) -> Result<Json<QuietHoursView>, ApiError> {
    Ok(Json(view(&state, &auth.account).await?))
}

pub(super) async fn put_quiet_hours(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody {
        value: settings, ..
    }: JsonBody<QuietHours>,
) -> Result<Json<QuietHoursView>, ApiError> {
    quiet::check(&settings)?;
    let (account, now) = (auth.account.clone(), state.now());
    state
        .agent_store(move |s| s.put_quiet_hours(&account, &settings, now))
        .await?;
    Ok(Json(view(&state, &auth.account).await?))
}
