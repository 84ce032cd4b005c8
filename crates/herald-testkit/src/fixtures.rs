//! Factories for accounts, devices, connections, envelopes and requests, made through the real
//! HTTP API. Certificates and envelopes here are PLACEHOLDERS: well-formed, with all-zero
//! signatures, because the relay checks shapes and never verifies signatures. Helpers with
//! real cryptography belong beside these (same module) once herald-crypto is in.

use herald_protocol::envelope::{
    b64_encode, Certificate, CertificateBody, Envelope, EnvelopeHeader, EnvelopeKind, Principal,
    SealedKey, ENVELOPE_VERSION, SUITE_V1,
};
use herald_protocol::wire::{
    AnswerRequest, CreateAccountRequest, CreateAccountResponse, CreateConnectionRequest,
    CreateConnectionResponse, SendMessageRequest,
};
use herald_protocol::{AccountId, ConnectionId, DeviceId, MessageId};
use ring::rand::{SecureRandom, SystemRandom};

/// `n` random bytes.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    SystemRandom::new()
        .fill(&mut out)
        .expect("system randomness");
    out
}

pub fn new_account_id() -> AccountId {
    AccountId::from_random(&random_bytes())
}
pub fn new_device_id() -> DeviceId {
    DeviceId::from_random(&random_bytes())
}
pub fn new_connection_id() -> ConnectionId {
    ConnectionId::from_random(&random_bytes())
}
pub fn new_message_id() -> MessageId {
    MessageId::from_random(&random_bytes())
}

/// A fresh Idempotency-Key.
pub fn new_idempotency_key() -> String {
    b64_encode(&random_bytes::<16>())
}

/// A certificate carrying `body` with a placeholder (all-zero) signature.
pub fn placeholder_certificate(body: &CertificateBody) -> Certificate {
    Certificate {
        payload: b64_encode(&serde_json::to_vec(body).expect("certificate body serializes")),
        signature: b64_encode(&[0u8; 64]),
    }
}

const CREATED_AT: &str = "2026-01-01T00:00:00.000Z";

fn placeholder_key() -> String {
    b64_encode(&random_bytes::<32>())
}

/// A `POST /accounts` body for a new account and first device (placeholder certificates).
pub fn account_request(device_name: &str) -> (CreateAccountRequest, AccountId, DeviceId) {
    let identity_key = random_bytes::<32>();
    let account_id = herald_crypto::account_id_for(&identity_key);
    let device_id = new_device_id();
    let statement = placeholder_certificate(&CertificateBody::Account {
        account_id: account_id.clone(),
        identity_key: b64_encode(&identity_key),
        created_at: CREATED_AT.into(),
    });
    let encryption_key = placeholder_certificate(&CertificateBody::EncryptionKey {
        account_id: account_id.clone(),
        epoch: 1,
        key_id: "aek1".into(),
        public_key: placeholder_key(),
        created_at: CREATED_AT.into(),
    });
    let device = placeholder_certificate(&CertificateBody::Device {
        account_id: account_id.clone(),
        device_id: device_id.clone(),
        name: device_name.into(),
        platform: "linux".into(),
        signing_key_id: format!("{device_id}.sig"),
        signing_key: placeholder_key(),
        encryption_key_id: format!("{device_id}.enc"),
        encryption_key: placeholder_key(),
        created_at: CREATED_AT.into(),
    });
    (
        CreateAccountRequest {
            statement,
            encryption_key,
            device,
        },
        account_id,
        device_id,
    )
}

/// A `POST /connections` body for a new connection of `account`.
pub fn connection_request(
    account: &AccountId,
    name: &str,
) -> (CreateConnectionRequest, ConnectionId) {
    let connection_id = new_connection_id();
    let certificate = placeholder_certificate(&CertificateBody::Connection {
        account_id: account.clone(),
        connection_id: connection_id.clone(),
        name: name.into(),
        signing_key_id: format!("{connection_id}.sig"),
        signing_key: placeholder_key(),
        encryption_key_id: format!("{connection_id}.enc"),
        encryption_key: placeholder_key(),
        created_at: CREATED_AT.into(),
    });
    (
        CreateConnectionRequest {
            certificate,
            scopes: None,
        },
        connection_id,
    )
}

/// An account with its first device, as created through `POST /accounts`.
#[derive(Debug, Clone)]
pub struct TestAccount {
    pub account_id: AccountId,
    pub device_id: DeviceId,
    /// `hds_…` bearer of the first device.
    pub device_token: String,
    pub device_name: String,
}

impl TestAccount {
    pub fn device(&self) -> Principal {
        Principal::Device(self.device_id.clone())
    }
}

/// A connection created through `POST /connections`.
#[derive(Debug, Clone)]
pub struct TestConnection {
    pub account_id: AccountId,
    pub connection_id: ConnectionId,
    /// `hdr_…` bearer.
    pub bearer: String,
    pub name: String,
}

