//! The world the matrix runs in: a real relay on 127.0.0.1:0, two accounts A and B with real
//! keys (herald-crypto), and every kind of credential made and revoked through the relay's
//! own routes. Envelopes are placeholders (the relay never opens them), addressed to the
//! account's current encryption key as the relay requires.

use std::sync::Mutex;

use herald_crypto::{AccountKeys, DeviceKeys, RecoveryKey};
use herald_protocol::envelope::{b64_encode, CertificateBody, EnvelopeKind, Principal};
use herald_protocol::wire::SendMessageRequest;
use herald_protocol::{AccountId, ConnectionId, DeviceId, FileId, MessageId, NotificationId};
use herald_testkit::fixtures;
use herald_testkit::TestRelay;
use reqwest::header::HeaderMap;
use reqwest::{Method, RequestBuilder};
use serde_json::{json, Value};
use tokio::sync::OnceCell;

use super::cells::Cred;
pub use super::credentials::{
    agent_key, connection, connection_certificate, connector, device_flow, enrol,
};

/// A time for the certificates made here.
pub const CREATED_AT: &str = "2026-01-01T00:00:00.000Z";
/// The OAuth client id the connectors use.
pub const CLIENT_ID: &str = "auth-matrix";
/// The agent's id of A's notification that the `/v1/*` paths name.
pub const NOTIFICATION: &str = "matrix-a-1";
/// An agent id A used that B's agents send too (ids are per account).
pub const SHARED_NOTIFICATION_ID: &str = "matrix-a-shared";

