//! The core's end of the window link: listens on 127.0.0.1, starts the window process when
//! the window is asked for, admits one window at a time, runs its calls and sends it events
//! and acts. What a call does, and what a hello or a close means, is the [`Host`]'s (shell.rs
//! wires it to the contract's dispatcher, window.rs and closing.rs): this module knows only
//! the link.

use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use herald_client::view::UiError;
use tauri::ipc::InvokeResponseBody;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::address::{self, LinkAddress};
use super::{frame, proof};
use super::{Outcome, Role, ToCore, ToWindow, WINDOW_PROCESS_ARG};

/// A boxed future of a call's result.
pub type CallFuture = Pin<Box<dyn Future<Output = Result<InvokeResponseBody, UiError>> + Send>>;

/// What the link asks of the rest of the shell.
pub trait Host: Send + Sync + 'static {
    /// A launch reached the core. `window_open`: a window is connected already, so this launch
    /// only brings it forward with its `link` (returns `Done`). Otherwise the launch becomes
    /// the window; its `link`, if any, is what that window is to show first.
    fn hello(&self, link: Option<String>, spawned: bool, window_open: bool) -> Role;
    /// The pending count, for the new window's title.
    fn pending(&self) -> u32;
    /// Runs contract command `name` with its JSON arguments.
    fn call(&self, name: String, args: serde_json::Value) -> CallFuture;
    /// The window's close button was pressed.
    fn close_requested(&self);
    /// The window process went away (closed, crashed or killed).
    fn window_gone(&self);
}

/// How long a started window process has to connect before another open starts a new one.
const SPAWN_GRACE: Duration = Duration::from_secs(15);
/// How long a connection has to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// The link's state; cheap to clone (Tauri-managed in the core process).
#[derive(Clone)]
pub struct WindowLink {
    shared: Arc<Shared>,
}

struct Shared {
    data_dir: PathBuf,
    port: u16,
    token: String,
    window: Mutex<Option<Connected>>,
    /// When the last window process was started and has not connected yet.
    spawned_at: Mutex<Option<Instant>>,
    next_id: AtomicU64,
}

struct Connected {
    id: u64,
    tx: mpsc::UnboundedSender<ToWindow>,
}

impl std::fmt::Debug for WindowLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowLink")
            .field("port", &self.shared.port)
            .finish_non_exhaustive()
    }
}

impl WindowLink {
    /// Listens on 127.0.0.1 (a port of the system's choosing), writes the link file into
    /// `data_dir` and serves windows on the async runtime. Errors: the bind or the file write.
    pub fn start(data_dir: PathBuf, host: Arc<dyn Host>) -> std::io::Result<WindowLink> {
        let listener = std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let token = address::new_token()?;
        address::write(
            &data_dir,
            &LinkAddress {
                port,
                token: token.clone(),
            },
        )?;
        let link = WindowLink {
            shared: Arc::new(Shared {
                data_dir,
                port,
                token,
                window: Mutex::new(None),
                spawned_at: Mutex::new(None),
                next_id: AtomicU64::new(1),
            }),
        };
        let shared = link.shared.clone();
        tauri::async_runtime::spawn(async move {
            let listener = match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => listener,
                Err(error) => {
                    tracing::error!(%error, "the window link cannot listen");
                    return;
                }
            };
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => {
                        let (shared, host) = (shared.clone(), host.clone());
                        tauri::async_runtime::spawn(serve(shared, host, stream));
                    }
                    Err(error) => {
                        tracing::warn!(%error, "the window link could not accept");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
        });
        tracing::info!(port, "window link listening");
        Ok(link)
    }

    /// Whether a window process is connected.
    pub fn is_open(&self) -> bool {
        self.shared.lock_window().is_some()
    }

    /// Sends `message` to the connected window; false when none is.
    pub fn send(&self, message: ToWindow) -> bool {
        match &*self.shared.lock_window() {
            Some(window) => window.tx.send(message).is_ok(),
            None => false,
        }
    }

    /// Sends a Tauri event (`name`, `payload`) to the window's page, if a window is connected.
    pub fn emit<S: serde::Serialize>(&self, name: &str, payload: &S) {
        if !self.is_open() {
            return;
        }
        match serde_json::to_value(payload) {
            Ok(payload) => {
                self.send(ToWindow::Event {
                    name: name.to_owned(),
                    payload,
                });
            }
            Err(error) => tracing::warn!(%error, name, "an event did not serialize"),
        }
    }

