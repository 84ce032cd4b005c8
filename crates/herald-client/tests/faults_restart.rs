//! Fault test (docs/faults.md, "Relay faults"): the relay restarts under 500 connected device
//! cores. Each is a full `Core` (own account, SQLite cache, keys) running its real sync task:
//! the websocket, catch-up and the jittered backoff of src/backoff.rs. The relay shuts down
//! (every socket gets a Close frame), comes back on the same address, and a message is posted
//! to every account right away. Every core must reconnect and hold its message; reconnects
//! must be spread by the jitter, and no core may retry in a tight loop while the relay is down.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use herald_client::agent::{AgentClient, SendOptions};
use herald_client::view::CoreEvent;
use herald_client::{Core, CoreConfig};
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Connected clients.
const CLIENTS: usize = 500;
/// Bound for every wait (a bound, not a delay): the backoff's cap is 30 s.
const BOUND: Duration = Duration::from_secs(120);
/// How long the relay stays down.
const DOWN_FOR: Duration = Duration::from_millis(300);

struct Client {
    core: Core,
    agent: AgentClient,
}

async fn start_relay(dir: &std::path::Path, addr: &str) -> herald_relay::RunningRelay {
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    herald_relay::spawn(
        herald_relay::RelayConfig {
            data_dir: dir.to_path_buf(),
            public_url: None,
            ..Default::default()
        },
        listener,
    )
    .await
    .expect("relay starts")
}

async fn new_client(root: &std::path::Path, i: usize, relay_url: &str) -> Client {
    let core = Core::open(CoreConfig {
        data_dir: root.join(format!("device{i}")),
        device_name: format!("d{i}"),
        platform: "linux".into(),
        use_keychain: false,
    })
    .expect("core opens");
    core.create_account(relay_url).await.expect("account");
    let conn = core.create_connection("bot").await.expect("connection");
    let agent = AgentClient::new(relay_url, ConnectionToken::parse(&conn.token).unwrap())
        .expect("agent client");
    Client { core, agent }
}

/// What the test hears from the cores: (client, when, event).
type Heard = (usize, Instant, CoreEvent);

