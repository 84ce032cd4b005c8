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
