//! The relay's HTTP/1.1 server: hyper's connection builder under the axum router, with the
//! connection-level limits plain `axum::serve` lacks (docs/protocol.md, "Connection limits"):
//!
//! - a request head (request line and headers) must arrive within
//!   [`HttpLimits::header_read_timeout`] of the relay starting to wait for it; that wait also
//!   starts when a kept-alive connection goes idle, so idle connections are closed after it;
//! - a request head — request line, header lines and the blank line that ends them, counted
//!   in bytes as they arrive — is at most [`HttpLimits::max_head_bytes`] (64 KiB) and holds at
//!   most [`HttpLimits::max_headers`] (100) header lines; past either, hyper answers `431` and
//!   closes the connection (the request target counts toward the head, so hyper's own `414`
//!   for targets over 65,534 bytes is not reached under the default head limit);
//! - a connection's read buffer is at most [`HttpLimits::max_buffer_bytes`];
//! - hyper writes the answers to a head it cannot parse or accept itself — `400` (malformed
//!   request line or header), `414`, `431` — with an empty body and `connection: close`, and
//!   offers no hook; [`crate::head_errors`] gives them the shared error body on their way to
//!   the socket (docs/protocol.md, "Connection limits");
//! - a request body that makes no progress for [`HttpLimits::body_idle_timeout`] fails (the
//!   timer restarts with every chunk, so long uploads and long-polls are not cut short);
//! - at most [`HttpLimits::max_connections`] connections are served at once, `GET /ws` sockets
//!   included; further ones wait in the listen backlog until one closes.
//!
//! Every request carries the peer's address as `ConnectInfo<SocketAddr>` (the unauthenticated
//! budgets count per address, [`crate::limits`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;
use tower_http::timeout::RequestBodyTimeoutLayer;

/// Default [`HttpLimits::header_read_timeout`]: 10 s.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`HttpLimits::body_idle_timeout`]: 30 s without a byte of request body.
pub const DEFAULT_BODY_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Default [`HttpLimits::max_buffer_bytes`]: 64 KiB (hyper's minimum is 8 KiB).
pub const DEFAULT_MAX_BUFFER_BYTES: usize = 64 * 1024;
/// Default [`HttpLimits::max_head_bytes`]: 64 KiB (65,536 bytes).
pub const DEFAULT_MAX_HEAD_BYTES: usize = 64 * 1024;
/// Default [`HttpLimits::max_headers`]: 100 header lines (hyper's default, set explicitly).
pub const DEFAULT_MAX_HEADERS: usize = 100;
/// File descriptors [`default_max_connections`] leaves for the database, files and logs.
const RESERVED_FDS: u64 = 256;
/// The fewest connections [`default_max_connections`] allows, however low the fd limit.
const MIN_CONNECTIONS: usize = 64;
/// The most connections [`default_max_connections`] allows, however high the fd limit.
const MAX_DEFAULT_CONNECTIONS: usize = 16_384;
/// How long the accept loop waits after an accept error (for example the fd limit) before
/// trying again.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(250);

/// Connection-level limits of the HTTP server. Build with `HttpLimits::default()` and override
/// fields; `herald-relay` sets them from flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Longest wait for a complete request head, from when the relay starts reading it (a new
    /// connection, or a kept-alive one after its previous response). Default 10 s.
    pub header_read_timeout: Duration,
    /// Longest pause between two chunks of a request body. Default 30 s.
    pub body_idle_timeout: Duration,
    /// Read buffer per connection in bytes (at least 8192, and at least
    /// [`HttpLimits::max_head_bytes`]). Default 64 KiB.
    pub max_buffer_bytes: usize,
    /// Largest request head in bytes: the request line, every header line and the blank line
    /// after them, as sent (CRLFs included). One byte more is refused with `431`. Default
    /// 64 KiB.
    pub max_head_bytes: usize,
    /// Most header lines in one request head (each line counts, repeated names too); one more
    /// is refused with `431`. Default 100.
    pub max_headers: usize,
    /// Connections served at once, websockets included; `None`: [`default_max_connections`].
    pub max_connections: Option<usize>,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_idle_timeout: DEFAULT_BODY_IDLE_TIMEOUT,
            max_buffer_bytes: DEFAULT_MAX_BUFFER_BYTES,
            max_head_bytes: DEFAULT_MAX_HEAD_BYTES,
            max_headers: DEFAULT_MAX_HEADERS,
            max_connections: None,
        }
    }
}

/// Three quarters of this process's open-file limit (`RLIMIT_NOFILE`, soft) after 256 kept
/// for everything else, within 64..=16,384. `herald-relay` raises the soft limit to the hard
/// one at start, so this follows `ulimit -Hn`.
pub fn default_max_connections() -> usize {
    let soft = match rlimit::getrlimit(rlimit::Resource::NOFILE) {
        Ok((soft, _hard)) => soft,
        Err(_) => 1024,
    };
    let usable = soft.saturating_sub(RESERVED_FDS).saturating_mul(3) / 4;
    usize::try_from(usable)
        .unwrap_or(MAX_DEFAULT_CONNECTIONS)
        .clamp(MIN_CONNECTIONS, MAX_DEFAULT_CONNECTIONS)
}

/// A served connection's slot under [`HttpLimits::max_connections`]. Every request of the
/// connection carries it as an extension; an upgraded `GET /ws` socket keeps it until it
/// closes.
#[derive(Debug, Clone)]
pub(crate) struct ConnectionSlot(#[allow(dead_code)] Arc<OwnedSemaphorePermit>);

/// Serves `router` on `listener` until `shutdown` is cancelled; then stops accepting, asks
/// every connection to finish its in-flight request and close, and waits for them.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: HttpLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let max = limits
        .max_connections
        .unwrap_or_else(default_max_connections)
        .max(1);
    let slots = Arc::new(Semaphore::new(max));
    let router = router.layer(RequestBodyTimeoutLayer::new(limits.body_idle_timeout));
    let connections = TaskTracker::new();
    tracing::debug!(max_connections = max, "http: serving");
    loop {
        // Take a slot before accepting: over the cap, connections wait in the backlog.
        let permit = tokio::select! {
            _ = shutdown.cancelled() => break,
            permit = slots.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "http: accept failed");
                    tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let slot = ConnectionSlot(Arc::new(permit));
        let router = router.clone();
        let shutdown = shutdown.clone();
        connections.spawn(serve_connection(
            stream, peer, router, limits, slot, shutdown,
        ));
    }
    drop(listener);
    connections.close();
    connections.wait().await;
    Ok(())
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: HttpLimits,
    slot: ConnectionSlot,
    shutdown: CancellationToken,
) {
    let service = router.map_request(move |mut req: Request<hyper::body::Incoming>| {
        req.extensions_mut().insert(ConnectInfo(peer));
        req.extensions_mut().insert(slot.clone());
        req
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        // The head limit is exact (hyper counts the parsed head's bytes); the read buffer
        // alone is not (one read may overshoot it), so it only bounds memory.
        .max_header_size(limits.max_head_bytes)
        .max_headers(limits.max_headers)
        .max_buf_size(limits.max_buffer_bytes.max(limits.max_head_bytes).max(8192))
        .keep_alive(true);
    let conn = builder
        .serve_connection(
            TokioIo::new(crate::head_errors::HeadErrorBody::new(stream, limits)),
            TowerToHyperService::new(service),
        )
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(e) = result {
                tracing::debug!(error = %e, %peer, "http: connection ended with an error");
            }
        }
        _ = shutdown.cancelled() => {
            conn.as_mut().graceful_shutdown();
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, %peer, "http: connection ended with an error");
            }
        }
    }
}
