//! The fixed test account of the `envelope` target: keys made from constant bytes (test keys,
//! public in this file and worth nothing), its verified key directory, and honest envelopes
//! sealed once with them (`fixtures/envelopes.json`; [`Fixture::seal_all`] makes new ones).
//!
//! The account has AEK epoch 1, a live device, a device revoked at [`REVOKED_AT`], and a
//! connection. The honest envelopes: a device message to the AEK, a connection message to
//! the AEK and the connection, a device answer to the connection and the AEK, and a message
//! the revoked device sent before its revocation.

use std::sync::OnceLock;

use herald_crypto::{
    labels, seal, AccountKeys, ConnectionId, ConnectionKeys, DeviceId, DeviceKeys, Directory,
    Envelope, EnvelopeKind, MessageId, RecipientSecret, SealParams,
};
use herald_protocol::envelope::b64_decode;
use herald_protocol::wire::{KeysResponse, RevokedCertificate};
use serde_json::{json, Value};

/// When every certificate was made.
pub const CREATED_AT: &str = "2026-01-01T00:00:00Z";
/// When the relay revoked the second device.
pub const REVOKED_AT: &str = "2026-03-01T00:00:00.000Z";
/// A relay time before [`REVOKED_AT`] (the revoked device's envelope opens at it).
pub const STORED_BEFORE: &str = "2026-02-01T00:00:00.000Z";

const ACCOUNT_SEED: [u8; 32] = [0x11; 32];
const AEK_SECRET: [u8; 32] = [0x22; 32];
const DEVICE_SEED: [u8; 32] = [0x33; 32];
const DEVICE_SECRET: [u8; 32] = [0x44; 32];
const REVOKED_SEED: [u8; 32] = [0x55; 32];
const REVOKED_SECRET: [u8; 32] = [0x66; 32];
const CONNECTION_SEED: [u8; 32] = [0x77; 32];

/// One honest envelope and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeFixture {
    pub envelope: Envelope,
    pub plaintext: Vec<u8>,
    /// The Ed25519 seed of its sender when the test knows it (device senders), to re-sign
    /// tampered copies as a certified but malicious sender could.
    pub signer_seed: Option<[u8; 32]>,
}

/// The test account, its directory, the recipient secrets and the honest envelopes.
pub struct Fixture {
    pub account: AccountKeys,
    pub device_id: DeviceId,
    pub device: DeviceKeys,
    pub revoked_id: DeviceId,
    pub revoked: DeviceKeys,
    pub connection_id: ConnectionId,
    pub connection: ConnectionKeys,
    pub directory: Directory,
    /// The AEK, the connection's key and the device's key.
    pub secrets: Vec<RecipientSecret>,
    pub envelopes: Vec<EnvelopeFixture>,
}

fn device_keys(seed: [u8; 32], secret: [u8; 32]) -> DeviceKeys {
    let bytes: Vec<u8> = [&[1u8][..], &seed, &secret].concat();
    DeviceKeys::from_bytes(&bytes).expect("fixed device keys")
}

