//! The embedded relay: when the person picks "Embedded relay on this computer", the app runs
//! `herald-relay` in-process on 127.0.0.1 so one machine works with no server to set up.
//!
//! Files in the data dir:
//! - `embedded-relay.json` `{"port": N}`: written once the relay first binds; its presence means
//!   this account uses the embedded relay, and the same port is reused on every start because the
//!   account's relay URL contains it. The first bind prefers 8457 and falls back to any free port.
//! - `relay-url`: the relay's base URL, one line, for the CLI to find (`herald` reads it when
//!   HERALD_URL is not set).
//! - `relay/`: the relay's own data (SQLite).

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

/// The port tried first for a new embedded relay.
pub const PREFERRED_PORT: u16 = 8457;
const STATE_FILE: &str = "embedded-relay.json";
const RELAY_URL_FILE: &str = "relay-url";

#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error("port {port} on 127.0.0.1 is not free ({source}); the account's relay URL uses it, so close whatever holds it and restart Herald")]
    PortTaken { port: u16, source: io::Error },
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("embedded relay state file is damaged: {0}")]
    State(#[from] serde_json::Error),
    #[error("the relay failed to start: {0}")]
    Relay(String),
}

#[derive(Debug, Serialize, Deserialize)]
struct SavedState {
    port: u16,
}

/// The app's embedded relay: started on demand, once, and stopped on exit.
pub struct EmbeddedRelay {
    data_dir: PathBuf,
    running: Mutex<Option<Running>>,
}

impl EmbeddedRelay {
    pub fn new(data_dir: PathBuf) -> Self {
        EmbeddedRelay {
            data_dir,
            running: Mutex::new(None),
        }
    }

    /// Whether this data dir's account uses the embedded relay.
    pub fn is_configured(&self) -> bool {
        self.data_dir.join(STATE_FILE).exists()
    }

    /// Starts the relay if it is not running; returns its base URL either way.
    pub async fn start(&self) -> Result<String, EmbeddedError> {
        let mut running = self.running.lock().await;
        if let Some(relay) = running.as_ref() {
            return Ok(base_url(relay.local_addr()));
        }
        let saved = read_state(&self.data_dir)?;
        let listener = bind(saved.as_ref().map(|s| s.port)).await?;
        let relay_dir = self.data_dir.join("relay");
        std::fs::create_dir_all(&relay_dir)?;
        let relay = Running::spawn(relay_dir, listener).await?;
        let addr = relay.local_addr();
        write_state(&self.data_dir, &SavedState { port: addr.port() })?;
        let url = base_url(addr);
        write_relay_url(&self.data_dir, &url)?;
        tracing::info!(%url, "embedded relay running");
        *running = Some(relay);
        Ok(url)
    }

    /// Stops the relay if it runs (on app exit).
    pub async fn stop(&self) {
        if let Some(relay) = self.running.lock().await.take() {
            relay.shutdown().await;
        }
    }
}

/// Records the relay URL where the CLI looks for it.
pub fn write_relay_url(data_dir: &Path, url: &str) -> io::Result<()> {
    write_atomically(
        &data_dir.join(RELAY_URL_FILE),
        format!("{url}\n").as_bytes(),
    )
}

fn base_url(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

async fn bind(saved_port: Option<u16>) -> Result<TcpListener, EmbeddedError> {
    if let Some(port) = saved_port {
        return TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(|source| EmbeddedError::PortTaken { port, source });
    }
    match TcpListener::bind((Ipv4Addr::LOCALHOST, PREFERRED_PORT)).await {
        Ok(listener) => Ok(listener),
        Err(_) => Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?),
    }
}

fn read_state(data_dir: &Path) -> Result<Option<SavedState>, EmbeddedError> {
    match std::fs::read(data_dir.join(STATE_FILE)) {
        Ok(bytes) => Ok(Some(serde_json::from_slice(&bytes)?)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn write_state(data_dir: &Path, state: &SavedState) -> Result<(), EmbeddedError> {
    let json = serde_json::to_vec_pretty(state)?;
    Ok(write_atomically(&data_dir.join(STATE_FILE), &json)?)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// The running relay, from herald-relay.
#[cfg(feature = "embedded-relay")]
struct Running(herald_relay::RunningRelay);

#[cfg(feature = "embedded-relay")]
impl Running {
    async fn spawn(data_dir: PathBuf, listener: TcpListener) -> Result<Self, EmbeddedError> {
        let config = herald_relay::RelayConfig {
            data_dir,
            public_url: None,
            ..Default::default()
        };
        herald_relay::spawn(config, listener)
            .await
            .map(Running)
            .map_err(|e| EmbeddedError::Relay(e.to_string()))
    }

    fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    async fn shutdown(self) {
        self.0.shutdown().await;
    }
}

/// Built without the relay: picking the embedded relay fails with a clear message.
#[cfg(not(feature = "embedded-relay"))]
struct Running(SocketAddr);

#[cfg(not(feature = "embedded-relay"))]
impl Running {
    async fn spawn(_data_dir: PathBuf, _listener: TcpListener) -> Result<Self, EmbeddedError> {
        Err(EmbeddedError::Relay(
            "this build has no embedded relay (feature `embedded-relay` is off)".into(),
        ))
    }

    fn local_addr(&self) -> SocketAddr {
        self.0
    }

    async fn shutdown(self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn first_bind_prefers_the_default_port_then_any() {
        let first = bind(None).await.expect("some port binds");
        let port = first.local_addr().expect("bound").port();
        let second = bind(None).await.expect("falls back to a free port");
        let other = second.local_addr().expect("bound").port();
        assert_ne!(port, other, "the fallback is a different free port");
    }

    #[tokio::test]
    async fn a_saved_port_is_reused_or_reported() {
        let holder = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("bind");
        let port = holder.local_addr().expect("bound").port();
        let err = bind(Some(port)).await.expect_err("the saved port is taken");
        assert!(
            matches!(err, EmbeddedError::PortTaken { port: p, .. } if p == port),
            "a taken saved port is an error, never a silent new port: {err}"
        );
        drop(holder);
        let again = bind(Some(port))
            .await
            .expect("the saved port is free again");
        assert_eq!(again.local_addr().expect("bound").port(), port, "same port");
    }

    #[test]
    fn state_and_relay_url_files_round_trip() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(
            read_state(dir.path()).expect("readable").is_none(),
            "no state yet"
        );
        write_state(dir.path(), &SavedState { port: 8457 }).expect("write state");
        assert_eq!(
            read_state(dir.path()).expect("readable").map(|s| s.port),
            Some(8457),
            "port persisted"
        );
        write_relay_url(dir.path(), "http://127.0.0.1:8457").expect("write url");
        let text = std::fs::read_to_string(dir.path().join(RELAY_URL_FILE)).expect("read url");
        assert_eq!(text.trim(), "http://127.0.0.1:8457", "CLI reads this line");
        let relay = EmbeddedRelay::new(dir.path().to_path_buf());
        assert!(
            relay.is_configured(),
            "state file marks the embedded relay as used"
        );
    }
}
