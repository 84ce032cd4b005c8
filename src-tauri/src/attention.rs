//! What waits for the person, shown outside the page (docs/desktop-lifecycle.md): the count of
//! pending requests in the window title ("Herald (2)") and, where the platform draws one, the
//! dock/taskbar badge; the tray's icon, tooltip and menu (tray.rs); and
//! `request_user_attention` when a request arrives while the window is open but unfocused.
//!
//! One task follows the core's events and reads [`Core::pending_requests`] again after each
//! burst (coalesced over [`SETTLE`]), so 1,000 arrivals in a second cost a handful of reads.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use herald_client::view::{CoreEvent, MessageStatus, PendingRequests};
use herald_client::Core;
use tauri::{AppHandle, Manager, Runtime, UserAttentionType, WebviewWindow};
use tokio::sync::broadcast::error::RecvError;

use crate::window::main_window;

/// How long the task waits for more events before it reads the pending requests again.
const SETTLE: Duration = Duration::from_millis(250);
/// How many pending requests the tray menu lists.
pub const TRAY_LISTED: usize = 5;

/// The last pending count, for a window created later.
#[derive(Debug, Clone, Default)]
pub struct PendingCount(Arc<AtomicU32>);

/// The window title for `count` pending requests.
pub fn title(count: u32) -> String {
    match count {
        0 => "Herald".to_owned(),
        n => format!("Herald ({n})"),
    }
}

/// Sets a newly created window's title and badge from the last count.
pub fn window_created<R: Runtime>(app: &AppHandle<R>, window: &WebviewWindow<R>) {
    let count = app
        .try_state::<PendingCount>()
        .map(|c| c.0.load(Ordering::Acquire))
        .unwrap_or(0);
    show_count(window, count);
}

fn show_count<R: Runtime>(window: &WebviewWindow<R>, count: u32) {
    if let Err(error) = window.set_title(&title(count)) {
        tracing::debug!(%error, "could not set the window title");
    }
    let badge = (count > 0).then_some(i64::from(count));
    if let Err(error) = window.set_badge_count(badge) {
        tracing::debug!(%error, "no badge on this platform");
    }
}

/// Starts the task: subscribe before the sync starts so no event is missed.
pub fn watch<R: Runtime>(app: AppHandle<R>, core: Core) {
    let mut events = core.subscribe();
    app.manage(PendingCount::default());
    tauri::async_runtime::spawn(async move {
        let mut next_expiry = refresh(&app, &core).await;
        loop {
            // Wait for an event, or until the next deadline passes (no event says so).
            let wait = next_expiry
                .map(|at| (at - core.relay_now()).to_std().unwrap_or_default() + SETTLE)
                .unwrap_or(Duration::MAX);
            match tokio::time::timeout(wait, events.recv()).await {
                Ok(Ok(event)) => attend(&app, &event),
                Ok(Err(RecvError::Lagged(_))) | Err(_) => {}
                Ok(Err(RecvError::Closed)) => return,
            }
            // Coalesce the burst.
            loop {
                match tokio::time::timeout(SETTLE, events.recv()).await {
                    Ok(Ok(event)) => attend(&app, &event),
                    Ok(Err(RecvError::Lagged(_))) => {}
                    Ok(Err(RecvError::Closed)) => return,
                    Err(_) => break,
                }
            }
            next_expiry = refresh(&app, &core).await;
        }
    });
}

/// A new request while the window is open but not focused: ask for attention (the taskbar
/// entry flashes, the dock icon bounces once). Informational, never critical: the banner is
/// the announcement.
fn attend<R: Runtime>(app: &AppHandle<R>, event: &CoreEvent) {
    let CoreEvent::MessageUpserted { message, is_new } = event else {
        return;
    };
    if !is_new || message.status != MessageStatus::Pending {
        return;
    }
    // Window calls wait for the event loop: made there, never from a runtime worker.
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || {
        if let Some(window) = main_window(&handle) {
            if !window.is_focused().unwrap_or(true) {
                let _ = window.request_user_attention(Some(UserAttentionType::Informational));
            }
        }
    });
}

/// Reads the pending requests and shows them in the title, badge and tray. Returns the next
/// deadline among them.
pub async fn refresh<R: Runtime>(app: &AppHandle<R>, core: &Core) -> Option<DateTime<Utc>> {
    let pending = match core.pending_requests(TRAY_LISTED).await {
        Ok(pending) => pending,
        Err(error) => {
            tracing::warn!(%error, "could not read the pending requests");
            PendingRequests::default()
        }
    };
    if let Some(count) = app.try_state::<PendingCount>() {
        count.0.store(pending.count, Ordering::Release);
    }
    let next_expiry = pending
        .next_expiry
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));
    // The title, badge and tray are drawn on the event loop's thread: posted, not waited for,
    // so a busy or exiting event loop never blocks a runtime worker.
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || {
        if let Some(window) = main_window(&handle) {
            show_count(&window, pending.count);
        }
        crate::tray::show_pending(&handle, pending);
    });
    next_expiry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_carries_the_count_only_when_something_waits() {
        assert_eq!(title(0), "Herald");
        assert_eq!(title(3), "Herald (3)");
    }
}
