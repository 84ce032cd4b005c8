//! Names and titles a person reads may not hide text (herald_protocol::text): bidirectional
//! overrides and zero-width characters are `invalid_request` naming the field, against a real
//! relay; and an OAuth form over the body limit is `413 payload_too_large`, not a form error.

use crate::agent_common;
use crate::common;

use agent_common::*;
use common::*;
use herald_protocol::ErrorCode;
use herald_testkit::fixtures;
use herald_testkit::TestRelay;
use reqwest::Method;
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
    for name in HIDDEN {
        let resp = call(
            url,
            Method::POST,
            "/agent-keys",
            Some(&account.device_token),
            Some(json!({ "name": name })),
        )
        .await;
        let body = expect_error(resp, ErrorCode::InvalidRequest, "an agent key name").await;
        assert_eq!(body.fields, vec!["name".to_owned()], "{name:?}");

        let (req, _) = fixtures::connection_request(&account.account_id, name);
        let resp = call(
            url,
            Method::POST,
            "/connections",
            Some(&account.device_token),
            Some(serde_json::to_value(&req).unwrap()),
        )
        .await;
        let body = expect_error(resp, ErrorCode::InvalidRequest, "a connection name").await;
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
        let resp = notify(url, &key.key, json!({ "title": title })).await;
        let body = expect_error(resp, ErrorCode::InvalidRequest, "a hidden title").await;
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
    let resp = notify(
        url,
        &key.key,
        json!({"title": "Deploy\nReject", "subtitle": 7, "priority": "urgent",
               "sound": "loud", "group": "a\u{200B}b", "body": "fine\nlines"}),
    )
    .await;
    let body = expect_error(resp, ErrorCode::InvalidRequest, "five bad fields").await;
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
    let resp = form(
        &relay.url,
        "/oauth/device_authorization",
        &[("client_id", CLIENT_ID), ("client_name", &big)],
    )
    .await;
    expect_error(resp, ErrorCode::PayloadTooLarge, "a 1 MiB form").await;
    let resp = form(
        &relay.url,
        "/oauth/token",
        &[("grant_type", "x"), ("device_code", &big)],
    )
    .await;
    expect_error(resp, ErrorCode::PayloadTooLarge, "a 1 MiB token form").await;
    relay.shutdown().await;
}
