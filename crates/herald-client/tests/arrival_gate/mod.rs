//! A real TCP forwarder on 127.0.0.1:0 put in front of the relay for the restart fault test
//! (docs/faults.md, "Relay faults"). It records when each websocket handshake (`GET /ws`)
//! *arrives*, at its TCP accept, before any of it is served: that is when a reconnect attempt
//! reaches the relay's address, independent of how long the handshake then takes. On the
//! test's command it drops every open connection at one instant (as a relay crash does) and
//! refuses new ones (accepts and closes them) until it is opened again. While the relay behind
//! it is restarting, connections accepted while open wait for its address.
//!
//! Accepting runs on its own OS thread (blocking `accept`), not as a task on the test's
//! runtime: there it would wait its turn behind the very handshakes and catch-ups it should
//! time, and bunch arrivals that were spread.
//!
//! Nothing of the client or the relay is replaced: bytes are forwarded unchanged.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::net::TcpListener;
use tokio::io::AsyncReadExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;

/// The request line of a websocket handshake.
const WS: &[u8] = b"GET /ws";
/// Longest wait for a request's first bytes, and for the relay's address while it restarts.
const WAIT: Duration = Duration::from_secs(60);

/// A websocket handshake as it reached the gate.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    /// When the gate accepted its TCP connection.
    pub at: Instant,
    /// Whether the gate was refusing connections then.
    pub refused: bool,
}

struct Shared {
    down: AtomicBool,
    stopped: AtomicBool,
    arrivals: Mutex<Vec<Arrival>>,
}

/// A running gate; stops accepting when dropped.
pub struct ArrivalGate {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Bumped to drop every open connection.
    cut: watch::Sender<u64>,
    /// The relay's address; `None` while it restarts.
    upstream: watch::Sender<Option<SocketAddr>>,
}

impl Drop for ArrivalGate {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // Wakes the accept thread, which then sees `stopped` and ends.
        let _ = std::net::TcpStream::connect(self.addr);
        self.cut.send_modify(|g| *g += 1);
    }
}

impl ArrivalGate {
    /// Starts forwarding 127.0.0.1:0 → `upstream`, open.
    /// Must be called inside a tokio runtime (connections are served on it).
    pub fn start(upstream: SocketAddr) -> ArrivalGate {
        let listener = TcpListener::bind("127.0.0.1:0").expect("gate binds");
        let addr = listener.local_addr().expect("gate address");
        let shared = Arc::new(Shared {
            down: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            arrivals: Mutex::new(Vec::new()),
        });
        let (cut, _) = watch::channel(0u64);
        let (upstream, _) = watch::channel(Some(upstream));
        let (runtime, thread_shared) = (tokio::runtime::Handle::current(), shared.clone());
        let (thread_cut, thread_upstream) = (cut.clone(), upstream.clone());
        std::thread::Builder::new()
            .name("arrival-gate".into())
            .spawn(move || {
                accept_loop(
                    listener,
                    thread_shared,
                    thread_cut,
                    thread_upstream,
                    runtime,
                )
            })
            .expect("accept thread starts");
        ArrivalGate {
            addr,
            shared,
            cut,
            upstream,
        }
    }

    /// `http://127.0.0.1:PORT`: the relay URL the clients use.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Drops every open connection at once and refuses new ones until [`ArrivalGate::open`].
    pub fn close_and_cut(&self) {
        self.shared.down.store(true, Ordering::SeqCst);
        self.cut.send_modify(|g| *g += 1);
    }

    /// Forgets the relay's address (it is restarting): connections accepted while open wait.
    pub fn forget_upstream(&self) {
        self.upstream.send_replace(None);
    }

    /// The relay is (back) at `addr`.
    pub fn set_upstream(&self, addr: SocketAddr) {
        self.upstream.send_replace(Some(addr));
    }

    /// Accepts and forwards connections again; returns the instant it did.
    pub fn open(&self) -> Instant {
        let at = Instant::now();
        self.shared.down.store(false, Ordering::SeqCst);
        at
    }

    /// Every websocket handshake that reached the gate so far, in order of arrival.
    pub fn arrivals(&self) -> Vec<Arrival> {
        self.shared
            .arrivals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// Blocking accepts on the gate's own thread; each connection is served on the runtime.
fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    cut: watch::Sender<u64>,
    upstream: watch::Sender<Option<SocketAddr>>,
    runtime: tokio::runtime::Handle,
) {
    loop {
        let Ok((client, _)) = listener.accept() else {
            // Out of descriptors or similar: do not spin.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let arrival = Arrival {
            at: Instant::now(),
            refused: shared.down.load(Ordering::SeqCst),
        };
        if shared.stopped.load(Ordering::SeqCst) {
            return;
        }
        if client.set_nonblocking(true).is_err() {
            continue;
        }
        let shared = shared.clone();
        let mut cut_rx = cut.subscribe();
        let upstream_rx = upstream.subscribe();
        runtime.spawn(async move {
            let Ok(client) = TcpStream::from_std(client) else {
                return;
            };
            tokio::select! {
                _ = cut_rx.changed() => {}
                _ = serve(client, arrival, shared, upstream_rx) => {}
            }
            // Both streams drop here: the client and the relay see the connection close.
        });
    }
}

/// Reads the request's first bytes (to tell a websocket handshake), records it, then closes
/// (refused) or forwards both ways until either side closes.
async fn serve(
    mut client: TcpStream,
    arrival: Arrival,
    shared: Arc<Shared>,
    mut upstream: watch::Receiver<Option<SocketAddr>>,
) {
    let mut head = Vec::with_capacity(WS.len());
    let mut buf = [0u8; 16 * 1024];
    while head.len() < WS.len() {
        let n = match tokio::time::timeout(WAIT, client.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) | Err(_) => return,
            Ok(Ok(n)) => n,
        };
        head.extend_from_slice(&buf[..n]);
    }
    if head.starts_with(WS) {
        shared
            .arrivals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(arrival);
    }
    if arrival.refused {
        return;
    }
    let addr = match tokio::time::timeout(WAIT, upstream.wait_for(Option::is_some)).await {
        Ok(Ok(addr)) => *addr,
        _ => return,
    };
    let Some(addr) = addr else { return };
    let Ok(mut server) = TcpStream::connect(addr).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    if server.write_all(&head).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}
