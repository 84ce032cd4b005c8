//! The one main window: created on demand, destroyed when closed (docs/desktop-lifecycle.md).
//!
//! Herald keeps running with no window at all (sync, notifications, the embedded relay, the
//! tray). Everything that wants the person's eyes — a banner click, the tray menu, the global
//! shortcut, a `herald://` link, a second launch — calls [`open`] with what to show:
//!
//! - a window already open is brought forward and told with the `herald://open` event
//!   (payload: an [`OpenTarget`]);
//! - otherwise the window is created from `app.windows[0]` of tauri.conf.json (which has
//!   `create: false`) and the target is kept until its page asks for it once with the
//!   `take_open_target` command (an event sent before the page listens would be lost).

use std::sync::{Arc, Mutex};

use tauri::{AppHandle, Emitter, Manager, Runtime, WebviewWindow, WebviewWindowBuilder};

use crate::targets::OpenTarget;

/// The main window's label (tauri.conf.json, capabilities/main.json).
pub const MAIN: &str = "main";
/// Event to the open window: show this [`OpenTarget`].
pub const OPEN_EVENT: &str = "herald://open";

/// The target a window being created shows once its page is ready.
#[derive(Debug, Clone, Default)]
pub struct WaitingTarget(Arc<Mutex<Option<OpenTarget>>>);

impl WaitingTarget {
    fn put(&self, target: OpenTarget) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(target);
    }

    fn take(&self) -> Option<OpenTarget> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Keeps `target` for the window about to be created (a link on the command line).
pub fn wait_with<R: Runtime>(app: &AppHandle<R>, target: OpenTarget) {
    app.state::<WaitingTarget>().put(target);
}

/// The main window if it exists.
pub fn main_window<R: Runtime>(app: &AppHandle<R>) -> Option<WebviewWindow<R>> {
    app.get_webview_window(MAIN)
}

/// Shows the main window (creating it when closed) with `target` on screen, if any.
/// `NewestPending` is resolved to the newest waiting request (the inbox when none waits)
/// before it reaches the page. Must be called off the main thread or from an async task:
/// creating a window waits for the event loop.
pub async fn open<R: Runtime>(app: &AppHandle<R>, target: Option<OpenTarget>) {
    let target = match target {
        Some(OpenTarget::NewestPending) => Some(newest_pending(app).await),
        other => other,
    };
    match main_window(app) {
        Some(window) => {
            bring_forward(&window);
            if let Some(target) = target {
                if let Err(error) = window.emit(OPEN_EVENT, &target) {
                    tracing::warn!(%error, "could not ask the window to open its target");
                }
            }
        }
        None => {
            if let Some(target) = target {
                app.state::<WaitingTarget>().put(target);
            }
            if let Err(error) = create(app) {
                tracing::error!(%error, "could not open the window");
            }
        }
    }
}

/// [`open`] from synchronous code (event handlers, menu clicks): runs it on the async runtime.
pub fn open_soon<R: Runtime>(app: &AppHandle<R>, target: Option<OpenTarget>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move { open(&app, target).await });
}

/// Creates the main window from its config; a no-op when it exists.
pub fn create<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    if main_window(app).is_some() {
        return Ok(());
    }
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == MAIN)
        .cloned()
        .ok_or_else(|| tauri::Error::WindowNotFound)?;
    let started = std::time::Instant::now();
    let window = WebviewWindowBuilder::from_config(app, &config)?.build()?;
    crate::paint::window_created(started);
    crate::attention::window_created(app, &window);
    bring_forward(&window);
    Ok(())
}

fn bring_forward<R: Runtime>(window: &WebviewWindow<R>) {
    let _ = window.unminimize();
    let _ = window.show();
    let _ = window.set_focus();
}

/// The newest pending request, else the inbox (also when the core is not open yet).
async fn newest_pending<R: Runtime>(app: &AppHandle<R>) -> OpenTarget {
    let Some(state) = app.try_state::<crate::shell::AppState>() else {
        return OpenTarget::Inbox;
    };
    match state.core.pending_requests(1).await {
        Ok(pending) => match pending.newest.into_iter().next() {
            Some(m) => OpenTarget::Message {
                id: m.id,
                notice: None,
            },
            None => OpenTarget::Inbox,
        },
        Err(error) => {
            tracing::warn!(%error, "could not read the pending requests");
            OpenTarget::Inbox
        }
    }
}

/// What a newly created window shows first (consumed: the next call returns `null`).
/// `null` when nothing was asked for: the page shows the inbox. A `newestPending` target (a
/// `herald://pending` link) is resolved to the newest waiting request here.
#[tauri::command]
pub async fn take_open_target<R: Runtime>(app: AppHandle<R>) -> Option<OpenTarget> {
    let target = app.state::<WaitingTarget>().take();
    match target {
        Some(OpenTarget::NewestPending) => Some(newest_pending(&app).await),
        other => other,
    }
}