impl Fixture {
    /// The fixture (built once per process).
    pub fn get() -> &'static Fixture {
        static FIXTURE: OnceLock<Fixture> = OnceLock::new();
        FIXTURE.get_or_init(Fixture::build)
    }

    fn build() -> Fixture {
        let bundle: Vec<u8> = [&[1u8][..], &ACCOUNT_SEED, &1u32.to_be_bytes()]
            .concat()
            .into_iter()
            .chain(1u32.to_be_bytes())
            .chain(AEK_SECRET)
            .collect();
        let account = AccountKeys::from_bytes(&bundle).expect("fixed account bundle");
        let device_id = DeviceId::from_random(&[3; 16]);
        let device = device_keys(DEVICE_SEED, DEVICE_SECRET);
        let revoked_id = DeviceId::from_random(&[5; 16]);
        let revoked = device_keys(REVOKED_SEED, REVOKED_SECRET);
        let connection_id = ConnectionId::from_random(&[7; 16]);
        let connection = ConnectionKeys::from_seed(&CONNECTION_SEED);
        let certify = |id: &DeviceId, keys: &DeviceKeys| {
            account.certify_device(id, "fuzz", "linux", &keys.public(), CREATED_AT)
        };
        let keys = KeysResponse {
            account_id: account.account_id(),
            statement: account.statement(CREATED_AT),
            encryption_keys: vec![account
                .encryption_key_certificate(1, CREATED_AT)
                .expect("epoch 1")],
            devices: vec![certify(&device_id, &device)],
            connections: vec![account.certify_connection(
                &connection_id,
                "fuzz agent",
                &connection,
                CREATED_AT,
            )],
            revoked_devices: vec![RevokedCertificate {
                certificate: certify(&revoked_id, &revoked),
                revoked_at: REVOKED_AT.into(),
            }],
            revoked_connections: vec![],
        };
        let directory = Directory::verify(&keys, &account.fingerprint()).expect("directory");
        let mut secrets = account.encryption_secrets();
        secrets.push(connection.recipient_secret());
        secrets.push(device.recipient_secret());
        let mut fixture = Fixture {
            account,
            device_id,
            device,
            revoked_id,
            revoked,
            connection_id,
            connection,
            directory,
            secrets,
            envelopes: vec![],
        };
        fixture.envelopes = parse_envelopes(include_str!("../fixtures/envelopes.json"));
        fixture
    }

    /// All recipient secrets, as [`herald_crypto::open`] takes them.
    pub fn secret_refs(&self) -> Vec<&RecipientSecret> {
        self.secrets.iter().collect()
    }

    /// Seals a new set of honest envelopes (random content keys, so different bytes each
    /// time), as `fixtures/envelopes.json` holds them.
    pub fn seal_all(&self) -> Value {
        let aek = self.account.current_recipient();
        let conn = self.connection.recipient();
        let cases = [
            (
                "device message",
                EnvelopeKind::Message,
                &self.device.signer(&self.device_id),
                vec![aek.clone()],
                &b"{\"title\":\"Deploy?\"}"[..],
                Some(DEVICE_SEED),
            ),
            (
                "connection message",
                EnvelopeKind::Message,
                &self.connection.signer(&self.connection_id),
                vec![aek.clone(), conn.clone()],
                &b"{\"title\":\"From the agent\",\"actions\":[{\"id\":\"ok\",\"label\":\"OK\"}]}"[..],
                None,
            ),
            (
                "device answer",
                EnvelopeKind::Answer,
                &self.device.signer(&self.device_id),
                vec![conn, aek.clone()],
                &b"{\"actionId\":\"ok\",\"values\":{}}"[..],
                Some(DEVICE_SEED),
            ),
            (
                "revoked device message",
                EnvelopeKind::Message,
                &self.revoked.signer(&self.revoked_id),
                vec![aek],
                &b"{\"title\":\"Sent before the revocation\"}"[..],
                Some(REVOKED_SEED),
            ),
        ];
        let account_id = self.account.account_id();
        let list: Vec<Value> = cases
            .into_iter()
            .enumerate()
            .map(|(i, (name, kind, signer, recipients, plaintext, seed))| {
                let message_id = MessageId::from_random(&[i as u8 + 9; 16]);
                let params = SealParams {
                    kind,
                    account_id: &account_id,
                    message_id: &message_id,
                    created_at: CREATED_AT,
                    recipients: &recipients,
                };
                let envelope = seal(&params, plaintext, signer).expect("seal");
                json!({
                    "name": name,
                    "envelope": envelope,
                    "plaintext": String::from_utf8_lossy(plaintext),
                    "deviceSigned": seed.is_some(),
                    "revokedSender": seed == Some(REVOKED_SEED),
                })
            })
            .collect();
        Value::Array(list)
    }
}

fn parse_envelopes(text: &str) -> Vec<EnvelopeFixture> {
    let list: Vec<Value> = serde_json::from_str(text).expect("fixtures/envelopes.json");
    list.into_iter()
        .map(|item| {
            let seed = match (
                item["deviceSigned"].as_bool(),
                item["revokedSender"].as_bool(),
            ) {
                (Some(true), Some(true)) => Some(REVOKED_SEED),
                (Some(true), _) => Some(DEVICE_SEED),
                _ => None,
            };
            EnvelopeFixture {
                envelope: serde_json::from_value(item["envelope"].clone()).expect("envelope"),
                plaintext: item["plaintext"]
                    .as_str()
                    .expect("plaintext")
                    .as_bytes()
                    .to_vec(),
                signer_seed: seed,
            }
        })
        .collect()
}

fn put(out: &mut Vec<u8>, part: &[u8]) {
    let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(part);
}

/// Signs `envelope` again with `seed` over the transcript docs/protocol.md describes
/// (`label || lp(header) || lp(key id) || lp(enc) || lp(ct) … || lp(ciphertext)`), as its
/// certified sender could after changing it. `None` when a part is not base64url.
pub fn resign(envelope: &Envelope, seed: &[u8; 32]) -> Option<String> {
    let mut transcript = labels::ENVELOPE_SIGNATURE.to_vec();
    put(&mut transcript, &b64_decode(&envelope.header)?);
    for r in &envelope.recipients {
        put(&mut transcript, r.key_id.as_bytes());
        put(&mut transcript, &b64_decode(&r.enc)?);
        put(&mut transcript, &b64_decode(&r.ct)?);
    }
    put(&mut transcript, &b64_decode(&envelope.ciphertext)?);
    let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(seed).ok()?;
    Some(herald_protocol::envelope::b64_encode(
        pair.sign(&transcript).as_ref(),
    ))
}
