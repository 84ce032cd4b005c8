//! The agent endpoints (agent keys and connector tokens only; docs/agents.md): every call
//! costs one request of the account's daily budget, after authentication and before any
//! other check.
//!
//! - `POST /v1/notify`: whitelist-checked text and presentation fields, sealed to the account
//!   key on arrival; a repeated `notificationId` is not queued again. 201 with the receipt
//!   (`duplicate: false`), or 200 with the stored receipt (`duplicate: true`).
//! - `GET /v1/receipts/{notificationId}`: the receipt, for 24 hours after arrival; then 404.
//! - `GET /v1/replies/{notificationId}?wait=N` (0 ≤ N ≤ 60): waits up to N seconds for the
//!   reply (woken by it, no polling); waits spend the daily poll seconds.
//! - `GET /v1/status`: `{online, lastSeenAt, quietHours: {active}}` and nothing else.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use herald_protocol::notify::{
    forbidden_fields_message, is_valid_notification_id, NotifyRejection, NotifyRequest,
    QuietHoursActive, Receipt, ReplyResult, StatusResponse, MAX_REPLY_WAIT_SECS,
    RECEIPT_RETENTION_SECS,
};
use herald_protocol::{ErrorCode, NotificationId};
use tokio::sync::broadcast::error::RecvError;

use crate::agents::budget::Refusal;
use crate::agents::{quiet, seal, AgentAuth};
use crate::clock::format_time;
use crate::error::ApiError;
use crate::hub::Change;
use crate::state::AppState;
use crate::store::agents::{NewNotification, NotificationRow, NotifyOutcome};

/// The receipt of a stored notification (`duplicate` only for `POST /v1/notify`).
pub(super) fn receipt(row: &NotificationRow, duplicate: Option<bool>) -> Receipt {
    let (displayed, spoken, replied) = (
        row.displayed_at.is_some(),
        row.spoken_at.is_some(),
        row.replied_at.is_some(),
    );
    Receipt {
        duplicate,
        notification_id: row.notification_id.clone(),
        received: true,
        received_at: format_time(row.received_at),
        queued: !(displayed || spoken || replied || row.suppressed),
        displayed,
        displayed_at: row.displayed_at.map(format_time),
        spoken,
        spoken_at: row.spoken_at.map(format_time),
        replied,
        replied_at: row.replied_at.map(format_time),
        expect_reply: row.expect_reply,
        suppressed: row.suppressed,
    }
}

/// Authenticates and spends one request of the account's budget.
async fn charged(state: &AppState, auth: &AgentAuth) -> Result<(), Refusal> {
    state
        .agents()
        .budgets
        .charge_request(&auth.account, state.now())?;
    Ok(())
}

/// Whether the account's quiet hours hold now.
pub(super) async fn quiet_now(
    state: &AppState,
    account: &herald_protocol::AccountId,
) -> Result<bool, ApiError> {
    let owned = account.clone();
    let settings = state.agent_store(move |s| s.quiet_hours(&owned)).await?;
    Ok(settings.is_some_and(|q| quiet::active(&q, state.now())))
}

fn refuse(rejection: NotifyRejection) -> ApiError {
    match rejection {
        NotifyRejection::NotAnObject => {
            ApiError::with_message(ErrorCode::BadRequest, "The body must be a JSON object.")
        }
        NotifyRejection::ForbiddenFields(fields) => ApiError::with_message(
            ErrorCode::ForbiddenFields,
            forbidden_fields_message(&fields),
        )
        .fields(fields),
        // Every bad field in `fields`; the message has each one's sentence.
        NotifyRejection::Invalid(problems) => ApiError::with_message(
            ErrorCode::InvalidRequest,
            problems
                .iter()
                .map(|p| p.message.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        )
        .fields(problems.into_iter().map(|p| p.field)),
    }
}

pub(super) async fn notify(
    State(state): State<AppState>,
    auth: AgentAuth,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, Refusal> {
    charged(&state, &auth).await?;
    let body = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(ErrorCode::PayloadTooLarge)
        } else {
            ApiError::new(ErrorCode::BadRequest)
        }
    })?;
    // Strict: a key given twice is refused (400, naming it), not silently the last one.
    let value =
        herald_protocol::json::parse_value(&body).map_err(|e| super::super::bad_json(&e))?;
    drop(body);
    let request = NotifyRequest::parse(&value).map_err(refuse)?;
    drop(value);
    let account = auth.account.clone();
    if let Some(given) = request.notification_id.clone() {
        let owned = account.clone();
        if let Some(row) = state
            .agent_store(move |s| s.notification_by_agent_id(&owned, &given))
            .await?
        {
            return Ok((StatusCode::OK, Json(receipt(&row, Some(true)))).into_response());
        }
    }
    let id = NotificationId::from_random(&super::keys::random_id()?);
    let notification_id = request
        .notification_id
        .clone()
        .unwrap_or_else(|| id.to_string());
    let expect_reply = request.expect_reply;
    let suppressed = quiet_now(&state, &account).await?;
    let content = request.into_content(notification_id.clone());
    let sealed = seal::seal(&state, &account, &id, content).await?;
    let new = NewNotification {
        account: account.clone(),
        id,
        notification_id,
        source: auth.credential.clone(),
        source_name: auth.name.clone(),
        sealed,
        expect_reply,
        suppressed,
        now: state.now(),
    };
    let outcome = state
        .agent_store(move |s| s.insert_notification(new))
        .await?;
    Ok(match outcome {
        NotifyOutcome::Created(row) => {
            state.hub().publish(
                &account,
                Change::Message {
                    revision: row.revision,
                    sender_connection: None,
                },
            );
            tracing::info!(account = %account, notification = %row.id, source = auth.credential.id(), "notification stored");
            (StatusCode::CREATED, Json(receipt(&row, Some(false)))).into_response()
        }
        NotifyOutcome::Duplicate(row) => {
            (StatusCode::OK, Json(receipt(&row, Some(true)))).into_response()
        }
    })
}

