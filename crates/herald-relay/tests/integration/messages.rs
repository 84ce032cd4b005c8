//! Sending and idempotency through the real HTTP API of a relay on 127.0.0.1:0. Answers,
//! cancellation and expiry are in answers.rs.

use crate::common;

use common::*;
use herald_protocol::envelope::{b64_encode, EnvelopeKind};
use herald_protocol::wire::ThreadPage;
use herald_protocol::wire::{MessageRecord, MessageStatus, MAX_ENVELOPE_BYTES};
use herald_protocol::{ErrorCode, Revision};
use herald_testkit::fixtures::{self, TestAccount};
use herald_testkit::TestRelay;
use reqwest::Method;

async fn setup() -> (TestRelay, TestAccount) {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    (relay, account)
}

#[tokio::test]
async fn idempotent_retry_with_same_body_returns_the_original_record_once() {
    let (relay, account) = setup().await;
    let conn = fixtures::create_connection(&relay.url, &account, "Build agent").await;
    let req = fixtures::message_request(&account.account_id, conn.principal(), true);
    let key = fixtures::new_idempotency_key();

    let agent = relay.api().connection(&conn);
    let first: MessageRecord = agent
        .post_message(&key, &req)
        .await
        .ok(201, "the first send creates the message");

    let retry: MessageRecord = agent
        .post_message(&key, &req)
        .await
        .ok(200, "a retry is answered with 200, not 201");
    assert_eq!(
        retry, first,
        "a retry returns the original record unchanged"
    );

    let page = feed(&relay.url, &account.device_token, Revision(0), None).await;
    assert_eq!(
        page.records.len(),
        1,
        "the retry did not store a second message"
    );
    assert_eq!(page.cursor, first.revision, "the retry took no revision");
    relay.shutdown().await;
}

#[tokio::test]
async fn idempotency_key_with_a_different_body_conflicts() {
    let (relay, account) = setup().await;
    let key = fixtures::new_idempotency_key();
    let a = fixtures::message_request(&account.account_id, account.device(), false);
    let b = fixtures::message_request(&account.account_id, account.device(), false);
    let device = relay.api().device(&account);
    device
        .post_message(&key, &a)
        .await
        .expect_status(201, "first use of the key");
    device
        .post_message(&key, &b)
        .await
        .error(ErrorCode::IdempotencyConflict, "same key, other body");
    let page = feed(&relay.url, &account.device_token, Revision(0), None).await;
    assert_eq!(page.records.len(), 1, "the conflicting body was not stored");
    relay.shutdown().await;
}

