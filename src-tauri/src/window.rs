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

use tauri::webview::PageLoadEvent;
use tauri::{AppHandle, Emitter, Manager, Runtime, WebviewWindow, WebviewWindowBuilder};

use crate::ipc::CmdResult;
pub use crate::main_window::{main_window, MAIN};
use crate::targets::OpenTarget;
use crate::window_link::core_side::WindowLink;
use crate::window_link::ToWindow;

/// Event to the open window: show this [`OpenTarget`].
pub const OPEN_EVENT: &str = "herald://open";

/// What the window should show next, and whether its page listens yet.
///
/// A page listens for `herald://open` only once it has loaded and asked `take_open_target`;
/// until then a target is kept here (the newest one wins, and an open with no target clears
/// it), so nothing is lost to a page still loading and nothing stale is replayed later.
#[derive(Debug, Clone, Default)]
pub struct WaitingTarget {
    state: Arc<Mutex<Waiting>>,
    /// Held across "is there a window? create one": two opens at once make one window.
    opening: Arc<tokio::sync::Mutex<()>>,
}

#[derive(Debug, Default)]
struct Waiting {
    target: Option<OpenTarget>,
    /// The current window's page asked `take_open_target` (it listens for events now).
    page_ready: bool,
}

impl WaitingTarget {
    fn with<T>(&self, f: impl FnOnce(&mut Waiting) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The page of the current window, if it listens, should be told at once; otherwise the
    /// target is kept for it. Returns the target to emit now.
    fn route(&self, target: Option<OpenTarget>) -> Option<OpenTarget> {
        self.with(|w| {
            if w.page_ready {
                target
            } else {
                w.target = target;
                None
            }
        })
    }

    /// A page asked: it listens from now on and gets what was kept.
    fn take_for_page(&self) -> Option<OpenTarget> {
        self.with(|w| {
            w.page_ready = true;
            w.target.take()
        })
    }

    /// The window was destroyed: what it was asked to show no longer matters.
    pub fn window_destroyed(&self) {
        self.with(|w| {
            w.page_ready = false;
            w.target = None;
        });
    }
}

/// Keeps `target` for the window about to be created (a link on the command line).
pub fn wait_with<R: Runtime>(app: &AppHandle<R>, target: OpenTarget) {
    app.state::<WaitingTarget>()
        .with(|w| w.target = Some(target));
}

/// Shows the main window (creating it when closed) with `target` on screen, if any.
/// `NewestPending` is resolved to the newest waiting request (the inbox when none waits)
/// before it reaches the page. Opens are serialized, so concurrent ones make one window;
/// the window is created on a blocking thread (its creation waits for the event loop).
pub async fn open<R: Runtime>(app: &AppHandle<R>, target: Option<OpenTarget>) {
    let target = match target {
        Some(OpenTarget::NewestPending) => Some(newest_pending(app).await),
        other => other,
    };
    let waiting = app.state::<WaitingTarget>().inner().clone();
    let _one_at_a_time = waiting.opening.lock().await;
    if let Some(link) = app.try_state::<WindowLink>() {
        // The window is a process of its own (window_link).
        if link.is_open() {
            if let Some(target) = waiting.route(target) {
                link.emit(OPEN_EVENT, &target);
            }
            link.send(ToWindow::Forward);
        } else {
            waiting.with(|w| {
                w.target = target;
                w.page_ready = false;
            });
            link.spawn_window();
        }
        return;
    }
    match main_window(app) {
        Some(window) => {
            if let Some(target) = waiting.route(target) {
                if let Err(error) = window.emit(OPEN_EVENT, &target) {
                    tracing::warn!(%error, "could not ask the window to open its target");
                }
            }
            let _ = tauri::async_runtime::spawn_blocking(move || bring_forward(&window)).await;
        }
        None => {
            waiting.with(|w| {
                w.target = target;
                w.page_ready = false;
            });
            let app = app.clone();
            match tauri::async_runtime::spawn_blocking(move || create(&app)).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => tracing::error!(%error, "could not open the window"),
                Err(error) => tracing::error!(%error, "could not open the window"),
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
    // Hidden until its page has loaded: see [`show_when_loaded`].
    let window = WebviewWindowBuilder::from_config(app, &config)?
        .visible(false)
        .on_page_load(|window, payload| {
            if payload.event() == PageLoadEvent::Finished {
                show_if_hidden(&window);
            }
        })
        .build()?;
    crate::paint::window_created(started);
    crate::attention::window_created(app, &window);
    show_when_loaded(window);
    Ok(())
}

/// How long a new window may stay hidden waiting for its page (a page that never finishes
/// loading is shown anyway, with whatever it drew).
const SHOW_AT_LATEST: std::time::Duration = std::time::Duration::from_secs(2);

/// A new window is shown when its page has finished loading, or after [`SHOW_AT_LATEST`].
///
/// Shown at once, WebKitGTK's first draw of the window (on its main thread, which also serves
/// the page's `tauri://` assets) waits up to 500 ms for the new web process to set up its
/// backing store; a web process still starting cannot answer, so every cold start paid the
/// whole 500 ms before the page even began to load (docs/benchmarks.md, "Desktop"). Drawn
/// after the load, the same wait returns at once.
fn show_when_loaded<R: Runtime>(window: WebviewWindow<R>) {
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(SHOW_AT_LATEST).await;
        if show_if_hidden(&window) {
            tracing::warn!("the window's page did not finish loading; showing the window");
        }
    });
}

/// Shows and focuses a window still hidden since its creation; true if it did. A window already
/// shown is left alone, so a page reloaded in an open window does not take the focus, and a
/// destroyed one is not touched.
fn show_if_hidden<R: Runtime>(window: &WebviewWindow<R>) -> bool {
    let hidden = window.is_visible().is_ok_and(|visible| !visible);
    if hidden {
        bring_forward(window);
    }
    hidden
}

/// Unminimizes, shows and focuses `window`.
pub(crate) fn bring_forward<R: Runtime>(window: &WebviewWindow<R>) {
    let _ = window.unminimize();
    let _ = window.show();
    let _ = window.set_focus();
}

/// The newest pending request, else the inbox (also when the core is not open yet).
async fn newest_pending<R: Runtime>(app: &AppHandle<R>) -> OpenTarget {
    let Some(state) = app.try_state::<crate::state::AppState>() else {
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
pub async fn take_open_target<R: Runtime>(app: AppHandle<R>) -> CmdResult<Option<OpenTarget>> {
    let target = app.state::<WaitingTarget>().take_for_page();
    Ok(match target {
        Some(OpenTarget::NewestPending) => Some(newest_pending(&app).await),
        other => other,
    })
}