    /// Starts a window process unless one is connected or was started moments ago and is still
    /// on its way. The process inherits this one's environment (the data dir, the display).
    pub fn spawn_window(&self) {
        if self.is_open() {
            return;
        }
        {
            let mut spawned_at = self
                .shared
                .spawned_at
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if spawned_at.is_some_and(|at| at.elapsed() < SPAWN_GRACE) {
                return;
            }
            *spawned_at = Some(Instant::now());
        }
        let started = std::env::current_exe().and_then(|exe| {
            std::process::Command::new(exe)
                .arg(WINDOW_PROCESS_ARG)
                .stdin(std::process::Stdio::null())
                .spawn()
        });
        match started {
            Ok(mut child) => {
                tracing::info!(pid = child.id(), "window process started");
                let shared = self.shared.clone();
                // Reaps it; a process that ends without connecting lets the next open retry.
                std::thread::spawn(move || {
                    let status = child.wait();
                    if shared.lock_window().is_none() {
                        *shared.spawned_at.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    }
                    match status {
                        Ok(status) if status.success() => {}
                        Ok(status) => tracing::warn!(%status, "the window process ended"),
                        Err(error) => tracing::warn!(%error, "the window process was lost"),
                    }
                });
            }
            Err(error) => {
                *self
                    .shared
                    .spawned_at
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = None;
                tracing::error!(%error, "could not start the window process");
            }
        }
    }

    /// Removes the link file (at exit); the open window's connection ends with the process.
    pub fn stop(&self) {
        address::remove(&self.shared.data_dir, self.shared.port);
    }
}

