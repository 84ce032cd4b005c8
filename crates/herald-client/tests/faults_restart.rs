//! Fault test (docs/faults.md, "Relay faults"): the relay restarts under 500 connected device
//! cores. Each is a full `Core` (own account, SQLite cache, keys) running its real sync task:
//! the websocket, catch-up and the jittered backoff of src/backoff.rs. The cores reach the
//! relay through a gate (tests/arrival_gate) that drops every connection at one instant, as a
//! crash does, and refuses new ones for [`DOWN_FOR`] while the relay restarts behind it; then a
//! message is posted to every account. Every core must reconnect and hold its message, and no
//! core may retry in a tight loop while the relay is away.
//!
//! Reconnect attempts are timed where they arrive (the gate's TCP accept), so the spread check
//! measures the backoff, not how long 500 handshakes take on 2 cores. The same restart is then
//! run with jitter turned off (`Core::set_reconnect_backoff`) and the same check must fail: the
//! negative control that shows the check can tell a storm from a spread.

mod arrival_gate;

use arrival_gate::ArrivalGate;

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use herald_client::agent::{AgentClient, SendOptions};
use herald_client::view::CoreEvent;
use herald_client::{Core, CoreConfig, ReconnectBackoff};
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Connected clients.
const CLIENTS: usize = 500;
/// Bound for every wait (a bound, not a delay): the backoff's cap is 30 s.
const BOUND: Duration = Duration::from_secs(120);
/// How long the gate refuses connections after the cut. Without jitter every core retries
/// 0.25 s, 0.75 s, 1.75 s and 3.75 s after it noticed the cut (the backoff's ceilings, 250 ms
/// doubling), so as long as each noticed it within 1.75 s (measured: within 0.15–0.6 s) the
/// first attempt that finds the gate open arrives within 1 s of reopening: a bunch by
/// construction.
/// With jitter, those attempts were drawn from the third and fourth windows (1 s and 2 s wide).
const DOWN_FOR: Duration = Duration::from_millis(1500);
/// Least p90 − p10 of the reconnect attempts arriving after the gate reopened: the third
/// backoff window (250 ms · 2², 1 s), which no unjittered run can reach (see [`DOWN_FOR`]).
/// Full jitter gives more than 1.4 s (simulated: the least in 3,000 runs of 500 clients
/// reopening 1.1–1.5 s after they noticed the cut; measured 1.5–2.1 s).
const MIN_SPREAD: Duration = Duration::from_secs(1);
/// Most reconnect attempts allowed to arrive in any 10 ms: a fifth of the clients (full jitter
/// gives under 20).
const MAX_IN_10MS: usize = CLIENTS / 5;

struct Client {
    core: Core,
    agent: AgentClient,
}

/// The relay's own runtime on its own threads, as if it were its own process: its shutdown
/// and start-up never hold up the cores' tasks (which would delay their backoff timers and
/// blur what the test measures). Dropping it stops the runtime on its thread.
struct RelayRuntime {
    handle: tokio::runtime::Handle,
    _stop: tokio::sync::oneshot::Sender<()>,
}

fn relay_runtime() -> RelayRuntime {
    let (handle_tx, handle_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("relay")
            .enable_all()
            .build()
            .expect("relay runtime");
        handle_tx.send(rt.handle().clone()).expect("handle sent");
        rt.block_on(async {
            let _ = stopped.await;
        });
    });
    RelayRuntime {
        handle: handle_rx.recv().expect("relay runtime starts"),
        _stop: stop,
    }
}

async fn start_relay(
    rt: &RelayRuntime,
    dir: &std::path::Path,
    addr: &str,
) -> herald_relay::RunningRelay {
    let (dir, addr) = (dir.to_path_buf(), addr.to_owned());
    rt.handle
        .spawn(async move {
            let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
            herald_relay::spawn(
                herald_relay::RelayConfig {
                    data_dir: dir,
                    public_url: None,
                    ..Default::default()
                },
                listener,
            )
            .await
            .expect("relay starts")
        })
        .await
        .expect("relay start task")
}

/// Open files this test needs: per client its cache (writer and reader, WAL and shared
/// memory), its sockets on both sides of the gate and the relay's end, about 14; measured:
/// 4,096 is too few, 8,192 enough.
const OPEN_FILES_NEEDED: u64 = 8_192;

/// Raises this process's soft open-file limit to the hard one (many machines start tests at
/// a soft limit of 1,024), and fails plainly when even the hard limit is too low.
fn raise_open_file_limit() {
    let limit = rlimit::increase_nofile_limit(u64::MAX).expect("reading the open-file limit");
    assert!(
        limit >= OPEN_FILES_NEEDED,
        "{CLIENTS} clients need {OPEN_FILES_NEEDED} open files; the hard limit is {limit} \
         (raise `ulimit -Hn`)"
    );
}

async fn stop_relay(rt: &RelayRuntime, relay: herald_relay::RunningRelay) {
    rt.handle
        .spawn(relay.shutdown())
        .await
        .expect("relay shutdown task");
}

