//! Closing the window and quitting (docs/desktop-lifecycle.md).
//!
//! Closing the window destroys it (its webview and web processes end) and leaves Herald
//! running: sync, banners, speech, receipts and the embedded relay go on, and the tray icon
//! stays. The first close is held back once so the UI can say so (`BackgroundNotice.svelte`):
//! the shell emits `herald://close-requested`, the page asks `close_hint_shown` and answers with
//! `confirm_close`. Later closes destroy the window at once, without a round trip through a
//! page that might be busy. Quitting (the tray's Quit, Ctrl+Q / Cmd+Q, the notice's Quit
//! button, SIGTERM) goes through `AppHandle::exit`, whose exit handler closes the cache and
//! stops the embedded relay (main.rs).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tauri::{AppHandle, Manager, Runtime, Window};

use crate::ipc::CmdResult;
use crate::main_window::{emit_to_page, main_window, MAIN};
use crate::window_link::core_side::WindowLink;
use crate::window_link::ToWindow;

/// Event to the page: a close of the window is waiting for `confirm_close`.
pub const CLOSE_REQUESTED_EVENT: &str = "herald://close-requested";
/// File in the data dir recording that the first-close notice was shown (empty file).
const HINT_FILE: &str = "close-hint-shown";
/// How long a held-back close waits for the page to react before the window is destroyed
/// anyway (a page that never loaded, or hangs, must not make the window impossible to close).
const PAGE_REACTION: Duration = Duration::from_secs(3);

/// Whether the first-close notice was shown, and whether a held-back close is waiting.
#[derive(Debug, Clone)]
pub struct CloseHint {
    file: PathBuf,
    shown: Arc<AtomicBool>,
    /// The page reacted to the last held-back close (called `close_hint_shown`).
    reacted: Arc<AtomicBool>,
    /// A held-back close waits for the page's answer.
    held: Arc<AtomicBool>,
}

impl CloseHint {
    /// Reads the record in `data_dir` (missing: not shown yet).
    pub fn load(data_dir: &Path) -> Self {
        let file = data_dir.join(HINT_FILE);
        let shown = file.exists();
        CloseHint {
            file,
            shown: Arc::new(AtomicBool::new(shown)),
            reacted: Arc::new(AtomicBool::new(false)),
            held: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The window is gone: no close is held back any more.
    pub fn window_destroyed(&self) {
        self.held.store(false, Ordering::Release);
    }

    fn shown(&self) -> bool {
        self.shown.load(Ordering::Acquire)
    }

    fn record_shown(&self) {
        if !self.shown.swap(true, Ordering::AcqRel) {
            if let Err(error) = std::fs::write(&self.file, b"") {
                tracing::warn!(%error, "could not record that the close notice was shown");
            }
        }
    }
}

/// The window's close button (or the window manager's close): the window is destroyed, the
/// app keeps running. Called from the builder's `on_window_event` for `CloseRequested`.
pub fn on_close_requested<R: Runtime>(window: &Window<R>, api: &tauri::CloseRequestApi) {
    if window.label() != MAIN {
        return;
    }
    if hold_close(window.app_handle()) {
        api.prevent_close();
    }
}

/// The window process's close button, reported over the link: the window is destroyed at
/// once, or once the page has shown the first-close notice.
pub fn remote_close_requested<R: Runtime>(app: &AppHandle<R>) {
    if !hold_close(app) {
        destroy_window(app);
    }
}

/// Whether this close is held back for the first-close notice; if so the page is told, and
/// the window is destroyed anyway when the page does not react within [`PAGE_REACTION`].
fn hold_close<R: Runtime>(app: &AppHandle<R>) -> bool {
    let Some(hint) = app.try_state::<CloseHint>() else {
        return false; // no data dir yet: plain close
    };
    if hint.shown() {
        return false; // closes and is destroyed (no prevent_close)
    }
    if hint.held.swap(true, Ordering::AcqRel) {
        return true; // a close already waits for the page (the notice may be on screen)
    }
    hint.reacted.store(false, Ordering::Release);
    emit_to_page(app, CLOSE_REQUESTED_EVENT, &());
    let hint = hint.inner().clone();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(PAGE_REACTION).await;
        if hint.held.load(Ordering::Acquire) && !hint.reacted.load(Ordering::Acquire) {
            tracing::warn!("the page did not answer the close; closing the window");
            hint.record_shown();
            destroy_window(&app);
        }
    });
    true
}

/// Destroys the main window, here or in the window process (which then ends).
fn destroy_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = main_window(app) {
        if let Err(error) = window.destroy() {
            tracing::warn!(%error, "could not close the window");
        }
    }
    if let Some(link) = app.try_state::<WindowLink>() {
        link.send(ToWindow::Destroy);
    }
}

/// Whether the person was already told, once, that closing the window leaves Herald running.
/// Also tells the shell that the page reacted to a held-back close.
pub async fn close_hint_shown<R: Runtime>(app: AppHandle<R>) -> CmdResult<bool> {
    let hint = app.state::<CloseHint>();
    hint.reacted.store(true, Ordering::Release);
    Ok(hint.shown())
}

/// `quit` false: closes (destroys) the window and Herald keeps running. `quit` true (Ctrl+Q /
/// Cmd+Q, the notice's Quit button): ends Herald through the exit handler, which stops the
/// sync, records the cache's clean close and stops the embedded relay. Either way the
/// notice counts as shown.
pub async fn confirm_close<R: Runtime>(app: AppHandle<R>, quit: bool) -> CmdResult<()> {
    let hint = app.state::<CloseHint>();
    hint.reacted.store(true, Ordering::Release);
    hint.held.store(false, Ordering::Release);
    hint.record_shown();
    if quit {
        quit_app(&app, "the window");
    } else {
        destroy_window(&app);
    }
    Ok(())
}

/// Quits Herald: the exit handler (main.rs) closes the cache and stops the embedded relay.
pub fn quit_app<R: Runtime>(app: &AppHandle<R>, from: &str) {
    tracing::info!(from, "quitting");
    app.exit(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_is_recorded_once_in_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let hint = CloseHint::load(dir.path());
        assert!(!hint.shown(), "a new data dir has not shown it");
        hint.record_shown();
        assert!(hint.shown());
        assert!(
            CloseHint::load(dir.path()).shown(),
            "the next start remembers it"
        );
    }
}