impl Shared {
    fn lock_window(&self) -> std::sync::MutexGuard<'_, Option<Connected>> {
        self.window.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One connection: the hello, then (for the window) its calls until it goes.
async fn serve(shared: Arc<Shared>, host: Arc<dyn Host>, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let (mut reader, mut writer) = stream.into_split();
    // The mutual proof (proof.rs): answer the window's nonce, then check its proof of ours.
    let Some((link, spawned)) = tokio::time::timeout(HELLO_TIMEOUT, async {
        let ToCore::Challenge { nonce } =
            frame::read_at_most::<ToCore>(&mut reader, frame::MAX_HELLO)
                .await
                .ok()?
        else {
            tracing::debug!("a window link connection began without a challenge");
            return None;
        };
        let ours = proof::new_nonce().ok()?;
        let answer = ToWindow::Proof {
            proof: proof::core_proof(&shared.token, &nonce),
            nonce: ours.clone(),
        };
        frame::write(&mut writer, &answer).await.ok()?;
        match frame::read_at_most::<ToCore>(&mut reader, frame::MAX_HELLO)
            .await
            .ok()?
        {
            ToCore::Hello {
                proof: theirs,
                link,
                spawned,
            } if proof::window_proof_ok(&shared.token, &ours, &theirs) => Some((link, spawned)),
            _ => {
                tracing::warn!("a window link connection could not prove the token");
                let _ = frame::write(&mut writer, &ToWindow::Refused).await;
                None
            }
        }
    })
    .await
    .ok()
    .flatten() else {
        return;
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<ToWindow>();
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    // Decided under the lock, answered after it (a guard is not held across an await).
    let refused_role = {
        let mut window = shared.lock_window();
        if window.is_some() {
            Some(true)
        } else if host.hello(link.clone(), spawned, false) == Role::Done {
            Some(false)
        } else {
            *window = Some(Connected { id, tx: tx.clone() });
            *shared.spawned_at.lock().unwrap_or_else(|p| p.into_inner()) = None;
            None
        }
    };
    if let Some(window_open) = refused_role {
        let role = if window_open {
            host.hello(link, spawned, true)
        } else {
            Role::Done
        };
        let _ = frame::write(&mut writer, &ToWindow::Welcome { role, pending: 0 }).await;
        return;
    }
    tracing::info!(spawned, "window connected");
    let welcome = ToWindow::Welcome {
        role: Role::Window,
        pending: host.pending(),
    };
    // The welcome goes first; everything queued meanwhile follows it.
    let writing = tauri::async_runtime::spawn(async move {
        if frame::write(&mut writer, &welcome).await.is_err() {
            return;
        }
        while let Some(message) = rx.recv().await {
            if let Err(error) = frame::write(&mut writer, &message).await {
                tracing::debug!(%error, "the window link's writer stopped");
                return;
            }
        }
    });
    loop {
        match frame::read::<ToCore>(&mut reader).await {
            Ok(ToCore::Call { id, name, args }) => {
                let (host, tx) = (host.clone(), tx.clone());
                tauri::async_runtime::spawn(async move {
                    let outcome = match host.call(name, args).await {
                        Ok(InvokeResponseBody::Json(json)) => match serde_json::from_str(&json) {
                            Ok(value) => Outcome::Json { value },
                            Err(error) => Outcome::Error {
                                error: crate::ipc::shell_error(
                                    herald_client::view::UiErrorCode::Internal,
                                    format!("the reply did not serialize: {error}"),
                                ),
                            },
                        },
                        Ok(InvokeResponseBody::Raw(bytes)) => Outcome::Raw {
                            base64: data_encoding::BASE64.encode(&bytes),
                        },
                        Err(error) => Outcome::Error { error },
                    };
                    let _ = tx.send(ToWindow::Reply { id, outcome });
                });
            }
            Ok(ToCore::CloseRequested) => host.close_requested(),
            Ok(ToCore::Hello { .. } | ToCore::Challenge { .. }) => {
                tracing::warn!("a second hello on the window link")
            }
            Err(frame::FrameError::Closed) => break,
            Err(error) => {
                tracing::warn!(%error, "the window link failed");
                break;
            }
        }
    }
    {
        let mut window = shared.lock_window();
        if window.as_ref().is_some_and(|w| w.id == id) {
            *window = None;
        }
    }
    drop(tx);
    writing.abort();
    tracing::info!("window gone");
    host.window_gone();
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::super::address::{hello, Hello, HelloError};
    use super::super::frame::blocking;
    use super::*;

    /// Records what the link asked; answers calls by echoing their name.
    #[derive(Default)]
    struct Recorder {
        hellos: Mutex<Vec<(Option<String>, bool, bool)>>,
        closes: AtomicUsize,
        gone: AtomicUsize,
    }

    impl Host for Arc<Recorder> {
        fn hello(&self, link: Option<String>, spawned: bool, window_open: bool) -> Role {
            self.hellos
                .lock()
                .unwrap()
                .push((link, spawned, window_open));
            if window_open {
                Role::Done
            } else {
                Role::Window
            }
        }
        fn pending(&self) -> u32 {
            2
        }
        fn call(&self, name: String, args: serde_json::Value) -> CallFuture {
            Box::pin(async move {
                match name.as_str() {
                    "bytes" => Ok(InvokeResponseBody::Raw(vec![0, 1, 255])),
                    "fail" => Err(UiError::new(
                        herald_client::view::UiErrorCode::NotFound,
                        "no such thing",
                    )),
                    _ => Ok(InvokeResponseBody::Json(
                        serde_json::json!({ "name": name, "args": args }).to_string(),
                    )),
                }
            })
        }
        fn close_requested(&self) {
            self.closes.fetch_add(1, Ordering::SeqCst);
        }
        fn window_gone(&self) {
            self.gone.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn wait_for(what: &str, done: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done() {
            assert!(Instant::now() < deadline, "timed out: {what}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn call(stream: &mut std::net::TcpStream, id: u64, name: &str) -> Outcome {
        let call = ToCore::Call {
            id,
            name: name.into(),
            args: serde_json::json!({ "x": 1 }),
        };
        blocking::write(stream, &call).unwrap();
        loop {
            match blocking::read::<ToWindow>(stream, frame::MAX_FRAME).unwrap() {
                ToWindow::Reply { id: got, outcome } if got == id => return outcome,
                _ => continue,
            }
        }
    }

    /// The whole link over real sockets: the token, one window at a time, calls in all three
    /// outcomes, events and acts, the close button and the window's end.
    #[test]
    fn a_window_with_the_token_is_admitted_once_and_its_calls_are_answered() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().join("data");
        let recorder = Arc::new(Recorder::default());
        let link = WindowLink::start(data_dir.clone(), Arc::new(recorder.clone())).unwrap();
        assert!(!link.is_open());

        // A window with another token: the core proves its own token (which the forger cannot
        // check), the forger's proof fails, it is refused and the host never hears of it.
        let mut forged = address::read(&data_dir).unwrap();
        forged.token = address::new_token().unwrap();
        let mut stream = std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, forged.port)).unwrap();
        let nonce = proof::new_nonce().unwrap();
        let challenge = ToCore::Challenge {
            nonce: nonce.clone(),
        };
        blocking::write(&mut stream, &challenge).unwrap();
        let ToWindow::Proof {
            proof: answer,
            nonce: core_nonce,
        } = blocking::read::<ToWindow>(&mut stream, frame::MAX_FRAME).unwrap()
        else {
            panic!("the core answers a challenge with its proof");
        };
        assert!(!proof::core_proof_ok(&forged.token, &nonce, &answer));
        let hello_frame = ToCore::Hello {
            proof: proof::window_proof(&forged.token, &core_nonce),
            link: None,
            spawned: false,
        };
        blocking::write(&mut stream, &hello_frame).unwrap();
        assert!(matches!(
            blocking::read::<ToWindow>(&mut stream, frame::MAX_FRAME).unwrap(),
            ToWindow::Refused
        ));
        // A hello without the challenge first: dropped unanswered.
        let mut rude = std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, forged.port)).unwrap();
        let hello_frame = ToCore::Hello {
            proof: "00".repeat(32),
            link: None,
            spawned: false,
        };
        blocking::write(&mut rude, &hello_frame).unwrap();
        let mut rest = Vec::new();
        let read = std::io::Read::read_to_end(&mut rude, &mut rest);
        assert!(read.is_ok_and(|n| n == 0), "closed without an answer");
        assert!(recorder.hellos.lock().unwrap().is_empty());

        // A length over the hello's limit, before any token: the connection is dropped unread.
        let mut greedy = std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, forged.port)).unwrap();
        std::io::Write::write_all(&mut greedy, &(frame::MAX_FRAME).to_be_bytes()).unwrap();
        let mut rest = Vec::new();
        let read = std::io::Read::read_to_end(&mut greedy, &mut rest);
        assert!(read.is_ok_and(|n| n == 0), "closed without an answer");
        assert!(recorder.hellos.lock().unwrap().is_empty());

