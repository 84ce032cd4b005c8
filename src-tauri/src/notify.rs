//! OS notifications for new requests, with the request's one-tap actions as buttons.
//!
//! What a banner says is decided in `notify_plan` (sender and request title only). This module
//! runs it: one task owns every shown banner, so showing, coalescing and withdrawing never race.
//!
//! - New requests are collected for a short quiet window ([`QUIET`], at most [`MAX_GATHER`]):
//!   a backlog (a catch-up after time offline) becomes one summary banner; a few become one
//!   banner each.
//! - Before showing, the notification server's capabilities are read (`GetCapabilities` on
//!   Linux): without `actions` the banner has no buttons and a click opens the request.
//! - A banner is withdrawn (`CloseNotification`) once its request is answered (here, from the
//!   banner, or on another device), cancelled, or expired (a timer at its deadline; the relay
//!   reports expiry only when asked, so the deadline is watched here).
//! - A button press answers through the [`AnswerGate`](crate::answering::AnswerGate), so the
//!   request is answered once even if the window (or a repeated press) answers too; the loser
//!   is shown the request with an "already answered" note instead of an error.
//! - A click on a banner (`default`, reported as `tap`) opens its request in the main window
//!   (`herald://open-message`); a click on the summary opens the inbox (`herald://open-inbox`).
//!
//! Notifications from agents (not end-to-end encrypted) go through the same batches. One that
//! quiet hours hold back (`suppressed` by the relay on arrival, or quiet hours active when it
//! reaches this device, then reported `suppressed`) gets no banner and is not spoken. Otherwise
//! it gets a banner; `displayed` is reported when the banner went to a notification server
//! that answered (`GetCapabilities`), else when the inbox shows it in a visible window (the
//! `notification_seen` command) — `show()` returning Ok proves nothing by itself. With
//! `speak`, it is read aloud and `spoken` is reported once the speech service finished it.
//! A click opens it in the window (`herald://open-notification`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use herald_client::notification_view::{NotificationReceiptKind, NotificationView};
use herald_client::view::{AnswerInput, MessageStatus, MessageSummary};
use herald_client::Core;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tauri_plugin_notification::{Action, ActionPerformed, ActionType, NotificationExt};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use crate::answering::{AnswerGate, ALREADY_ANSWERED};
use crate::notify_plan::{self, Banner, Item, Plan, Target};
use crate::speech::{Speaker, SpeechOutcome};

/// Tauri event asking the UI to open a message; payload `{ "messageId": "msg_...",
/// "notice": null | "alreadyAnswered" }`.
pub const OPEN_MESSAGE_EVENT: &str = "herald://open-message";
/// Tauri event asking the UI to show the inbox (a click on a summary banner); payload `null`.
pub const OPEN_INBOX_EVENT: &str = "herald://open-inbox";
/// Tauri event asking the UI to open an agent's notification; payload `{ "notificationId" }`.
pub const OPEN_NOTIFICATION_EVENT: &str = "herald://open-notification";
/// How long the notifier waits for more new requests before showing what it has.
const QUIET: Duration = Duration::from_millis(300);
/// The longest a banner waits while requests keep arriving.
const MAX_GATHER: Duration = Duration::from_millis(1500);
const EXTRA_MESSAGE_ID: &str = "messageId";
const EXTRA_NOTIFICATION_ID: &str = "notificationId";
const EXTRA_KIND: &str = "kind";
const KIND_SUMMARY: &str = "summary";

static NEXT_ID: AtomicI32 = AtomicI32::new(1);

enum Note {
    /// A new request or agent notification that may need a banner.
    New(Box<Item>),
    /// The request was answered, cancelled or expired: its banner goes.
    Closed(String),
}

/// The handle to the notifier task. Cheap to clone; managed as Tauri state.
#[derive(Clone)]
pub struct Notifier {
    tx: UnboundedSender<Note>,
}

impl Notifier {
    /// Starts the notifier task and registers the handler for clicks and buttons. Call once at
    /// setup, before the first notification (notifications shown without a handler report
    /// nothing).
    pub fn start<R: Runtime>(
        app: &AppHandle<R>,
        core: Core,
        gate: AnswerGate,
        speaker: Speaker,
    ) -> Notifier {
        let (tx, rx) = unbounded_channel();
        let handle = app.clone();
        let action_core = core.clone();
        let registered = app.notification().on_action(move |performed| {
            on_action(&handle, &action_core, &gate, performed);
        });
        if let Err(error) = registered {
            tracing::warn!(%error, "notification actions unavailable");
        }
        let notifier = Notifier { tx };
        let worker = Worker {
            app: app.clone(),
            core,
            speaker,
            tx: notifier.tx.clone(),
        };
        tauri::async_runtime::spawn(worker.run(rx));
        notifier
    }