#[tokio::test]
async fn a_content_digest_recognises_a_reseal_of_the_same_request() {
    let (relay, account) = setup().await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;
    let key = fixtures::new_idempotency_key();
    let digest = b64_encode(&[7u8; 32]);
    // Two seals of the same request: different ids and envelopes, the same digest.
    let mut first = fixtures::message_request(&account.account_id, conn.principal(), true);
    first.content_digest = Some(digest.clone());
    let mut reseal = fixtures::message_request(&account.account_id, conn.principal(), true);
    reseal.content_digest = Some(digest);
    let agent = relay.api().connection(&conn);
    let a: MessageRecord = agent.post_message(&key, &first).await.ok(201, "first send");
    let b: MessageRecord = agent
        .post_message(&key, &reseal)
        .await
        .ok(200, "a reseal with the same digest is a retry");
    assert_eq!(b.id, a.id, "the original message comes back");

    let mut other = fixtures::message_request(&account.account_id, conn.principal(), true);
    other.content_digest = Some(b64_encode(&[8u8; 32]));
    agent.post_message(&key, &other).await.error(
        ErrorCode::IdempotencyConflict,
        "another digest under the same key",
    );

    let mut bad = fixtures::message_request(&account.account_id, conn.principal(), true);
    bad.content_digest = Some("short".into());
    let body = agent
        .post_message("fresh-key", &bad)
        .await
        .error(ErrorCode::InvalidRequest, "a malformed digest");
    assert_eq!(
        body.fields,
        vec!["contentDigest".to_string()],
        "names the field"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn idempotency_key_is_required_and_bounded() {
    let (relay, account) = setup().await;
    let req = fixtures::message_request(&account.account_id, account.device(), false);
    let device = relay.api().device(&account);
    let body = device
        .post("/messages", &req)
        .await
        .error(ErrorCode::IdempotencyKeyRequired, "no key");
    assert_eq!(
        body.fields,
        vec!["Idempotency-Key"],
        "the error names the header"
    );
    for (key, why) in [
        ("", "empty key"),
        (&"k".repeat(256) as &str, "key over 255"),
        (
            "bad key",
            "a space: visible ASCII only, the rule the SDK and CLI apply",
        ),
    ] {
        device
            .post_message(key, &req)
            .await
            .error(ErrorCode::IdempotencyKeyRequired, why);
    }
    device
        .post_message(&"k".repeat(255), &req)
        .await
        .expect_status(201, "a 255-character key is accepted");
    relay.shutdown().await;
}

#[tokio::test]
async fn idempotency_keys_are_scoped_per_credential() {
    let (relay, account) = setup().await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;
    let key = "shared-key";
    let from_device = fixtures::message_request(&account.account_id, account.device(), false);
    let from_conn = fixtures::message_request(&account.account_id, conn.principal(), false);
    let a = relay
        .api()
        .device(&account)
        .post_message(key, &from_device)
        .await;
    let b = relay
        .api()
        .connection(&conn)
        .post_message(key, &from_conn)
        .await;
    a.expect_status(201, "the device's key");
    b.expect_status(201, "the same key from another credential is its own");
    relay.shutdown().await;
}

#[tokio::test]
async fn send_records_metadata_and_sender_name() {
    let (relay, account) = setup().await;
    let conn = fixtures::create_connection(&relay.url, &account, "Release bot").await;
    let mut req = fixtures::message_request(&account.account_id, conn.principal(), true);
    req.kind = "secret_offer".into();
    req.expires_in = Some(600);
    let record = send(&relay.url, &conn.bearer, &req).await;
    assert_eq!(record.id, req.id, "the sender's id is kept");
    assert_eq!(
        record.status,
        MessageStatus::Pending,
        "a request starts pending"
    );
    assert_eq!(record.kind, "secret_offer", "kind is stored");
    assert_eq!(record.sender.kind, "connection", "sender type");
    assert_eq!(record.sender.id, conn.connection_id.as_str(), "sender id");
    assert_eq!(
        record.sender.name, "Release bot",
        "sender name from the certificate"
    );
    assert!(record.expires_at.is_some(), "expiresIn becomes a deadline");
    assert_eq!(
        record.envelope, req.envelope,
        "the envelope is stored as given"
    );
    assert_eq!(
        record.size,
        req.envelope.encoded_len() as u64,
        "size is the encoded size"
    );
    assert!(record.answer.is_none(), "no answer yet");

    let plain = send_from_device(&relay.url, &account, false).await;
    assert_eq!(
        plain.status,
        MessageStatus::Delivered,
        "a message without a question is delivered"
    );
    assert_eq!(
        plain.sender.name, "Test laptop",
        "device sender name from its certificate"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn send_refuses_bad_shapes_naming_the_field() {
    let (relay, account) = setup().await;
    let other = fixtures::create_account(&relay.url).await;
    let foreign = send_from_device(&relay.url, &other, false).await;
    let base = || fixtures::message_request(&account.account_id, account.device(), true);
    type Edit = Box<dyn Fn(&mut herald_protocol::wire::SendMessageRequest)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "kind with capitals",
            Box::new(|r| r.kind = "Message".into()),
            "kind",
        ),
        (
            "kind too long",
            Box::new(|r| r.kind = "a".repeat(33)),
            "kind",
        ),
        (
            "both deadlines",
            Box::new(|r| {
                r.expires_in = Some(5);
                r.expires_at = Some("2999-01-01T00:00:00Z".into())
            }),
            "expiresAt",
        ),
        (
            "expiresIn zero",
            Box::new(|r| r.expires_in = Some(0)),
            "expiresIn",
        ),
        (
            "expiresIn over a day",
            Box::new(|r| r.expires_in = Some(86_401)),
            "expiresIn",
        ),
        (
            "expiresAt in the past",
            Box::new(|r| r.expires_at = Some("2000-01-01T00:00:00Z".into())),
            "expiresAt",
        ),
        (
            "expiresAt too far",
            Box::new(|r| r.expires_at = Some("2999-01-01T00:00:00Z".into())),
            "expiresAt",
        ),
        (
            "expiresAt not a time",
            Box::new(|r| r.expires_at = Some("tomorrow".into())),
            "expiresAt",
        ),
        (
            "deadline without a question",
            Box::new(|r| {
                r.expects_answer = false;
                r.expires_in = Some(60)
            }),
            "expiresIn",
        ),
        (
            "replyTo unknown",
            Box::new(|r| r.reply_to = Some(fixtures::new_message_id())),
            "replyTo",
        ),
        (
            "replyTo of another account",
            Box::new(move |r| r.reply_to = Some(foreign.id.clone())),
            "replyTo",
        ),
        (
            "envelope version",
            Box::new(|r| r.envelope.v = 2),
            "envelope.v",
        ),
        (
            "envelope suite",
            Box::new(|r| r.envelope.suite = "rot13".into()),
            "envelope.suite",
        ),
        (
            "header not base64",
            Box::new(|r| r.envelope.header = "%%%".into()),
            "envelope.header",
        ),
        (
            "header names another message",
            Box::new(|r| r.id = fixtures::new_message_id()),
            "envelope.header.messageId",
        ),
        (
            "signature shape",
            Box::new(|r| r.envelope.signature = b64_encode(&[0; 10])),
            "envelope.signature",
        ),
        (
            "no recipients",
            Box::new(|r| r.envelope.recipients.clear()),
            "envelope.recipients",
        ),
    ];
    let device = relay.api().device(&account);
    for (why, edit, field) in cases {
        let mut req = base();
        edit(&mut req);
        let body = device
            .post_message(&fixtures::new_idempotency_key(), &req)
            .await
            .error(ErrorCode::InvalidRequest, why);
        assert!(
            body.fields.iter().any(|f| f == field),
            "{why}: fields {:?} name {field}",
            body.fields
        );
    }

    // The header must name this account and the caller.
    let id = fixtures::new_message_id();
    let mut req = base();
    req.id = id.clone();
    req.envelope = fixtures::placeholder_envelope(
        EnvelopeKind::Message,
        &other.account_id,
        &id,
        account.device(),
        b"x",
    );
    let body = device
        .post_message("acct", &req)
        .await
        .error(ErrorCode::InvalidRequest, "header of another account");
    assert_eq!(
        body.fields,
        vec!["envelope.header.accountId"],
        "names the header account"
    );
    req.envelope = fixtures::placeholder_envelope(
        EnvelopeKind::Message,
        &account.account_id,
        &id,
        other.device(),
        b"x",
    );
    let body = device
        .post_message("sender", &req)
        .await
        .error(ErrorCode::InvalidRequest, "header names another sender");
    assert_eq!(
        body.fields,
        vec!["envelope.header.sender"],
        "names the header sender"
    );
    req.envelope = fixtures::placeholder_envelope(
        EnvelopeKind::Answer,
        &account.account_id,
        &id,
        account.device(),
        b"x",
    );
    let body = device.post_message("kind", &req).await.error(
        ErrorCode::InvalidRequest,
        "an answer envelope sent as message",
    );
    assert_eq!(
        body.fields,
        vec!["envelope.header.kind"],
        "names the header kind"
    );

    let page = feed(&relay.url, &account.device_token, Revision(0), None).await;
    assert!(page.records.is_empty(), "nothing refused was stored");
    relay.shutdown().await;
}

#[tokio::test]
async fn malformed_json_is_bad_request() {
    let (relay, account) = setup().await;
    let device = relay.api().device(&account);
    device
        .header("Idempotency-Key", "k")
        .send_raw(Method::POST, "/messages", "application/json", "{not json")
        .await
        .error(ErrorCode::BadRequest, "syntax error");
    let body = device
        .post("/messages/x/answer", &serde_json::json!({"envelope": 3}))
        .await
        .error(ErrorCode::BadRequest, "wrong shape");
    assert_eq!(
        body.fields,
        vec!["envelope"],
        "the wrong-shaped field is named"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn message_id_taken_under_another_key() {
    let (relay, account) = setup().await;
    let req = fixtures::message_request(&account.account_id, account.device(), false);
    send(&relay.url, &account.device_token, &req).await;
    relay
        .api()
        .device(&account)
        .post_message("another-key", &req)
        .await
        .error(ErrorCode::MessageIdTaken, "the id exists");
    relay.shutdown().await;
}

#[tokio::test]
async fn oversized_envelopes_are_413() {
    let (relay, account) = setup().await;
    // Just over the envelope limit but under the body limit: refused by the envelope check.
    let mut req = fixtures::message_request(&account.account_id, account.device(), false);
    req.envelope.ciphertext = "A".repeat(MAX_ENVELOPE_BYTES);
    let device = relay.api().device(&account);
    let body = device
        .post_message("big", &req)
        .await
        .error(ErrorCode::PayloadTooLarge, "envelope over the limit");
    assert_eq!(body.fields, vec!["envelope"], "names the envelope");
    // Far over: refused while reading the body.
    req.envelope.ciphertext = "A".repeat(3 * MAX_ENVELOPE_BYTES);
    device
        .post_message("bigger", &req)
        .await
        .error(ErrorCode::PayloadTooLarge, "body over the limit");
    relay.shutdown().await;
}

#[tokio::test]
async fn replies_join_the_thread() {
    let (relay, account) = setup().await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;
    let root = send(
        &relay.url,
        &conn.bearer,
        &fixtures::message_request(&account.account_id, conn.principal(), false),
    )
    .await;
    let mut reply = fixtures::message_request(&account.account_id, conn.principal(), false);
    reply.reply_to = Some(root.id.clone());
    let reply = send(&relay.url, &conn.bearer, &reply).await;
    assert_eq!(reply.reply_to, Some(root.id.clone()), "replyTo is stored");
    assert_eq!(root.thread_id, root.id, "a root starts its own thread");
    assert_eq!(root.thread_sequence, 0, "the root is first");
    assert_eq!(
        reply.thread_id, root.id,
        "a reply joins its parent's thread"
    );
    assert_eq!(reply.thread_sequence, 1, "then 1");
    // A device replies to the reply: same thread, next sequence.
    let mut device_reply = fixtures::message_request(&account.account_id, account.device(), false);
    device_reply.reply_to = Some(reply.id.clone());
    let device_reply = send(&relay.url, &account.device_token, &device_reply).await;
    assert_eq!(
        device_reply.thread_id, root.id,
        "replies to replies stay in the thread"
    );
    assert_eq!(device_reply.thread_sequence, 2, "then 2");

    let thread = |bearer: String, id: herald_protocol::MessageId| {
        let api = relay.api().bearer(&bearer);
        async move { api.get(&format!("/messages/{id}/thread")).await }
    };
    let page: ThreadPage = thread(account.device_token.clone(), device_reply.id.clone())
        .await
        .ok(200, "the device reads the thread");
    assert_eq!(page.thread_id, root.id, "thread id");
    let ids: Vec<_> = page.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(
        ids,
        [root.id.clone(), reply.id.clone(), device_reply.id.clone()],
        "oldest first, from any member"
    );
    let page: ThreadPage = thread(conn.bearer.clone(), root.id.clone())
        .await
        .ok(200, "the connection reads the thread");
    let ids: Vec<_> = page.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(
        ids,
        [root.id.clone(), reply.id.clone()],
        "a connection sees only its own messages of the thread"
    );
    thread(conn.bearer.clone(), device_reply.id.clone())
        .await
        .error(ErrorCode::NotFound, "thread of an invisible message");
    thread(account.device_token.clone(), fixtures::new_message_id())
        .await
        .error(ErrorCode::NotFound, "unknown message");

    // A connection may not reply to a message it cannot see.
    let hidden = send_from_device(&relay.url, &account, false).await;
    let mut req = fixtures::message_request(&account.account_id, conn.principal(), false);
    req.reply_to = Some(hidden.id);
    relay
        .api()
        .connection(&conn)
        .post_message("k", &req)
        .await
        .error(
            ErrorCode::InvalidRequest,
            "reply to a message the connection cannot see",
        );
    relay.shutdown().await;
}
