//! JSON request bodies are read by herald-protocol's strict reader (`herald_protocol::json`):
//! a key given twice in one object is refused with 400 `bad_request` naming the key in
//! `fields`, instead of silently keeping the last value; shape errors use Herald's wording,
//! not serde's. Against a real relay on 127.0.0.1:0.

use crate::common;

use common::*;
use herald_protocol::{ErrorCode, Revision};
use herald_testkit::fixtures;
use herald_testkit::{Api, Reply, TestRelay};
use reqwest::Method;

/// `POST path` with `body` as it is (`application/json`, a fresh Idempotency-Key).
async fn post_raw(url: &str, bearer: &str, path: &str, body: String) -> Reply {
    Api::new(url)
        .bearer(bearer)
        .header("Idempotency-Key", &fixtures::new_idempotency_key())
        .send_raw(Method::POST, path, "application/json", body)
        .await
}

#[tokio::test]
async fn duplicate_keys_are_refused_naming_the_key() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let req = fixtures::message_request(&account.account_id, account.device(), false);
    let text = serde_json::to_string(&req).expect("request JSON");
    assert!(text.starts_with('{'), "an object: {text}");

    // Top level: `kind` twice (the second one would have won).
    let twice = format!(r#"{{"kind":"secret",{}"#, &text[1..]);
    let body = post_raw(&relay.url, &account.device_token, "/messages", twice)
        .await
        .error(ErrorCode::BadRequest, "a top-level key twice");
    assert_eq!(body.fields, vec!["kind"], "the key is named: {body:?}");
    assert!(body.message.contains("twice"), "{}", body.message);

    // Nested: inside the envelope.
    let nested = text.replacen(r#""envelope":{"#, r#""envelope":{"x":1,"x":2,"#, 1);
    assert_ne!(nested, text, "the envelope object was found");
    let body = post_raw(&relay.url, &account.device_token, "/messages", nested)
        .await
        .error(ErrorCode::BadRequest, "a nested key twice");
    assert_eq!(
        body.fields,
        vec!["envelope.x"],
        "the path is named: {body:?}"
    );

    // The same request once is accepted: the refusals were about the duplicates only.
    post_raw(&relay.url, &account.device_token, "/messages", text)
        .await
        .expect_status(
            201,
            "the same request once is accepted: the refusals were about the duplicates only",
        );
    let page = feed(&relay.url, &account.device_token, Revision(0), None).await;
    assert_eq!(page.records.len(), 1, "only the valid request was stored");
    relay.shutdown().await;
}

#[tokio::test]
async fn shape_errors_are_worded_by_herald() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    for (body, path) in [
        ("[]".to_owned(), None),
        (r#"{"id": 3}"#.to_owned(), Some("id")),
    ] {
        let err = post_raw(&relay.url, &account.device_token, "/messages", body)
            .await
            .error(ErrorCode::BadRequest, "wrong shape");
        for serde_word in ["invalid type", "struct ", "sequence", "`"] {
            assert!(!err.message.contains(serde_word), "{}", err.message);
        }
        if let Some(path) = path {
            assert_eq!(err.fields, vec![path.to_owned()], "{err:?}");
        }
    }
    relay.shutdown().await;
}