async fn new_client(root: &std::path::Path, i: usize, relay_url: &str, gate_url: &str) -> Client {
    let core = Core::open(CoreConfig {
        data_dir: root.join(format!("device{i}")),
        device_name: format!("d{i}"),
        platform: "linux".into(),
        use_keychain: false,
    })
    .expect("core opens");
    core.create_account(gate_url).await.expect("account");
    let conn = core
        .create_connection("bot", None)
        .await
        .expect("connection");
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

/// How the reconnect attempts after the gate reopened arrived (durations since it reopened).
#[derive(Debug)]
struct Spread {
    attempts: usize,
    p10: Duration,
    p50: Duration,
    p90: Duration,
    last: Duration,
    /// Most attempts in any 10 ms.
    busiest: usize,
}

impl Spread {
    fn of(mut after_up: Vec<Duration>) -> Spread {
        assert!(!after_up.is_empty(), "reconnect attempts arrived");
        after_up.sort();
        let mut busiest = 0;
        for (k, t) in after_up.iter().enumerate() {
            let n = after_up[k..]
                .iter()
                .take_while(|u| **u < *t + Duration::from_millis(10))
                .count();
            busiest = busiest.max(n);
        }
        Spread {
            attempts: after_up.len(),
            p10: percentile(&after_up, 0.10),
            p50: percentile(&after_up, 0.50),
            p90: percentile(&after_up, 0.90),
            last: *after_up.last().unwrap(),
            busiest,
        }
    }

    /// The spread check: reconnects are spread by the jitter, no storm.
    fn check(&self) -> Result<(), String> {
        let spread = self.p90 - self.p10;
        if spread < MIN_SPREAD {
            return Err(format!("bunched: p90 - p10 = {spread:?} < {MIN_SPREAD:?}"));
        }
        if self.busiest > MAX_IN_10MS {
            return Err(format!(
                "storm: {} attempts in 10 ms > {MAX_IN_10MS}",
                self.busiest
            ));
        }
        Ok(())
    }
}

/// What one restart showed.
struct Round {
    relay: herald_relay::RunningRelay,
    spread: Spread,
    /// Most failed connects of one core while the gate refused.
    attempts_max: usize,
}

/// Cuts every connection at the gate, restarts the relay behind it, reopens the gate
/// [`DOWN_FOR`] after the cut and posts a message to every account (recorded in `sent`). Checks
/// that every core reconnects and holds every message sent so far, once.
/// What stays the same across restarts.
struct Rig<'a> {
    rt: &'a RelayRuntime,
    relay_dir: &'a std::path::Path,
    gate: &'a ArrivalGate,
    clients: &'a [Client],
}

