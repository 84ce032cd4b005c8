//! Rows of the authorization matrix for the secret routes (docs/secrets.md). Included by
//! `authorization.rs`. A's connection sends the requests and offers; A's device answers and
//! opens them. Envelopes and certificates are placeholders (the relay checks shapes only).

use herald_protocol::envelope::{
    b64_encode, CertificateBody, Envelope, EnvelopeHeader, EnvelopeKind, Principal,
};
use herald_protocol::files::FileReservation;
use herald_protocol::{AccountId, ErrorCode, FileId, MessageId};
use herald_testkit::fixtures;
use reqwest::{Method, Response};
use serde_json::json;

use super::common::{call, send};
use super::{Caller, Expect, World, E, S};

#[derive(Debug, Clone, Copy)]
pub enum SecretRoute {
    CollectSecretAnswer,
    PutOfferKey,
    GetOfferKey,
    PostSecretPayload,
    CollectSecretPayload,
    /// `GET /files/:id` of an upload named in an answer's `secretAttachments`.
    DownloadSecretFile,
}

/// In the order they run.
pub const ALL: [SecretRoute; 6] = [
    SecretRoute::CollectSecretAnswer,
    SecretRoute::PutOfferKey,
    SecretRoute::GetOfferKey,
    SecretRoute::PostSecretPayload,
    SecretRoute::CollectSecretPayload,
    SecretRoute::DownloadSecretFile,
];

/// Expected outcome per caller: nobody, device, connection, revoked connection, another
/// account's device.
pub fn expected(route: SecretRoute) -> [Expect; 5] {
    use ErrorCode::{Forbidden as F, NotFound as N, Unauthorized as U};
    match route {
        // Devices never get a secret answer back, whatever the account.
        SecretRoute::CollectSecretAnswer => [E(U), E(F), S(200), E(U), E(F)],
        SecretRoute::PutOfferKey => [E(U), S(200), E(F), E(U), E(N)],
        SecretRoute::GetOfferKey => [E(U), S(200), S(200), E(U), E(N)],
        SecretRoute::PostSecretPayload => [E(U), E(F), S(200), E(U), E(F)],
        SecretRoute::CollectSecretPayload => [E(U), S(200), E(F), E(U), E(N)],
        // The asking connection only: not even the device that uploaded it.
        SecretRoute::DownloadSecretFile => [E(U), E(N), S(200), E(U), E(N)],
    }
}

const OFFER_KEY_ID: &str = "k_authzoffer_key_0000000";

/// A placeholder envelope sealed to `key_id` only.
fn sealed_to(
    kind: EnvelopeKind,
    account: &AccountId,
    id: &MessageId,
    sender: Principal,
    key_id: &str,
) -> Envelope {
    let mut env = fixtures::placeholder_envelope(kind, account, id, sender, b"secret");
    let mut header: EnvelopeHeader = env.header_unverified().expect("placeholder header");
    header.recipients = vec![key_id.to_owned()];
    env.header = b64_encode(&serde_json::to_vec(&header).expect("header"));
    env.recipients[0].key_id = key_id.to_owned();
    env
}

/// An offer key certificate for `id`, naming `account` and its `device`.
fn offer_key(account: &AccountId, device: Principal, id: &MessageId) -> serde_json::Value {
    let Principal::Device(device_id) = device else {
        panic!("offer keys belong to devices")
    };
    let cert = fixtures::placeholder_certificate(&CertificateBody::OfferKey {
        account_id: account.clone(),
        message_id: id.clone(),
        device_id,
        key_id: OFFER_KEY_ID.into(),
        public_key: b64_encode(&[9u8; 32]),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        expires_at: "2026-01-01T00:15:00.000Z".into(),
    });
    json!({ "certificate": cert })
}

impl World {
    async fn expect_ok(&self, resp: Response, why: &str) {
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        assert_eq!(status, 200, "set-up: {why}: {text}");
    }

    /// A request from A's connection, answered by A's device with a secret envelope (and
    /// `secret_files` as its secret attachments).
    async fn secret_answer_with(&self, secret_files: Vec<FileId>) -> MessageId {
        let url = &self.relay.url;
        let id = self.fresh_request().await;
        let mut body = fixtures::answer_request(&self.a, &id);
        body.secret_attachments = secret_files;
        body.secret_envelope = Some(sealed_to(
            EnvelopeKind::SecretAnswer,
            &self.a.account_id,
            &id,
            self.a.device(),
            "k_connection",
        ));
        let resp = call(
            url,
            Method::POST,
            &format!("/messages/{id}/answer"),
            Some(&self.a.device_token),
            Some(serde_json::to_value(&body).unwrap()),
        )
        .await;
        self.expect_ok(resp, "A's device answers with a secret")
            .await;
        id
    }

