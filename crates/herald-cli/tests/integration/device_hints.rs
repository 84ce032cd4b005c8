//! Device and connection troubles from a terminal, against a real relay: `whoami` asks the
//! relay whether this device is still signed in; 401s say what to do; `device approve` gives
//! up (and burns the request) when the new device is gone, and lists requests as JSON;
//! `device revoke` points connections elsewhere, names a device already revoked, and survives
//! a concurrent revoke; the default device name is the host name.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use common::*;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn with_stdin(cmd: &mut std::process::Command, input: &str) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("herald starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("stdin written");
    child.wait_with_output().expect("herald finishes")
}

fn recovery_key(init: &str) -> String {
    init.lines()
        .find_map(|l| l.strip_prefix("Recovery key:"))
        .expect("init prints the recovery key")
        .trim()
        .to_owned()
}

/// A new device in its own home, unlocked with the recovery key; returns the home.
fn unlock(relay: &str, key: &str, name: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let out = with_stdin(
        herald(home.path()).args(["device", "unlock", "--relay", relay, "--name", name]),
        &format!("{key}\n"),
    );
    assert!(out.status.success(), "unlock {name}: {}", stderr(&out));
    home
}

fn device_id(home: &std::path::Path, name: &str) -> String {
    let devices: Vec<serde_json::Value> =
        serde_json::from_str(&ok_stdout(herald(home).args(["device", "list", "--json"]))).unwrap();
    devices
        .iter()
        .find(|d| d["name"] == name)
        .and_then(|d| d["id"].as_str())
        .unwrap_or_else(|| panic!("{name} is listed: {devices:?}"))
        .to_owned()
}

#[test]
fn a_revoked_device_and_a_revoked_token_are_told_what_to_do() {
    let relay = ThreadedRelay::start();
    let desk = tempfile::tempdir().unwrap();
    let init = ok_stdout(
        herald(desk.path()).args(["device", "init", "--relay", &relay.url, "--name", "desk"]),
    );
    let laptop = unlock(&relay.url, &recovery_key(&init), "laptop");
    let whoami = ok_stdout(herald(laptop.path()).args(["whoami"]));
    assert!(whoami.contains("Status:       signed in"), "{whoami}");

    let laptop_id = device_id(desk.path(), "laptop");
    let wrong =
        run(herald(desk.path()).args(["device", "revoke", "con_000000000000000000000000000"]));
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        stderr(&wrong).contains("herald connection revoke"),
        "a connection id is pointed to the right command: {}",
        stderr(&wrong)
    );
    ok_stdout(herald(desk.path()).args(["device", "revoke", &laptop_id]));
    let again = run(herald(desk.path()).args(["device", "revoke", &laptop_id]));
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("already revoked"),
        "{}",
        stderr(&again)
    );

    let whoami = run(herald(laptop.path()).args(["whoami"]));
    assert_eq!(whoami.status.code(), Some(1), "signed out is not success");
    assert!(
        String::from_utf8_lossy(&whoami.stdout).contains("signed out")
            && stderr(&whoami).contains("herald device unlock")
            && stderr(&whoami).contains("herald device pair"),
        "whoami says so and how to sign in again: {}",
        stderr(&whoami)
    );
    let list = run(herald(laptop.path()).args(["connection", "list"]));
    assert_eq!(list.status.code(), Some(1));
    assert!(
        stderr(&list).contains("signed out") && stderr(&list).contains("herald device unlock"),
        "every device command adds the hint: {}",
        stderr(&list)
    );

    // Two connections: one cannot see the other's request; a revoked token is told so.
    let token = ok_stdout(herald(desk.path()).args(["connection", "create", "--name", "bot"]))
        .trim()
        .to_owned();
    let other = ok_stdout(herald(desk.path()).args(["connection", "create", "--name", "other"]))
        .trim()
        .to_owned();
    let asked = run(herald(desk.path())
        .env("HERALD_URL", &relay.url)
        .env("HERALD_TOKEN", &token)
        .args([
            "ask",
            "--title",
            "Mine",
            "--action",
            "ok:OK",
            "--timeout",
            "1s",
        ]));
    assert_eq!(asked.status.code(), Some(3), "{}", stderr(&asked));
    let id = serde_json::from_slice::<serde_json::Value>(&asked.stdout).unwrap()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let foreign = run(herald(desk.path())
        .env("HERALD_URL", &relay.url)
        .env("HERALD_TOKEN", &other)
        .args(["wait", &id]));
    assert_eq!(foreign.status.code(), Some(1));
    assert!(
        stderr(&foreign).contains(&format!(
            "not found: no message {id} visible to this connection"
        )),
        "{}",
        stderr(&foreign)
    );

    let connections = ok_stdout(herald(desk.path()).args(["connection", "list"]));
    let con_id = connections
        .lines()
        .find(|l| l.ends_with("  bot"))
        .and_then(|l| l.split_whitespace().next())
        .expect("the bot connection is listed")
        .to_owned();
    ok_stdout(herald(desk.path()).args(["connection", "revoke", &con_id]));
    let refused = run(herald(desk.path())
        .env("HERALD_URL", &relay.url)
        .env("HERALD_TOKEN", &token)
        .args(["send", "--title", "After revocation"]));
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains(
            "this connection token was revoked or is unknown (401): create a new connection"
        ),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn approve_gives_up_on_a_vanished_device_and_burns_the_request() {
    let s = setup();
    let laptop = tempfile::tempdir().unwrap();
    let mut pair = herald(laptop.path())
        .args([
            "device",
            "pair",
            "--relay",
            &s.relay.url,
            "--name",
            "gone-laptop",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pair starts");
    let mut first = String::new();
    BufReader::new(pair.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("pair prints the code");
    let code = first
        .strip_prefix("Pairing code: ")
        .expect("the code line")
        .trim()
        .to_owned();

    let listed: Vec<serde_json::Value> = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["device", "approve", "--json"]),
    ))
    .expect("approve --json lists requests as JSON");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["name"], "gone-laptop");
    assert!(listed[0]["id"].as_str().unwrap().starts_with("pai_"));
    assert!(listed[0]["expiresAt"].is_string());

    // The new device goes away before it can confirm.
    pair.kill().expect("the new device stops");
    let _ = pair.wait();

    let approve = with_stdin(
        herald(s.home.path()).args(["device", "approve", "--confirm-timeout", "2s"]),
        &format!("{code}\n"),
    );
    assert_eq!(approve.status.code(), Some(1), "{}", stderr(&approve));
    assert!(
        stderr(&approve).contains("Waiting for the new device to confirm"),
        "says what it waits for: {}",
        stderr(&approve)
    );
    assert!(
        stderr(&approve).contains("did not confirm within 2s"),
        "and why it stopped: {}",
        stderr(&approve)
    );
    let listed: Vec<serde_json::Value> = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["device", "approve", "--json"]),
    ))
    .unwrap();
    assert!(listed.is_empty(), "the request is used up: {listed:?}");
    let retry = with_stdin(
        herald(s.home.path()).args(["device", "approve"]),
        &format!("{code}\n"),
    );
    assert_eq!(
        retry.status.code(),
        Some(1),
        "the code cannot be tried again"
    );
}

