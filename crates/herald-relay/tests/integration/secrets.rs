//! Secret delivery on a real relay (docs/secrets.md): secret answers handed to the asking
//! connection once, expired after 15 minutes by the relay's clock, never in a record; secret
//! offers whose one-time key and secret are handed over once. Envelopes are placeholders (the
//! relay never decrypts); the cryptography is tested end to end in herald-client.

use crate::common;

use chrono::Duration;
use common::*;
use herald_protocol::envelope::{
    b64_encode, CertificateBody, Envelope, EnvelopeHeader, EnvelopeKind, Principal,
};
use herald_protocol::secrets::{SecretEnvelope, SecretOfferState, SecretOfferStatus};
use herald_protocol::wire::{AnswerRequest, MessageRecord, SendMessageRequest};
use herald_protocol::{ErrorCode, MessageId, Revision};
use herald_testkit::fixtures::{self, TestAccount, TestConnection};
use herald_testkit::TestRelay;
use reqwest::Method;

struct World {
    relay: TestRelay,
    a: TestAccount,
    conn: TestConnection,
    other: TestConnection,
}

async fn world(manual_clock: bool) -> World {
    let relay = if manual_clock {
        TestRelay::start_with_manual_clock().await
    } else {
        TestRelay::start().await
    };
    let a = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &a, "Agent").await;
    let other = fixtures::create_connection(&relay.url, &a, "Other agent").await;
    World {
        relay,
        a,
        conn,
        other,
    }
}

/// A placeholder envelope of `kind` whose only recipient is `key_id` and whose ciphertext is
/// `marker` (so the test can look for those bytes in every response).
fn sealed_to(
    kind: EnvelopeKind,
    account: &TestAccount,
    id: &MessageId,
    sender: Principal,
    key_id: &str,
    marker: &[u8],
) -> Envelope {
    let mut env = fixtures::placeholder_envelope(kind, &account.account_id, id, sender, marker);
    let mut header: EnvelopeHeader = env.header_unverified().expect("placeholder header");
    header.recipients = vec![key_id.to_owned()];
    env.header = b64_encode(&serde_json::to_vec(&header).expect("header"));
    env.recipients[0].key_id = key_id.to_owned();
    env
}

impl World {
    async fn request(&self) -> MessageId {
        let req = fixtures::message_request(&self.a.account_id, self.conn.principal(), true);
        send(&self.relay.url, &self.conn.bearer, &req).await.id
    }

    async fn answer_with_secret(&self, id: &MessageId, marker: &[u8]) -> reqwest::Response {
        let mut body = fixtures::answer_request(&self.a, id);
        body.secret_envelope = Some(sealed_to(
            EnvelopeKind::SecretAnswer,
            &self.a,
            id,
            self.a.device(),
            "k_connection",
            marker,
        ));
        self.post(
            &self.a.device_token,
            &format!("/messages/{id}/answer"),
            &body,
        )
        .await
    }

    async fn post(
        &self,
        bearer: &str,
        path: &str,
        body: &impl serde::Serialize,
    ) -> reqwest::Response {
        call(
            &self.relay.url,
            Method::POST,
            path,
            Some(bearer),
            Some(serde_json::to_value(body).expect("JSON body")),
        )
        .await
    }

    async fn collect(&self, bearer: &str, id: &MessageId) -> reqwest::Response {
        call(
            &self.relay.url,
            Method::POST,
            &format!("/messages/{id}/secret/collect"),
            Some(bearer),
            None,
        )
        .await
    }

    async fn offer(&self) -> MessageId {
        let mut req: SendMessageRequest =
            fixtures::message_request(&self.a.account_id, self.conn.principal(), false);
        req.kind = "secret".into();
        send(&self.relay.url, &self.conn.bearer, &req).await.id
    }

    fn offer_key(&self, id: &MessageId, key_id: &str) -> serde_json::Value {
        let Principal::Device(device_id) = self.a.device() else {
            panic!("the account's first principal is a device")
        };
        let cert = fixtures::placeholder_certificate(&CertificateBody::OfferKey {
            account_id: self.a.account_id.clone(),
            message_id: id.clone(),
            device_id,
            key_id: key_id.to_owned(),
            public_key: b64_encode(&[9u8; 32]),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            expires_at: "2026-01-01T00:15:00.000Z".into(),
        });
        serde_json::json!({ "certificate": cert })
    }

    async fn state(&self, bearer: &str, id: &MessageId) -> SecretOfferState {
        let resp = call(
            &self.relay.url,
            Method::GET,
            &format!("/messages/{id}/offer-key"),
            Some(bearer),
            None,
        )
        .await;
        assert_eq!(resp.status().as_u16(), 200, "the offer state is readable");
        resp.json().await.expect("SecretOfferState")
    }
}

