//! `herald agent-key | connector | notifications` against a real relay (docs/agents.md): a
//! key printed once works on the agent endpoints until revoked; a connector's user code is
//! approved from the command line; notifications are listed decrypted.

mod common;

use common::*;
use serde_json::{json, Value};

fn http<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Runtime::new().expect("runtime").block_on(f)
}

fn post_json(url: &str, key: &str, body: Value) -> (u16, Value) {
    http(async {
        let resp = reqwest::Client::new()
            .post(url)
            .bearer_auth(key)
            .json(&body)
            .send()
            .await
            .expect("relay answers");
        (
            resp.status().as_u16(),
            resp.json().await.unwrap_or(Value::Null),
        )
    })
}

fn get(url: &str, key: &str) -> u16 {
    http(async {
        reqwest::Client::new()
            .get(url)
            .bearer_auth(key)
            .send()
            .await
            .expect("relay answers")
            .status()
            .as_u16()
    })
}

fn post_form(url: &str, fields: &[(&str, &str)]) -> Value {
    http(async {
        reqwest::Client::new()
            .post(url)
            .form(fields)
            .send()
            .await
            .expect("relay answers")
            .json()
            .await
            .expect("JSON")
    })
}

#[test]
fn agent_keys_connectors_and_notifications_from_the_command_line() {
    let s = setup();
    let home = s.home.path();
    let url = &s.relay.url;
    let key = ok_stdout(herald(home).args(["agent-key", "create", "--name", "build-bot"]));
    let key = key.trim().to_owned();
    assert!(key.starts_with("hrk_"), "the key alone on stdout: {key:?}");
    let list = ok_stdout(herald(home).args(["agent-key", "list"]));
    assert!(list.contains("build-bot"), "listed: {list}");
    assert!(!list.contains("hrk_"), "never shown again: {list}");

    let (status, _) = post_json(
        &format!("{url}/v1/notify"),
        &key,
        json!({"title": "Deploy done", "expectReply": true}),
    );
    assert_eq!(status, 201, "the key works");
    let shown = ok_stdout(herald(home).args(["notifications", "list"]));
    assert!(shown.contains("build-bot: Deploy done"), "listed: {shown}");
    assert!(shown.contains("awaits reply"), "flags: {shown}");
    let as_json: Value = serde_json::from_str(&ok_stdout(herald(home).args([
        "notifications",
        "list",
        "--json",
    ])))
    .expect("JSON");
    assert_eq!(
        as_json[0]["endToEnd"],
        json!(false),
        "not end-to-end encrypted"
    );

    // A connector approved by its code.
    let flow = post_form(
        &format!("{url}/oauth/device_authorization"),
        &[("client_id", "cli-test")],
    );
    let code = flow["user_code"].as_str().expect("user code");
    ok_stdout(herald(home).args(["connector", "approve", code, "--name", "Claude"]));
    let token = post_form(
        &format!("{url}/oauth/token"),
        &[
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", flow["device_code"].as_str().unwrap()),
            ("client_id", "cli-test"),
        ],
    );
    let access = token["access_token"].as_str().expect("a token").to_owned();
    assert_eq!(get(&format!("{url}/v1/status"), &access), 200);
    let connectors = ok_stdout(herald(home).args(["connector", "list"]));
    assert!(
        connectors.contains("Claude") && connectors.contains("connected"),
        "{connectors}"
    );
    let id = connectors
        .split_whitespace()
        .next()
        .expect("an id")
        .to_owned();
    ok_stdout(herald(home).args(["connector", "revoke", &id]));
    assert_eq!(
        get(&format!("{url}/v1/status"), &access),
        401,
        "revoked connector"
    );
    let bad = run(herald(home).args(["connector", "approve", "BBBB-BBBB"]));
    assert!(!bad.status.success(), "an unknown code fails");

    let key_id = list.split_whitespace().next().expect("an id").to_owned();
    ok_stdout(herald(home).args(["agent-key", "revoke", &key_id]));
    assert_eq!(get(&format!("{url}/v1/status"), &key), 401, "revoked key");
}

fn get_json(url: &str, key: &str) -> Value {
    http(async {
        reqwest::Client::new()
            .get(url)
            .bearer_auth(key)
            .send()
            .await
            .expect("relay answers")
            .json()
            .await
            .expect("JSON")
    })
}

/// A headless device answers a notification (text from --text or stdin), every listed line
/// says it is not end-to-end encrypted, and quiet hours are shown and changed.
#[test]
fn notifications_are_answered_and_quiet_hours_set_from_the_command_line() {
    let s = setup();
    let home = s.home.path();
    let url = &s.relay.url;
    let key = ok_stdout(herald(home).args(["agent-key", "create", "--name", "bot"]));
    let key = key.trim().to_owned();
    for (id, title) in [("ask-a", "Deploy?"), ("ask-b", "Merge?")] {
        let (status, _) = post_json(
            &format!("{url}/v1/notify"),
            &key,
            json!({"title": title, "notificationId": id, "expectReply": true}),
        );
        assert_eq!(status, 201);
    }
    let shown = ok_stdout(herald(home).args(["notifications", "list"]));
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 2, "{shown}");
    for l in &lines {
        assert!(l.ends_with("(not end-to-end encrypted)"), "{l}");
    }
    let list: Value = serde_json::from_str(&ok_stdout(herald(home).args([
        "notifications",
        "list",
        "--json",
    ])))
    .expect("JSON");
    let relay_id = |agent_id: &str| -> String {
        list.as_array()
            .expect("a list")
            .iter()
            .find(|n| n["notificationId"] == agent_id)
            .and_then(|n| n["id"].as_str())
            .expect("listed")
            .to_owned()
    };
    ok_stdout(herald(home).args([
        "notifications",
        "reply",
        &relay_id("ask-a"),
        "--text",
        "Ship it",
    ]));
    let mut by_stdin = herald(home);
    by_stdin
        .args(["notifications", "reply", &relay_id("ask-b")])
        .stdin(std::process::Stdio::piped());
    let mut child = by_stdin.spawn().expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(b"Not yet\n").expect("write");
    }
    let out = child.wait_with_output().expect("herald runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (id, text) in [("ask-a", "Ship it"), ("ask-b", "Not yet")] {
        let r = get_json(&format!("{url}/v1/replies/{id}"), &key);
        assert_eq!(
            (r["replied"].clone(), r["text"].clone()),
            (json!(true), json!(text))
        );
    }

    let shown = ok_stdout(herald(home).args(["notifications", "quiet-hours"]));
    assert!(shown.starts_with("Quiet hours off"), "{shown}");
    let set = ok_stdout(herald(home).args([
        "notifications",
        "quiet-hours",
        "--enable",
        "--start",
        "21:30",
        "--end",
        "06:45",
        "--timezone",
        "Europe/Paris",
    ]));
    assert!(
        set.starts_with("Quiet hours on: 21:30–06:45 Europe/Paris"),
        "{set}"
    );
    let off = ok_stdout(herald(home).args(["notifications", "quiet-hours", "--disable"]));
    assert!(off.starts_with("Quiet hours off: 21:30–06:45"), "{off}");
    let bad = run(herald(home).args([
        "notifications",
        "quiet-hours",
        "--enable",
        "--start",
        "25:00",
    ]));
    assert!(!bad.status.success(), "an invalid time fails");
}
