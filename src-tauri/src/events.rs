//! Core events to the webview (`herald://event`) and to the OS (notifications).

use herald_client::view::{CoreEvent, MessageStatus, MessageSummary};
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tokio::sync::broadcast::{error::RecvError, Receiver};

use crate::notify::Notifier;
use crate::state::LastSyncState;
use crate::window_link::core_side::WindowLink;

/// The Tauri event carrying every `CoreEvent`; ui/src/lib/backend/tauri.ts listens to it.
pub const CORE_EVENT: &str = "herald://event";

/// Forwards every core event to the webview until the core closes the channel.
pub fn forward<R: Runtime>(
    app: AppHandle<R>,
    mut events: Receiver<CoreEvent>,
    last_sync: LastSyncState,
) {
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => {
                    last_sync.record(&event);
                    deliver(&app, event);
                }
                Err(RecvError::Lagged(skipped)) => {
                    // The UI reloads the inbox on its own; losing a few live updates is safe.
                    tracing::warn!(skipped, "UI event forwarder lagged");
                }
                Err(RecvError::Closed) => break,
            }
        }
    });
}

/// Tells the UI that sync could not start, in the same shape the core uses.
pub fn sync_failed<R: Runtime>(app: &AppHandle<R>, last_sync: &LastSyncState, error: String) {
    let event = CoreEvent::SyncState {
        connected: false,
        error: Some(error),
    };
    last_sync.record(&event);
    deliver(app, event);
}

fn deliver<R: Runtime>(app: &AppHandle<R>, event: CoreEvent) {
    if let Some(notifier) = app.try_state::<Notifier>() {
        match &event {
            // Settings, quiet hours, what the window shows and receipts are the notifier's to
            // judge: every new arrival goes to it.
            CoreEvent::MessageUpserted { message, is_new } => {
                if *is_new && announces(message) {
                    notifier.new_message(message.clone());
                } else if closes_notification(message) {
                    notifier.closed(&message.id);
                }
            }
            CoreEvent::NotificationUpserted {
                notification,
                is_new: true,
            } => notifier.new_notification(notification.clone()),
            _ => {}
        }
    }
    if let Err(error) = app.emit(CORE_EVENT, &event) {
        tracing::warn!(%error, "could not emit core event");
    }
    if let Some(link) = app.try_state::<WindowLink>() {
        link.emit(CORE_EVENT, &event);
    }
}

/// Whether a message new to this device is announced: a message, a secret offer, a request
/// still pending — readable or not (an unreadable one's banner says only "New message" or
/// "Needs your reply"). A request first seen already answered, expired or cancelled (answered
/// on another device while this one was off, say) waits for nothing and is not announced.
fn announces(message: &MessageSummary) -> bool {
    matches!(
        message.status,
        MessageStatus::Pending | MessageStatus::Delivered
    )
}

/// A request whose banner (if any) must go, and that no longer counts as held back by quiet
/// hours: answered, expired or cancelled.
fn closes_notification(message: &MessageSummary) -> bool {
    matches!(
        message.status,
        MessageStatus::Answered | MessageStatus::Expired | MessageStatus::Cancelled
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(status: MessageStatus, expects_answer: bool, error: Option<&str>) -> MessageSummary {
        MessageSummary {
            id: "m1".into(),
            revision: 1,
            title: "Deploy?".into(),
            sender_name: "ci-agent".into(),
            sender_id: Some("con_ci-agent".into()),
            created_at: "2026-01-01T00:00:00Z".into(),
            expires_at: None,
            status,
            expects_answer,
            unread: true,
            error: error.map(Into::into),
            thread_id: "m1".into(),
            thread_sequence: 0,
            reply_to: None,
            kind: herald_client::view::MessageKind::Message,
        }
    }

    #[test]
    fn every_new_message_request_and_offer_is_announced() {
        assert!(
            announces(&summary(MessageStatus::Pending, true, None)),
            "a pending request"
        );
        assert!(
            announces(&summary(MessageStatus::Delivered, false, None)),
            "a plain message (or a secret offer)"
        );
        assert!(
            announces(&summary(
                MessageStatus::Pending,
                true,
                Some("bad signature")
            )),
            "an unreadable one too (its banner says nothing of its content)"
        );
        for status in [
            MessageStatus::Answered,
            MessageStatus::Expired,
            MessageStatus::Cancelled,
        ] {
            assert!(
                !announces(&summary(status, true, None)),
                "{status:?} when first seen: nothing waits"
            );
        }
    }

    #[test]
    fn answered_expired_or_cancelled_requests_lose_their_banner() {
        for status in [
            MessageStatus::Answered,
            MessageStatus::Expired,
            MessageStatus::Cancelled,
        ] {
            assert!(
                closes_notification(&summary(status, true, None)),
                "{status:?} withdraws the banner"
            );
        }
        assert!(
            !closes_notification(&summary(MessageStatus::Pending, true, None)),
            "a pending request keeps it"
        );
        assert!(
            !closes_notification(&summary(MessageStatus::Delivered, false, None)),
            "a message read or changed keeps it, and stays counted for quiet hours"
        );
    }
}
