//! What the window shows: the message (or agent notification) open in the reading pane, and
//! whether the window has the focus — reported by the UI with `ui_viewing` whenever either
//! changes (it watches `focus`, `blur` and `visibilitychange`).
//!
//! It is the only reason besides the settings and quiet hours to skip a banner, and a narrow
//! one: only that very item, only while the window is focused. A window that merely exists,
//! is hidden or minimised, or shows another message gets the banner. The state is plain data
//! behind a lock, so another process (a background notifier) can be fed the same reports.

use std::sync::{Arc, Mutex};

/// One report from the window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Viewing {
    /// The id of the message (`msg_…`) or agent notification (`ntf_…`) in the reading pane;
    /// `None` when none is open (another screen, or an empty pane).
    pub message_id: Option<String>,
    /// The window has the keyboard focus and its page is visible.
    pub focused: bool,
}

impl Viewing {
    /// Whether `id` is on screen in a focused window.
    pub fn shows(&self, id: &str) -> bool {
        self.focused && self.message_id.as_deref() == Some(id)
    }
}

/// The latest report, shared between the command that receives it and the notifier. Cheap to
/// clone; managed as Tauri state.
#[derive(Debug, Clone, Default)]
pub struct OnScreen(Arc<Mutex<Viewing>>);

impl OnScreen {
    /// Records what the window reports now.
    pub fn report(&self, viewing: Viewing) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = viewing;
    }

    /// Whether `id` is on screen in a focused window now.
    pub fn shows(&self, id: &str) -> bool {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).shows(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_that_message_in_a_focused_window_counts_as_on_screen() {
        let screen = OnScreen::default();
        assert!(
            !screen.shows("msg_1"),
            "nothing reported: nothing on screen"
        );
        let open = |id: Option<&str>, focused| Viewing {
            message_id: id.map(Into::into),
            focused,
        };
        let cases = [
            (open(Some("msg_1"), true), "msg_1", true, "open and focused"),
            (
                open(Some("msg_1"), false),
                "msg_1",
                false,
                "open, window not focused",
            ),
            (
                open(Some("msg_2"), true),
                "msg_1",
                false,
                "another message open",
            ),
            (open(None, true), "msg_1", false, "no message open"),
            (
                open(Some("ntf_1"), true),
                "ntf_1",
                true,
                "an agent notification open",
            ),
        ];
        for (report, id, want, name) in cases {
            screen.report(report);
            assert_eq!(screen.shows(id), want, "{name}");
        }
        let shared = screen.clone();
        shared.report(open(Some("msg_9"), true));
        assert!(screen.shows("msg_9"), "clones share the state");
    }
}
