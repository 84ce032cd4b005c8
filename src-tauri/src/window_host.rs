//! What the window link asks of the core's shell (window_link::core_side::Host): a hello from
//! a launch, the window's calls through the contract's dispatcher, its close button, its end.

use std::sync::Arc;

use tauri::{AppHandle, Manager, Runtime};

use crate::attention::PendingCount;
use crate::startup::CoreGate;
use crate::targets::parse_link;
use crate::window::WaitingTarget;
use crate::window_link::core_side::{CallFuture, Host};
use crate::window_link::Role;
use herald_client::notify_plan::viewing::{OnScreen, Viewing};

/// The core process's [`Host`].
pub struct ShellHost<R: Runtime> {
    /// The core process's Tauri app: its managed state (the device core, pending count,
    /// what is on screen) is what every call and hello acts on.
    pub app: AppHandle<R>,
    /// Opens once the device core has opened (startup.rs): calls that need the core wait
    /// on it, as the in-process invoke handler's do.
    pub gate: CoreGate,
}

impl<R: Runtime> ShellHost<R> {
    /// The host as the link takes it.
    pub fn shared(app: AppHandle<R>, gate: CoreGate) -> Arc<dyn Host> {
        Arc::new(ShellHost { app, gate })
    }
}

impl<R: Runtime> Host for ShellHost<R> {
    fn hello(&self, link: Option<String>, spawned: bool, window_open: bool) -> Role {
        let target = link.as_deref().and_then(|link| match parse_link(link) {
            Ok(target) => Some(target),
            Err(error) => {
                tracing::warn!(%error, "ignored a herald:// link");
                None
            }
        });
        if window_open {
            // A launch by the person while the window is open: bring it forward with the link
            // (a window process the core started late just ends).
            if !spawned {
                crate::window::open_soon(&self.app, target);
            }
            return Role::Done;
        }
        if let Some(target) = target {
            crate::window::wait_with(&self.app, target);
        }
        // The window's `ui painted` line counts `since_window_ms` from here: the window process
        // is started and has reached Herald; its Tauri app and webview are still to come.
        crate::paint::window_created(std::time::Instant::now());
        Role::Window
    }

    fn pending(&self) -> u32 {
        self.app
            .try_state::<PendingCount>()
            .map(|count| count.get())
            .unwrap_or(0)
    }

    fn call(&self, name: String, args: serde_json::Value) -> CallFuture {
        let (app, gate) = (self.app.clone(), self.gate.clone());
        Box::pin(async move {
            let started = std::time::Instant::now();
            crate::startup::admit(&gate, &name).await?;
            let outcome = crate::contract::dispatch(app, &name, args).await;
            tracing::debug!(
                name,
                ms = started.elapsed().as_secs_f64() * 1e3,
                "the window's call ran"
            );
            outcome
        })
    }

    fn close_requested(&self) {
        crate::closing::remote_close_requested(&self.app);
    }

    fn window_gone(&self) {
        self.app.state::<WaitingTarget>().window_destroyed();
        if let Some(hint) = self.app.try_state::<crate::closing::CloseHint>() {
            hint.window_destroyed();
        }
        // A window that is gone shows nothing: every banner is due again.
        self.app.state::<OnScreen>().report(Viewing {
            message_id: None,
            focused: false,
        });
    }
}
