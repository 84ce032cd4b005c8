//! JSON request bodies are read by herald-protocol's strict reader (`herald_protocol::json`):
//! a key given twice in one object is refused with 400 `bad_request` naming the key in
//! `fields`, instead of silently keeping the last value; shape errors use Herald's wording,
//! not serde's. Against a real relay on 127.0.0.1:0.

use crate::common;

use common::*;
use herald_protocol::{ErrorCode, Revision};
use herald_testkit::fixtures;
use herald_testkit::TestRelay;

async fn post_raw(url: &str, bearer: &str, path: &str, body: String) -> reqwest::Response {
    client()
        .post(format!("{url}{path}"))
        .bearer_auth(bearer)
        .header("Idempotency-Key", fixtures::new_idempotency_key())
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .expect("the relay answers")
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
    let resp = post_raw(&relay.url, &account.device_token, "/messages", twice).await;
    let body = expect_error(resp, ErrorCode::BadRequest, "a top-level key twice").await;
    assert_eq!(body.fields, vec!["kind"], "the key is named: {body:?}");
    assert!(body.message.contains("twice"), "{}", body.message);

    // Nested: inside the envelope.
    let nested = text.replacen(r#""envelope":{"#, r#""envelope":{"x":1,"x":2,"#, 1);
    assert_ne!(nested, text, "the envelope object was found");
    let resp = post_raw(&relay.url, &account.device_token, "/messages", nested).await;
    let body = expect_error(resp, ErrorCode::BadRequest, "a nested key twice").await;
    assert_eq!(
        body.fields,
        vec!["envelope.x"],
        "the path is named: {body:?}"
    );

    // The same request once is accepted: the refusals were about the duplicates only.
    let resp = post_raw(&relay.url, &account.device_token, "/messages", text).await;
    assert_eq!(
        resp.status().as_u16(),
        201,
        "{}",
        resp.text().await.unwrap_or_default()
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
        let resp = post_raw(&relay.url, &account.device_token, "/messages", body).await;
        let err = expect_error(resp, ErrorCode::BadRequest, "wrong shape").await;
        for serde_word in ["invalid type", "struct ", "sequence", "`"] {
            assert!(!err.message.contains(serde_word), "{}", err.message);
        }
        if let Some(path) = path {
            assert_eq!(err.fields, vec![path.to_owned()], "{err:?}");
        }
    }
    relay.shutdown().await;
}