/// A temporary directory on /dev/shm when it exists, else the default temp dir.
fn scratch_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().expect("temp dir")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_restart_under_500_clients_spreads_reconnects_and_loses_nothing() {
    let relay_dir = scratch_dir();
    let relay = start_relay(relay_dir.path(), "127.0.0.1:0").await;
    let addr = relay.local_addr().to_string();
    let url = relay.url();
    // 500 caches and relay.db: on tmpfs where there is one, so fsyncs do not dominate.
    let root = scratch_dir();
    let started = Instant::now();

    let clients: Vec<Client> = futures_util::stream::iter(0..CLIENTS)
        .map(|i| {
            let (root, url) = (root.path().to_path_buf(), url.clone());
            async move { new_client(&root, i, &url).await }
        })
        .buffered(8)
        .collect()
        .await;
    let clients = Arc::new(clients);
    eprintln!(
        "{CLIENTS} accounts and cores set up in {:?}",
        started.elapsed()
    );

    let (tx, mut heard) = mpsc::unbounded_channel::<Heard>();
    for (i, c) in clients.iter().enumerate() {
        let mut rx = c.core.subscribe();
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Ok(e) = rx.recv().await {
                if tx.send((i, Instant::now(), e)).is_err() {
                    return;
                }
            }
        });
        c.core.start_sync().expect("sync starts");
    }
    drop(tx);

    // Everyone connected.
    let mut connected = vec![false; CLIENTS];
    tokio::time::timeout(BOUND, async {
        while connected.iter().any(|c| !c) {
            let (i, _, e) = heard.recv().await.expect("events");
            if matches!(
                e,
                CoreEvent::SyncState {
                    connected: true,
                    ..
                }
            ) {
                connected[i] = true;
            }
        }
    })
    .await
    .expect("all clients connect");
    // Let the first catch-ups finish, then forget what was heard so far.
    tokio::time::sleep(Duration::from_millis(500)).await;
    while heard.try_recv().is_ok() {}

    // Restart: every socket gets a Close frame, the address refuses connections for
    // DOWN_FOR, then the relay is back and a message goes to every account at once.
    let restart = Instant::now();
    relay.shutdown().await;
    tokio::time::sleep(DOWN_FOR).await;
    let relay = start_relay(relay_dir.path(), &addr).await;
    let up = Instant::now();
    let sent: Vec<String> = futures_util::stream::iter(clients.iter().enumerate())
        .map(|(i, c)| async move {
            let content = MessageContent {
                title: format!("after the restart {i}"),
                body: String::new(),
                ..Default::default()
            };
            // The agent's own pooled connection died with the relay: retry, same key.
            let options = || SendOptions {
                idempotency_key: Some(format!("restart-{i}")),
                ..Default::default()
            };
            let mut tries = 0;
            loop {
                match c.agent.send(&content, options()).await {
                    Ok(record) => return record.id.to_string(),
                    Err(e) if tries < 5 => {
                        tries += 1;
                        eprintln!("client {i}: send retried after {e}");
                    }
                    Err(e) => panic!("client {i}: send failed: {e}"),
                }
            }
        })
        .buffered(16)
        .collect()
        .await;

    // Every core reconnects and announces its message.
    let mut reconnected_at: Vec<Option<Instant>> = vec![None; CLIENTS];
    let mut failed_attempts = vec![0usize; CLIENTS];
    let mut arrived = vec![0usize; CLIENTS];
    tokio::time::timeout(BOUND, async {
        while reconnected_at.iter().any(Option::is_none) || arrived.contains(&0) {
            let (i, at, e) = heard.recv().await.expect("events");
            match e {
                CoreEvent::SyncState {
                    connected: true, ..
                } => {
                    reconnected_at[i].get_or_insert(at);
                }
                CoreEvent::SyncState {
                    connected: false,
                    error: Some(msg),
                } if msg.starts_with("Cannot reach") => failed_attempts[i] += 1,
                CoreEvent::MessageUpserted { message, .. } => {
                    assert_eq!(message.id, sent[i], "client {i} got its own message");
                    arrived[i] += 1;
                }
                _ => {}
            }
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "every client reconnects and catches up: {} not reconnected, {} without the message",
            reconnected_at.iter().filter(|r| r.is_none()).count(),
            arrived.iter().filter(|n| **n == 0).count()
        )
    });

    // Whatever else the cores announced by now: nothing may be announced twice.
    tokio::time::sleep(Duration::from_millis(200)).await;
    while let Ok((i, _, e)) = heard.try_recv() {
        if let CoreEvent::MessageUpserted { .. } = e {
            arrived[i] += 1;
        }
    }
    for (i, c) in clients.iter().enumerate() {
        let inbox = c.core.inbox().await.expect("inbox");
        assert_eq!(
            inbox.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
            vec![sent[i].as_str()],
            "client {i}: the message sent after the restart, cached once"
        );
        assert_eq!(arrived[i], 1, "client {i}: announced once");
    }

    // Spread: reconnect times after the relay came back.
    let mut after_up: Vec<Duration> = reconnected_at
        .iter()
        .map(|t| t.expect("reconnected").saturating_duration_since(up))
        .collect();
    after_up.sort();
    let (p10, p50, p90) = (
        percentile(&after_up, 0.10),
        percentile(&after_up, 0.50),
        percentile(&after_up, 0.90),
    );
    let last = *after_up.last().unwrap();
    // The busiest 10 ms window.
    let mut busiest = 0;
    for (k, t) in after_up.iter().enumerate() {
        let n = after_up[k..]
            .iter()
            .take_while(|u| **u < *t + Duration::from_millis(10))
            .count();
        busiest = busiest.max(n);
    }
    let attempts_total: usize = failed_attempts.iter().sum();
    let attempts_max = failed_attempts.iter().max().copied().unwrap_or(0);
    eprintln!(
        "{CLIENTS} clients; relay down {:?} (shutdown + {DOWN_FOR:?}); reconnected after it was \
         back: p10 {p10:?}, p50 {p50:?}, p90 {p90:?}, last {last:?}; busiest 10 ms: {busiest} \
         clients; failed attempts while down: {attempts_total} in all, at most {attempts_max} \
         per client",
        up - restart
    );
    assert!(
        p90 - p10 >= Duration::from_millis(100),
        "reconnects are spread by the jitter, not bunched: p10 {p10:?}, p90 {p90:?}"
    );
    assert!(
        busiest <= CLIENTS / 5,
        "no 10 ms window takes more than a fifth of the clients: {busiest}"
    );
    assert!(
        attempts_max <= 10,
        "no client retries in a tight loop while the relay is down: {attempts_max} attempts"
    );

    for c in clients.iter() {
        c.core.stop_sync();
    }
    relay.shutdown().await;
}
