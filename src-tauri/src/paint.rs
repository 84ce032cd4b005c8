//! The UI's "first screen painted" report: one info-level log line that benchmarks and people
//! can read to see how long a cold start takes (docs/benchmarks.md, "Desktop").
//!
//! The webview calls `ui_painted` once per app start, after the first screen's rows are in the
//! DOM and a frame has been painted (a `requestAnimationFrame` callback followed by a task). The
//! line carries only the screen's name and a row count — never titles or other content.

use std::sync::OnceLock;
use std::time::Instant;

/// When `main` started (set by [`mark_process_start`]); the log line gives the time since.
static PROCESS_START: OnceLock<Instant> = OnceLock::new();

/// Records the start of the process; call first thing in `main`. Later calls change nothing.
pub fn mark_process_start() {
    let _ = PROCESS_START.set(Instant::now());
}

/// Longest screen name logged; longer names are cut (the UI sends short fixed names).
const MAX_SCREEN_LEN: usize = 32;

/// Logs `ui painted screen=<screen> rows=<rows> since_main_ms=<ms>` at info level.
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
    tracing::info!(
        screen = %screen,
        rows,
        since_main_ms = format_args!("{since_main_ms:.1}"),
        "ui painted"
    );
    crate::startup::painted();
}
