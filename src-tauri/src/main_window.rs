//! The one main window's label and lookup, below everything that acts on the window (opening,
//! closing, the title and badge), so each can find it without depending on the others.

use tauri::{AppHandle, Emitter, Manager, Runtime, WebviewWindow};

use crate::window_link::core_side::WindowLink;

/// The main window's label (tauri.conf.json, capabilities/main.json).
pub const MAIN: &str = "main";

/// The main window if it exists.
pub fn main_window<R: Runtime>(app: &AppHandle<R>) -> Option<WebviewWindow<R>> {
    app.get_webview_window(MAIN)
}

/// Emits Tauri event `event` to the main window's page wherever it lives: this process's
/// webview, or the window process over the link (window_link). A page not there misses it.
pub fn emit_to_page<R: Runtime, S: serde::Serialize + Clone>(
    app: &AppHandle<R>,
    event: &str,
    payload: &S,
) {
    if main_window(app).is_some() {
        if let Err(error) = app.emit(event, payload.clone()) {
            tracing::warn!(%error, event, "could not emit to the page");
        }
    }
    if let Some(link) = app.try_state::<WindowLink>() {
        link.emit(event, payload);
    }
}
