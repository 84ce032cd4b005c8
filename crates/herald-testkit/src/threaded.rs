//! [`ThreadedRelay`]: the relay for synchronous tests, such as those that run the `herald`
//! binary as a child process and wait for it. [`crate::TestRelay`] lives on the test's own
//! tokio runtime, which a `#[test]` function does not have; this one brings its runtime along,
//! on a thread of its own, so a plain test can start it, point processes at its `url`, and
//! drop it.
//!
//! It is the same relay as [`crate::TestRelay`]: `herald_relay::spawn` on `127.0.0.1:0`, a
//! temporary data dir and a real SQLite file (`relay.db`), with the wall clock and the
//! background expiry sweeper. [`ThreadedRelay::block_on`] lets the test await [`Api`] calls
//! (or anything else async) on that runtime.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::thread::JoinHandle;
use std::time::Duration;

use herald_relay::{AppState, RelayConfig};
use tempfile::TempDir;
use tokio::runtime::{Handle, Runtime};
use tokio::sync::oneshot;

use crate::Api;

/// How long [`ThreadedRelay::start`] waits for the relay to listen (generous: CI has two
/// loaded cores and opening the store runs the migrations).
const START_PATIENCE: Duration = Duration::from_secs(30);

/// A relay on `127.0.0.1:0` served by its own multi-threaded tokio runtime on its own thread.
/// Dropping it shuts the relay down (sockets get a Close frame), waits for the thread, then
/// removes the data dir.
pub struct ThreadedRelay {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The address it listens on.
    pub addr: SocketAddr,
    /// The data dir (holds `relay.db` and the `files/` of uploads).
    pub dir: TempDir,
    /// The relay's state; its async methods run through [`ThreadedRelay::block_on`].
    pub state: AppState,
    runtime: Handle,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// What the relay's thread reports once it listens.
struct Started {
    url: String,
    addr: SocketAddr,
    state: AppState,
    runtime: Handle,
}

impl ThreadedRelay {
    /// Starts a relay on a new thread and returns once it listens. Panics with the cause when
    /// it cannot start (the data dir, the bind, the store), or after 30 s without an answer.
    /// Call it from synchronous code, not from inside a tokio runtime (use
    /// [`crate::TestRelay`] there).
    pub fn start() -> ThreadedRelay {
        let dir = tempfile::tempdir().expect("creating the relay's temp data dir");
        let config = RelayConfig {
            data_dir: dir.path().to_path_buf(),
            public_url: None,
            ..Default::default()
        };
        let (started_tx, started_rx) = std::sync::mpsc::channel::<Started>();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("threaded-relay".to_owned())
            .spawn(move || {
                let runtime = Runtime::new().expect("building the relay's tokio runtime");
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                        .await
                        .expect("binding 127.0.0.1:0");
                    let relay = herald_relay::spawn(config, listener)
                        .await
                        .expect("starting the relay");
                    let started = Started {
                        url: relay.url(),
                        addr: relay.local_addr(),
                        state: relay.state().clone(),
                        runtime: Handle::current(),
                    };
                    // A closed channel means the test gave up waiting; the stop below then
                    // fires at once, since its sender is gone too.
                    let _ = started_tx.send(started);
                    // A send or a dropped sender: both mean stop.
                    let _ = stopped.await;
                    relay.shutdown().await;
                });
            })
            .expect("spawning the relay's thread");
        let started = match started_rx.recv_timeout(START_PATIENCE) {
            Ok(started) => started,
            Err(RecvTimeoutError::Disconnected) => match thread.join() {
                // Re-raise the thread's panic here, so the test fails with its cause.
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => panic!("the relay's thread ended before the relay listened"),
            },
            Err(RecvTimeoutError::Timeout) => {
                panic!("the relay did not listen within {START_PATIENCE:?}")
            }
        };
        ThreadedRelay {
            url: started.url,
            addr: started.addr,
            dir,
            state: started.state,
            runtime: started.runtime,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The relay's SQLite database file (`relay.db` in [`ThreadedRelay::dir`]).
    pub fn db_path(&self) -> PathBuf {
        self.dir.path().join("relay.db")
    }

    /// `ws://127.0.0.1:PORT/ws`.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// An anonymous caller of this relay; `.bearer(…)`, `.device(…)` or `.connection(…)` give
    /// it a credential. Its calls are async: await them with [`ThreadedRelay::block_on`].
    pub fn api(&self) -> Api {
        Api::new(&self.url)
    }

    /// Runs `future` to completion on the relay's runtime and returns its output: how a
    /// synchronous test awaits [`Api`] calls, e.g.
    /// `relay.block_on(relay.api().bearer(key).get("/v1/status")).expect_status(200, "why")`.
    /// The future is polled on the calling thread; its I/O and timers are driven by the
    /// relay's runtime, which outlives every call (so an [`Api`]'s pooled connections stay
    /// usable from one call to the next). Panics when called from inside an async context,
    /// or when the future panics.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

impl Drop for ThreadedRelay {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            // A panic on that thread was already printed; the test's own result stands.
            let _ = thread.join();
        }
    }
}