/// The account's live notification with the agent's id (404 when unknown, malformed or
/// older than 24 hours).
async fn live(
    state: &AppState,
    auth: &AgentAuth,
    notification_id: String,
) -> Result<NotificationRow, ApiError> {
    if !is_valid_notification_id(&notification_id) {
        return Err(ApiError::not_found());
    }
    let account = auth.account.clone();
    let row = state
        .agent_store(move |s| s.notification_by_agent_id(&account, &notification_id))
        .await?
        .ok_or_else(ApiError::not_found)?;
    let age = state.now() - row.received_at;
    if age >= chrono::TimeDelta::seconds(RECEIPT_RETENTION_SECS) {
        return Err(ApiError::not_found());
    }
    Ok(row)
}

pub(super) async fn receipt_route(
    State(state): State<AppState>,
    auth: AgentAuth,
    Path(id): Path<String>,
) -> Result<Json<Receipt>, Refusal> {
    charged(&state, &auth).await?;
    let row = live(&state, &auth, id).await?;
    Ok(Json(receipt(&row, None)))
}

/// `wait` of `GET /v1/replies`: 0–60 whole seconds, 0 when absent.
fn wait_query(raw: Option<&str>) -> Result<u64, ApiError> {
    let mut wait = 0;
    for pair in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name == "wait" {
            wait = value
                .parse::<u64>()
                .ok()
                .filter(|w| *w <= MAX_REPLY_WAIT_SECS)
                .ok_or_else(|| {
                    ApiError::invalid("wait", "wait must be a whole number of seconds, 0 to 60.")
                })?;
        }
    }
    Ok(wait)
}

/// The `GET /v1/replies` answer for `row` (also the reply event's payload).
pub(super) fn reply_result(row: &NotificationRow, timed_out: bool) -> ReplyResult {
    ReplyResult {
        notification_id: row.notification_id.clone(),
        replied: row.replied_at.is_some(),
        expect_reply: (!row.expect_reply).then_some(false),
        timed_out: (row.replied_at.is_none() && row.expect_reply && timed_out).then_some(true),
        text: row.reply_text.clone(),
        transcript: None,
        audio_url: None,
        duration_seconds: None,
        replied_at: row.replied_at.map(format_time),
        suppressed: row.suppressed,
    }
}

pub(super) async fn replies(
    State(state): State<AppState>,
    auth: AgentAuth,
    headers: HeaderMap,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<ReplyResult>, Refusal> {
    let wait = wait_query(query.as_deref())?;
    charged(&state, &auth).await?;
    // Subscribe before the first read, so a reply between the two still wakes the wait.
    let mut changes = state.hub().subscribe(&auth.account);
    let row = live(&state, &auth, id.clone()).await?;
    // No reply can come to a notification sent without expectReply: answer at once.
    if row.replied_at.is_some() || wait == 0 || !row.expect_reply {
        return Ok(Json(reply_result(&row, true)));
    }
    let budgets = &state.agents().budgets;
    let (granted, day) = budgets.reserve_poll(&auth.account, wait, state.now())?;
    let started = tokio::time::Instant::now();
    let deadline = started + Duration::from_secs(granted);
    let shutdown = state.shutdown_token().clone();
    let mut current = row;
    loop {
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => break,
            _ = shutdown.cancelled() => break,
            change = changes.recv() => {
                match change {
                    Err(RecvError::Closed) | Ok(Change::AccountClosed) => break,
                    Ok(Change::AgentCredentialRevoked(c)) if c == auth.credential => break,
                    _ => {}
                }
                current = live(&state, &auth, id.clone()).await?;
                if current.replied_at.is_some() {
                    break;
                }
            }
        }
    }
    // Seconds not waited go back to the day's budget.
    let waited = started.elapsed().as_millis().div_ceil(1000) as u64;
    budgets.refund_poll(&auth.account, granted.saturating_sub(waited), day);
    // The credential may have been revoked (or its account reset) while the call waited: a
    // revoked credential is never handed the reply (401).
    crate::agents::auth::authenticate_agent(&state, &headers).await?;
    if current.replied_at.is_none() {
        current = live(&state, &auth, id).await?;
    }
    Ok(Json(reply_result(&current, true)))
}

pub(super) async fn status(
    State(state): State<AppState>,
    auth: AgentAuth,
) -> Result<Json<StatusResponse>, Refusal> {
    charged(&state, &auth).await?;
    let now = state.now();
    let (online, last_closed) = state.agents().presence.get(&auth.account);
    let account = auth.account.clone();
    let stored = state
        .agent_store(move |s| s.last_device_activity(&account))
        .await?;
    let last_seen = if online {
        Some(now)
    } else {
        stored.max(last_closed)
    };
    Ok(Json(StatusResponse {
        online,
        last_seen_at: last_seen.map(format_time),
        quiet_hours: QuietHoursActive {
            active: quiet_now(&state, &auth.account).await?,
        },
    }))
}