        // The right token: this launch is the window, told the pending count.
        let link_arg = Some("herald://inbox".to_owned());
        let Ok(Hello::Window {
            stream: mut window,
            pending,
        }) = hello(&data_dir, link_arg.clone(), false)
        else {
            panic!("the first launch becomes the window");
        };
        assert_eq!(pending, 2);
        wait_for("the window is connected", || link.is_open());

        // A second launch while it is open only hands over its link.
        assert!(matches!(hello(&data_dir, None, true), Ok(Hello::Done)));
        assert_eq!(
            *recorder.hellos.lock().unwrap(),
            vec![(link_arg, false, false), (None, true, true)]
        );

        match call(&mut window, 7, "inbox") {
            Outcome::Json { value } => {
                assert_eq!(
                    value,
                    serde_json::json!({ "name": "inbox", "args": { "x": 1 } })
                )
            }
            other => panic!("a JSON reply: {other:?}"),
        }
        match call(&mut window, 8, "bytes") {
            Outcome::Raw { base64 } => assert_eq!(base64, "AAH/"),
            other => panic!("raw bytes: {other:?}"),
        }
        match call(&mut window, 9, "fail") {
            Outcome::Error { error } => assert_eq!(error.code, "not_found"),
            other => panic!("the error: {other:?}"),
        }

        // Events and acts reach the window, in order.
        link.emit("herald://event", &serde_json::json!({ "kind": "x" }));
        assert!(link.send(ToWindow::Destroy));
        match blocking::read::<ToWindow>(&mut window, frame::MAX_FRAME).unwrap() {
            ToWindow::Event { name, payload } => {
                assert_eq!(name, "herald://event");
                assert_eq!(payload["kind"], "x");
            }
            other => panic!("the event first: {other:?}"),
        }
        assert!(matches!(
            blocking::read::<ToWindow>(&mut window, frame::MAX_FRAME).unwrap(),
            ToWindow::Destroy
        ));

        blocking::write(&mut window, &ToCore::CloseRequested).unwrap();
        wait_for("the close reached the host", || {
            recorder.closes.load(Ordering::SeqCst) == 1
        });

        drop(window);
        wait_for("the host heard the window go", || {
            recorder.gone.load(Ordering::SeqCst) == 1
        });
        assert!(!link.is_open());
        assert!(!link.send(ToWindow::Attend), "nobody to send to");

        // The next launch is a window again; after the stop, nobody is found.
        assert!(matches!(
            hello(&data_dir, None, false),
            Ok(Hello::Window { .. })
        ));
        link.stop();
        assert!(matches!(
            hello(&data_dir, None, false),
            Err(HelloError::NoCore)
        ));
    }
}
