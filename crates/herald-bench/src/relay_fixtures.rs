//! Accounts, connections, devices and sealed messages with REAL keys, made through a relay's
//! HTTP API, for the relay-side benches. Messages are sealed with herald-crypto exactly as the
//! agent SDK seals them (to the account encryption key and the sending connection, signed by
//! the connection, with the SDK's keyed content digest), so the relay sees production bodies.

use anyhow::{ensure, Context};
use herald_crypto::{AccountKeys, ConnectionKeys, SealParams};
use herald_protocol::devices::{EnrolDeviceRequest, EnrolDeviceResponse};
use herald_protocol::envelope::{b64_encode, EnvelopeKind};
use herald_protocol::wire::{
    CreateConnectionRequest, CreateConnectionResponse, SendMessageRequest,
};
use herald_protocol::ConnectionId;
use herald_testkit::real::{RealAccount, CREATED_AT};

pub use herald_testkit::real::create_account;

/// A connection (an agent's credential) with its real keys.
pub struct Sender {
    pub connection_id: ConnectionId,
    pub keys: ConnectionKeys,
    /// `hdr_…` bearer.
    pub bearer: String,
}

/// Creates a connection of `account`, certified by its identity key, via `POST /connections`.
pub async fn create_sender(
    http: &reqwest::Client,
    url: &str,
    account: &RealAccount,
    name: &str,
) -> anyhow::Result<Sender> {
    let keys = ConnectionKeys::from_seed(&herald_crypto::random_bytes::<32>());
    let connection_id = herald_crypto::new_connection_id();
    let certificate = account
        .keys
        .certify_connection(&connection_id, name, &keys, CREATED_AT);
    let resp = http
        .post(format!("{url}/connections"))
        .bearer_auth(&account.device_token)
        .json(&CreateConnectionRequest {
            certificate,
            scopes: None,
        })
        .send()
        .await
        .context("POST /connections")?;
    ensure!(resp.status() == 201, "POST /connections: {}", resp.status());
    let created: CreateConnectionResponse = resp.json().await?;
    Ok(Sender {
        connection_id,
        keys,
        bearer: created.bearer,
    })
}

/// Enrols one more device of `account` (`POST /keys/devices`, certificate signed by the
/// account identity key) and returns its `hds_…` session token.
pub async fn enrol_device(
    http: &reqwest::Client,
    url: &str,
    account: &RealAccount,
    name: &str,
) -> anyhow::Result<String> {
    let (_, _, certificate) = account.certify_new_device(name);
    let resp = http
        .post(format!("{url}/keys/devices"))
        .json(&EnrolDeviceRequest { certificate })
        .send()
        .await
        .context("POST /keys/devices")?;
    ensure!(
        resp.status() == 201,
        "POST /keys/devices: {}",
        resp.status()
    );
    let created: EnrolDeviceResponse = resp.json().await?;
    Ok(created.device_token)
}

/// A `POST /messages` ready to send: the bearer, a fresh Idempotency-Key and the JSON body.
pub struct SealedPost {
    pub bearer: String,
    pub idempotency_key: String,
    pub body: Vec<u8>,
}

/// Markdown of about `chars` characters (a build report), the body of a bench message.
pub fn markdown_body(seq: usize, chars: usize) -> String {
    let mut body = format!("## Build {seq} finished\n\nAll checks passed on `main`.\n\n");
    let mut i = 0;
    while body.len() < chars {
        i += 1;
        body.push_str(&format!(
            "- step {i}: `cargo test -p crate{i}` took {}.{} s\n",
            i % 7,
            i % 10
        ));
    }
    body.truncate(chars);
    body
}

/// Seals message number `seq` from `sender` to `account` with a Markdown body of `chars`
/// characters, as the agent SDK does, and serializes the request body.
pub fn seal_post(
    account_keys: &AccountKeys,
    sender: &Sender,
    seq: usize,
    chars: usize,
) -> anyhow::Result<SealedPost> {
    let content = serde_json::json!({
        "title": format!("Build {seq} finished"),
        "body": markdown_body(seq, chars),
    });
    let plaintext = serde_json::to_vec(&content)?;
    let id = herald_crypto::new_message_id();
    let account_id = account_keys.account_id();
    let recipients = [account_keys.current_recipient(), sender.keys.recipient()];
    let envelope = herald_crypto::seal(
        &SealParams {
            kind: EnvelopeKind::Message,
            account_id: &account_id,
            message_id: &id,
            created_at: CREATED_AT,
            recipients: &recipients,
        },
        &plaintext,
        &sender.keys.signer(&sender.connection_id),
    )?;
    let digest_input = serde_json::to_vec(&serde_json::json!({
        "content": content, "files": [], "expiresIn": null, "replyTo": null,
    }))?;
    let request = SendMessageRequest {
        id,
        kind: "message".into(),
        expects_answer: false,
        expires_at: None,
        expires_in: None,
        reply_to: None,
        content_digest: Some(b64_encode(&sender.keys.idempotency_digest(&digest_input))),
        envelope,
        attachments: vec![],
    };
    Ok(SealedPost {
        bearer: sender.bearer.clone(),
        idempotency_key: herald_crypto::new_bearer("idk_"),
        body: serde_json::to_vec(&request)?,
    })
}
