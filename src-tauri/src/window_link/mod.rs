//! The window as a process of its own (docs/desktop-lifecycle.md, "Window process").
//!
//! Herald's long-running process (the core: sync, banners, tray, embedded relay) never creates
//! a webview. The window is a second process of the same binary, started when the person asks
//! for it and ended when they close it, so everything WebKit loads (its libraries, the web and
//! network processes) goes with it and the background footprint stays the core's.
//!
//! The two talk over one TCP connection on 127.0.0.1, authenticated both ways by a random
//! token that only the data dir holds ([`address`], a 0600 file in the 0700 data dir) and
//! that never travels: each side proves it with an HMAC over the other's nonce ([`proof`]). Frames are
//! length-prefixed JSON ([`frame`]): the window sends the hello, then the page's command calls
//! and its close requests ([`ToCore`]); the core answers each call once and pushes events and
//! window acts — title, attention, focus, destroy ([`ToWindow`]).
//!
//! [`core_side`] is the core's listener; the window process's Tauri app, whose invoke handler
//! forwards every contract command to the core, is window_process.rs (above the window
//! code it reuses, while this module is below everything that talks to the window).

pub mod address;
pub mod core_side;
pub mod frame;
pub mod proof;

use herald_client::view::UiError;
use serde::{Deserialize, Serialize};

/// The argument a window process is started with by the core.
pub const WINDOW_PROCESS_ARG: &str = "--window-process";

/// The environment variable that chooses where the window lives: `process` (its own process,
/// the default) or `inline` (a webview inside the core's process, as the mock-runtime tests
/// and platforms without the split use).
pub const WINDOW_MODE_ENV: &str = "HERALD_WINDOW";

/// Whether this build and environment run the window as a process of its own.
pub fn split_from_env() -> bool {
    match std::env::var(WINDOW_MODE_ENV) {
        Ok(mode) => mode != "inline",
        Err(_) => true,
    }
}

/// What the window process sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ToCore {
    /// The first frame: a fresh nonce the core must answer with [`ToWindow::Proof`]
    /// ([`proof`]). Nothing else is said before that answer checks out.
    Challenge { nonce: String },
    /// The second frame: the window's proof of the token (over the core's nonce), the
    /// `herald://` link of this launch if any, and whether the core started this process
    /// (false: a launch by the person).
    Hello {
        proof: String,
        link: Option<String>,
        spawned: bool,
    },
    /// A contract command from the page (contract/list.rs), answered by one [`ToWindow::Reply`]
    /// with the same `id`.
    Call {
        id: u64,
        name: String,
        args: serde_json::Value,
    },
    /// The window's close button: the core decides (closing.rs) whether the page first shows
    /// the close notice or the window goes at once ([`ToWindow::Destroy`]).
    CloseRequested,
}

/// What the core sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ToWindow {
    /// The answer to the challenge: the core's proof of the token (over the window's nonce)
    /// and the nonce the window's own proof is to cover.
    Proof { proof: String, nonce: String },
    /// The answer to the hello: be the window, or exit (a window is open already and was
    /// brought forward with this launch's link).
    Welcome { role: Role, pending: u32 },
    /// The hello's proof was wrong: exit.
    Refused,
    /// One call's outcome.
    Reply { id: u64, outcome: Outcome },
    /// A Tauri event for the page (`herald://event`, `herald://open`, …).
    Event {
        name: String,
        payload: serde_json::Value,
    },
    /// The pending count changed: the title and badge show it.
    Pending { count: u32 },
    /// A request arrived: ask for attention if the window is not focused.
    Attend,
    /// Bring the window forward (unminimize, show, focus).
    Forward,
    /// Close the window now; the process ends with it.
    Destroy,
}

/// What a launch that reached the core is to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// Become the window.
    Window,
    /// Nothing: the open window was told (exit 0).
    Done,
}

/// A call's outcome: a JSON value, raw bytes (base64, for `attachment_image`) or the
/// contract's one error shape.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Outcome {
    /// The command's result as it would go to the page (serialized once more there).
    Json { value: serde_json::Value },
    /// Bytes the page receives as an `ArrayBuffer` (`attachment_image`), standard base64.
    Raw { base64: String },
    /// The command failed: the page's promise rejects with this `UiError`.
    Error { error: UiError },
}