impl TestConnection {
    pub fn principal(&self) -> Principal {
        Principal::Connection(self.connection_id.clone())
    }
}

/// Creates an account (device named "Test laptop") through the relay's API.
pub async fn create_account(relay_url: &str) -> TestAccount {
    let name = "Test laptop";
    let (req, account_id, device_id) = account_request(name);
    let resp = reqwest::Client::new()
        .post(format!("{relay_url}/accounts"))
        .json(&req)
        .send()
        .await
        .expect("POST /accounts reaches the relay");
    assert_eq!(
        resp.status().as_u16(),
        201,
        "POST /accounts creates the account"
    );
    let body: CreateAccountResponse = resp.json().await.expect("CreateAccountResponse");
    assert_eq!(
        body.account_id, account_id,
        "the relay echoes the account id"
    );
    assert_eq!(body.device_id, device_id, "the relay echoes the device id");
    TestAccount {
        account_id,
        device_id,
        device_token: body.device_token,
        device_name: name.into(),
    }
}

/// Creates a connection of `account` through the relay's API.
pub async fn create_connection(
    relay_url: &str,
    account: &TestAccount,
    name: &str,
) -> TestConnection {
    let (req, connection_id) = connection_request(&account.account_id, name);
    let resp = reqwest::Client::new()
        .post(format!("{relay_url}/connections"))
        .bearer_auth(&account.device_token)
        .json(&req)
        .send()
        .await
        .expect("POST /connections reaches the relay");
    assert_eq!(
        resp.status().as_u16(),
        201,
        "POST /connections creates the connection"
    );
    let body: CreateConnectionResponse = resp.json().await.expect("CreateConnectionResponse");
    assert_eq!(
        body.connection_id, connection_id,
        "the relay echoes the connection id"
    );
    TestConnection {
        account_id: account.account_id.clone(),
        connection_id,
        bearer: body.bearer,
        name: name.into(),
    }
}

/// A placeholder envelope whose ciphertext is exactly `ciphertext` (base64url). Nothing is
/// encrypted: the relay stores what it is given, and these envelopes exercise that.
pub fn placeholder_envelope(
    kind: EnvelopeKind,
    account: &AccountId,
    message_id: &MessageId,
    sender: Principal,
    ciphertext: &[u8],
) -> Envelope {
    let header = EnvelopeHeader {
        v: ENVELOPE_VERSION,
        suite: SUITE_V1.into(),
        kind,
        account_id: account.clone(),
        message_id: message_id.clone(),
        sender,
        signing_key_id: "sig".into(),
        created_at: CREATED_AT.into(),
        recipients: vec!["aek1".into()],
    };
    Envelope {
        v: ENVELOPE_VERSION,
        suite: SUITE_V1.into(),
        header: b64_encode(&serde_json::to_vec(&header).expect("header serializes")),
        recipients: vec![SealedKey {
            key_id: "aek1".into(),
            enc: b64_encode(&random_bytes::<32>()),
            ct: b64_encode(&random_bytes::<48>()),
        }],
        ciphertext: b64_encode(ciphertext),
        signature: b64_encode(&[0u8; 64]),
    }
}

/// A `POST /messages` body from `sender` with random ciphertext.
pub fn message_request(
    account: &AccountId,
    sender: Principal,
    expects_answer: bool,
) -> SendMessageRequest {
    let id = new_message_id();
    let envelope = placeholder_envelope(
        EnvelopeKind::Message,
        account,
        &id,
        sender,
        &random_bytes::<64>(),
    );
    SendMessageRequest {
        id,
        kind: "message".into(),
        expects_answer,
        expires_at: None,
        expires_in: None,
        reply_to: None,
        content_digest: None,
        envelope,
        attachments: vec![],
    }
}

/// A `POST /messages/:id/answer` body from the account's device.
pub fn answer_request(account: &TestAccount, message_id: &MessageId) -> AnswerRequest {
    AnswerRequest {
        envelope: placeholder_envelope(
            EnvelopeKind::Answer,
            &account.account_id,
            message_id,
            account.device(),
            &random_bytes::<64>(),
        ),
        secret_envelope: None,
        attachments: vec![],
        secret_attachments: vec![],
    }
}

/// Re-addresses a placeholder envelope (made by [`placeholder_envelope`], addressed to the
/// placeholder key id `aek1`) to the key id `key_id`, as a message sealed to a real account's
/// current encryption key must be: the relay refuses envelopes not addressed to it.
pub fn readdress(envelope: &mut Envelope, key_id: &str) {
    let mut header = envelope
        .header_unverified()
        .expect("a placeholder envelope has a readable header");
    header.recipients = vec![key_id.to_owned()];
    envelope.header = b64_encode(&serde_json::to_vec(&header).expect("header serializes"));
    for sealed in &mut envelope.recipients {
        sealed.key_id = key_id.to_owned();
    }
}
