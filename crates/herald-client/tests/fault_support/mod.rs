//! Shared set-up of the device fault tests (docs/faults.md, "Device faults"): a real relay
//! (herald-testkit's `TestRelay`), a device core on a temp data dir with its 0600 key file,
//! an agent connection, and checks that read the cache and relay SQLite files directly.
#![allow(dead_code)] // each test file uses its own part

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use herald_client::agent::{AgentClient, SendOptions};
use herald_client::view::{CoreEvent, MessageSummary};
use herald_client::Core;
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use herald_testkit::TestRelay;
use serde_json::json;
use tokio::sync::broadcast::Receiver;

#[path = "../core_setup/mod.rs"]
mod core_setup;

pub use core_setup::open_core;

/// A relay, one device with an account, and an agent connection.
pub struct World {
    pub relay: TestRelay,
    pub dir: tempfile::TempDir,
    pub core: Core,
    pub agent: AgentClient,
    pub recovery_key: String,
}

impl World {
    pub async fn start(relay: TestRelay) -> World {
        let dir = tempfile::tempdir().expect("device dir");
        let core = open_core(dir.path(), "Laptop");
        let onboard = core.create_account(&relay.url).await.expect("account");
        let connection = core
            .create_connection("fault-bot", None)
            .await
            .expect("connection");
        let agent = AgentClient::new(
            &connection.relay_url,
            ConnectionToken::parse(&connection.token).expect("token"),
        )
        .expect("agent client");
        World {
            relay,
            dir,
            core,
            agent,
            recovery_key: onboard.recovery_key,
        }
    }
}

/// A ~2 KB Markdown report numbered `n` (its title is `Report #n`).
pub fn report(n: usize) -> MessageContent {
    let line = format!("- line of report {n}: **status** `ok`, nothing to do here.\n");
    let body = format!("# Report {n}\n\n{}", line.repeat(2048 / line.len()));
    serde_json::from_value(json!({"title": format!("Report #{n}"), "body": body}))
        .expect("report content")
}

/// An Approve/Reject request titled `title`.
pub fn approve_reject(title: &str) -> MessageContent {
    serde_json::from_value(json!({"title": title, "body": "Ship it?", "actions": [
        {"id": "approve", "label": "Approve", "values": {}},
        {"id": "reject", "label": "Reject", "values": {}}]}))
    .expect("request content")
}

/// Sends reports `from..to` with 4 concurrent senders.
pub async fn send_reports(agent: &AgentClient, from: usize, to: usize) {
    let numbers: Vec<usize> = (from..to).collect();
    for chunk in numbers.chunks(4) {
        let contents: Vec<MessageContent> = chunk.iter().map(|n| report(*n)).collect();
        let sends = contents
            .iter()
            .map(|c| agent.send(c, SendOptions::default()));
        for sent in futures_util::future::join_all(sends).await {
            sent.expect("report sent");
        }
    }
}

/// `id → revision` of every message on the relay with revision ≤ `upto` (the relay's own
/// SQLite file, read through its WAL).
pub fn relay_messages(relay: &TestRelay, upto: u64) -> BTreeMap<String, u64> {
    let c = rusqlite::Connection::open(relay.db_path()).expect("relay db opens");
    let mut stmt = c
        .prepare("SELECT id, revision FROM messages WHERE revision <= ?1")
        .unwrap();
    let rows = stmt
        .query_map([upto as i64], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as u64))
        })
        .unwrap();
    rows.map(|r| r.unwrap()).collect()
}

/// The highest revision of any message on the relay.
pub fn relay_head(relay: &TestRelay) -> u64 {
    let c = rusqlite::Connection::open(relay.db_path()).expect("relay db opens");
    c.query_row("SELECT COALESCE(MAX(revision), 0) FROM messages", [], |r| {
        r.get::<_, i64>(0)
    })
    .unwrap() as u64
}

/// What the device cache file holds, read without the core (which would repair it).
pub struct CacheFile {
    pub integrity: Vec<String>,
    pub cursor: u64,
    /// `id → revision`.
    pub messages: BTreeMap<String, u64>,
    pub rows: usize,
}

/// Reads `<dir>/cache.db` with plain SQLite: `PRAGMA integrity_check`, the cursor, the rows.
pub fn read_cache_file(dir: &Path) -> CacheFile {
    let c = rusqlite::Connection::open(dir.join(herald_client::cache::CACHE_FILE))
        .expect("cache file opens");
    let integrity = c
        .prepare("PRAGMA integrity_check")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let cursor = c
        .query_row("SELECT cursor FROM sync_state WHERE id = 1", [], |r| {
            r.get::<_, i64>(0)
        })
        .expect("cursor row") as u64;
    let rows = c
        .query_row("SELECT COUNT(*) FROM messages", [], |r| r.get::<_, i64>(0))
        .unwrap() as usize;
    let mut stmt = c.prepare("SELECT id, revision FROM messages").unwrap();
    let messages = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    CacheFile {
        integrity,
        cursor,
        messages,
        rows,
    }
}

/// Every file of `dir` but the cache's, with its bytes (the keys and sealed device state).
pub fn key_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| {
            !e.file_name()
                .to_string_lossy()
                .starts_with(herald_client::cache::CACHE_FILE)
        })
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Files named `cache.db.corrupt-*` in `dir`.
pub fn corrupt_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("cache.db.corrupt-"))
        .collect()
}

/// Every inbox row decrypts (no error card) and every report's body opens.
pub async fn assert_all_decrypt(core: &Core) -> Vec<MessageSummary> {
    let inbox = core.inbox().await.expect("inbox");
    for m in &inbox {
        assert_eq!(m.error, None, "{} opens", m.id);
        assert!(
            m.title.starts_with("Report #"),
            "title decrypts: {}",
            m.title
        );
        let view = core.message(&m.id).await.expect("message view");
        assert!(
            view.body_html.contains("<strong>status</strong>"),
            "body of {} decrypts",
            m.id
        );
    }
    inbox
}

/// A small deterministic generator (xorshift64*) for fault positions; not for secrets.
pub struct Rng(u64);

impl Rng {
    /// Seeded from `HERALD_FAULT_SEED` when set, else `default`; prints the seed.
    pub fn seeded(default: u64) -> Rng {
        let seed = std::env::var("HERALD_FAULT_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default);
        eprintln!("fault seed {seed} (set HERALD_FAULT_SEED to replay)");
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Waits (bounded) for an upsert matching `pred`.
pub async fn next_upsert(
    events: &mut Receiver<CoreEvent>,
    pred: impl Fn(&MessageSummary) -> bool,
) -> MessageSummary {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match events.recv().await {
                Ok(CoreEvent::MessageUpserted { message, .. }) if pred(&message) => return message,
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("event stream closed: {e}"),
            }
        }
    })
    .await
    .expect("the expected event arrived in time")
}
