//! The UI's "first screen painted" report: one info-level log line that benchmarks and people
//! can read to see how long a cold start takes (docs/benchmarks.md, "Desktop").
//!
//! The webview calls `ui_painted` once per app start, after the first screen's rows are in the
//! DOM and a frame has been painted (a `requestAnimationFrame` callback followed by a task). The
//! line carries only the screen's name and a row count — never titles or other content.

use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use serde::Deserialize;
use tauri::{AppHandle, Runtime};

use crate::ipc::CmdResult;
use ts_rs::TS;

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

/// When the page reached each step of its start, in milliseconds since the webview began to
/// load it (`performance.now()`); a step it skipped is null. Logged as `page_ms`, so a slow
/// start says where its time went: the webview's own start and the HTML (`html`), the bundle
/// parsed and run (`script`), the shell's answers (`setup`, `sync`, `page`, `notifications`,
/// `inbox`), the render (`painted`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PagePhases {
    /// The HTML document was received (navigation timing's `responseEnd`).
    pub html: Option<f64>,
    /// The bundle began to run (`main.ts`).
    pub script: Option<f64>,
    /// The app component was mounted (its `onMount` began).
    pub mounted: Option<f64>,
    /// `setup_state` answered.
    pub setup: Option<f64>,
    /// `sync_state` answered.
    pub sync: Option<f64>,
    /// The first inbox page (`inbox_page`) arrived.
    pub page: Option<f64>,
    /// The agent notifications (`notifications`) arrived.
    pub notifications: Option<f64>,
    /// The inbox's state holds all three.
    pub inbox: Option<f64>,
    /// The frame with the inbox was painted.
    pub painted: Option<f64>,
}

impl PagePhases {
    /// `html=12,script=150,…`: the steps present, each a finite number in 0..=600,000 ms
    /// (anything else is left out: the page is not trusted to send sane numbers).
    fn to_log(self) -> String {
        let steps = [
            ("html", self.html),
            ("script", self.script),
            ("mounted", self.mounted),
            ("setup", self.setup),
            ("sync", self.sync),
            ("page", self.page),
            ("notifications", self.notifications),
            ("inbox", self.inbox),
            ("painted", self.painted),
        ];
        let mut out = String::new();
        for (name, ms) in steps {
            let Some(ms) = ms.filter(|ms| ms.is_finite() && (0.0..=600_000.0).contains(ms)) else {
                continue;
            };
            if !out.is_empty() {
                out.push(',');
            }
            let _ = write!(out, "{name}={ms:.0}");
        }
        out
    }
}

/// Longest screen name logged; longer names are cut (the UI sends short fixed names).
const MAX_SCREEN_LEN: usize = 32;

/// Logs `ui painted screen=<screen> rows=<rows> since_main_ms=<ms>` at info level, with
/// `since_window_ms=<ms>` for a window created after the start ([`window_created`]).
/// `screen` is a short fixed name from the UI ("inbox", "setup"), cut to 32 characters and to
/// ASCII letters, digits and '-'; `rows` is how many list rows are in the DOM; `phases`, when
/// sent, is logged as `page_ms=html=…,script=…,…` ([`PagePhases`]). Never fails.
pub async fn ui_painted<R: Runtime>(
    _app: AppHandle<R>,
    screen: String,
    rows: u32,
    phases: Option<PagePhases>,
) -> CmdResult<()> {
    let page_ms = phases.unwrap_or_default().to_log();
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
            page_ms = %page_ms,
            "ui painted"
        ),
        None => tracing::info!(
            screen = %screen,
            rows,
            since_main_ms = format_args!("{since_main_ms:.1}"),
            page_ms = %page_ms,
            "ui painted"
        ),
    }
    crate::startup::painted();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_logged_in_order_and_insane_numbers_left_out() {
        let phases = PagePhases {
            html: Some(12.4),
            script: Some(150.0),
            mounted: None,
            setup: Some(f64::NAN),
            inbox: Some(-1.0),
            painted: Some(612.6),
            ..PagePhases::default()
        };
        assert_eq!(phases.to_log(), "html=12,script=150,painted=613");
        assert_eq!(PagePhases::default().to_log(), "");
    }

    #[test]
    fn the_page_sends_phases_in_camel_case_and_may_leave_any_out() {
        let phases: PagePhases =
            serde_json::from_str(r#"{"html": 1.5, "painted": 9}"#).expect("phases");
        assert_eq!(phases.html, Some(1.5));
        assert_eq!(phases.painted, Some(9.0));
        assert_eq!(phases.script, None);
    }
}
