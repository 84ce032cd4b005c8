//! OS notifications for everything new: messages, requests (with their one-tap actions as
//! buttons), secret offers and notifications from agents (docs/desktop-notifications.md).
//!
//! Whether something gets a banner, what it says and how it sounds is decided in
//! `herald_client::notify_plan` (Tauri-free, unit-tested); this module runs the decisions. One task owns every shown banner,
//! so showing, coalescing and withdrawing never race.
//!
//! - New items are collected for a short pause ([`GATHER_PAUSE`], at most [`MAX_GATHER`]): a
//!   backlog (a catch-up after time offline) becomes one summary banner; a few become one
//!   banner each.
//! - Before deciding, the task reads this device's notification settings (banner mode, muted
//!   senders, sound, previews), the account's quiet hours and what the window shows
//!   ([`OnScreen`], fed by `ui_viewing`). Quiet hours hold back every banner and sound, requests
//!   included; what they held back is announced by one summary when they end (a timer at their
//!   end, computed in their IANA zone).
//! - Before showing, the notification server's capabilities are read (`GetCapabilities` on
//!   Linux): without `actions` the banner has no buttons and a click opens the message.
//! - A request's banner is withdrawn (`CloseNotification`) once it is answered (here, from the
//!   banner, or on another device), cancelled, or expired (a timer at its deadline; the relay
//!   reports expiry only when asked, so the deadline is watched here).
//! - Clicks and buttons: `actions.rs`.
//!
//! Notifications from agents (not end-to-end encrypted) go through the same batches. One held
//! back (quiet hours, or this device's settings) is reported `suppressed`. One shown reports
//! `displayed` when its banner went to a notification server that answered
//! (`GetCapabilities`), else when the inbox shows it in a visible window (the
//! `notification_seen` command) — `show()` returning Ok proves nothing by itself. With `speak`,
//! it is read aloud when shown (or on screen), and `spoken` is reported once the speech service
//! finished it.

mod actions;
mod banners;

use std::time::Duration;

use chrono::Utc;

use herald_client::notification_view::{
    NotificationReceiptKind, NotificationSettings, NotificationView, QuietHoursSettings,
};
use herald_client::view::{MessageSummary, MessageView};
use herald_client::Core;
use tauri::{AppHandle, Runtime};
use tauri_plugin_notification::NotificationExt;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use crate::pause::Pause;
use crate::speech::{Speaker, SpeechOutcome};
use banners::{server_shows, Banners, Shows};
use herald_client::gate::AnswerGate;
use herald_client::notify_plan::policy::{verdict, Skip, Verdict};
use herald_client::notify_plan::quiet::{self, Digest};
use herald_client::notify_plan::viewing::OnScreen;
use herald_client::notify_plan::{self, Item, Plan};

/// How long the notifier waits for more new items before showing what it has.
const GATHER_PAUSE: Duration = Duration::from_millis(300);
/// The longest a banner waits while items keep arriving.
const MAX_GATHER: Duration = Duration::from_millis(1500);
const EXTRA_MESSAGE_ID: &str = "messageId";
const EXTRA_NOTIFICATION_ID: &str = "notificationId";
const EXTRA_KIND: &str = "kind";
const KIND_SUMMARY: &str = "summary";

enum Note {
    /// Something new that may need a banner.
    New(Box<Item>),
    /// The request was answered, cancelled or expired: its banner goes.
    Closed(String),
    /// Time to look whether quiet hours are over (their end, or the next periodic look).
    QuietCheck,
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
        on_screen: OnScreen,
        pause: Pause,
    ) -> Notifier {
        let (tx, rx) = unbounded_channel();
        let handle = app.clone();
        let action_core = core.clone();
        let registered = app.notification().on_action(move |performed| {
            actions::on_action(&handle, &action_core, &gate, performed);
        });
        if let Err(error) = registered {
            tracing::warn!(%error, "notification actions unavailable");
        }
        let notifier = Notifier { tx };
        let worker = Worker {
            core,
            speaker,
            on_screen,
            pause,
            tx: notifier.tx.clone(),
            quiet_hours: None,
            quiet_timer: false,
        };
        tauri::async_runtime::spawn(worker.run(Banners::new(app.clone()), rx));
        notifier
    }

    /// A message, request or secret offer arrived on this device.
    pub fn new_message(&self, message: MessageSummary) {
        let _ = self.tx.send(Note::New(Box::new(Item::Message(message))));
    }

    /// A notification from an agent arrived on this device.
    pub fn new_notification(&self, notification: NotificationView) {
        let _ = self.tx.send(Note::New(Box::new(Item::Agent(notification))));
    }

    /// The request is no longer pending (answered, cancelled, expired).
    pub fn closed(&self, message_id: &str) {
        let _ = self.tx.send(Note::Closed(message_id.to_owned()));
    }

    /// The pause changed (tray): what was held back is announced now if nothing holds it.
    pub fn recheck(&self) {
        let _ = self.tx.send(Note::QuietCheck);
    }
}