#[test]
fn concurrent_revokes_from_two_devices_both_succeed() {
    let relay = ThreadedRelay::start();
    let desk = tempfile::tempdir().unwrap();
    let init = ok_stdout(
        herald(desk.path()).args(["device", "init", "--relay", &relay.url, "--name", "desk"]),
    );
    let key = recovery_key(&init);
    let a = unlock(&relay.url, &key, "a");
    let _b = unlock(&relay.url, &key, "b");
    let _c = unlock(&relay.url, &key, "c");
    let b_id = device_id(desk.path(), "b");
    let c_id = device_id(desk.path(), "c");
    let spawn = |home: &std::path::Path, id: &str| {
        herald(home)
            .args(["device", "revoke", id])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("revoke starts")
    };
    let first = spawn(desk.path(), &b_id);
    let second = spawn(a.path(), &c_id);
    for out in [finish(first), finish(second)] {
        assert!(
            out.status.success(),
            "both revokes succeed: {}",
            stderr(&out)
        );
    }
    let devices: Vec<serde_json::Value> = serde_json::from_str(&ok_stdout(
        herald(desk.path()).args(["device", "list", "--json"]),
    ))
    .unwrap();
    for id in [&b_id, &c_id] {
        assert!(
            devices
                .iter()
                .any(|d| d["id"] == id.as_str() && d["revokedAt"].is_string()),
            "{id} revoked: {devices:?}"
        );
    }
}

#[test]
fn the_default_device_name_is_the_host_name() {
    let relay = ThreadedRelay::start();
    let home = tempfile::tempdir().unwrap();
    ok_stdout(
        herald(home.path())
            .env_remove("HOSTNAME")
            .args(["device", "init", "--relay", &relay.url]),
    );
    let host = gethostname::gethostname()
        .to_string_lossy()
        .trim()
        .to_owned();
    assert!(!host.is_empty(), "this machine has a host name");
    let whoami = ok_stdout(herald(home.path()).args(["whoami"]));
    assert!(
        whoami.contains(&format!("Device:       {host} (")),
        "named {host:?}: {whoami}"
    );
}
