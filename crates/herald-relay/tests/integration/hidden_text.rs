//! Names and titles a person reads may not hide text (herald_protocol::text): bidirectional
//! overrides and zero-width characters are `invalid_request` naming the field, against a real
//! relay; and an OAuth form over the body limit is `413 payload_too_large`, not a form error.

use crate::agent_common;

use agent_common::*;
use herald_protocol::ErrorCode;
use herald_testkit::fixtures;
use herald_testkit::TestRelay;
use serde_json::json;

/// Labels that read as something else: a right-to-left override (`exe.png`), an isolate, a
/// zero-width space, a byte-order mark, a lone joiner.
const HIDDEN: [&str; 5] = [
    "\u{202E}gnp.exe",
    "build \u{2067}bot\u{2069}",
    "lap\u{200B}top",
    "\u{FEFF}agent",
    "\u{200D}",
];

#[tokio::test]
async fn credential_names_with_hidden_characters_are_refused() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let account = fixtures::create_account(url).await;
    let device = relay.api().device(&account);
    for name in HIDDEN {
        let body = device
            .post("/agent-keys", &json!({ "name": name }))
            .await
            .error(ErrorCode::InvalidRequest, "an agent key name");
        assert_eq!(body.fields, vec!["name".to_owned()], "{name:?}");

        let (req, _) = fixtures::connection_request(&account.account_id, name);
        let body = device
            .post("/connections", &req)
            .await
            .error(ErrorCode::InvalidRequest, "a connection name");
        assert_eq!(body.fields, vec!["certificate.name".to_owned()], "{name:?}");
    }
    // Joiners inside real text stay allowed: an emoji sequence, Persian with a non-joiner.
    for name in ["👨\u{200D}💻 laptop", "می\u{200C}خواهم"] {
        agent_key(url, &account.device_token, name).await;
        fixtures::create_connection(url, &account, name).await;
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn notification_titles_with_hidden_characters_are_refused() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let account = fixtures::create_account(url).await;
    let key = agent_key(url, &account.device_token, "notifier").await;
    for title in HIDDEN {
        let body = notify(url, &key.key, json!({ "title": title }))
            .await
            .error(ErrorCode::InvalidRequest, "a hidden title");
        assert_eq!(body.fields, vec!["title".to_owned()], "{title:?}");
    }
    notify_ok(
        url,
        &key.key,
        json!({ "title": "Build 👩\u{200D}🔧 finished" }),
    )
    .await;
    relay.shutdown().await;
}

#[tokio::test]
async fn every_bad_notify_field_is_named_at_once() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let account = fixtures::create_account(url).await;
    let key = agent_key(url, &account.device_token, "notifier").await;
    let body = notify(
        url,
        &key.key,
        json!({"title": "Deploy\nReject", "subtitle": 7, "priority": "urgent",
               "sound": "loud", "group": "a\u{200B}b", "body": "fine\nlines"}),
    )
    .await
    .error(ErrorCode::InvalidRequest, "five bad fields");
    assert_eq!(
        body.fields,
        ["title", "subtitle", "priority", "sound", "group"].map(str::to_owned),
        "every bad field, in the documented order"
    );
    for field in ["title", "subtitle", "priority", "sound", "group"] {
        assert!(
            body.message.contains(field),
            "{field} in {:?}",
            body.message
        );
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn an_oauth_form_over_the_limit_is_413() {
    let relay = TestRelay::start().await;
    let big = "x".repeat(1024 * 1024);
    form(
        &relay.url,
        "/oauth/device_authorization",
        &[("client_id", CLIENT_ID), ("client_name", &big)],
    )
    .await
    .error(ErrorCode::PayloadTooLarge, "a 1 MiB form");
    form(
        &relay.url,
        "/oauth/token",
        &[("grant_type", "x"), ("device_code", &big)],
    )
    .await
    .error(ErrorCode::PayloadTooLarge, "a 1 MiB token form");
    relay.shutdown().await;
}