/// What the notifier task holds.
struct Worker {
    core: Core,
    speaker: Speaker,
    on_screen: OnScreen,
    /// "Pause notifications" from the tray: held back like quiet hours.
    pause: Pause,
    tx: UnboundedSender<Note>,
    /// The quiet hours last read from the relay, used while it cannot be asked.
    quiet_hours: Option<QuietHoursSettings>,
    /// A [`Note::QuietCheck`] is on its way.
    quiet_timer: bool,
}

impl Worker {
    /// The notifier task: gathers new items into batches, decides and shows them, withdraws
    /// closed requests, and announces what quiet hours held back once they end.
    async fn run<R: Runtime>(mut self, mut banners: Banners<R>, mut rx: UnboundedReceiver<Note>) {
        let mut digest = Digest::default();
        while let Some(note) = rx.recv().await {
            let first = match note {
                Note::New(item) => *item,
                Note::Closed(id) => {
                    banners.withdraw(&id);
                    digest.closed(&id);
                    continue;
                }
                Note::QuietCheck => {
                    self.quiet_timer = false;
                    let quiet_hours = self.read_quiet_hours().await;
                    self.settle(&mut digest, &mut banners, quiet_hours.as_ref())
                        .await;
                    continue;
                }
            };
            let mut batch = vec![first];
            let until = tokio::time::Instant::now() + MAX_GATHER;
            loop {
                let left = until.saturating_duration_since(tokio::time::Instant::now());
                match tokio::time::timeout(GATHER_PAUSE.min(left), rx.recv()).await {
                    Ok(Some(Note::New(item))) => {
                        if !batch.iter().any(|i| i.id() == item.id()) {
                            batch.push(*item);
                        }
                    }
                    Ok(Some(Note::Closed(id))) => {
                        batch.retain(|i| i.id() != id);
                        banners.withdraw(&id);
                        digest.closed(&id);
                    }
                    // Looked at below, after the batch.
                    Ok(Some(Note::QuietCheck)) => self.quiet_timer = false,
                    Ok(None) => return,
                    Err(_) => break,
                }
                if tokio::time::Instant::now() >= until {
                    break;
                }
            }
            self.batch(batch, &mut digest, &mut banners).await;
        }
    }

    /// Decides each item of a batch, then shows what gets a banner.
    async fn batch<R: Runtime>(
        &mut self,
        batch: Vec<Item>,
        digest: &mut Digest,
        banners: &mut Banners<R>,
    ) {
        let settings = self.settings().await;
        let quiet_hours = self.read_quiet_hours().await;
        let quiet = quiet_hours
            .as_ref()
            .is_some_and(|q| quiet::active(q, self.core.relay_now()))
            || self.pause.until(Utc::now()).is_some();
        let mut show = Vec::new();
        for item in batch {
            let decided = verdict(&item, &settings, quiet, self.on_screen.shows(item.id()));
            if let Item::Agent(n) = &item {
                // Suppressed by the relay on arrival: the receipt says so already.
                if let Some(kind) = decided.receipt().filter(|_| !n.suppressed) {
                    self.report(&n.id, kind);
                }
                // Asked to be read aloud, and the person is looking at it: spoken. (One that is
                // shown is spoken with its banner; one held back or skipped is not.)
                if decided == Verdict::Skip(Skip::OnScreen) && n.speak {
                    self.speak(n);
                }
            }
            match decided {
                Verdict::Show => show.push(item),
                Verdict::Held => digest.hold(item),
                Verdict::Skip(why) => tracing::debug!(?why, "no banner"),
            }
        }
        self.settle(digest, banners, quiet_hours.as_ref()).await;
        if show.is_empty() {
            return;
        }
        let shows = server_shows().await;
        match notify_plan::plan(show, &settings) {
            // A backlog is not read aloud, and its notifications count as displayed only once
            // the inbox shows them.
            Plan::Summary(banner) => banners.show_summary(&banner, shows),
            Plan::Each(items) => {
                for item in items {
                    self.show(&item, &settings, shows, banners).await;
                }
            }
        }
    }

