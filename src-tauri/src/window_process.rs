//! The window process: a Tauri app with the one main window and no core of its own. Its
//! invoke handler forwards every contract command to the core over the link and answers the
//! page with the core's reply; the core's events and acts arrive the other way. When the
//! window is destroyed, or the core goes, the process ends, and with it all WebKit memory.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use herald_client::view::{UiError, UiErrorCode};
use tauri::ipc::{Invoke, InvokeResponseBody};
use tauri::{AppHandle, Emitter, Manager, Runtime, UserAttentionType};
use tokio::sync::{mpsc, oneshot};

use crate::attention::{show_count, PendingCount};
use crate::ipc::shell_error;
use crate::main_window::main_window;
use crate::window_link::frame;
use crate::window_link::{Outcome, ToCore, ToWindow};

/// Calls waiting for their reply, by id; `None` once the core is gone.
type Waiting = Arc<Mutex<Option<HashMap<u64, oneshot::Sender<Outcome>>>>>;

/// The window's end of the link: sends frames and matches replies to calls.
#[derive(Clone)]
struct Link {
    tx: mpsc::UnboundedSender<ToCore>,
    calls: Waiting,
    next_id: Arc<AtomicU64>,
}

impl Link {
    /// Sends a call; the receiver gets its outcome (or is dropped when the link goes).
    fn call(&self, name: String, args: serde_json::Value) -> oneshot::Receiver<Outcome> {
        let (reply, outcome) = oneshot::channel();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(calls) = calls.as_mut() {
            calls.insert(id, reply);
            let _ = self.tx.send(ToCore::Call { id, name, args });
        }
        outcome
    }

    fn reply(&self, id: u64, outcome: Outcome) {
        let waiting = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .and_then(|calls| calls.remove(&id));
        if let Some(waiting) = waiting {
            let _ = waiting.send(outcome);
        }
    }

    /// The core is gone: every waiting call fails and no new one is sent.
    fn lost(&self) {
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    fn is_up(&self) -> bool {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }
}

/// Names this process `herald-window` in ps and top, beside the core's `herald-desktop` (its main thread's name is the process's `comm`). Call
/// on the main thread before other threads start. Elsewhere than Linux, a no-op.
#[allow(unsafe_code)]
pub fn name_this_process() {
    #[cfg(target_os = "linux")]
    {
        let name = c"herald-window";
        // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes from the
        // pointer, which `name` provides for the duration of the call; it only renames the
        // calling thread.
        let _ = unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr() as libc::c_ulong, 0, 0, 0) };
    }
}

/// Runs the window process over `stream` (the hello already answered `Window`) until the
/// window closes or the core goes. `pending` is the count for the first title.
pub fn run(
    context: tauri::Context<tauri::Wry>,
    stream: std::net::TcpStream,
    pending: u32,
) -> Result<(), tauri::Error> {
    let (tx, rx) = mpsc::unbounded_channel();
    let link = Link {
        tx,
        calls: Arc::new(Mutex::new(Some(HashMap::new()))),
        next_id: Arc::new(AtomicU64::new(1)),
    };
    let on_close = link.clone();
    let in_setup = link.clone();
    let mut rx = Some(rx);
    let mut stream = Some(stream);
    let app = tauri::Builder::default()
        .plugin(crate::shell::navigation_guard())
        .manage(PendingCount::with(pending))
        .on_window_event(move |window, event| match event {
            tauri::WindowEvent::CloseRequested { api, .. } if on_close.is_up() => {
                // The core decides: the close notice first, or Destroy at once (closing.rs).
                api.prevent_close();
                let _ = on_close.tx.send(ToCore::CloseRequested);
            }
            tauri::WindowEvent::Destroyed => window.app_handle().exit(0),
            _ => {}
        })
        .invoke_handler(forwarder(link.clone()))
        .setup(move |app| {
            let handle = app.handle().clone();
            let (rx, stream) = (
                rx.take().ok_or("setup ran twice")?,
                stream.take().ok_or("setup ran twice")?,
            );
            stream.set_nonblocking(true)?;
            let link = in_setup.clone();
            tauri::async_runtime::spawn(async move {
                match tokio::net::TcpStream::from_std(stream) {
                    Ok(stream) => serve(handle, link, stream, rx).await,
                    Err(error) => {
                        tracing::error!(%error, "the window link is unusable");
                        handle.exit(1);
                    }
                }
            });
            crate::window::create(app.handle())?;
            Ok(())
        })
        .build(context)?;
    app.run(|_, _| {});
    Ok(())
}

