//! What the `herald-relay` binary creates in its data dir is owner-only: every file 0600,
//! every directory 0700 — the database and its `-wal`/`-shm`, the blob store and its files —
//! whatever the umask, and a database an older relay left 0644 is narrowed at start.
#![cfg(unix)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use common::*;
use herald_testkit::{fixtures, Api};
use serde_json::json;

/// Kills the child if the test fails before it exits.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Every entry under `dir` with its mode bits (`0o777` part), depth first.
fn modes(dir: &Path, out: &mut Vec<(String, u32)>) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let entry = entry.expect("entry");
        let meta = entry.metadata().expect("metadata");
        out.push((
            entry.path().display().to_string(),
            meta.permissions().mode() & 0o777,
        ));
        if meta.is_dir() {
            modes(&entry.path(), out);
        }
    }
}

#[tokio::test]
async fn every_file_the_relay_creates_is_owner_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A database left world-readable (by an older relay, or a copy).
    let old = dir.path().join("relay.db");
    std::fs::write(&old, b"").expect("empty database");
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).expect("chmod");

    let mut child = Command::new(env!("CARGO_BIN_EXE_herald-relay"))
        .args(["--listen", "127.0.0.1:0"])
        .env("HERALD_RELAY_DATA_DIR", dir.path())
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let _guard = Guard(child);
    let (url_tx, url_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("url=").nth(1) {
                let url = rest.split_whitespace().next().map(str::to_owned);
                let _ = url_tx.send(url);
            }
        }
    });
    let url = tokio::task::spawn_blocking(move || url_rx.recv_timeout(FRAME_TIMEOUT))
        .await
        .unwrap()
        .expect("the binary announces readiness")
        .expect("the ready line carries url=");

    // Write through every store: accounts, messages (WAL), a file's bytes (blobs).
    let account = fixtures::create_account(&url).await;
    let conn = fixtures::create_connection(&url, &account, "Agent").await;
    send_from_device(&url, &account, false).await;
    let agent = Api::new(&url).connection(&conn);
    let reservation: serde_json::Value = agent
        .post(
            "/files",
            &json!({"name": "encrypted", "type": "application/octet-stream", "size": 5}),
        )
        .await
        .ok(201, "a file is reserved");
    let id = reservation["id"].as_str().expect("id").to_owned();
    agent
        .put_bytes(&format!("/files/{id}"), b"hello".to_vec())
        .await
        .expect_status(200, "the file is uploaded");

    let mut found = Vec::new();
    modes(dir.path(), &mut found);
    for side in ["relay.db-wal", "relay.db-shm"] {
        assert!(
            dir.path().join(side).exists(),
            "{side} exists while the relay runs: {found:?}"
        );
    }
    assert!(
        found.len() >= 5,
        "database, side files, blob dir and file: {found:?}"
    );
    for (path, mode) in &found {
        let want = if Path::new(path).is_dir() {
            0o700
        } else {
            0o600
        };
        assert_eq!(*mode, want, "{path} is {mode:o}, want {want:o}");
    }
    let root = std::fs::metadata(dir.path())
        .expect("data dir")
        .permissions();
    assert_eq!(root.mode() & 0o777, 0o700, "the data dir itself");
}
