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
use herald_testkit::{Reply, TestRelay};

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

    /// The device answers `id` with a secret envelope carrying `marker`; the reply unchecked.
    async fn answer_with_secret(&self, id: &MessageId, marker: &[u8]) -> Reply {
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

    /// `POST path` with a JSON body as `bearer`; the reply unchecked.
    async fn post(&self, bearer: &str, path: &str, body: &impl serde::Serialize) -> Reply {
        self.relay.api().bearer(bearer).post(path, body).await
    }

    /// `POST /messages/{id}/secret/collect` (no body) as `bearer`; the reply unchecked.
    async fn collect(&self, bearer: &str, id: &MessageId) -> Reply {
        self.relay
            .api()
            .bearer(bearer)
            .post_empty(&format!("/messages/{id}/secret/collect"))
            .await
    }

    /// The device puts the offer key `key` on message `id`; the reply unchecked.
    async fn put_offer_key(&self, id: &MessageId, key: &serde_json::Value) -> Reply {
        self.relay
            .api()
            .device(&self.a)
            .put(&format!("/messages/{id}/offer-key"), key)
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
        self.relay
            .api()
            .bearer(bearer)
            .get(&format!("/messages/{id}/offer-key"))
            .await
            .ok(200, "the offer state is readable")
    }
}

const OFFER_KEY_ID: &str = "k_offerkeyoffer_key_id_x";

