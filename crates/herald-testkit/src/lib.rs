//! herald-testkit (dev-only): a real relay on 127.0.0.1:0 with a temporary data dir and a real
//! SQLite file, plus [`fixtures`] that create accounts, devices, connections and messages
//! through the real HTTP API.
//!
//! Panics are fine here: this crate only runs inside tests, and a failed set-up should stop
//! the test with a message that says which step failed.

pub mod api;
pub mod fixtures;
pub mod real;
pub mod threaded;

pub use api::{Api, Reply};
pub use threaded::ThreadedRelay;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DurationRound, TimeDelta, Utc};
use herald_relay::{spawn_with_state, AppState, Clock, ManualClock, RelayConfig, RunningRelay};
use tempfile::TempDir;

pub use herald_relay;

/// A relay running on the current tokio runtime, removed with its data on drop.
pub struct TestRelay {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    pub addr: SocketAddr,
    /// The data dir (holds `relay.db`).
    pub dir: TempDir,
    /// The relay's state (for calls such as `sweep_expired`).
    pub state: AppState,
    manual_clock: Option<Arc<ManualClock>>,
    relay: Option<RunningRelay>,
}

impl TestRelay {
    /// An anonymous caller of this relay; `.bearer(…)`, `.device(…)` or `.connection(…)` give
    /// it a credential.
    pub fn api(&self) -> Api {
        Api::new(&self.url)
    }

    /// Starts a relay with the wall clock.
    pub async fn start() -> TestRelay {
        Self::start_inner(None).await
    }

    /// Starts a relay whose clock only moves when the test moves it ([`TestRelay::clock`]),
    /// starting at the current time (whole milliseconds).
    pub async fn start_with_manual_clock() -> TestRelay {
        let now = Utc::now()
            .duration_trunc(TimeDelta::milliseconds(1))
            .expect("truncating now to milliseconds");
        Self::start_inner(Some(Arc::new(ManualClock::new(now)))).await
    }

    async fn start_inner(manual_clock: Option<Arc<ManualClock>>) -> TestRelay {
        let dir = tempfile::tempdir().expect("creating the relay's temp data dir");
        Self::start_in(dir, manual_clock).await
    }

    async fn start_in(dir: TempDir, manual_clock: Option<Arc<ManualClock>>) -> TestRelay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding 127.0.0.1:0");
        Self::start_on(dir, manual_clock, listener)
    }

    fn start_on(
        dir: TempDir,
        manual_clock: Option<Arc<ManualClock>>,
        listener: tokio::net::TcpListener,
    ) -> TestRelay {
        let config = RelayConfig {
            data_dir: dir.path().to_path_buf(),
            public_url: None,
            ..Default::default()
        };
        let state = match &manual_clock {
            Some(clock) => AppState::open_with_clock(config, clock.clone() as Arc<dyn Clock>),
            None => AppState::open(config),
        }
        .expect("opening the relay store");
        let relay = spawn_with_state(state.clone(), listener).expect("starting the relay");
        TestRelay {
            url: relay.url(),
            addr: relay.local_addr(),
            dir,
            state,
            manual_clock,
            relay: Some(relay),
        }
    }

    /// Stops the relay's background expiry sweeper, so a test that moves the clock and then
    /// calls `state.sweep_*()` sees exactly what that call removed.
    pub async fn stop_sweeper(&mut self) {
        if let Some(relay) = self.relay.as_mut() {
            relay.stop_sweeper().await;
        }
    }

    /// The settable clock; panics for a relay started with [`TestRelay::start`].
    pub fn clock(&self) -> &ManualClock {
        self.manual_clock
            .as_deref()
            .expect("this relay runs on the wall clock: use TestRelay::start_with_manual_clock")
    }

    /// `ws://127.0.0.1:PORT/ws`.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// The relay's SQLite database file.
    pub fn db_path(&self) -> PathBuf {
        self.dir.path().join("relay.db")
    }

    /// Shuts the relay down and starts it again on the same data dir and clock (on a new
    /// port: `url` and `addr` change).
    pub async fn restart(mut self) -> TestRelay {
        if let Some(relay) = self.relay.take() {
            relay.shutdown().await;
        }
        let TestRelay {
            dir, manual_clock, ..
        } = self;
        Self::start_in(dir, manual_clock).await
    }

    /// Shuts the relay down and keeps its data dir, clock and address, so that
    /// [`StoppedRelay::start`] brings it back where clients expect it (an outage).
    pub async fn stop(mut self) -> StoppedRelay {
        if let Some(relay) = self.relay.take() {
            relay.shutdown().await;
        }
        let TestRelay {
            dir,
            manual_clock,
            addr,
            ..
        } = self;
        StoppedRelay {
            dir,
            manual_clock,
            addr,
        }
    }

    /// Shuts the relay down (sockets get a Close frame) and waits for it.
    pub async fn shutdown(mut self) {
        if let Some(relay) = self.relay.take() {
            relay.shutdown().await;
        }
    }
}

/// A relay shut down by [`TestRelay::stop`]: its data dir, clock and address, kept for
/// [`StoppedRelay::start`]. Dropping it removes the data.
pub struct StoppedRelay {
    /// The data dir (holds `relay.db`).
    pub dir: TempDir,
    manual_clock: Option<Arc<ManualClock>>,
    /// The address it listened on, and will again.
    pub addr: SocketAddr,
}

impl StoppedRelay {
    /// Starts the relay again on the same data dir, clock and address (same `url`), retrying
    /// the bind for up to 10 s while the old socket lets go of the port.
    pub async fn start(self) -> TestRelay {
        let mut tries = 0;
        let listener = loop {
            match tokio::net::TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(_) if tries < 100 => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                Err(e) => panic!("binding {} again: {e}", self.addr),
            }
        };
        TestRelay::start_on(self.dir, self.manual_clock, listener)
    }
}
