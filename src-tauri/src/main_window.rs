//! The one main window's label and lookup, below everything that acts on the window (opening,
//! closing, the title and badge), so each can find it without depending on the others.

use tauri::{AppHandle, Manager, Runtime, WebviewWindow};

/// The main window's label (tauri.conf.json, capabilities/main.json).
pub const MAIN: &str = "main";

/// The main window if it exists.
pub fn main_window<R: Runtime>(app: &AppHandle<R>) -> Option<WebviewWindow<R>> {
    app.get_webview_window(MAIN)
}