async fn restart_round(
    round: usize,
    rig: &Rig<'_>,
    relay: herald_relay::RunningRelay,
    heard: &mut mpsc::UnboundedReceiver<Heard>,
    sent: &mut [Vec<String>],
) -> Round {
    let Rig {
        rt,
        relay_dir,
        gate,
        clients,
    } = *rig;
    let addr = relay.local_addr();
    while heard.try_recv().is_ok() {}
    let cut = Instant::now();
    gate.close_and_cut();
    gate.forget_upstream();
    stop_relay(rt, relay).await;
    let relay = start_relay(rt, relay_dir, &addr.to_string()).await;
    gate.set_upstream(addr);
    let restarted_in = cut.elapsed();
    tokio::time::sleep_until(cut + DOWN_FOR).await;
    let up = gate.open();
    let sent_now: Vec<String> = futures_util::stream::iter(clients.iter().enumerate())
        .map(|(i, c)| async move {
            let content = MessageContent {
                title: format!("after restart {round}, client {i}"),
                body: String::new(),
                ..Default::default()
            };
            // The agent's own pooled connection died with the relay: retry, same key.
            let options = || SendOptions {
                idempotency_key: Some(format!("restart-{round}-{i}")),
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
    let mut lost_at: Vec<Option<Instant>> = vec![None; CLIENTS];
    let mut arrived = vec![0usize; CLIENTS];
    tokio::time::timeout(BOUND, async {
        while reconnected_at.iter().any(Option::is_none) || arrived.contains(&0) {
            let (i, at, e) = heard.recv().await.expect("events");
            match e {
                CoreEvent::SyncState {
                    connected: true, ..
                } if at >= up => {
                    reconnected_at[i].get_or_insert(at);
                }
                CoreEvent::SyncState {
                    connected: false,
                    error: Some(msg),
                } if msg.starts_with("Cannot reach") => failed_attempts[i] += 1,
                CoreEvent::SyncState {
                    connected: false, ..
                } => {
                    lost_at[i].get_or_insert(at);
                }
                CoreEvent::MessageUpserted { message, .. } => {
                    assert_eq!(message.id, sent_now[i], "client {i} got its own message");
                    arrived[i] += 1;
                }
                _ => {}
            }
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "round {round}: every client reconnects and catches up: {} not reconnected, {} \
             without the message",
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
        sent[i].push(sent_now[i].clone());
        let mut cached: Vec<String> = c
            .core
            .inbox()
            .await
            .expect("inbox")
            .into_iter()
            .map(|m| m.id)
            .collect();
        cached.sort();
        let mut expected = sent[i].clone();
        expected.sort();
        assert_eq!(
            cached, expected,
            "client {i}: every message sent, cached once"
        );
        assert_eq!(arrived[i], 1, "client {i}: announced once in round {round}");
    }

    // Where the attempts arrived: at the gate, before any handshake work.
    let arrivals = gate.arrivals();
    let refused = arrivals.iter().filter(|a| a.refused && a.at >= cut).count();
    let spread = Spread::of(
        arrivals
            .iter()
            .filter(|a| !a.refused && a.at >= up)
            .map(|a| a.at - up)
            .collect(),
    );
    // For comparison: when the cores reported being connected again.
    let mut completed: Vec<Duration> = reconnected_at
        .iter()
        .map(|t| t.expect("reconnected").saturating_duration_since(up))
        .collect();
    completed.sort();
    let attempts_max = failed_attempts.iter().max().copied().unwrap_or(0);
    // How late the cores noticed the cut (it spreads the attempts of unjittered clients).
    let mut noticed: Vec<Duration> = lost_at
        .iter()
        .flatten()
        .map(|t| t.saturating_duration_since(cut))
        .collect();
    noticed.sort();
    let noticed = |p: f64| noticed.get(((noticed.len().max(1) - 1) as f64 * p).round() as usize);
    // Arrivals per 100 ms after reopening, for the log.
    let mut histogram = vec![0usize; 1 + (spread.last.as_millis() / 100) as usize];
    for a in arrivals.iter().filter(|a| !a.refused && a.at >= up) {
        histogram[((a.at - up).as_millis() / 100) as usize] += 1;
    }
    eprintln!(
        "round {round}: relay restarted in {restarted_in:?}, gate reopened {DOWN_FOR:?} after \
         the cut; {refused} attempts refused meanwhile, at most {attempts_max} per client; \
         {} attempts arrived after reopening: p10 {:?}, p50 {:?}, p90 {:?}, last {:?}, \
         p90 - p10 {:?}, busiest 10 ms {}; connected again (as the cores saw it): p10 {:?}, \
         p90 {:?}; noticed the cut: p10 {:?}, p90 {:?}, last {:?}; per 100 ms: {histogram:?}",
        spread.attempts,
        spread.p10,
        spread.p50,
        spread.p90,
        spread.last,
        spread.p90 - spread.p10,
        spread.busiest,
        percentile(&completed, 0.10),
        percentile(&completed, 0.90),
        noticed(0.1),
        noticed(0.9),
        noticed(1.0),
    );
    assert!(
        spread.attempts >= CLIENTS,
        "round {round}: every core's attempt arrived at the gate: {}",
        spread.attempts
    );
    Round {
        relay,
        spread,
        attempts_max,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_restart_under_500_clients_spreads_reconnects_and_loses_nothing() {
    raise_open_file_limit();
    let relay_dir = scratch_dir();
    let rt = relay_runtime();
    let relay = start_relay(&rt, relay_dir.path(), "127.0.0.1:0").await;
    let url = relay.url();
    let gate = ArrivalGate::start(relay.local_addr());
    let gate_url = gate.url();
    // 500 caches and relay.db: on tmpfs where there is one, so fsyncs do not dominate.
    let root = scratch_dir();
    let started = Instant::now();

    let clients: Vec<Client> = futures_util::stream::iter(0..CLIENTS)
        .map(|i| {
            let (root, url, gate_url) = (root.path().to_path_buf(), url.clone(), gate_url.clone());
            async move { new_client(&root, i, &url, &gate_url).await }
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
    // Let the first catch-ups finish (what is heard meanwhile is dropped by the round).
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut sent: Vec<Vec<String>> = vec![Vec::new(); CLIENTS];
    let rig = Rig {
        rt: &rt,
        relay_dir: relay_dir.path(),
        gate: &gate,
        clients: &clients,
    };
    let jittered = restart_round(1, &rig, relay, &mut heard, &mut sent).await;
    if let Err(e) = jittered.spread.check() {
        panic!("reconnects are spread by the jitter, no storm: {e}");
    }
    assert!(
        jittered.attempts_max <= 10,
        "no client retries in a tight loop while the relay is down: {} attempts",
        jittered.attempts_max
    );

    // Negative control: the same restart with jitter off must fail the same check.
    for c in clients.iter() {
        c.core
            .set_reconnect_backoff(ReconnectBackoff {
                jitter: false,
                ..Default::default()
            })
            .expect("valid policy");
    }
    let unjittered = restart_round(2, &rig, jittered.relay, &mut heard, &mut sent).await;
    match unjittered.spread.check() {
        Err(e) => eprintln!("without jitter the spread check fails, as it must: {e}"),
        Ok(()) => panic!(
            "without jitter the spread check must fail, or it cannot tell a storm: {:?}",
            unjittered.spread
        ),
    }

    for c in clients.iter() {
        c.core.stop_sync();
    }
    stop_relay(&rt, unjittered.relay).await;
}