    /// A new pending request arrived on this device.
    pub fn new_request(&self, message: MessageSummary) {
        let _ = self.tx.send(Note::New(Box::new(Item::Request(message))));
    }

    /// A new notification from an agent arrived on this device.
    pub fn new_notification(&self, notification: NotificationView) {
        let _ = self.tx.send(Note::New(Box::new(Item::Agent(notification))));
    }

    /// The request is no longer pending (answered, cancelled, expired) or became unreadable.
    pub fn closed(&self, message_id: &str) {
        let _ = self.tx.send(Note::Closed(message_id.to_owned()));
    }
}

/// What the notifier task holds.
struct Worker<R: Runtime> {
    app: AppHandle<R>,
    core: Core,
    speaker: Speaker,
    tx: UnboundedSender<Note>,
}

impl<R: Runtime> Worker<R> {
    /// The notifier task: gathers new items into batches, shows them, withdraws closed ones.
    async fn run(self, mut rx: UnboundedReceiver<Note>) {
        // Request id → the notification id its banner was shown with.
        let mut shown: HashMap<String, i32> = HashMap::new();
        let mut summary: Option<i32> = None;
        while let Some(note) = rx.recv().await {
            let first = match note {
                Note::New(item) => *item,
                Note::Closed(id) => {
                    withdraw(&self.app, &mut shown, &id);
                    continue;
                }
            };
            let mut batch = vec![first];
            let until = tokio::time::Instant::now() + MAX_GATHER;
            loop {
                let wait = QUIET.min(until.saturating_duration_since(tokio::time::Instant::now()));
                match tokio::time::timeout(wait, rx.recv()).await {
                    Ok(Some(Note::New(item))) => {
                        if !batch.iter().any(|i| i.id() == item.id()) {
                            batch.push(*item);
                        }
                    }
                    Ok(Some(Note::Closed(id))) => {
                        batch.retain(|i| i.id() != id);
                        withdraw(&self.app, &mut shown, &id);
                    }
                    Ok(None) => return,
                    Err(_) => break,
                }
                if tokio::time::Instant::now() >= until {
                    break;
                }
            }
            if batch.is_empty() {
                continue;
            }
            let quiet = self.quiet_now(&batch).await;
            // Held back by quiet hours: no banner, no speech, and the receipt says so.
            batch.retain(|item| match item {
                Item::Agent(n) if n.suppressed => false,
                Item::Agent(n) if quiet => {
                    self.report(&n.id, NotificationReceiptKind::Suppressed);
                    false
                }
                _ => true,
            });
            if batch.is_empty() {
                continue;
            }
            let capabilities = server_capabilities().await;
            let has = |name: &str| {
                capabilities
                    .as_ref()
                    .is_some_and(|c| c.iter().any(|c| c == name))
            };
            let shows = Shows {
                buttons: has("actions"),
                markup: has("body-markup"),
            };
            match notify_plan::plan(batch) {
                Plan::Summary(banner) => {
                    if let Some(previous) = summary.take() {
                        close(&self.app, previous);
                    }
                    // A backlog is not read aloud, and its notifications count as displayed
                    // only once the inbox shows them.
                    summary = show(&self.app, &banner, shows.markup);
                }
                Plan::Each(items) => {
                    for item in items {
                        match item {
                            Item::Request(message) => {
                                if let Some(id) = self.request(&message, shows).await {
                                    shown.insert(message.id.clone(), id);
                                    watch_deadline(&self.tx, &message, self.core.relay_now());
                                }
                            }
                            Item::Agent(notification) => {
                                self.agent(notification, capabilities.is_some(), shows.markup);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether quiet hours hold now (asked only when the batch has agent notifications).
    async fn quiet_now(&self, batch: &[Item]) -> bool {
        let asks = batch
            .iter()
            .any(|i| matches!(i, Item::Agent(n) if !n.suppressed));
        if !asks {
            return false;
        }
        match self.core.quiet_hours().await {
            Ok(settings) => settings.active,
            Err(error) => {
                tracing::warn!(code = %error.code(), "quiet hours unknown; showing the banner");
                false
            }
        }
    }

    /// Shows a request's banner; returns its notification id.
    async fn request(&self, message: &MessageSummary, shows: Shows) -> Option<i32> {
        let view = match self.core.message(&message.id).await {
            Ok(view) => view,
            Err(error) => {
                tracing::warn!(code = %error.code(), "request not readable for its banner");
                return None;
            }
        };
        // Answered (or closed) while the batch gathered: nothing to announce.
        if view.summary.status != MessageStatus::Pending || view.answer.is_some() {
            return None;
        }
        let banner = notify_plan::request_banner(&view.summary, Some(&view), shows.buttons);
        show(&self.app, &banner, shows.markup)
    }

    /// Shows an agent notification's banner, reads it aloud when asked, reports receipts.
    fn agent(&self, notification: NotificationView, server_answered: bool, markup: bool) {
        if notification.error.is_some() {
            return;
        }
        let banner = notify_plan::agent_banner(&notification);
        if show(&self.app, &banner, markup).is_some() && server_answered {
            self.report(&notification.id, NotificationReceiptKind::Displayed);
        }
        if notification.speak {
            let speaker = self.speaker.clone();
            let core = self.core.clone();
            let text = notify_plan::speech_text(&notification);
            let id = notification.id.clone();
            tauri::async_runtime::spawn(async move {
                if speaker.speak(text).await == SpeechOutcome::Spoken {
                    if let Err(error) = core
                        .notification_receipt(&id, NotificationReceiptKind::Spoken)
                        .await
                    {
                        tracing::warn!(code = %error.code(), "spoken receipt not reported");
                    }
                }
            });
        }
    }

    /// Reports a receipt in the background.
    fn report(&self, id: &str, kind: NotificationReceiptKind) {
        let core = self.core.clone();
        let id = id.to_owned();
        tauri::async_runtime::spawn(async move {
            if let Err(error) = core.notification_receipt(&id, kind).await {
                tracing::warn!(code = %error.code(), ?kind, "receipt not reported");
            }
        });
    }
}

/// What the notification server can show, from its capabilities.
#[derive(Clone, Copy)]
struct Shows {
    /// `actions`: buttons on the banner.
    buttons: bool,
    /// `body-markup`: the server reads the body as markup, so agent text is escaped first.
    markup: bool,
}

/// Shows a banner; returns its notification id. `show()` returning Ok only means the request
/// went to the notification server (or nowhere, if none runs): it is not proof of display.
/// `markup`: the server interprets the body's markup (`<a>`, `<img>`…), so it gets the text
/// escaped and agent-written tags stay text.
fn show<R: Runtime>(app: &AppHandle<R>, banner: &Banner, markup: bool) -> Option<i32> {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let notification = app.notification();
    let body = if markup {
        notify_plan::escape_markup(&banner.body)
    } else {
        banner.body.clone()
    };
    let mut builder = notification
        .builder()
        .id(id)
        .title(banner.title.clone())
        .body(body);
    builder = match &banner.target {
        Target::Message(message_id) => builder.extra(EXTRA_MESSAGE_ID, message_id.clone()),
        Target::Notification(id) => builder.extra(EXTRA_NOTIFICATION_ID, id.clone()),
        Target::Inbox => builder.extra(EXTRA_KIND, KIND_SUMMARY),
    };
    if !banner.buttons.is_empty() {
        let type_id = format!("herald-request-{id}");
        let actions = banner
            .buttons
            .iter()
            .map(|(action_id, label)| Action::builder(action_id.clone(), label.clone()).build())
            .collect();
        let action_type = ActionType::builder(type_id.clone())
            .actions(actions)
            .build();
        match notification.register_action_types(vec![action_type]) {
            Ok(()) => builder = builder.action_type_id(type_id),
            Err(error) => tracing::warn!(%error, "could not register notification actions"),
        }
    }
    match builder.show() {
        Ok(()) => Some(id),
        Err(error) => {
            tracing::warn!(%error, "notification not shown");
            None
        }
    }
}

fn withdraw<R: Runtime>(app: &AppHandle<R>, shown: &mut HashMap<String, i32>, message_id: &str) {
    if let Some(id) = shown.remove(message_id) {
        close(app, id);
    }
}

/// Closes a shown banner (`CloseNotification` on Linux; a no-op where the platform cannot).
fn close<R: Runtime>(app: &AppHandle<R>, id: i32) {
    let app = app.clone();
    // A blocking D-Bus call on the plugin's connection.
    tauri::async_runtime::spawn_blocking(move || {
        if let Err(error) = app.notification().remove_active(vec![id]) {
            tracing::warn!(%error, "could not withdraw a notification");
        }
    });
}

/// Withdraws the banner at the request's deadline (the relay reports expiry only when asked).
/// `relay_now` is the relay's current time (`Core::relay_now`): the deadline is the relay's,
/// so the time left is counted from the relay's clock, not this machine's.
fn watch_deadline(
    tx: &UnboundedSender<Note>,
    message: &MessageSummary,
    relay_now: chrono::DateTime<chrono::Utc>,
) {
    let Some(left) = message
        .expires_at
        .as_deref()
        .and_then(|at| time_left(at, relay_now))
    else {
        return;
    };
    let tx = tx.clone();
    let id = message.id.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(left).await;
        let _ = tx.send(Note::Closed(id));
    });
}

/// Time from `now` until an RFC 3339 instant (zero when past); `None` when it does not parse.
fn time_left(at: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let at = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    let left = at.with_timezone(&chrono::Utc) - now;
    Some(left.to_std().unwrap_or(Duration::ZERO))
}

/// The notification server's capabilities (`GetCapabilities`), or `None` when no server
/// answered (no server, no session bus). Buttons are offered only with `actions`; without
/// them a click still opens the request where clicks are reported.
async fn server_capabilities() -> Option<Vec<String>> {
    #[cfg(target_os = "linux")]
    {
        let asked = tauri::async_runtime::spawn_blocking(notify_rust::get_capabilities).await;
        match asked {
            Ok(Ok(capabilities)) => Some(capabilities),
            Ok(Err(error)) => {
                tracing::warn!(%error, "no notification server answered");
                None
            }
            Err(_) => None,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // macOS and Windows: notify-rust shows what it is given, buttons included.
        Some(vec!["actions".to_owned(), "body".to_owned()])
    }
}

fn on_action<R: Runtime>(
    app: &AppHandle<R>,
    core: &Core,
    gate: &AnswerGate,
    performed: &ActionPerformed,
) {
    let extra = performed.notification().map(|n| n.extra());
    if extra
        .and_then(|e| e.get(EXTRA_KIND))
        .and_then(|v| v.as_str())
        == Some(KIND_SUMMARY)
    {
        if performed.action_id() == "tap" {
            focus_window(app);
            if let Err(error) = app.emit(OPEN_INBOX_EVENT, ()) {
                tracing::warn!(%error, "could not ask the UI to show the inbox");
            }
        }
        return;
    }
    if let Some(id) = extra
        .and_then(|e| e.get(EXTRA_NOTIFICATION_ID))
        .and_then(|v| v.as_str())
    {
        if performed.action_id() == "tap" {
            focus_window(app);
            let payload = serde_json::json!({ "notificationId": id });
            if let Err(error) = app.emit(OPEN_NOTIFICATION_EVENT, payload) {
                tracing::warn!(%error, "could not ask the UI to open the notification");
            }
        }
        return;
    }
    let Some(message_id) = extra
        .and_then(|e| e.get(EXTRA_MESSAGE_ID))
        .and_then(|v| v.as_str())
        .map(str::to_owned)
    else {
        return;
    };
    match performed.action_id() {
        "tap" => open_message(app, &message_id, None),
        "dismiss" => {}
        action_id => {
            let core = core.clone();
            let gate = gate.clone();
            let app = app.clone();
            let input = AnswerInput {
                action_id: Some(action_id.to_owned()),
                values_json: None,
                files: Default::default(),
            };
            tauri::async_runtime::spawn(async move {
                // The core validates the action against the request and emits the update,
                // which withdraws the banner.
                match gate.answer(&core, &message_id, input).await {
                    Ok(_) => {}
                    Err(error) if error.code == ALREADY_ANSWERED => {
                        open_message(&app, &message_id, Some("alreadyAnswered"));
                    }
                    Err(error) => {
                        tracing::warn!(code = %error.code, "answer from the notification failed");
                        open_message(&app, &message_id, None);
                    }
                }
            });
        }
    }
}

fn focus_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Brings the main window forward with the message open (and an optional notice code).
fn open_message<R: Runtime>(app: &AppHandle<R>, message_id: &str, notice: Option<&str>) {
    focus_window(app);
    let payload = serde_json::json!({ "messageId": message_id, "notice": notice });
    if let Err(error) = app.emit(OPEN_MESSAGE_EVENT, payload) {
        tracing::warn!(%error, "could not ask the UI to open the message");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_are_read_as_rfc3339() {
        let now = chrono::Utc::now();
        assert_eq!(time_left("2000-01-01T00:00:00Z", now), Some(Duration::ZERO));
        let later = (now + chrono::Duration::minutes(10)).to_rfc3339();
        let left = time_left(&later, now).expect("parses");
        assert!(left > Duration::from_secs(500) && left <= Duration::from_secs(600));
        assert_eq!(time_left("tomorrow", now), None);
    }

    #[test]
    fn the_time_left_counts_from_the_relays_clock() {
        // This machine's clock is 10 minutes ahead of the relay's: a deadline 5 relay minutes
        // away is in this machine's past, yet 5 minutes are left.
        let relay_now = chrono::DateTime::parse_from_rfc3339("2026-11-30T08:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let deadline = "2026-11-30T08:05:00.000Z";
        assert_eq!(
            time_left(deadline, relay_now),
            Some(Duration::from_secs(300))
        );
        assert_eq!(
            time_left(deadline, relay_now + chrono::Duration::minutes(10)),
            Some(Duration::ZERO),
            "by the local clock it would be over"
        );
    }
}