/// Forwards contract commands to the core; anything else is left to Tauri (rejected).
fn forwarder<R: Runtime>(link: Link) -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    move |invoke: Invoke<R>| {
        let (name, args) = match crate::contract::contract_call(&invoke) {
            None => return false,
            Some(Err(error)) => {
                invoke.resolver.reject(error);
                return true;
            }
            Some(Ok(call)) => call,
        };
        let outcome = link.call(name, args);
        invoke.resolver.respond_async_serialized(async move {
            let reply = match outcome.await {
                Ok(Outcome::Json { value }) => Ok(InvokeResponseBody::Json(value.to_string())),
                Ok(Outcome::Raw { base64 }) => data_encoding::BASE64
                    .decode(base64.as_bytes())
                    .map(InvokeResponseBody::Raw)
                    .map_err(|_| shell_error(UiErrorCode::Internal, "a raw reply was not base64")),
                Ok(Outcome::Error { error }) => Err(error),
                Err(_) => Err(core_gone()),
            };
            reply.map_err(Into::into)
        });
        true
    }
}

fn core_gone() -> UiError {
    shell_error(
        UiErrorCode::Unavailable,
        "Herald's background process is not running",
    )
}

/// Writes queued frames and acts on the core's, until either side ends.
async fn serve<R: Runtime>(
    app: AppHandle<R>,
    link: Link,
    stream: tokio::net::TcpStream,
    mut rx: mpsc::UnboundedReceiver<ToCore>,
) {
    let (mut reader, mut writer) = stream.into_split();
    let writing = tauri::async_runtime::spawn(async move {
        while let Some(message) = rx.recv().await {
            if frame::write(&mut writer, &message).await.is_err() {
                return;
            }
        }
    });
    loop {
        match frame::read::<ToWindow>(&mut reader).await {
            Ok(ToWindow::Reply { id, outcome }) => link.reply(id, outcome),
            Ok(ToWindow::Event { name, payload }) => {
                if let Err(error) = app.emit_to(crate::main_window::MAIN, &name, payload) {
                    tracing::warn!(%error, name, "could not pass an event to the page");
                }
            }
            Ok(message) => act(&app, message),
            Err(error) => {
                if !matches!(error, frame::FrameError::Closed) {
                    tracing::warn!(%error, "the window link failed");
                }
                break;
            }
        }
    }
    link.lost();
    writing.abort();
    tracing::info!("Herald's background process is gone; closing the window");
    app.exit(0);
}

/// The core's window acts, on the event loop's thread.
fn act<R: Runtime>(app: &AppHandle<R>, message: ToWindow) {
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || {
        let Some(window) = main_window(&handle) else {
            return;
        };
        match message {
            ToWindow::Pending { count } => {
                handle.state::<PendingCount>().set(count);
                show_count(&window, count);
            }
            ToWindow::Attend => {
                if !window.is_focused().unwrap_or(true) {
                    let _ = window.request_user_attention(Some(UserAttentionType::Informational));
                }
            }
            ToWindow::Forward => crate::window::bring_forward(&window),
            ToWindow::Destroy => {
                if let Err(error) = window.destroy() {
                    tracing::warn!(%error, "could not close the window");
                }
            }
            ToWindow::Welcome { .. }
            | ToWindow::Proof { .. }
            | ToWindow::Refused
            | ToWindow::Reply { .. }
            | ToWindow::Event { .. } => {}
        }
    });
}
