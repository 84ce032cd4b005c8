//! Start-up off the main thread (docs/benchmarks.md, "Desktop"): Tauri creates the window and
//! then runs the `setup` hook on the main thread, which also serves the webview's page; so the
//! hook only starts the device core's open on a blocking thread and returns. Until the core is
//! open, commands from the webview wait for it ([`gated`]); then, after the first paint, the
//! cache's full page check runs ([`herald_client::Core::verify_cache`]) and only then the sync.

use std::sync::Arc;
use std::time::Duration;

use tauri::ipc::Invoke;
use tauri::Runtime;
use tokio::sync::{watch, Semaphore};

/// Commands that never touch the core, run at once even while it opens.
const WITHOUT_CORE: &[&str] = &[
    "ui_painted",
    "ui_viewing",
    "close_hint_shown",
    "confirm_close",
    "launch_settings",
    "set_autostart",
    "set_shortcut",
];

/// How long the checks wait for the first paint before running anyway (a window that never
/// paints, say hidden): the check then merely competes with the start.
pub const PAINT_WAIT: Duration = Duration::from_secs(3);

/// Where the core's open stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Opening,
    Ready,
    Failed,
}

/// The open's side: says once whether the core is managed state now.
pub struct Opener(watch::Sender<Phase>);

/// The commands' side: cheap to clone.
#[derive(Clone)]
pub struct CoreGate(watch::Receiver<Phase>);

/// A new gate, closed.
pub fn gate() -> (Opener, CoreGate) {
    let (tx, rx) = watch::channel(Phase::Opening);
    (Opener(tx), CoreGate(rx))
}

impl Opener {
    /// The core and `AppState` are managed: waiting commands run.
    pub fn ready(self) {
        self.0.send_replace(Phase::Ready);
    }

    /// The core did not open: waiting commands are rejected (the app is exiting).
    pub fn failed(self) {
        self.0.send_replace(Phase::Failed);
    }
}

impl Drop for Opener {
    fn drop(&mut self) {
        // An opener dropped without a verdict (a panic while opening) fails the gate.
        self.0.send_if_modified(|phase| {
            let open = *phase == Phase::Opening;
            if open {
                *phase = Phase::Failed;
            }
            open
        });
    }
}

impl CoreGate {
    fn is_ready(&self) -> bool {
        *self.0.borrow() == Phase::Ready
    }

    /// Waits until the open ends; true when the core is ready.
    async fn wait(mut self) -> bool {
        match self.0.wait_for(|p| *p != Phase::Opening).await {
            Ok(phase) => *phase == Phase::Ready,
            Err(_) => false,
        }
    }
}

/// Wraps the generated command handler: once the core is ready (and for [`WITHOUT_CORE`]) a
/// command runs as usual; before that it is handed to a task that waits for the open and then
/// runs it (on a runtime thread instead of the main thread), or rejects it with the code
/// `storage` when the core did not open. An unknown command is rejected as Tauri does.
pub fn gated<R: Runtime>(
    gate: CoreGate,
    handler: impl Fn(Invoke<R>) -> bool + Send + Sync + 'static,
) -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    let handler = Arc::new(handler);
    move |invoke: Invoke<R>| {
        if gate.is_ready() || WITHOUT_CORE.contains(&invoke.message.command()) {
            return handler(invoke);
        }
        let (handler, gate) = (handler.clone(), gate.clone());
        tauri::async_runtime::spawn(async move {
            let resolver = invoke.resolver.clone();
            let command = invoke.message.command().to_owned();
            if gate.wait().await {
                if !handler(invoke) {
                    resolver.reject(herald_client::view::UiError::new(
                        herald_client::view::UiErrorCode::NotFound,
                        format!("no command named {command}"),
                    ));
                }
            } else {
                resolver.reject(herald_client::view::UiError::new(
                    herald_client::view::UiErrorCode::Storage,
                    "the device core could not be opened",
                ));
            }
        });
        true
    }
}

/// For a command from the window process (window_link): waits until the core is open unless
/// `command` needs none. Errors: `storage` when the core did not open.
pub async fn admit(gate: &CoreGate, command: &str) -> Result<(), herald_client::view::UiError> {
    if gate.is_ready() || WITHOUT_CORE.contains(&command) || gate.clone().wait().await {
        Ok(())
    } else {
        Err(herald_client::view::UiError::new(
            herald_client::view::UiErrorCode::Storage,
            "the device core could not be opened",
        ))
    }
}

/// Permits: one per `ui_painted` call.
static PAINTED: Semaphore = Semaphore::const_new(0);

/// The UI painted its first screen (called by the `ui_painted` command).
pub fn painted() {
    PAINTED.add_permits(1);
}

/// Waits for the first paint, at most `limit`.
pub async fn first_paint(limit: Duration) {
    if let Ok(Ok(permit)) = tokio::time::timeout(limit, PAINTED.acquire()).await {
        drop(permit); // left for the next waiter: the paint happened
    }
}

/// Quits the app cleanly when the session asks it to (SIGTERM at logout or shutdown, or
/// `kill`) or the terminal does (SIGINT, Ctrl+C where `herald-desktop` was started): the exit
/// handler stops the sync and records the cache's clean close, so the next start need not
/// check every page before opening it. Unix only; elsewhere and when the handler cannot be
/// installed, the default (immediate end) stays.
pub fn exit_on_terminate<R: Runtime>(app: tauri::AppHandle<R>) {
    #[cfg(unix)]
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (terminate, interrupt) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        );
        match (terminate, interrupt) {
            (Ok(mut terminate), Ok(mut interrupt)) => {
                let name = tokio::select! {
                    Some(()) = terminate.recv() => "terminate",
                    Some(()) = interrupt.recv() => "interrupt",
                    else => return,
                };
                tracing::info!(signal = name, "signal: exiting");
                app.exit(0);
            }
            (Err(error), _) | (_, Err(error)) => {
                tracing::warn!(%error, "no handler for the terminate signals")
            }
        }
    });
    #[cfg(not(unix))]
    let _ = app;
}
