//! herald-relay: the Herald server. It stores ciphertext and metadata only: it never decrypts
//! and never verifies signatures (devices and connections do); it checks shapes, sizes, ids and
//! credentials, orders every change to an account by a revision counter, and nudges sockets.
//!
//! Built from functions so it can be embedded (the desktop app runs it in-process) and tested
//! on 127.0.0.1:0: [`router`] makes the routes over an [`AppState`], [`serve`] runs them on a
//! listener until a shutdown future resolves, [`spawn`] starts serving plus the expiry sweeper
//! on the current runtime.

pub mod agents;
pub mod auth;
mod blobs;
pub mod clock;
pub mod error;
mod events;
mod head_errors;
pub mod http_server;
mod hub;
mod limits;
mod mcp;
/// The OpenAPI document of every route (`GET /openapi.json`, docs/openapi.md).
pub mod openapi;
pub mod public_url;
/// The pure `POST /mcp` parsing and planning, reachable for the fuzz targets
/// (crates/herald-fuzz-targets); not an API.
#[doc(hidden)]
pub use mcp::fuzzing as mcp_fuzzing;
mod routes;
mod scope_check;
mod state;
pub mod store;
mod ws;
pub mod ws_limits;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use agents::AgentLimits;
pub use auth::{Auth, DeviceAuth};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{ApiError, Error, Result};
pub use events::WebhookConfig;
pub use routes::router;
pub use state::AppState;
pub use store::Principal;
pub use ws::{PING_INTERVAL, WRITE_DEADLINE};

/// Where the relay keeps its data and how it is reached. Build it with
/// `RelayConfig { data_dir, ..Default::default() }` so new settings keep their defaults.
#[derive(Debug, Clone, Default)]
pub struct RelayConfig {
    /// The database lives at `data_dir/relay.db`.
    pub data_dir: PathBuf,
    /// The URL clients use, when it differs from the listen address (behind a proxy). It is
    /// also the origin of the OAuth metadata (docs/agents.md); unset, the request's `Host`
    /// header is used, with `http://`. Must be an absolute http(s) URL with a host and no
    /// query, fragment or credentials ([`public_url::parse_public_url`]); otherwise
    /// [`AppState::open`] (and so [`spawn`]) fails with [`Error::PublicUrl`].
    pub public_url: Option<String>,
    /// Daily budgets of agent credentials per account (docs/agents.md, "Budgets").
    pub agent_limits: AgentLimits,
    /// Reply-event webhook delivery: retries, timeout, and whether loopback callback URLs are
    /// allowed (tests and development only; docs/mcp.md, "Reply event").
    pub webhooks: WebhookConfig,
    /// Open `GET /ws` sockets per credential and per account (docs/protocol.md, "Socket
    /// limits").
    pub socket_limits: ws_limits::SocketLimits,
    /// Connection-level HTTP limits: head and body timeouts, read buffer, connection cap
    /// (docs/protocol.md, "Connection limits").
    pub http_limits: http_server::HttpLimits,
    /// Trust the last address of `X-Forwarded-For` (the one the proxy appended) as the
    /// client's (only behind a reverse proxy that sets it; off by default). Used by the per-client budgets of
    /// unauthenticated routes (docs/protocol.md, "Connection limits").
    pub trust_forwarded_for: bool,
    /// Interval of the websocket Ping; a socket that answers none of two in a row is closed
    /// (docs/protocol.md). `None`: [`PING_INTERVAL`].
    pub ws_ping_interval: Option<Duration>,
    /// Longest one websocket frame may take to be written; a socket whose peer stopped
    /// reading is dropped past it (docs/protocol.md, `GET /ws`). `None` (or zero):
    /// [`WRITE_DEADLINE`] (10 s).
    pub ws_write_timeout: Option<Duration>,
}

