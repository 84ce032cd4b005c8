//! The `herald-relay` binary: starts on the given address and data dir, announces its URL on
//! stderr, serves, never logs credentials, and exits cleanly on SIGTERM.
#![cfg(unix)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use common::*;
use herald_testkit::{fixtures, Api};

/// Kills the child if the test fails before it exits.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn binary_serves_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_herald-relay"))
        .args(["--listen", "127.0.0.1:0"])
        .env("HERALD_RELAY_DATA_DIR", dir.path())
        .env("RUST_LOG", "debug")
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut guard = Guard(child);

    // Read stderr on a thread: hand over the announced URL, then keep the whole log.
    let (url_tx, url_rx) = mpsc::channel();
    let log = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines() {
            let line = line.expect("stderr line");
            if line.contains("herald-relay ready") {
                let url = line
                    .split("url=")
                    .nth(1)
                    .and_then(|rest| rest.split_whitespace().next())
                    .map(str::to_owned);
                let _ = url_tx.send(url);
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let url = tokio::task::spawn_blocking(move || url_rx.recv_timeout(FRAME_TIMEOUT))
        .await
        .unwrap()
        .expect("the binary announces readiness")
        .expect("the ready line carries url=");

    Api::new(&url)
        .get("/health")
        .await
        .expect_status(200, "the binary serves /health");
    let account = fixtures::create_account(&url).await;
    let conn = fixtures::create_connection(&url, &account, "Agent").await;
    send_from_device(&url, &account, false).await;
    assert!(
        dir.path().join("relay.db").exists(),
        "the database lives in the data dir"
    );

    let pid = guard.0.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success(), "SIGTERM delivered");
    let status = tokio::task::spawn_blocking(move || {
        let status = guard.0.wait();
        (status, guard)
    })
    .await
    .unwrap()
    .0
    .expect("wait");
    assert!(
        status.success(),
        "SIGTERM shuts the relay down cleanly: {status:?}"
    );
    let log = log.join().expect("log thread");
    assert!(
        !log.contains(&account.device_token),
        "device tokens are never logged"
    );
    assert!(
        !log.contains(&conn.bearer),
        "connection bearers are never logged"
    );
}
