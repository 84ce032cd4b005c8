//! Fault test (docs/faults.md, "Relay faults"): the `herald-relay` binary is killed with
//! SIGKILL while several senders post messages with Idempotency-Keys, then restarted on the
//! same data dir and address. Senders retry every post that was not acknowledged with the
//! same key and the same body. Afterwards every acknowledged message is in the feed and in the
//! idempotency table exactly once, and every key produced exactly one message.
#![cfg(unix)]

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::drain_feed;
use herald_protocol::wire::MessageRecord;
use herald_protocol::Revision;
use herald_testkit::fixtures::{self, TestConnection};

/// Concurrent senders (one connection each).
const SENDERS: usize = 8;
/// Messages each sender posts.
const PER_SENDER: usize = 60;
/// Acknowledged posts before each kill: well inside the stream of SENDERS × PER_SENDER = 480,
/// so every sender is still posting when the relay dies.
const KILL_AFTER_ACKS: [usize; 3] = [80, 160, 240];
/// Bound for every wait in this test (a bound, not a delay).
const BOUND: Duration = Duration::from_secs(120);

/// The relay process; killed (SIGKILL) if the test fails before it stops it.
struct Relay {
    child: Child,
    url: String,
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary on `listen` with `data_dir`, logging to `log`, and waits for its ready line
/// (the same line tests/mcp/run.sh reads: `herald-relay ready url=http://…`).
async fn start_relay(data_dir: &Path, listen: &str, log: &Path) -> Relay {
    let log_file = std::fs::File::create(log).expect("relay log file");
    let child = Command::new(env!("CARGO_BIN_EXE_herald-relay"))
        .args(["--listen", listen, "--data-dir"])
        .arg(data_dir)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .expect("the relay binary starts");
    let mut relay = Relay {
        child,
        url: String::new(),
    };
    let deadline = tokio::time::Instant::now() + BOUND;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(url) = text
            .lines()
            .find(|l| l.contains("herald-relay ready"))
            .and_then(|l| l.split("url=").nth(1))
            .and_then(|rest| rest.split_whitespace().next())
        {
            relay.url = url.to_owned();
            return relay;
        }
        if let Ok(Some(status)) = relay.child.try_wait() {
            panic!("the relay exited before it was ready ({status}): {text}");
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the relay announces readiness: {text}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One acknowledged post: what the sender was told.
#[derive(Debug, Clone)]
struct Ack {
    key: String,
    record: MessageRecord,
    /// 201 for a new message, 200 for a replay of a post the relay had already stored.
    status: u16,
    /// Posts of this key that got no acknowledgement before this one.
    failed_tries: usize,
}

/// Shared between the senders and the test.
#[derive(Default)]
struct Ledger {
    acks: Mutex<Vec<Ack>>,
    acked: AtomicUsize,
    unacknowledged: AtomicUsize,
}

/// Posts `PER_SENDER` messages one after another as `conn`; a post that gets no answer (the
/// relay is dead or restarting) is retried with the same Idempotency-Key and the same bytes.
async fn sender(
    url: String,
    account: herald_protocol::AccountId,
    conn: TestConnection,
    n: usize,
    ledger: Arc<Ledger>,
) {
    let http = reqwest::Client::new();
    for i in 0..n {
        let key = format!("fault-{}-{i}", conn.name);
        let body = serde_json::to_vec(&fixtures::message_request(
            &account,
            conn.principal(),
            false,
        ))
        .expect("request serializes");
        let deadline = tokio::time::Instant::now() + BOUND;
        let mut failed_tries = 0;
        loop {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{key}: the relay acknowledges the post in time"
            );
            let sent = http
                .post(format!("{url}/messages"))
                .bearer_auth(&conn.bearer)
                .header("Idempotency-Key", &key)
                .header("Content-Type", "application/json")
                .body(body.clone())
                .send()
                .await;
            // Only a complete response counts: a body cut by the kill is no acknowledgement.
            let answered = match sent {
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    resp.bytes().await.ok().map(|bytes| (status, bytes))
                }
                Err(_) => None,
            };
            match answered {
                Some((status @ (200 | 201), bytes)) => {
                    let record: MessageRecord =
                        serde_json::from_slice(&bytes).expect("a MessageRecord");
                    ledger.acks.lock().unwrap().push(Ack {
                        key,
                        record,
                        status,
                        failed_tries,
                    });
                    ledger.acked.fetch_add(1, Ordering::SeqCst);
                    break;
                }
                Some((status, bytes)) => panic!(
                    "{key}: unexpected {status}: {}",
                    String::from_utf8_lossy(&bytes)
                ),
                None => {
                    failed_tries += 1;
                    ledger.unacknowledged.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
            }
        }
    }
}

/// Every (scope, key) → message id pair in the relay's idempotency table.
fn idempotency_rows(db: &PathBuf) -> Vec<(String, String, String)> {
    let conn = rusqlite::Connection::open(db).expect("relay.db opens");
    let mut stmt = conn
        .prepare("SELECT scope, key, message_id FROM idempotency WHERE key LIKE 'fault-%'")
        .expect("query");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows read")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_ingest_loses_no_acknowledged_message_and_duplicates_none() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let first = start_relay(&data, "127.0.0.1:0", &dir.path().join("relay-1.log")).await;
    let url = first.url.clone();
    let listen = url.trim_start_matches("http://").to_owned();

    let account = fixtures::create_account(&url).await;
    let mut conns = Vec::new();
    for s in 0..SENDERS {
        conns.push(fixtures::create_connection(&url, &account, &format!("sender{s}")).await);
    }
    let ledger = Arc::new(Ledger::default());
    let senders: Vec<_> = conns
        .into_iter()
        .map(|conn| {
            tokio::spawn(sender(
                url.clone(),
                account.account_id.clone(),
                conn,
                PER_SENDER,
                ledger.clone(),
            ))
        })
        .collect();

    // Kill mid-stream, three times: after each threshold of acknowledgements, with every
    // sender still busy; restart on the same data dir and address each time.
    let mut relay = first;
    let mut before_kill: HashMap<String, MessageRecord> = HashMap::new();
    for (round, threshold) in KILL_AFTER_ACKS.iter().enumerate() {
        tokio::time::timeout(BOUND, async {
            while ledger.acked.load(Ordering::SeqCst) < *threshold {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await
        .expect("the senders make progress");
        relay.child.kill().expect("SIGKILL delivered");
        let status = relay.child.wait().expect("the killed relay is reaped");
        assert!(!status.success(), "the relay died of SIGKILL: {status:?}");
        before_kill.extend(
            ledger
                .acks
                .lock()
                .unwrap()
                .iter()
                .map(|a| (a.key.clone(), a.record.clone())),
        );
        assert!(
            before_kill.len() < SENDERS * PER_SENDER,
            "kill {round} came before the stream ended"
        );
        let log = dir.path().join(format!("relay-{}.log", round + 2));
        relay = start_relay(&data, &listen, &log).await;
        assert_eq!(relay.url, url, "the relay is back on the same address");
    }
    for task in senders {
        tokio::time::timeout(BOUND, task)
            .await
            .expect("senders finish")
            .expect("a sender panicked");
    }

    let acks = ledger.acks.lock().unwrap().clone();
    let unacknowledged = ledger.unacknowledged.load(Ordering::SeqCst);
    let replays = acks.iter().filter(|a| a.status == 200).count();
    let retried = acks.iter().filter(|a| a.failed_tries > 0).count();
    eprintln!(
        "acknowledged before the last kill: {}; posts without acknowledgement: {unacknowledged}; \
         keys retried: {retried}; retries answered as replays (stored before the kill, \
         acknowledgement lost): {replays}",
        before_kill.len()
    );
    assert_eq!(
        acks.len(),
        SENDERS * PER_SENDER,
        "every post ends acknowledged"
    );
    assert!(
        unacknowledged >= KILL_AFTER_ACKS.len() && retried >= KILL_AFTER_ACKS.len(),
        "the kill cut posts in flight: {unacknowledged} unacknowledged, {retried} keys retried"
    );
    let keys: HashSet<_> = acks.iter().map(|a| a.key.as_str()).collect();
    assert_eq!(keys.len(), acks.len(), "each key acknowledged once");

    // The feed, as the device reads it: each acknowledged message once, nothing else.
    let (records, _) = drain_feed(&url, &account.device_token, Revision(0), 200).await;
    let mut by_id: BTreeMap<String, usize> = BTreeMap::new();
    for r in &records {
        *by_id.entry(r.id.to_string()).or_default() += 1;
    }
    let twice: Vec<_> = by_id.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "no message is stored twice: {twice:?}");
    let revisions: HashSet<_> = records.iter().map(|r| r.revision).collect();
    assert_eq!(
        revisions.len(),
        records.len(),
        "each record has its own revision"
    );
    assert_eq!(
        records.len(),
        acks.len(),
        "one stored message per Idempotency-Key, none extra"
    );
    let stored: HashMap<String, &MessageRecord> =
        records.iter().map(|r| (r.id.to_string(), r)).collect();
    for ack in &acks {
        let found = stored.get(ack.record.id.as_str()).unwrap_or_else(|| {
            panic!(
                "{}: acknowledged message {} is stored",
                ack.key, ack.record.id
            )
        });
        assert_eq!(
            found.revision, ack.record.revision,
            "{}: stored at the acknowledged revision",
            ack.key
        );
    }
    for (key, record) in &before_kill {
        assert!(
            stored.contains_key(record.id.as_str()),
            "{key}: acknowledged before the kill, still there after it"
        );
    }

    // The idempotency table: one row per key, naming the acknowledged message.
    drop(relay);
    let rows = idempotency_rows(&data.join("relay.db"));
    assert_eq!(rows.len(), acks.len(), "one idempotency row per key");
    let by_key: HashMap<&str, &str> = rows
        .iter()
        .map(|(_, k, m)| (k.as_str(), m.as_str()))
        .collect();
    assert_eq!(by_key.len(), rows.len(), "no key twice");
    let ids: HashSet<&str> = rows.iter().map(|(_, _, m)| m.as_str()).collect();
    assert_eq!(ids.len(), rows.len(), "no message claimed by two keys");
    for ack in &acks {
        assert_eq!(
            by_key.get(ack.key.as_str()).copied(),
            Some(ack.record.id.as_str()),
            "{}: the key names the acknowledged message",
            ack.key
        );
    }
}