    async fn secret_answer(&self) -> MessageId {
        self.secret_answer_with(Vec::new()).await
    }

    /// An upload by A's device.
    async fn device_upload(&self) -> FileId {
        let url = &self.relay.url;
        let body = json!({"name": "encrypted", "type": "application/octet-stream", "size": 6});
        let resp = call(
            url,
            Method::POST,
            "/files",
            Some(&self.a.device_token),
            Some(body),
        )
        .await;
        assert_eq!(resp.status().as_u16(), 201, "set-up: reserve");
        let id = resp
            .json::<FileReservation>()
            .await
            .expect("reservation")
            .id;
        let put = reqwest::Client::new()
            .put(format!("{url}/files/{id}"))
            .bearer_auth(&self.a.device_token)
            .body(b"secret".to_vec())
            .send()
            .await
            .expect("the relay answers");
        assert_eq!(put.status().as_u16(), 200, "set-up: upload");
        id
    }

    /// A secret offer from A's connection, opened by A's device when `open`, and its secret
    /// posted when `send_secret`.
    async fn offer(&self, open: bool, send_secret: bool) -> MessageId {
        let url = &self.relay.url;
        let mut req = fixtures::message_request(&self.a.account_id, self.conn.principal(), false);
        req.kind = "secret".into();
        let id = send(url, &self.conn.bearer, &req).await.id;
        if open {
            let resp = call(
                url,
                Method::PUT,
                &format!("/messages/{id}/offer-key"),
                Some(&self.a.device_token),
                Some(offer_key(&self.a.account_id, self.a.device(), &id)),
            )
            .await;
            self.expect_ok(resp, "A's device opens the offer").await;
        }
        if send_secret {
            let env = sealed_to(
                EnvelopeKind::SecretPayload,
                &self.a.account_id,
                &id,
                self.conn.principal(),
                OFFER_KEY_ID,
            );
            let resp = call(
                url,
                Method::POST,
                &format!("/messages/{id}/secret-payload"),
                Some(&self.conn.bearer),
                Some(json!({"envelope": env})),
            )
            .await;
            self.expect_ok(resp, "A's connection sends the secret")
                .await;
        }
        id
    }

    pub async fn run_secret(&self, route: SecretRoute, caller: Caller) -> (u16, Option<Response>) {
        let url = &self.relay.url;
        let bearer = self.bearer(caller);
        let resp = match route {
            SecretRoute::CollectSecretAnswer => {
                let id = self.secret_answer().await;
                call(
                    url,
                    Method::POST,
                    &format!("/messages/{id}/secret/collect"),
                    bearer,
                    None,
                )
                .await
            }
            SecretRoute::PutOfferKey => {
                let id = self.offer(false, false).await;
                let (account, principal) = self.identity(caller);
                let principal = match principal {
                    Principal::Device(_) => principal,
                    // A connection has no device id: name A's device (refused before the body).
                    Principal::Connection(_) => self.a.device(),
                };
                call(
                    url,
                    Method::PUT,
                    &format!("/messages/{id}/offer-key"),
                    bearer,
                    Some(offer_key(&account, principal, &id)),
                )
                .await
            }
            SecretRoute::GetOfferKey => {
                let id = self.offer(true, false).await;
                call(
                    url,
                    Method::GET,
                    &format!("/messages/{id}/offer-key"),
                    bearer,
                    None,
                )
                .await
            }
            SecretRoute::PostSecretPayload => {
                let id = self.offer(true, false).await;
                let (account, principal) = self.identity(caller);
                let env = sealed_to(
                    EnvelopeKind::SecretPayload,
                    &account,
                    &id,
                    principal,
                    OFFER_KEY_ID,
                );
                call(
                    url,
                    Method::POST,
                    &format!("/messages/{id}/secret-payload"),
                    bearer,
                    Some(json!({"envelope": env})),
                )
                .await
            }
            SecretRoute::DownloadSecretFile => {
                let file = self.device_upload().await;
                self.secret_answer_with(vec![file.clone()]).await;
                call(url, Method::GET, &format!("/files/{file}"), bearer, None).await
            }
            SecretRoute::CollectSecretPayload => {
                let id = self.offer(true, true).await;
                call(
                    url,
                    Method::POST,
                    &format!("/messages/{id}/secret-payload/collect"),
                    bearer,
                    None,
                )
                .await
            }
        };
        (resp.status().as_u16(), Some(resp))
    }
}
