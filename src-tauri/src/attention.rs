//! What waits for the person, on the window (docs/desktop-lifecycle.md): the count of pending
//! requests in the window title ("Herald (2)") and, where the platform draws one, the
//! dock/taskbar badge; and `request_user_attention` when a request arrives while the window is
//! open but unfocused. The task that reads the count and also draws the tray is pending.rs.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use herald_client::view::{CoreEvent, MessageStatus};
use tauri::{AppHandle, Manager, Runtime, UserAttentionType, WebviewWindow};

use crate::main_window::main_window;
use crate::window_link::core_side::WindowLink;
use crate::window_link::ToWindow;

/// The last pending count, for a window created later.
#[derive(Debug, Clone, Default)]
pub struct PendingCount(pub(crate) Arc<AtomicU32>);

impl PendingCount {
    /// A count starting at `count` (the window process's, from the core's welcome).
    pub fn with(count: u32) -> Self {
        PendingCount(Arc::new(AtomicU32::new(count)))
    }

    /// Records a new count.
    pub fn set(&self, count: u32) {
        self.0.store(count, Ordering::Release);
    }

    /// The last count recorded.
    pub fn get(&self) -> u32 {
        self.0.load(Ordering::Acquire)
    }
}

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

/// Shows `count` on the window, wherever it lives: this process's webview window, or the
/// window process over the link. Call on the event loop's thread.
pub(crate) fn show_pending<R: Runtime>(app: &AppHandle<R>, count: u32) {
    if let Some(window) = main_window(app) {
        show_count(&window, count);
    }
    if let Some(link) = app.try_state::<WindowLink>() {
        link.send(ToWindow::Pending { count });
    }
}

pub(crate) fn show_count<R: Runtime>(window: &WebviewWindow<R>, count: u32) {
    if let Err(error) = window.set_title(&title(count)) {
        tracing::debug!(%error, "could not set the window title");
    }
    let badge = (count > 0).then_some(i64::from(count));
    if let Err(error) = window.set_badge_count(badge) {
        tracing::debug!(%error, "no badge on this platform");
    }
}

/// A new request while the window is open but not focused: ask for attention (the taskbar
/// entry flashes, the dock icon bounces once). Informational, never critical: the banner is
/// the announcement.
pub(crate) fn attend<R: Runtime>(app: &AppHandle<R>, event: &CoreEvent) {
    let CoreEvent::MessageUpserted { message, is_new } = event else {
        return;
    };
    if !is_new || message.status != MessageStatus::Pending {
        return;
    }
    if let Some(link) = app.try_state::<WindowLink>() {
        link.send(ToWindow::Attend);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_carries_the_count_only_when_something_waits() {
        assert_eq!(title(0), "Herald");
        assert_eq!(title(3), "Herald (3)");
    }
}
