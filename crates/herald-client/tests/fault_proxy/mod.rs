//! A real TCP forwarder on 127.0.0.1:0 that sits between a device core and the relay, for
//! fault tests (docs/faults.md, "Relay faults"). It forwards bytes unchanged and can, on the
//! test's command:
//! - cut every open connection (the websocket included), as a dropped network does;
//! - go down: accept new connections and close them at once, as an unreachable relay does;
//! - cut the connection carrying the next `GET /messages?after=` request (a catch-up fetch that
//!   fails once), before the relay sees it;
//! - send every websocket text frame from the relay more than once (duplicate sync nudges);
//! - freeze websocket connections, open and new: bytes are swallowed both ways and nothing is
//!   closed, as when the peer vanished without FIN or RST (a half-open connection);
//! - freeze the connections open now (HTTP ones included) the same way, while new ones work:
//!   a pooled connection that died silently after a network change.
//!
//! It counts catch-up fetches and websocket handshakes. Nothing of the client or the relay is
//! replaced: the faults are on the wire.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The request line of a catch-up fetch.
const FETCH: &[u8] = b"GET /messages?after=";
/// The request line of a websocket handshake.
const WS: &[u8] = b"GET /ws";

#[derive(Default)]
struct Counters {
    down: AtomicBool,
    fail_fetches: AtomicUsize,
    copies_of_frames: AtomicUsize,
    fetches: AtomicUsize,
    failed_fetches: AtomicUsize,
    ws_handshakes: AtomicUsize,
    duplicated_frames: AtomicUsize,
    freeze_ws: AtomicBool,
    /// Connections numbered below this swallow every byte both ways ([`FaultProxy::freeze_open`]).
    frozen_below: std::sync::atomic::AtomicU64,
    accepted: std::sync::atomic::AtomicU64,
}

impl Counters {
    fn frozen(&self, conn: u64) -> bool {
        conn < self.frozen_below.load(Ordering::SeqCst)
    }
}

/// A running proxy; stops accepting when dropped.
pub struct FaultProxy {
    addr: SocketAddr,
    counters: Arc<Counters>,
    cut: watch::Sender<u64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
        self.cut.send_modify(|g| *g += 1);
    }
}

impl FaultProxy {
    /// Starts forwarding 127.0.0.1:0 → `upstream`.
    pub async fn start(upstream: SocketAddr) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy binds");
        let addr = listener.local_addr().expect("proxy address");
        let counters = Arc::new(Counters::default());
        counters.copies_of_frames.store(1, Ordering::SeqCst);
        let (cut, _) = watch::channel(0u64);
        let task = tokio::spawn(accept_loop(
            listener,
            upstream,
            counters.clone(),
            cut.clone(),
        ));
        FaultProxy {
            addr,
            counters,
            cut,
            task,
        }
    }

    /// `http://127.0.0.1:PORT`: give this to the client instead of the relay's URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Closes every open connection (both sides).
    pub fn cut_all(&self) {
        self.cut.send_modify(|g| *g += 1);
    }

    /// While down, new connections are accepted and closed at once.
    pub fn set_down(&self, down: bool) {
        self.counters.down.store(down, Ordering::SeqCst);
    }

    /// Cuts the connection carrying each of the next `n` catch-up fetches.
    pub fn fail_next_fetches(&self, n: usize) {
        self.counters.fail_fetches.store(n, Ordering::SeqCst);
    }

    /// Sends each websocket text frame from the relay `copies` times (1 = normal).
    pub fn set_frame_copies(&self, copies: usize) {
        self.counters
            .copies_of_frames
            .store(copies.max(1), Ordering::SeqCst);
    }

    /// While frozen, websocket connections (open and new) swallow every byte both ways.
    pub fn set_ws_frozen(&self, frozen: bool) {
        self.counters.freeze_ws.store(frozen, Ordering::SeqCst);
    }

    /// Freezes every connection open now: bytes both ways are swallowed, nothing is closed.
    /// Connections accepted later forward normally.
    pub fn freeze_open(&self) {
        let next = self.counters.accepted.load(Ordering::SeqCst);
        self.counters.frozen_below.store(next, Ordering::SeqCst);
    }

    /// `GET /messages?after=` requests seen (forwarded or cut).
    pub fn fetches(&self) -> usize {
        self.counters.fetches.load(Ordering::SeqCst)
    }

    /// Catch-up fetches cut by [`FaultProxy::fail_next_fetches`].
    pub fn failed_fetches(&self) -> usize {
        self.counters.failed_fetches.load(Ordering::SeqCst)
    }

    /// Websocket handshakes forwarded to the relay.
    pub fn ws_handshakes(&self) -> usize {
        self.counters.ws_handshakes.load(Ordering::SeqCst)
    }

    /// Extra copies of text frames sent to clients.
    pub fn duplicated_frames(&self) -> usize {
        self.counters.duplicated_frames.load(Ordering::SeqCst)
    }
}

