//! The UI's "first screen painted" report: one info-level log line that benchmarks and people
//! can read to see how long a cold start takes (docs/benchmarks.md, "Desktop").
//!
//! The webview calls `ui_painted` once per app start, after the first screen's rows are in the
//! DOM and a frame has been painted (a `requestAnimationFrame` callback followed by a task). The
//! line carries only the screen's name and a row count — never titles or other content.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// When `main` started (set by [`mark_process_start`]); the log line gives the time since.
static PROCESS_START: OnceLock<Instant> = OnceLock::new();

/// Records the start of the process; call first thing in `main`. Later calls change nothing.
pub fn mark_process_start() {
    let _ = PROCESS_START.set(Instant::now());
}

/// When the current window began to be created, if it was created after the start (a reopen
/// from the tray, a banner, a link): the log line then also gives the time since.
static WINDOW_CREATED: Mutex<Option<Instant>> = Mutex::new(None);

/// Records that a window began to be created at `started` (window.rs). The next
/// `ui painted` line carries `since_window_ms`: the reopen time docs/benchmarks.md measures.
pub fn window_created(started: Instant) {
    *WINDOW_CREATED.lock().unwrap_or_else(|p| p.into_inner()) = Some(started);
}

/// Longest screen name logged; longer names are cut (the UI sends short fixed names).
const MAX_SCREEN_LEN: usize = 32;

/// Logs `ui painted screen=<screen> rows=<rows> since_main_ms=<ms>` at info level, with
/// `since_window_ms=<ms>` for a window created after the start ([`window_created`]).
/// `screen` is a short fixed name from the UI ("inbox", "setup"), cut to 32 characters and to
/// ASCII letters, digits and '-'; `rows` is how many list rows are in the DOM. Never fails.
#[tauri::command]
pub fn ui_painted(screen: String, rows: u32) {
    let screen: String = screen
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(MAX_SCREEN_LEN)
        .collect();
    let since_main_ms = PROCESS_START
        .get()
        .map(|t| t.elapsed().as_secs_f64() * 1e3)
        .unwrap_or(f64::NAN);
    let since_window_ms = WINDOW_CREATED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .map(|t| t.elapsed().as_secs_f64() * 1e3);
    match since_window_ms {
        Some(since_window_ms) => tracing::info!(
            screen = %screen,
            rows,
            since_main_ms = format_args!("{since_main_ms:.1}"),
            since_window_ms = format_args!("{since_window_ms:.1}"),
            "ui painted"
        ),
        None => tracing::info!(
            screen = %screen,
            rows,
            since_main_ms = format_args!("{since_main_ms:.1}"),
            "ui painted"
        ),
    }
    crate::startup::painted();
}