#[tokio::test]
async fn secret_answer_goes_to_the_asking_connection_once() {
    let w = world(false).await;
    let url = &w.relay.url;
    let id = w.request().await;
    let marker = b"SECRET-ANSWER-MARKER-0123456789";
    let record: MessageRecord = w
        .answer_with_secret(&id, marker)
        .await
        .ok(200, "the answer with its secret is accepted");
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

    w.collect(&w.a.device_token, &id).await.error(
        ErrorCode::Forbidden,
        "a device never gets the secret answer",
    );
    w.collect(&w.other.bearer, &id).await.error(
        ErrorCode::NotFound,
        "another connection cannot see the request",
    );

    let got: SecretEnvelope = w
        .collect(&w.conn.bearer, &id)
        .await
        .ok(200, "the asking connection collects it");
    assert_eq!(
        got.envelope.ciphertext, needle,
        "the stored secret envelope, as given"
    );
    w.collect(&w.conn.bearer, &id).await.error(
        ErrorCode::SecretCollected,
        "a secret answer is handed over once",
    );
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
    let err = w
        .post(&w.a.device_token, &format!("/messages/{id}/answer"), &body)
        .await
        .error(
            ErrorCode::InvalidRequest,
            "a secret envelope with two recipients could be read by the account",
        );
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
    let err = w
        .post(&w.a.device_token, &format!("/messages/{id}/answer"), &body)
        .await
        .error(
            ErrorCode::InvalidRequest,
            "the secret envelope must be of kind secretAnswer",
        );
    assert_eq!(
        err.fields,
        vec!["secretEnvelope.header.kind"],
        "names the field"
    );

    w.answer_with_secret(&id, b"first")
        .await
        .expect_status(200, "the first answer is accepted");
    w.answer_with_secret(&id, b"second").await.error(
        ErrorCode::AlreadyAnswered,
        "answers with secrets are accepted once too",
    );

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
    w.post(
        &w.a.device_token,
        &format!("/messages/{}/answer", from_device.id),
        &body,
    )
    .await
    .error(
        ErrorCode::InvalidRequest,
        "nobody could collect this secret",
    );
    let record: MessageRecord = w
        .relay
        .api()
        .device(&w.a)
        .get(&format!("/messages/{}", from_device.id))
        .await
        .ok(200, "the device reads its request");
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
    w.answer_with_secret(&early, b"early")
        .await
        .expect_status(200, "the early answer is accepted");
    w.relay.clock().advance(Duration::minutes(14));
    w.answer_with_secret(&late, b"late")
        .await
        .expect_status(200, "the late answer is accepted");
    w.relay.clock().advance(Duration::minutes(1));
    // Past 15 minutes the answer's secret is refused even before the sweeper runs.
    w.collect(&w.conn.bearer, &early).await.error(
        ErrorCode::SecretExpired,
        "15 minutes after the answer the secret is gone",
    );
    let swept = w.relay.state.sweep_secrets().await.expect("sweep");
    assert_eq!(
        swept, 0,
        "the expired one was already deleted; the late one is live"
    );
    w.relay.clock().advance(Duration::minutes(14));
    let swept = w.relay.state.sweep_secrets().await.expect("sweep");
    assert_eq!(swept, 1, "the sweeper deletes the late one at its deadline");
    w.collect(&w.conn.bearer, &late)
        .await
        .error(ErrorCode::SecretExpired, "a swept secret is expired");
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
    w.post(
        &w.conn.bearer,
        &format!("/messages/{id}/secret-payload"),
        &serde_json::json!({"envelope": payload}),
    )
    .await
    .error(ErrorCode::OfferNotOpened, "no key to seal to yet");
    w.post(
        &w.a.device_token,
        &format!("/messages/{id}/secret-payload/collect"),
        &(),
    )
    .await
    .error(ErrorCode::OfferNotOpened, "nothing to collect yet");

    w.put_offer_key(&id, &w.offer_key(&id, OFFER_KEY_ID))
        .await
        .expect_status(200, "the device posts its one-time key");
    assert!(
        next_sync(&mut socket).await > first,
        "opening nudges the sender's socket"
    );
    w.put_offer_key(&id, &w.offer_key(&id, OFFER_KEY_ID))
        .await
        .error(ErrorCode::OfferKeyExists, "one key per offer");
    let state = w.state(&w.conn.bearer, &id).await;
    assert_eq!(state.status, SecretOfferStatus::Opened, "opened");
    assert!(
        state.offer_key.is_some(),
        "the sender gets the certificate to verify"
    );

    w.post(
        &w.a.device_token,
        &format!("/messages/{id}/secret-payload/collect"),
        &(),
    )
    .await
    .error(ErrorCode::SecretNotSent, "the device waits for the sender");
    let wrong = sealed_to(
        EnvelopeKind::SecretPayload,
        &w.a,
        &id,
        w.conn.principal(),
        "k_somebody_else_s_key_x",
        b"x",
    );
    let err = w
        .post(
            &w.conn.bearer,
            &format!("/messages/{id}/secret-payload"),
            &serde_json::json!({"envelope": wrong}),
        )
        .await
        .error(
            ErrorCode::InvalidRequest,
            "the secret must be sealed to the offer key",
        );
    assert_eq!(err.fields, vec!["envelope.recipients"], "names the field");
    let from_other = sealed_to(
        EnvelopeKind::SecretPayload,
        &w.a,
        &id,
        w.other.principal(),
        OFFER_KEY_ID,
        b"x",
    );
    w.post(
        &w.other.bearer,
        &format!("/messages/{id}/secret-payload"),
        &serde_json::json!({"envelope": from_other}),
    )
    .await
    .error(ErrorCode::NotFound, "only the sender may post the secret");
    w.post(
        &w.a.device_token,
        &format!("/messages/{id}/secret-payload"),
        &serde_json::json!({"envelope": payload}),
    )
    .await
    .error(ErrorCode::Forbidden, "a device does not post offer secrets");
    w.post(
        &w.conn.bearer,
        &format!("/messages/{id}/secret-payload"),
        &serde_json::json!({"envelope": payload}),
    )
    .await
    .expect_status(200, "the sender posts the secret");
    w.post(
        &w.conn.bearer,
        &format!("/messages/{id}/secret-payload"),
        &serde_json::json!({"envelope": payload}),
    )
    .await
    .error(ErrorCode::SecretPayloadExists, "the secret is posted once");
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
    let got: SecretEnvelope = resp.ok(200, "the device collects it");
    assert_eq!(
        got.envelope.ciphertext, needle,
        "the posted envelope, as given"
    );
    w.post(
        &w.a.device_token,
        &format!("/messages/{id}/secret-payload/collect"),
        &(),
    )
    .await
    .error(ErrorCode::SecretCollected, "handed over once");
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
    let mut req = fixtures::message_request(&w.a.account_id, w.conn.principal(), true);
    req.kind = "secret".into();
    w.relay
        .api()
        .connection(&w.conn)
        .post_message(&fixtures::new_idempotency_key(), &req)
        .await
        .error(ErrorCode::InvalidRequest, "a secret offer asks nothing");

    let plain = w.request().await;
    w.put_offer_key(&plain, &w.offer_key(&plain, OFFER_KEY_ID))
        .await
        .error(ErrorCode::NotASecretOffer, "a request is not an offer");

    let id = w.offer().await;
    w.put_offer_key(&id, &w.offer_key(&plain, OFFER_KEY_ID))
        .await
        .error(ErrorCode::InvalidRequest, "the key must name this message");
    w.put_offer_key(&id, &w.offer_key(&id, OFFER_KEY_ID))
        .await
        .expect_status(200, "opened");
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
    w.post(
        &w.conn.bearer,
        &format!("/messages/{id}/secret-payload"),
        &serde_json::json!({"envelope": payload}),
    )
    .await
    .error(ErrorCode::SecretExpired, "too late to seal to it");
    assert_eq!(
        w.relay.state.sweep_secrets().await.expect("sweep"),
        1,
        "the sweeper closes the expired offer"
    );
    w.relay.shutdown().await;
}
