//! Closing and quitting from the window (`BackgroundNotice.svelte`, Ctrl+Q / Cmd+Q).
//!
//! Today closing the window still ends Herald: the background mode (window closed, sync,
//! notifications and the embedded relay still running, a tray icon with Quit) is issue 10's
//! next step, and until it lands the shell never emits `herald://close-requested`. These two
//! commands are the contract the UI already speaks, answered truthfully for a one-process app.

use tauri::{AppHandle, Runtime};

/// Whether the window can close without first telling the person that Herald keeps running.
/// Always `true` while closing the window quits Herald: there is nothing to tell.
#[tauri::command]
pub fn close_hint_shown() -> bool {
    true
}

/// Ends the app (`quit` true: Ctrl+Q / Cmd+Q or the notice's Quit button; false: the window's
/// close, which also ends the app until the background mode lands). The exit handler stops
/// the sync, records the cache's clean close and stops the embedded relay.
#[tauri::command]
pub fn confirm_close<R: Runtime>(app: AppHandle<R>, quit: bool) {
    tracing::info!(quit, "closing from the window");
    app.exit(0);
}