/// How often the sweeper looks for requests past their deadline.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// Serves the relay on `listener` until `shutdown` resolves (or the state is shut down), then
/// closes every websocket with a Close frame and waits for in-flight requests and sockets.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let token = state.shutdown_token().clone();
    let signal = {
        let token = token.clone();
        async move {
            tokio::select! {
                _ = shutdown => {}
                _ = token.cancelled() => {}
            }
            token.cancel();
        }
    };
    tokio::spawn(signal);
    let limits = state.config().http_limits;
    let result = http_server::serve(listener, router(state.clone()), limits, token.clone()).await;
    token.cancel();
    state.inner.sockets.close();
    state.inner.sockets.wait().await;
    result
}

/// Expires overdue requests every second until the state shuts down.
async fn sweep(state: AppState) {
    let token = state.shutdown_token().clone();
    let mut tick = tokio::time::interval(SWEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = token.cancelled() => return,
            _ = tick.tick() => {
                if let Err(e) = state.sweep_expired().await {
                    tracing::error!(error = %e, "expiry sweep failed");
                }
                if let Err(e) = state.sweep_secrets().await {
                    tracing::error!(error = %e, "secret sweep failed");
                }
                if let Err(e) = state.sweep_pairings().await {
                    tracing::error!(error = %e, "pairing sweep failed");
                }
                if let Err(e) = state.sweep_files().await {
                    tracing::error!(error = %e, "file sweep failed");
                }
                if let Err(e) = state.sweep_agents().await {
                    tracing::error!(error = %e, "notification sweep failed");
                }
                if let Err(e) = state.sweep_events().await {
                    tracing::error!(error = %e, "event subscription sweep failed");
                }
            }
        }
    }
}

/// A relay running on the current runtime.
pub struct RunningRelay {
    addr: SocketAddr,
    state: AppState,
    stop: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<std::io::Result<()>>>,
    sweeper: Option<JoinHandle<()>>,
}

/// Opens the store in `config.data_dir` and starts serving on `listener` with the expiry
/// sweeper.
pub async fn spawn(config: RelayConfig, listener: TcpListener) -> Result<RunningRelay> {
    // Opening runs migrations: blocking file I/O, kept off the async workers.
    let state = tokio::task::spawn_blocking(move || AppState::open(config))
        .await
        .map_err(|e| Error::Io(std::io::Error::other(e)))??;
    spawn_with_state(state, listener)
}

/// Like [`spawn`] over an existing state (tests use one with a settable clock).
pub fn spawn_with_state(state: AppState, listener: TcpListener) -> Result<RunningRelay> {
    let addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, state.clone(), async move {
        let _ = stopped.await;
    }));
    let sweeper = tokio::spawn(sweep(state.clone()));
    tracing::info!(%addr, "relay listening");
    Ok(RunningRelay {
        addr,
        state,
        stop: Some(stop),
        server: Some(server),
        sweeper: Some(sweeper),
    })
}

impl RunningRelay {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Stops the background expiry sweeper (the server keeps running). For tests that move a
    /// manual clock and then count what one explicit `sweep_*` call removed: without this the
    /// background pass, which runs every second, may take those rows first.
    pub async fn stop_sweeper(&mut self) {
        if let Some(sweeper) = self.sweeper.take() {
            sweeper.abort();
            let _ = sweeper.await;
        }
    }

    /// Stops accepting, closes sockets, waits for in-flight work and the sweeper.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            match server.await {
                Ok(Err(e)) => tracing::error!(error = %e, "relay server failed"),
                Err(e) => tracing::error!(error = %e, "relay server task failed"),
                Ok(Ok(())) => {}
            }
        }
        self.state.shutdown_token().cancel();
        if let Some(sweeper) = self.sweeper.take() {
            let _ = sweeper.await;
        }
    }
}

impl Drop for RunningRelay {
    fn drop(&mut self) {
        // Dropped without shutdown(): stop the tasks rather than leak them.
        self.state.shutdown_token().cancel();
    }
}
