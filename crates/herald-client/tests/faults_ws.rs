//! Fault tests (docs/faults.md, "Relay faults"): the live-update socket and catch-up fetches
//! of a real device core, through a real TCP proxy (tests/fault_proxy) that cuts connections,
//! refuses them, cuts one catch-up fetch, or repeats sync nudges. The relay, the core, its
//! SQLite cache, the crypto and the agent SDK are all real; the agent posts straight to the
//! relay, the core reaches it only through the proxy.

mod core_setup;
mod fault_proxy;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fault_proxy::FaultProxy;
use herald_client::agent::{AgentClient, SendOptions};
use herald_client::view::CoreEvent;
use herald_client::Core;
use herald_protocol::content::MessageContent;
use tempfile::TempDir;

/// Bound for every wait (a bound, not a delay).
const BOUND: Duration = Duration::from_secs(120);

/// Everything one test needs: a relay, the proxy in front of it, a synced core behind the
/// proxy, an agent posting straight to the relay, and every event the core emitted.
struct Rig {
    relay: herald_relay::RunningRelay,
    proxy: FaultProxy,
    core: Core,
    agent: AgentClient,
    events: Arc<Mutex<Vec<CoreEvent>>>,
    _dirs: (TempDir, TempDir),
}

impl Rig {
    async fn start() -> Rig {
        let relay_dir = tempfile::tempdir().unwrap();
        let relay = core_setup::spawn_relay(relay_dir.path()).await;
        let proxy = FaultProxy::start(relay.local_addr()).await;
        let device_dir = tempfile::tempdir().unwrap();
        let core = core_setup::open_core(device_dir.path(), "d");
        core.create_account(&proxy.url()).await.expect("account");
        let agent = core_setup::connect_agent(&core, &relay.url(), "bot").await;
        let events = Arc::new(Mutex::new(Vec::new()));
        let mut rx = core.subscribe();
        let log = events.clone();
        tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(e) => log.lock().unwrap().push(e),
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    Err(e) => panic!("the event log fell behind: {e}"),
                }
            }
        });
        core.start_sync().expect("sync starts");
        let rig = Rig {
            relay,
            proxy,
            core,
            agent,
            events,
            _dirs: (relay_dir, device_dir),
        };
        rig.wait("the core connects", |r| r.connected_events() >= 1)
            .await;
        rig
    }

    /// Waits (bounded) until `done` holds.
    async fn wait(&self, what: &str, done: impl Fn(&Rig) -> bool) {
        tokio::time::timeout(BOUND, async {
            while !done(self) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{what}: within {BOUND:?}"));
    }

    /// Sends a message with this title (and key, when given) straight to the relay.
    async fn send(&self, title: &str, key: Option<&str>) -> String {
        let content = MessageContent {
            title: title.into(),
            body: String::new(),
            ..Default::default()
        };
        let options = SendOptions {
            idempotency_key: key.map(str::to_owned),
            ..Default::default()
        };
        self.agent
            .send(&content, options)
            .await
            .expect("the relay takes the message")
            .id
            .to_string()
    }

    /// MessageUpserted events per message id: (count, how many said is_new).
    fn upserts(&self) -> BTreeMap<String, (usize, usize)> {
        let mut out: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for e in self.events.lock().unwrap().iter() {
            if let CoreEvent::MessageUpserted { message, is_new } = e {
                let entry = out.entry(message.id.clone()).or_default();
                entry.0 += 1;
                entry.1 += usize::from(*is_new);
            }
        }
        out
    }

    fn arrived(&self, id: &str) -> bool {
        self.upserts().contains_key(id)
    }

    fn connected_events(&self) -> usize {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    CoreEvent::SyncState {
                        connected: true,
                        ..
                    }
                )
            })
            .count()
    }

    /// Each of `ids` was announced exactly once, as new, and is cached once.
    async fn assert_each_once(&self, ids: &[String]) {
        let upserts = self.upserts();
        for id in ids {
            assert_eq!(
                upserts.get(id),
                Some(&(1, 1)),
                "{id}: announced exactly once, as new ({upserts:?})"
            );
        }
        let inbox = self.core.inbox().await.expect("inbox");
        let mut cached: BTreeMap<&str, usize> = BTreeMap::new();
        for m in &inbox {
            *cached.entry(m.id.as_str()).or_default() += 1;
        }
        for id in ids {
            assert_eq!(
                cached.get(id.as_str()),
                Some(&1),
                "{id}: cached exactly once"
            );
        }
        assert!(
            cached.values().all(|n| *n == 1),
            "no message cached twice: {cached:?}"
        );
    }

    async fn stop(self) {
        self.core.stop_sync();
        self.relay.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_dropped_while_messages_are_sent_delivers_each_exactly_once() {
    let rig = Rig::start().await;
    let warm = rig.send("warm", None).await;
    rig.wait("the first message arrives live", |r| r.arrived(&warm))
        .await;
    let handshakes_before = rig.proxy.ws_handshakes();

    // Messages go out all along while the core's connections are cut three times, and for a
    // while after each cut the relay cannot be reached at all.
    let rig = Arc::new(rig);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sender = {
        let (rig, stop) = (rig.clone(), stop.clone());
        tokio::spawn(async move {
            let mut ids = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                ids.push(rig.send(&format!("m{}", ids.len()), None).await);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            ids
        })
    };
    for _ in 0..3 {
        // Cut a live socket each time: the core is connected (it just was, or reconnected).
        tokio::time::sleep(Duration::from_millis(40)).await;
        let connected_at_cut = rig.connected_events();
        rig.proxy.set_down(true);
        rig.proxy.cut_all();
        tokio::time::sleep(Duration::from_millis(120)).await;
        rig.proxy.set_down(false);
        rig.wait("the core reconnects", |r| {
            r.connected_events() > connected_at_cut
        })
        .await;
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut ids = sender.await.expect("sender");
    ids.push(rig.send("after the drops", None).await);
    rig.wait("every message arrives", |r| {
        ids.iter().all(|id| r.arrived(id))
    })
    .await;
    ids.push(warm);
    rig.assert_each_once(&ids).await;
    assert!(
        rig.proxy.ws_handshakes() >= handshakes_before + 3,
        "the core reconnected after each drop ({} handshakes after the first)",
        rig.proxy.ws_handshakes() - handshakes_before,
    );
    eprintln!(
        "{} messages sent across 3 drops; {} websocket handshakes",
        ids.len(),
        rig.proxy.ws_handshakes()
    );
    Arc::into_inner(rig).expect("sole owner").stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catch_up_fetch_cut_after_a_nudge_is_retried() {
    let rig = Rig::start().await;
    let warm = rig.send("warm", None).await;
    rig.wait("the first message arrives live", |r| r.arrived(&warm))
        .await;
    let fetches_before = rig.proxy.fetches();

    // The nudge for this message reaches the core; the fetch it makes is cut on the wire.
    rig.proxy.fail_next_fetches(1);
    let id = rig.send("after a failed fetch", None).await;
    rig.wait("the message arrives although its first fetch failed", |r| {
        r.arrived(&id)
    })
    .await;
    assert_eq!(rig.proxy.failed_fetches(), 1, "exactly one fetch was cut");
    // The HTTP client repeats the cut GET once on a fresh connection (src/http.rs); without
    // that, the sync loop reconnects the socket and catches up again. Either way: refetched.
    assert!(
        rig.proxy.fetches() >= fetches_before + 2,
        "the failed catch-up was retried through a fresh connection"
    );
    rig.assert_each_once(&[warm, id]).await;
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_nudges_and_a_replayed_post_change_nothing() {
    let rig = Rig::start().await;
    let warm = rig.send("warm", None).await;
    rig.wait("the first message arrives live", |r| r.arrived(&warm))
        .await;

    // Every sync frame from the relay reaches the core three times.
    rig.proxy.set_frame_copies(3);
    let fetches_before = rig.proxy.fetches();
    let once = rig.send("nudged thrice", Some("dup-key")).await;
    rig.wait("the message arrives", |r| r.arrived(&once)).await;
    // Frames are read in order: once this barrier arrives, the copies before it were handled.
    rig.proxy.set_frame_copies(1);
    let barrier = rig.send("barrier", None).await;
    rig.wait("the barrier arrives", |r| r.arrived(&barrier))
        .await;
    assert!(
        rig.proxy.duplicated_frames() >= 2,
        "the core got repeated nudges ({})",
        rig.proxy.duplicated_frames()
    );
    assert_eq!(
        rig.proxy.fetches() - fetches_before,
        2,
        "one catch-up fetch per change: repeated nudges fetch nothing"
    );

    // The same post again (same Idempotency-Key and content): the relay answers with the
    // original message and changes nothing, so the core stores and announces nothing new.
    let again = rig.send("nudged thrice", Some("dup-key")).await;
    assert_eq!(again, once, "a replayed post names the original message");
    let barrier2 = rig.send("barrier 2", None).await;
    rig.wait("the second barrier arrives", |r| r.arrived(&barrier2))
        .await;
    rig.assert_each_once(&[warm, once, barrier, barrier2]).await;
    assert_eq!(
        rig.core.inbox().await.unwrap().len(),
        4,
        "nothing else was stored"
    );
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_failing_every_fetch_is_retried_with_growing_delays() {
    let rig = Rig::start().await;
    let warm = rig.send("warm", None).await;
    rig.wait("the first message arrives live", |r| r.arrived(&warm))
        .await;

    // Every catch-up fetch is cut for 3 s: the socket opens each time, the fetch fails. The
    // delays must keep growing (250 ms, 500 ms, 1 s, … ceilings), not start over at each
    // socket that opened: at most a dozen reconnects (≈ 22 if every delay were ≤ 250 ms).
    rig.proxy.fail_next_fetches(usize::MAX);
    let handshakes_before = rig.proxy.ws_handshakes();
    let id = rig.send("after the outage", None).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let reconnects = rig.proxy.ws_handshakes() - handshakes_before;
    rig.proxy.fail_next_fetches(0);
    assert!(
        reconnects >= 2,
        "the core kept retrying during the outage ({reconnects} reconnects)"
    );
    assert!(
        reconnects <= 12,
        "no reconnect storm while every fetch fails: {reconnects} reconnects in 3 s"
    );
    rig.wait("the message arrives once fetches work again", |r| {
        r.arrived(&id)
    })
    .await;
    rig.assert_each_once(&[warm, id]).await;
    eprintln!(
        "{reconnects} reconnects in 3 s of failing fetches; {} fetches cut",
        rig.proxy.failed_fetches()
    );
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_open_socket_is_given_up_and_the_core_catches_up() {
    let rig = Rig::start().await;
    let warm = rig.send("warm", None).await;
    rig.wait("the first message arrives live", |r| r.arrived(&warm))
        .await;

    // The socket goes silent without closing (no FIN, no RST, no pings); new handshakes
    // hang as well. A message sent now gets no nudge through.
    rig.proxy.set_ws_frozen(true);
    let id = rig.send("while the socket is silent", None).await;
    let state_changes = |r: &Rig, want: &str| {
        r.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| match e {
                CoreEvent::SyncState {
                    connected: false,
                    error: Some(m),
                } => m.starts_with(want),
                _ => false,
            })
            .count()
    };
    // Given up after the idle timeout (45 s: two missed pings), not never.
    rig.wait("the silent socket is given up", |r| {
        state_changes(r, "Connection to the relay lost") >= 1
    })
    .await;
    // A handshake that gets no answer is given up too (10 s), not awaited forever.
    rig.wait("a hanging handshake is given up", |r| {
        state_changes(r, "Cannot reach the relay") >= 1
    })
    .await;
    assert!(!rig.arrived(&id), "no nudge passed the frozen socket");
    rig.proxy.set_ws_frozen(false);
    rig.wait("the message arrives after reconnecting", |r| r.arrived(&id))
        .await;
    rig.assert_each_once(&[warm, id]).await;
    rig.stop().await;
}