async fn accept_loop(
    listener: TcpListener,
    upstream: SocketAddr,
    counters: Arc<Counters>,
    cut: watch::Sender<u64>,
) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            continue;
        };
        if counters.down.load(Ordering::SeqCst) {
            drop(client);
            continue;
        }
        let counters = counters.clone();
        let conn = counters.accepted.fetch_add(1, Ordering::SeqCst);
        let mut cut_rx = cut.subscribe();
        tokio::spawn(async move {
            let Ok(server) = TcpStream::connect(upstream).await else {
                return;
            };
            let _ = client.set_nodelay(true);
            let _ = server.set_nodelay(true);
            tokio::select! {
                _ = cut_rx.changed() => {}
                _ = forward(client, server, counters, conn) => {}
            }
            // Both streams drop here: the client and the relay see the connection close.
        });
    }
}

/// Forwards both ways until either side closes or a fault cuts the connection.
async fn forward(client: TcpStream, server: TcpStream, counters: Arc<Counters>, conn: u64) {
    let (mut client_rd, mut client_wr) = client.into_split();
    let (mut server_rd, mut server_wr) = server.into_split();
    let (is_ws_tx, is_ws_rx) = tokio::sync::oneshot::channel::<bool>();
    let up = {
        let counters = counters.clone();
        async move {
            let mut buf = vec![0u8; 16 * 1024];
            // The end of the previous read, so a request line split across reads is found.
            let mut tail: Vec<u8> = Vec::new();
            let mut is_ws_tx = Some(is_ws_tx);
            let mut ws = false;
            loop {
                let n = match client_rd.read(&mut buf).await {
                    // A frozen connection does not pass a close on either.
                    Ok(0) | Err(_) if counters.frozen(conn) => std::future::pending().await,
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let chunk = &buf[..n];
                if counters.frozen(conn) {
                    continue;
                }
                if let Some(tx) = is_ws_tx.take() {
                    ws = chunk.starts_with(WS);
                    let _ = tx.send(ws);
                    if ws && !counters.freeze_ws.load(Ordering::SeqCst) {
                        counters.ws_handshakes.fetch_add(1, Ordering::SeqCst);
                    }
                }
                if ws && counters.freeze_ws.load(Ordering::SeqCst) {
                    continue;
                }
                let mut window = std::mem::take(&mut tail);
                window.extend_from_slice(chunk);
                let found = count(&window, FETCH);
                if found > 0 {
                    counters.fetches.fetch_add(found, Ordering::SeqCst);
                    let armed = counters
                        .fail_fetches
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok();
                    if armed {
                        counters.failed_fetches.fetch_add(1, Ordering::SeqCst);
                        return; // cut before the relay sees the request
                    }
                }
                let keep = window.len().min(FETCH.len() - 1);
                tail = window[window.len() - keep..].to_vec();
                if server_wr.write_all(chunk).await.is_err() {
                    return;
                }
            }
        }
    };
    let down = async move {
        let ws = is_ws_rx.await.unwrap_or(false);
        let mut buf = vec![0u8; 16 * 1024];
        let mut pending: Vec<u8> = Vec::new();
        let mut upgraded = false;
        loop {
            let n = match server_rd.read(&mut buf).await {
                Ok(0) | Err(_) if counters.frozen(conn) => std::future::pending().await,
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            if (ws && counters.freeze_ws.load(Ordering::SeqCst)) || counters.frozen(conn) {
                continue;
            }
            if !ws {
                if client_wr.write_all(&buf[..n]).await.is_err() {
                    return;
                }
                continue;
            }
            pending.extend_from_slice(&buf[..n]);
            if !upgraded {
                // Pass the handshake response through unchanged.
                let Some(end) = find(&pending, b"\r\n\r\n") else {
                    continue;
                };
                let head: Vec<u8> = pending.drain(..end + 4).collect();
                if client_wr.write_all(&head).await.is_err() {
                    return;
                }
                upgraded = true;
            }
            // Whole frames only, so copies never split a frame.
            while let Some(len) = frame_len(&pending) {
                let frame: Vec<u8> = pending.drain(..len).collect();
                let text = frame[0] & 0x0f == 1;
                let copies = if text {
                    counters.copies_of_frames.load(Ordering::SeqCst)
                } else {
                    1
                };
                for _ in 0..copies {
                    if client_wr.write_all(&frame).await.is_err() {
                        return;
                    }
                }
                counters
                    .duplicated_frames
                    .fetch_add(copies - 1, Ordering::SeqCst);
            }
        }
    };
    // Either direction ending ends the connection.
    tokio::select! {
        _ = up => {}
        _ = down => {}
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// The length of the complete server frame at the start of `buf` (servers do not mask), or
/// `None` while it is incomplete (RFC 6455 §5.2).
fn frame_len(buf: &[u8]) -> Option<usize> {
    if buf.len() < 2 {
        return None;
    }
    let masked = buf[1] & 0x80 != 0;
    let (header, payload) = match buf[1] & 0x7f {
        126 => {
            if buf.len() < 4 {
                return None;
            }
            (4, u16::from_be_bytes([buf[2], buf[3]]) as usize)
        }
        127 => {
            if buf.len() < 10 {
                return None;
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[2..10]);
            (10, u64::from_be_bytes(b) as usize)
        }
        n => (2, n as usize),
    };
    let total = header + if masked { 4 } else { 0 } + payload;
    (buf.len() >= total).then_some(total)
}