    /// Shows one item's banner; for an agent's notification, reports `displayed` and speaks.
    async fn show<R: Runtime>(
        &self,
        item: &Item,
        settings: &NotificationSettings,
        shows: Shows,
        banners: &mut Banners<R>,
    ) {
        match item {
            Item::Message(message) if item.needs_reply() => {
                let view = self.request_view(item, settings).await;
                // Answered (or closed) while the batch gathered: nothing to announce.
                if view
                    .as_ref()
                    .is_some_and(|v| herald_client::gate::closed(v).is_some())
                {
                    return;
                }
                let banner =
                    notify_plan::banner::banner(item, view.as_ref(), shows.buttons, settings);
                if banners.show_request(&message.id, &banner, shows) {
                    watch_deadline(&self.tx, message, self.core.relay_now());
                }
            }
            Item::Message(_) => {
                let banner = notify_plan::banner::banner(item, None, shows.buttons, settings);
                banners.show(&banner, shows);
            }
            Item::Agent(notification) => {
                let banner = notify_plan::banner::banner(item, None, false, settings);
                if banners.show(&banner, shows).is_some() && shows.answered {
                    self.report(&notification.id, NotificationReceiptKind::Displayed);
                }
                if notification.speak {
                    self.speak(notification);
                }
            }
        }
    }

    /// A request's full view, for its buttons: only read when the banner may show them (previews
    /// on, readable). A view that cannot be read leaves a banner without buttons.
    async fn request_view(
        &self,
        item: &Item,
        settings: &NotificationSettings,
    ) -> Option<MessageView> {
        if !settings.previews || item.unreadable() {
            return None;
        }
        match self.core.message(item.id()).await {
            Ok(view) => Some(view),
            Err(error) => {
                tracing::warn!(code = %error.code(), "request not readable for its buttons");
                None
            }
        }
    }

    /// What quiet hours held back: announced once they are over; until then a timer looks
    /// again at their end (at least every quarter of an hour).
    async fn settle<R: Runtime>(
        &mut self,
        digest: &mut Digest,
        banners: &mut Banners<R>,
        quiet_hours: Option<&QuietHoursSettings>,
    ) {
        if digest.is_empty() {
            return;
        }
        let now = self.core.relay_now();
        let wait = match quiet_hours.filter(|q| quiet::active(q, now)) {
            Some(q) => Some(quiet::next_check(q, now)),
            None => self.pause.until(Utc::now()).map(|until| {
                let left = (until - Utc::now()).to_std().unwrap_or_default();
                left.min(quiet::CHECK_EVERY)
            }),
        };
        if let Some(wait) = wait {
            if !self.quiet_timer {
                self.quiet_timer = true;
                let tx = self.tx.clone();
                tauri::async_runtime::spawn(async move {
                    tokio::time::sleep(wait).await;
                    let _ = tx.send(Note::QuietCheck);
                });
            }
            return;
        }
        let settings = self.settings().await;
        if let Some(banner) = digest.take(&settings) {
            banners.show_summary(&banner, server_shows().await);
        }
    }

    /// This device's notification settings (the defaults when they cannot be read).
    async fn settings(&self) -> NotificationSettings {
        self.core
            .notification_settings()
            .await
            .unwrap_or_else(|error| {
                tracing::warn!(code = %error.code(), "notification settings unknown; defaults");
                NotificationSettings::default()
            })
    }

    /// The account's quiet hours, from the relay, else as last read.
    async fn read_quiet_hours(&mut self) -> Option<QuietHoursSettings> {
        match self.core.quiet_hours().await {
            Ok(settings) => self.quiet_hours = Some(settings),
            Err(error) => {
                tracing::warn!(code = %error.code(), "quiet hours not read; using the last known");
            }
        }
        self.quiet_hours.clone()
    }

    /// Reads a notification aloud and reports `spoken` once the speech service finished it.
    fn speak(&self, notification: &NotificationView) {
        let speaker = self.speaker.clone();
        let core = self.core.clone();
        let text = notify_plan::speech_text(notification);
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