const OFFER_KEY_ID: &str = "k_offerkeyoffer_key_id_x";

#[tokio::test]
async fn secret_answer_goes_to_the_asking_connection_once() {
    let w = world(false).await;
    let url = &w.relay.url;
    let id = w.request().await;
    let marker = b"SECRET-ANSWER-MARKER-0123456789";
    let resp = w.answer_with_secret(&id, marker).await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "the answer with its secret is accepted"
    );
    let record: MessageRecord = resp.json().await.expect("record");
    let needle = b64_encode(marker);
    assert!(
        !serde_json::to_string(&record).unwrap().contains(&needle),
        "the answer's record does not carry the secret envelope"
    );
    for bearer in [&w.a.device_token, &w.conn.bearer] {
        let (records, _) = drain_feed(url, bearer, Revision(0), 100).await;
        assert!(
            !serde_json::to_string(&records).unwrap().contains(&needle),
            "no feed carries the secret envelope"
        );
    }

    expect_error(
        w.collect(&w.a.device_token, &id).await,
        ErrorCode::Forbidden,
        "a device never gets the secret answer",
    )
    .await;
    expect_error(
        w.collect(&w.other.bearer, &id).await,
        ErrorCode::NotFound,
        "another connection cannot see the request",
    )
    .await;

    let resp = w.collect(&w.conn.bearer, &id).await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "the asking connection collects it"
    );
    let got: SecretEnvelope = resp.json().await.expect("SecretEnvelope");
    assert_eq!(
        got.envelope.ciphertext, needle,
        "the stored secret envelope, as given"
    );
    expect_error(
        w.collect(&w.conn.bearer, &id).await,
        ErrorCode::SecretCollected,
        "a secret answer is handed over once",
    )
    .await;
    w.relay.shutdown().await;
}

