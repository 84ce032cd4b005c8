//! The requests waiting for the person, counted and shown outside the page: one task follows
//! the core's events and reads [`Core::pending_requests`] again after each burst (coalesced
//! over [`SETTLE`]), so 1,000 arrivals in a second cost a handful of reads, then draws the
//! count on the window (attention.rs) and the tray (tray.rs).

use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use herald_client::view::PendingRequests;
use herald_client::Core;
use tauri::{AppHandle, Manager, Runtime};
use tokio::sync::broadcast::error::RecvError;

use crate::attention::{attend, show_pending, PendingCount};

/// How long the task waits for more events before it reads the pending requests again.
const SETTLE: Duration = Duration::from_millis(250);

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

/// Reads the pending requests and shows them in the title, badge and tray. Returns the next
/// deadline among them.
pub async fn refresh<R: Runtime>(app: &AppHandle<R>, core: &Core) -> Option<DateTime<Utc>> {
    let pending = match core.pending_requests(crate::tray::TRAY_LISTED).await {
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
        show_pending(&handle, pending.count);
        crate::tray::show_pending(&handle, pending);
    });
    next_expiry
}
