//! Rows of the secret routes (docs/secrets.md). A's connection sends the requests and the
//! offers; A's first device answers and opens them.

use herald_crypto::OneTimeKey;
use herald_protocol::envelope::{Envelope, EnvelopeKind, Principal};
use herald_protocol::{AccountId, FileId, MessageId};
use herald_testkit::fixtures;
use reqwest::Method;
use serde_json::json;

use super::cells::{ok, Cred, Expect, F, N};
use super::rows::{scenario, Row};
use super::world::{Reply, World, CREATED_AT};

pub fn rows() -> Vec<Row> {
    vec![
        Row::new(
            "POST",
            "/messages/{id}/secret/collect",
            "the secret answer to A's connection's request",
            Expect::inbox(F, ok(200), N, N).with(Cred::OtherDevice, F),
            scenario!(collect_answer),
        ),
        Row::new(
            "PUT",
            "/messages/{id}/offer-key",
            "a one-time key for A's connection's secret offer",
            Expect::device(ok(200), N),
            scenario!(put_offer_key),
        ),
        Row::new(
            "GET",
            "/messages/{id}/offer-key",
            "the state of A's connection's opened offer",
            Expect::inbox(ok(200), ok(200), N, N),
            scenario!(get_offer_key),
        ),
        Row::new(
            "POST",
            "/messages/{id}/secret-payload",
            "the secret of A's connection's opened offer",
            Expect::inbox(F, ok(200), N, N).with(Cred::OtherDevice, F),
            scenario!(post_payload),
        ),
        Row::new(
            "POST",
            "/messages/{id}/secret-payload/collect",
            "the secret A's device's offer key opens",
            Expect::device(ok(200), N),
            scenario!(collect_payload),
        ),
        Row::new(
            "GET",
            "/files/{id}",
            "a secret attachment of A's device's answer (the asking connection only)",
            Expect::inbox(N, ok(200), N, N),
            scenario!(download_secret_file),
        ),
    ]
}

/// A placeholder envelope of `account` from `sender`, sealed to `key_id` only.
fn sealed_to(
    kind: EnvelopeKind,
    account: &AccountId,
    id: &MessageId,
    sender: Principal,
    key_id: &str,
) -> Envelope {
    let mut env = fixtures::placeholder_envelope(kind, account, id, sender, b"secret");
    fixtures::readdress(&mut env, key_id);
    env
}

impl World {
    /// A fresh request of A's connection, answered by A's device with a secret envelope
    /// sealed to the connection (and `secret_files` as secret attachments).
    async fn secret_answer(&self, secret_files: Vec<FileId>) -> MessageId {
        let id = self.fresh_request().await;
        let mut body = self.answer(&self.a, &id);
        body["secretEnvelope"] = json!(sealed_to(
            EnvelopeKind::SecretAnswer,
            &self.a.account,
            &id,
            self.a.device(),
            "k_connection_encryption0",
        ));
        body["secretAttachments"] = json!(secret_files);
        let path = format!("/messages/{id}/answer");
        self.send_json(Method::POST, &path, Some(&self.a.device_token), body)
            .await
            .expect(200, "A's device answers with a secret");
        id
    }

    /// A secret offer of A's connection: `(id, one-time key id)`; opened by A's device when
    /// `open`, its secret posted when `send_secret`.
    async fn offer(&self, open: bool, send_secret: bool) -> (MessageId, String) {
        let mut req = self.message(&self.a, self.a.connection.principal(), false);
        req.kind = "secret".into();
        let id = req.id.clone();
        self.post_message(Some(&self.a.connection.bearer), &req)
            .await
            .expect(201, "A's connection offers a secret");
        let key = OneTimeKey::generate().recipient();
        if open {
            let body = self.offer_key(&self.a, &self.a.device_id, &id, &key);
            let path = format!("/messages/{id}/offer-key");
            self.send_json(Method::PUT, &path, Some(&self.a.device_token), body)
                .await
                .expect(200, "A's device opens the offer");
        }
        if send_secret {
            let env = sealed_to(
                EnvelopeKind::SecretPayload,
                &self.a.account,
                &id,
                self.a.connection.principal(),
                &key.key_id,
            );
            let path = format!("/messages/{id}/secret-payload");
            self.send_json(
                Method::POST,
                &path,
                Some(&self.a.connection.bearer),
                json!({ "envelope": env }),
            )
            .await
            .expect(200, "A's connection posts the secret");
        }
        (id, key.key_id)
    }

    /// `{certificate}`: a one-time key certified by `party` for `device` and offer `id`.
    fn offer_key(
        &self,
        party: &super::world::Party,
        device: &herald_protocol::DeviceId,
        id: &MessageId,
        key: &herald_crypto::Recipient,
    ) -> serde_json::Value {
        let cert = party.keys.lock().expect("keys").certify_offer_key(
            id,
            device,
            key,
            CREATED_AT,
            "2026-01-01T00:15:00.000Z",
        );
        json!({ "certificate": cert })
    }

    /// An upload of A's first device.
    async fn device_upload(&self) -> FileId {
        let id = self.reservation(&self.a.device_token).await;
        self.upload(&id, Some(&self.a.device_token))
            .await
            .expect(200, "A's device uploads");
        id
    }
}

async fn collect_answer(w: &World, c: Cred) -> Reply {
    let id = w.secret_answer(Vec::new()).await;
    let path = format!("/messages/{id}/secret/collect");
    w.send(Method::POST, &path, w.bearer(c)).await
}

/// The caller's party certifies a key for the caller's device (A's for a connection).
async fn put_offer_key(w: &World, c: Cred) -> Reply {
    let (id, _) = w.offer(false, false).await;
    let device = match w.principal(c) {
        Principal::Device(d) => d,
        Principal::Connection(_) => w.a.device_id.clone(),
    };
    let body = w.offer_key(
        w.party(c),
        &device,
        &id,
        &OneTimeKey::generate().recipient(),
    );
    let path = format!("/messages/{id}/offer-key");
    w.send_json(Method::PUT, &path, w.bearer(c), body).await
}

async fn get_offer_key(w: &World, c: Cred) -> Reply {
    let id = w
        .shared
        .opened_offer
        .get_or_init(|| async { w.offer(true, false).await.0 })
        .await;
    let path = format!("/messages/{id}/offer-key");
    w.send(Method::GET, &path, w.bearer(c)).await
}

/// The caller seals a secret to the offer's key as sender of its own account.
async fn post_payload(w: &World, c: Cred) -> Reply {
    let (id, key_id) = w.offer(true, false).await;
    let env = sealed_to(
        EnvelopeKind::SecretPayload,
        &w.party(c).account,
        &id,
        w.principal(c),
        &key_id,
    );
    let path = format!("/messages/{id}/secret-payload");
    w.send_json(Method::POST, &path, w.bearer(c), json!({ "envelope": env }))
        .await
}

async fn collect_payload(w: &World, c: Cred) -> Reply {
    let (id, _) = w.offer(true, true).await;
    let path = format!("/messages/{id}/secret-payload/collect");
    w.send(Method::POST, &path, w.bearer(c)).await
}

async fn download_secret_file(w: &World, c: Cred) -> Reply {
    let file = w.device_upload().await;
    w.secret_answer(vec![file.clone()]).await;
    let path = format!("/files/{file}");
    w.send(Method::GET, &path, w.bearer(c)).await
}
