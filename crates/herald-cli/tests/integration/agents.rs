//! `herald agent-key | connector | notifications` against a real relay (docs/agents.md): a
//! key printed once works on the agent endpoints until revoked; a connector's user code is
//! approved from the command line; notifications are listed decrypted.

use crate::common;

use common::*;
use herald_testkit::Reply;
use reqwest::Method;
use serde_json::{json, Value};

/// `POST path` with a form body, anonymously (the OAuth device flow); the answer's JSON,
/// whatever the status.
fn post_form(relay: &ThreadedRelay, path: &str, fields: &[(&str, &str)]) -> Value {
    let api = relay.api();
    relay
        .block_on(async {
            Reply::read(api.request(Method::POST, path).form(fields).send().await).await
        })
        .json()
}

#[test]
fn agent_keys_connectors_and_notifications_from_the_command_line() {
    let s = setup();
    let home = s.home.path();
    let relay = &s.relay;
    let api = relay.api();
    let key = ok_stdout(herald(home).args(["agent-key", "create", "--name", "build-bot"]));
    let key = key.trim().to_owned();
    assert!(key.starts_with("hrk_"), "the key alone on stdout: {key:?}");
    let list = ok_stdout(herald(home).args(["agent-key", "list"]));
    assert!(list.contains("build-bot"), "listed: {list}");
    assert!(!list.contains("hrk_"), "never shown again: {list}");

    relay
        .block_on(api.bearer(&key).post(
            "/v1/notify",
            &json!({"title": "Deploy done", "expectReply": true}),
        ))
        .expect_status(201, "the key works");
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
        relay,
        "/oauth/device_authorization",
        &[("client_id", "cli-test")],
    );
    let code = flow["user_code"].as_str().expect("user code");
    ok_stdout(herald(home).args(["connector", "approve", code, "--name", "Claude"]));
    let token = post_form(
        relay,
        "/oauth/token",
        &[
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", flow["device_code"].as_str().unwrap()),
            ("client_id", "cli-test"),
        ],
    );
    let access = token["access_token"].as_str().expect("a token").to_owned();
    relay
        .block_on(api.bearer(&access).get("/v1/status"))
        .expect_status(200, "the approved connector's token works");
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
    relay
        .block_on(api.bearer(&access).get("/v1/status"))
        .expect_status(401, "revoked connector");
    let bad = run(herald(home).args(["connector", "approve", "BBBB-BBBB"]));
    assert!(!bad.status.success(), "an unknown code fails");

    let key_id = list.split_whitespace().next().expect("an id").to_owned();
    ok_stdout(herald(home).args(["agent-key", "revoke", &key_id]));
    relay
        .block_on(api.bearer(&key).get("/v1/status"))
        .expect_status(401, "revoked key");
}

/// A headless device answers a notification (text from --text or stdin), every listed line
/// says it is not end-to-end encrypted, and quiet hours are shown and changed.
#[test]
fn notifications_are_answered_and_quiet_hours_set_from_the_command_line() {
    let s = setup();
    let home = s.home.path();
    let relay = &s.relay;
    let api = relay.api();
    let key = ok_stdout(herald(home).args(["agent-key", "create", "--name", "bot"]));
    let key = key.trim().to_owned();
    for (id, title) in [("ask-a", "Deploy?"), ("ask-b", "Merge?")] {
        relay
            .block_on(api.bearer(&key).post(
                "/v1/notify",
                &json!({"title": title, "notificationId": id, "expectReply": true}),
            ))
            .expect_status(201, "the agent key sends a notification");
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
        let r: Value = relay
            .block_on(api.bearer(&key).get(&format!("/v1/replies/{id}")))
            .json();
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