#[tokio::test]
async fn secret_answers_are_checked_and_answered_once() {
    let w = world(false).await;
    let id = w.request().await;
    let mut body: AnswerRequest = fixtures::answer_request(&w.a, &id);
    let mut two = sealed_to(
        EnvelopeKind::SecretAnswer,
        &w.a,
        &id,
        w.a.device(),
        "k_connection",
        b"x",
    );
    let mut header: EnvelopeHeader = two.header_unverified().unwrap();
    header.recipients.push("k_aek".into());
    two.header = b64_encode(&serde_json::to_vec(&header).unwrap());
    let mut extra = two.recipients[0].clone();
    extra.key_id = "k_aek".into();
    two.recipients.push(extra);
    body.secret_envelope = Some(two);
    let err = expect_error(
        w.post(&w.a.device_token, &format!("/messages/{id}/answer"), &body)
            .await,
        ErrorCode::InvalidRequest,
        "a secret envelope with two recipients could be read by the account",
    )
    .await;
    assert_eq!(
        err.fields,
        vec!["secretEnvelope.recipients"],
        "names the field"
    );

    body.secret_envelope = Some(fixtures::placeholder_envelope(
        EnvelopeKind::Answer,
        &w.a.account_id,
        &id,
        w.a.device(),
        b"x",
    ));
    let err = expect_error(
        w.post(&w.a.device_token, &format!("/messages/{id}/answer"), &body)
            .await,
        ErrorCode::InvalidRequest,
        "the secret envelope must be of kind secretAnswer",
    )
    .await;
    assert_eq!(
        err.fields,
        vec!["secretEnvelope.header.kind"],
        "names the field"
    );

    let resp = w.answer_with_secret(&id, b"first").await;
    assert_eq!(resp.status().as_u16(), 200, "the first answer is accepted");
    expect_error(
        w.answer_with_secret(&id, b"second").await,
        ErrorCode::AlreadyAnswered,
        "answers with secrets are accepted once too",
    )
    .await;

    // A request a device sent has no connection to collect a secret.
    let from_device = send_from_device(&w.relay.url, &w.a, true).await;
    let mut body = fixtures::answer_request(&w.a, &from_device.id);
    body.secret_envelope = Some(sealed_to(
        EnvelopeKind::SecretAnswer,
        &w.a,
        &from_device.id,
        w.a.device(),
        "k_device",
        b"x",
    ));
    expect_error(
        w.post(
            &w.a.device_token,
            &format!("/messages/{}/answer", from_device.id),
            &body,
        )
        .await,
        ErrorCode::InvalidRequest,
        "nobody could collect this secret",
    )
    .await;
    let record: MessageRecord = call(
        &w.relay.url,
        Method::GET,
        &format!("/messages/{}", from_device.id),
        Some(&w.a.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(
        record.status,
        herald_protocol::wire::MessageStatus::Pending,
        "a refused secret answer leaves the request pending"
    );
    w.relay.shutdown().await;
}

#[tokio::test]
async fn uncollected_secret_answers_expire_after_15_minutes() {
    let mut w = world(true).await;
    // Only this test's explicit sweep calls may delete (their counts are asserted).
    w.relay.stop_sweeper().await;
    let (early, late) = (w.request().await, w.request().await);
    assert_eq!(w.answer_with_secret(&early, b"early").await.status(), 200);
    w.relay.clock().advance(Duration::minutes(14));
    assert_eq!(w.answer_with_secret(&late, b"late").await.status(), 200);
    w.relay.clock().advance(Duration::minutes(1));
    // Past 15 minutes the answer's secret is refused even before the sweeper runs.
    expect_error(
        w.collect(&w.conn.bearer, &early).await,
        ErrorCode::SecretExpired,
        "15 minutes after the answer the secret is gone",
    )
    .await;
    let swept = w.relay.state.sweep_secrets().await.expect("sweep");
    assert_eq!(
        swept, 0,
        "the expired one was already deleted; the late one is live"
    );
    w.relay.clock().advance(Duration::minutes(14));
    let swept = w.relay.state.sweep_secrets().await.expect("sweep");
    assert_eq!(swept, 1, "the sweeper deletes the late one at its deadline");
    expect_error(
        w.collect(&w.conn.bearer, &late).await,
        ErrorCode::SecretExpired,
        "a swept secret is expired",
    )
    .await;
    w.relay.shutdown().await;
}

#[tokio::test]
async fn secret_offer_is_opened_sent_and_handed_over_once() {
    let w = world(false).await;
    let url = &w.relay.url;
    let id = w.offer().await;
    let mut socket = connect_ws(&w.relay.ws_url(), &w.conn.bearer).await;
    let first = next_sync(&mut socket).await;

    assert_eq!(
        w.state(&w.conn.bearer, &id).await.status,
        SecretOfferStatus::Waiting,
        "nobody opened it yet"
    );
    let payload = sealed_to(
        EnvelopeKind::SecretPayload,
        &w.a,
        &id,
        w.conn.principal(),
        OFFER_KEY_ID,
        b"OFFERED-SECRET",
    );
    expect_error(
        w.post(
            &w.conn.bearer,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": payload}),
        )
        .await,
        ErrorCode::OfferNotOpened,
        "no key to seal to yet",
    )
    .await;
    expect_error(
        w.post(
            &w.a.device_token,
            &format!("/messages/{id}/secret-payload/collect"),
            &(),
        )
        .await,
        ErrorCode::OfferNotOpened,
        "nothing to collect yet",
    )
    .await;

    let put = call(
        url,
        Method::PUT,
        &format!("/messages/{id}/offer-key"),
        Some(&w.a.device_token),
        Some(w.offer_key(&id, OFFER_KEY_ID)),
    )
    .await;
    assert_eq!(
        put.status().as_u16(),
        200,
        "the device posts its one-time key"
    );
    assert!(
        next_sync(&mut socket).await > first,
        "opening nudges the sender's socket"
    );
    let again = call(
        url,
        Method::PUT,
        &format!("/messages/{id}/offer-key"),
        Some(&w.a.device_token),
        Some(w.offer_key(&id, OFFER_KEY_ID)),
    )
    .await;
    expect_error(again, ErrorCode::OfferKeyExists, "one key per offer").await;
    let state = w.state(&w.conn.bearer, &id).await;
    assert_eq!(state.status, SecretOfferStatus::Opened, "opened");
    assert!(
        state.offer_key.is_some(),
        "the sender gets the certificate to verify"
    );

    expect_error(
        w.post(
            &w.a.device_token,
            &format!("/messages/{id}/secret-payload/collect"),
            &(),
        )
        .await,
        ErrorCode::SecretNotSent,
        "the device waits for the sender",
    )
    .await;
    let wrong = sealed_to(
        EnvelopeKind::SecretPayload,
        &w.a,
        &id,
        w.conn.principal(),
        "k_somebody_else_s_key_x",
        b"x",
    );
    let err = expect_error(
        w.post(
            &w.conn.bearer,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": wrong}),
        )
        .await,
        ErrorCode::InvalidRequest,
        "the secret must be sealed to the offer key",
    )
    .await;
    assert_eq!(err.fields, vec!["envelope.recipients"], "names the field");
    let from_other = sealed_to(
        EnvelopeKind::SecretPayload,
        &w.a,
        &id,
        w.other.principal(),
        OFFER_KEY_ID,
        b"x",
    );
    expect_error(
        w.post(
            &w.other.bearer,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": from_other}),
        )
        .await,
        ErrorCode::NotFound,
        "only the sender may post the secret",
    )
    .await;
    expect_error(
        w.post(
            &w.a.device_token,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": payload}),
        )
        .await,
        ErrorCode::Forbidden,
        "a device does not post offer secrets",
    )
    .await;
    let resp = w
        .post(
            &w.conn.bearer,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": payload}),
        )
        .await;
    assert_eq!(resp.status().as_u16(), 200, "the sender posts the secret");
    expect_error(
        w.post(
            &w.conn.bearer,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": payload}),
        )
        .await,
        ErrorCode::SecretPayloadExists,
        "the secret is posted once",
    )
    .await;
    let needle = b64_encode(b"OFFERED-SECRET");
    let (records, _) = drain_feed(url, &w.a.device_token, Revision(0), 100).await;
    assert!(
        !serde_json::to_string(&records).unwrap().contains(&needle),
        "the feed never carries the offer's secret"
    );

    let resp = w
        .post(
            &w.a.device_token,
            &format!("/messages/{id}/secret-payload/collect"),
            &(),
        )
        .await;
    assert_eq!(resp.status().as_u16(), 200, "the device collects it");
    let got: SecretEnvelope = resp.json().await.unwrap();
    assert_eq!(
        got.envelope.ciphertext, needle,
        "the posted envelope, as given"
    );
    expect_error(
        w.post(
            &w.a.device_token,
            &format!("/messages/{id}/secret-payload/collect"),
            &(),
        )
        .await,
        ErrorCode::SecretCollected,
        "handed over once",
    )
    .await;
    let state = w.state(&w.conn.bearer, &id).await;
    assert_eq!(
        state.status,
        SecretOfferStatus::Delivered,
        "the sender sees delivery"
    );
    assert!(state.closed_at.is_some(), "with its time");
    socket.close(None).await.ok();
    w.relay.shutdown().await;
}

#[tokio::test]
async fn offers_are_only_secret_messages_and_expire() {
    let mut w = world(true).await;
    // Only this test's explicit sweep calls may delete (their counts are asserted).
    w.relay.stop_sweeper().await;
    let url = &w.relay.url;
    let mut req = fixtures::message_request(&w.a.account_id, w.conn.principal(), true);
    req.kind = "secret".into();
    let resp =
        fixtures::post_message(url, &w.conn.bearer, &fixtures::new_idempotency_key(), &req).await;
    expect_error(
        resp,
        ErrorCode::InvalidRequest,
        "a secret offer asks nothing",
    )
    .await;

    let plain = w.request().await;
    let resp = call(
        url,
        Method::PUT,
        &format!("/messages/{plain}/offer-key"),
        Some(&w.a.device_token),
        Some(w.offer_key(&plain, OFFER_KEY_ID)),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::NotASecretOffer,
        "a request is not an offer",
    )
    .await;

    let id = w.offer().await;
    let resp = call(
        url,
        Method::PUT,
        &format!("/messages/{id}/offer-key"),
        Some(&w.a.device_token),
        Some(w.offer_key(&plain, OFFER_KEY_ID)),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::InvalidRequest,
        "the key must name this message",
    )
    .await;
    let put = call(
        url,
        Method::PUT,
        &format!("/messages/{id}/offer-key"),
        Some(&w.a.device_token),
        Some(w.offer_key(&id, OFFER_KEY_ID)),
    )
    .await;
    assert_eq!(put.status().as_u16(), 200, "opened");
    w.relay.clock().advance(Duration::minutes(15));
    assert_eq!(
        w.state(&w.conn.bearer, &id).await.status,
        SecretOfferStatus::Expired,
        "an unused one-time key expires after 15 minutes"
    );
    let payload = sealed_to(
        EnvelopeKind::SecretPayload,
        &w.a,
        &id,
        w.conn.principal(),
        OFFER_KEY_ID,
        b"late",
    );
    expect_error(
        w.post(
            &w.conn.bearer,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": payload}),
        )
        .await,
        ErrorCode::SecretExpired,
        "too late to seal to it",
    )
    .await;
    assert_eq!(
        w.relay.state.sweep_secrets().await.expect("sweep"),
        1,
        "the sweeper closes the expired offer"
    );
    w.relay.shutdown().await;
}