/// One answer, whatever the route: status, headers and body text.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Reply {
    pub async fn of(req: RequestBuilder) -> Reply {
        let resp = req.send().await.expect("the relay answers");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("the body is readable");
        Reply {
            status,
            headers,
            text,
        }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|_| panic!("a JSON body ({}): {}", self.status, self.text))
    }

    /// Asserts the status (a set-up step), returning the JSON body when there is one.
    pub fn expect(self, status: u16, what: &str) -> Value {
        assert_eq!(self.status, status, "set-up: {what}: {}", self.text);
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

/// A connection: id and `hdr_` bearer.
#[derive(Debug, Clone)]
pub struct Conn {
    pub id: ConnectionId,
    pub bearer: String,
}

impl Conn {
    pub fn principal(&self) -> Principal {
        Principal::Connection(self.id.clone())
    }
}

/// One account with a live credential of every kind.
pub struct Party {
    pub account: AccountId,
    /// The account key bundle; replaced when a rotation is accepted.
    pub keys: Mutex<AccountKeys>,
    pub recovery: RecoveryKey,
    pub device_id: DeviceId,
    pub device_token: String,
    pub connection: Conn,
    pub agent_key_id: String,
    pub agent_key: String,
    pub connector_id: String,
    pub connector: String,
}

impl Party {
    pub fn device(&self) -> Principal {
        Principal::Device(self.device_id.clone())
    }

    /// Key id of the account's current encryption key (AEK).
    pub fn current_aek(&self) -> String {
        self.keys.lock().expect("keys").current_recipient().key_id
    }
}

pub struct World {
    pub relay: TestRelay,
    pub client: reqwest::Client,
    pub a: Party,
    pub b: Party,
    /// A second live connection of A.
    pub sibling: Conn,
    pub revoked_device: String,
    pub revoked_device_id: DeviceId,
    pub revoked_connection: Conn,
    pub revoked_agent_key: String,
    pub revoked_connector: String,
    /// A live pairing request, and another.
    pub poll: Pairing,
    pub other_poll: Pairing,
    /// A pending request of A, sent by A's connection.
    pub request: MessageId,
    /// A's notification [`NOTIFICATION`]: its relay id.
    pub notification: NotificationId,
    /// A file uploaded by A's connection and attached to its message.
    pub file: FileId,
    /// Resources made once, the first time a row needs them.
    pub shared: Shared,
}

/// Resources several cells read without changing them (rate limits keep pairing requests
/// and device authorizations few).
#[derive(Default)]
pub struct Shared {
    pub opened_offer: OnceCell<MessageId>,
    /// A pairing request nobody answered: (id, poll token).
    pub unclaimed_pairing: OnceCell<Pairing>,
    /// Answered by A's device, not confirmed.
    pub answered_pairing: OnceCell<Pairing>,
    /// Answered by A's device and confirmed by the new device.
    pub confirmed_pairing: OnceCell<Pairing>,
    /// A waiting device authorization: (device code, user code).
    pub flow: OnceCell<(String, String)>,
    /// A live connector of A: its id.
    pub connector: OnceCell<String>,
}

impl World {
    pub async fn new() -> World {
        let relay = TestRelay::start().await;
        let client = reqwest::Client::new();
        let url = relay.url.clone();
        let a = Party::create(&url, &client).await;
        let b = Party::create(&url, &client).await;
        let sibling = connection(&url, &client, &a, "Sibling").await;
        let revoked_connection = connection(&url, &client, &a, "Revoked").await;
        let (old_key_id, old_key) = agent_key(&url, &client, &a.device_token, "Revoked key").await;
        let (old_connector_id, old_connector) = connector(&url, &client, &a.device_token).await;
        let (revoked_device_id, revoked_device) = enrol(&url, &client, &a, "Revoked laptop").await;
        let mut w = World {
            relay,
            client,
            a,
            b,
            sibling,
            revoked_device,
            revoked_device_id,
            revoked_connection,
            revoked_agent_key: old_key,
            revoked_connector: old_connector,
            poll: Pairing::default(),
            other_poll: Pairing::default(),
            request: fixtures::new_message_id(),
            notification: NotificationId::from_random(&[0; 16]),
            file: FileId::from_random(&[0; 16]),
            shared: Shared::default(),
        };
        // Revocations, through the routes.
        w.revoke_device(&w.a, &w.revoked_device_id).await;
        let path = format!("/connections/{}", w.revoked_connection.id);
        w.send(Method::DELETE, &path, Some(&w.a.device_token))
            .await
            .expect(204, "revoke a connection");
        let path = format!("/agent-keys/{old_key_id}");
        w.send(Method::DELETE, &path, Some(&w.a.device_token))
            .await
            .expect(204, "revoke an agent key");
        let path = format!("/connectors/{old_connector_id}");
        w.send(Method::DELETE, &path, Some(&w.a.device_token))
            .await
            .expect(204, "revoke a connector");
        // B's first device gets a bundle too (its own rotation), so GET /keys/bundle has one.
        let (b_spare, _) = enrol(&w.relay.url, &w.client, &w.b, "B spare").await;
        w.revoke_device(&w.b, &b_spare).await;
        // Shared resources of A.
        w.poll = w.pairing().await;
        w.other_poll = w.pairing().await;
        w.request = w.fresh_request().await;
        w.notify(&w.a.agent_key, NOTIFICATION, true).await;
        w.notify(&w.a.agent_key, SHARED_NOTIFICATION_ID, false)
            .await;
        let second = format!("{SHARED_NOTIFICATION_ID}-2");
        w.notify(&w.a.connector, &second, false).await;
        w.notification = w.notification_of_a(NOTIFICATION).await;
        w.file = w.attached_file().await;
        w
    }

    /// The bearer `cred` sends (`None`: no header).
    pub fn bearer(&self, cred: Cred) -> Option<&str> {
        Some(match cred {
            Cred::None => return None,
            Cred::Device => &self.a.device_token,
            Cred::Connection => &self.a.connection.bearer,
            Cred::SiblingConnection => &self.sibling.bearer,
            Cred::AgentKey => &self.a.agent_key,
            Cred::Connector => &self.a.connector,
            Cred::RevokedDevice => &self.revoked_device,
            Cred::RevokedConnection => &self.revoked_connection.bearer,
            Cred::RevokedAgentKey => &self.revoked_agent_key,
            Cred::RevokedConnector => &self.revoked_connector,
            Cred::OtherDevice => &self.b.device_token,
            Cred::OtherConnection => &self.b.connection.bearer,
            Cred::OtherAgentKey => &self.b.agent_key,
            Cred::OtherConnector => &self.b.connector,
            Cred::PollToken => &self.poll.poll,
            Cred::OtherPollToken => &self.other_poll.poll,
        })
    }

    /// The party whose body a caller sends: B for B's credentials, else A.
    pub fn party(&self, cred: Cred) -> &Party {
        if cred.is_other_account() {
            &self.b
        } else {
            &self.a
        }
    }

    /// The envelope sender of a caller: its own connection, else its party's device.
    pub fn principal(&self, cred: Cred) -> Principal {
        match cred {
            Cred::Connection => self.a.connection.principal(),
            Cred::SiblingConnection => self.sibling.principal(),
            Cred::RevokedConnection => self.revoked_connection.principal(),
            Cred::OtherConnection => self.b.connection.principal(),
            Cred::RevokedDevice => Principal::Device(self.revoked_device_id.clone()),
            c => self.party(c).device(),
        }
    }

    /// A request to the relay with an optional bearer.
    pub fn request(&self, method: Method, path: &str, bearer: Option<&str>) -> RequestBuilder {
        let req = self
            .client
            .request(method, format!("{}{path}", self.relay.url));
        match bearer {
            Some(b) => req.bearer_auth(b),
            None => req,
        }
    }

    pub async fn send(&self, method: Method, path: &str, bearer: Option<&str>) -> Reply {
        Reply::of(self.request(method, path, bearer)).await
    }

    pub async fn send_json(
        &self,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        body: Value,
    ) -> Reply {
        Reply::of(self.request(method, path, bearer).json(&body)).await
    }

    /// Every id of A that B's credentials must never see.
    pub fn ids_of_a(&self) -> Vec<String> {
        vec![
            self.a.account.to_string(),
            self.a.device_id.to_string(),
            self.revoked_device_id.to_string(),
            self.a.connection.id.to_string(),
            self.sibling.id.to_string(),
            self.a.agent_key_id.clone(),
            self.a.connector_id.clone(),
            self.request.to_string(),
            self.notification.to_string(),
            self.file.to_string(),
        ]
    }

    /// What A's sibling connection must never see: the other connection's message and file.
    pub fn ids_of_connection(&self) -> Vec<String> {
        vec![self.request.to_string(), self.file.to_string()]
    }

    // ---- messages ----

    /// A `POST /messages` body of `party` from `sender`, addressed to its current AEK.
    pub fn message(
        &self,
        party: &Party,
        sender: Principal,
        expects_answer: bool,
    ) -> SendMessageRequest {
        let mut req = fixtures::message_request(&party.account, sender, expects_answer);
        fixtures::readdress(&mut req.envelope, &party.current_aek());
        req
    }

    /// `POST /messages` with a fresh Idempotency-Key.
    pub async fn post_message(&self, bearer: Option<&str>, req: &SendMessageRequest) -> Reply {
        Reply::of(
            self.request(Method::POST, "/messages", bearer)
                .header("Idempotency-Key", fixtures::new_idempotency_key())
                .json(req),
        )
        .await
    }

    /// A fresh pending request of A, sent by A's connection.
    pub async fn fresh_request(&self) -> MessageId {
        let req = self.message(&self.a, self.a.connection.principal(), true);
        let body = self
            .post_message(Some(&self.a.connection.bearer), &req)
            .await
            .expect(201, "A's connection sends a request");
        serde_json::from_value(body["id"].clone()).expect("a message id")
    }

    /// An answer body of `party`'s first device for message `id`.
    pub fn answer(&self, party: &Party, id: &MessageId) -> Value {
        let mut envelope = fixtures::placeholder_envelope(
            EnvelopeKind::Answer,
            &party.account,
            id,
            party.device(),
            &fixtures::random_bytes::<64>(),
        );
        fixtures::readdress(&mut envelope, &party.current_aek());
        json!({ "envelope": envelope })
    }

    /// A file uploaded by A's connection and attached to a message it sent.
    async fn attached_file(&self) -> FileId {
        let id = self.reservation(&self.a.connection.bearer).await;
        self.upload(&id, Some(&self.a.connection.bearer))
            .await
            .expect(200, "upload");
        let mut req = self.message(&self.a, self.a.connection.principal(), false);
        req.attachments = vec![id.clone()];
        self.post_message(Some(&self.a.connection.bearer), &req)
            .await
            .expect(201, "a message carrying the file");
        id
    }

    /// The bytes every test file holds.
    pub const FILE_BYTES: &'static [u8] = b"ciphertext";

    /// A reservation of [`World::FILE_BYTES`]'s size by `bearer`.
    pub async fn reservation(&self, bearer: &str) -> FileId {
        let body = json!({"name": "encrypted", "type": "application/octet-stream",
                          "size": World::FILE_BYTES.len()});
        let v = self
            .send_json(Method::POST, "/files", Some(bearer), body)
            .await
            .expect(201, "reserve a file");
        serde_json::from_value(v["id"].clone()).expect("a file id")
    }

    pub async fn upload(&self, id: &FileId, bearer: Option<&str>) -> Reply {
        Reply::of(
            self.request(Method::PUT, &format!("/files/{id}"), bearer)
                .body(World::FILE_BYTES.to_vec()),
        )
        .await
    }

    // ---- agents ----

    /// `POST /v1/notify` with `notificationId`, expecting a new notification.
    pub async fn notify(&self, bearer: &str, id: &str, expect_reply: bool) {
        let body = json!({"title": "Build finished", "notificationId": id,
                          "expectReply": expect_reply});
        self.send_json(Method::POST, "/v1/notify", Some(bearer), body)
            .await
            .expect(201, "notify");
    }

    /// The relay id of A's notification with the agent's id `id`.
    pub async fn notification_of_a(&self, id: &str) -> NotificationId {
        let page = self
            .send(
                Method::GET,
                "/notifications?after=0&limit=500",
                Some(&self.a.device_token),
            )
            .await
            .expect(200, "A's notification feed");
        let record = page["records"]
            .as_array()
            .and_then(|r| {
                r.iter()
                    .find(|r| r["receipt"]["notificationId"] == id)
                    .cloned()
            })
            .expect("set-up: the notification is in A's feed");
        serde_json::from_value(record["id"].clone()).expect("a notification id")
    }

    /// A fresh notification of A asking for a reply; its relay id.
    pub async fn fresh_notification(&self) -> NotificationId {
        let id = format!("matrix-{}", fixtures::new_message_id());
        self.notify(&self.a.agent_key, &id, true).await;
        self.notification_of_a(&id).await
    }

    /// A waiting OAuth device authorization: `(device_code, user_code)`.
    pub async fn device_flow(&self) -> (String, String) {
        device_flow(&self.relay.url, &self.client).await
    }

    // ---- devices ----

    /// A rotation of `party` that revokes `target`: the next epoch's certificate and the
    /// bundle sealed to each other live device. Returns the body and the rotated keys.
    pub async fn rotation(&self, party: &Party, target: &DeviceId) -> (Value, AccountKeys) {
        let keys = self
            .send(Method::GET, "/keys", Some(&party.device_token))
            .await
            .expect(200, "GET /keys for a rotation");
        let mut rotated = party.keys.lock().expect("keys").clone();
        let epoch = rotated.rotate_encryption_key();
        let certificate = rotated
            .encryption_key_certificate(epoch, CREATED_AT)
            .expect("the new epoch exists");
        let mut bundles = Vec::new();
        for cert in keys["devices"].as_array().expect("devices") {
            let cert: herald_protocol::envelope::Certificate =
                serde_json::from_value(cert.clone()).expect("a certificate");
            let Some(CertificateBody::Device {
                device_id,
                encryption_key,
                ..
            }) = cert.body_unverified()
            else {
                panic!("set-up: a device certificate")
            };
            if &device_id == target {
                continue;
            }
            let key: [u8; 32] = herald_protocol::envelope::b64_decode(&encryption_key)
                .and_then(|k| k.try_into().ok())
                .expect("a 32-byte key");
            let recipient = herald_crypto::Recipient::from_public_key(key);
            let sealed = herald_crypto::seal_bundle_to_device(&rotated, &recipient, &device_id)
                .expect("sealing a bundle");
            bundles.push(json!({"deviceId": device_id, "sealedBundle": b64_encode(&sealed)}));
        }
        (
            json!({"encryptionKey": certificate, "bundles": bundles}),
            rotated,
        )
    }

    /// Revokes `target`, a device of `party`, with a real rotation.
    pub async fn revoke_device(&self, party: &Party, target: &DeviceId) {
        let (body, rotated) = self.rotation(party, target).await;
        self.send_json(
            Method::DELETE,
            &format!("/keys/devices/{target}"),
            Some(&party.device_token),
            body,
        )
        .await
        .expect(204, "revoke a device");
        *party.keys.lock().expect("keys") = rotated;
    }

    /// A new pairing request with real device keys.
    pub async fn pairing(&self) -> Pairing {
        let keys = DeviceKeys::generate().public();
        let id = herald_protocol::PairingId::from_random(&fixtures::random_bytes());
        let body = json!({
            "id": id, "name": "New laptop", "platform": "linux",
            "signingKey": b64_encode(&keys.signing_key),
            "encryptionKey": b64_encode(&keys.encryption_key),
            "spakeMessage": b64_encode(&[3u8; 33]),
        });
        let v = self
            .send_json(Method::POST, "/keys/pairings", None, body)
            .await
            .expect(201, "a pairing request");
        Pairing {
            id: id.to_string(),
            poll: v["pollToken"].as_str().expect("a poll token").to_owned(),
            keys: Some(keys),
        }
    }

    /// A pairing request answered by A's device, confirmed by the new device when `confirm`.
    pub async fn answered_pairing(&self, confirm: bool) -> Pairing {
        let pairing = self.pairing().await;
        let (id, poll) = (&pairing.id, &pairing.poll);
        let body =
            json!({"spakeMessage": b64_encode(&[4u8; 33]), "confirmation": b64_encode(&[5u8; 32])});
        let path = format!("/keys/pairings/{id}/response");
        self.send_json(Method::POST, &path, Some(&self.a.device_token), body)
            .await
            .expect(204, "A answers the pairing");
        if confirm {
            let body = json!({"confirmation": b64_encode(&[6u8; 32])});
            let path = format!("/keys/pairings/{id}/confirmation");
            self.send_json(Method::POST, &path, Some(poll), body)
                .await
                .expect(204, "the new device confirms");
        }
        pairing
    }

    /// The pairing's keys, certified by `party` as a new device: `{certificate, sealedBundle}`.
    pub fn completion(&self, party: &Party, pairing: &Pairing) -> Value {
        let public = pairing.keys.clone().expect("the pairing's keys");
        let id = herald_crypto::new_device_id();
        let cert = party.keys.lock().expect("keys").certify_device(
            &id,
            "New laptop",
            "linux",
            &public,
            CREATED_AT,
        );
        json!({"certificate": cert, "sealedBundle": b64_encode(b"sealed to the new device")})
    }
}

/// A pairing request: its id, the new device's poll token and keys.
#[derive(Debug, Clone, Default)]
pub struct Pairing {
    pub id: String,
    pub poll: String,
    pub keys: Option<herald_crypto::DevicePublic>,
}
