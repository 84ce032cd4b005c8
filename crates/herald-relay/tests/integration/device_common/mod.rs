//! Shared steps of the device tests (docs/devices.md): enrolment with the recovery path,
//! pairing requests, responses and confirmations with fixed test keys, and the body of a
//! revocation that rotates the account key. Real keys (herald-testkit `real`); HTTP through
//! herald-testkit's [`Api`].
#![allow(dead_code)] // each test file uses its own part

use herald_crypto::{seal_bundle_to_device, AccountKeys};
use herald_protocol::devices::CreatePairingResponse;
use herald_protocol::envelope::b64_encode;
use herald_protocol::{DeviceId, PairingId};
use herald_testkit::real::{RealAccount, CREATED_AT};
use herald_testkit::{Api, Reply};
use serde_json::{json, Value};

/// Enrols device `name` of `account` with the recovery path (`POST /keys/devices`, no
/// credential); returns the relay's reply, unchecked, and the new device's keys.
pub async fn try_enrol(
    url: &str,
    account: &RealAccount,
    name: &str,
) -> (Reply, herald_crypto::DeviceKeys) {
    let (_, keys, cert) = account.certify_new_device(name);
    let reply = Api::new(url)
        .post("/keys/devices", &json!({ "certificate": cert }))
        .await;
    (reply, keys)
}

/// A rotation body: epoch n+1, bundles for `remaining`, the re-sealed backup.
pub fn rotation(
    a: &RealAccount,
    rotated: &AccountKeys,
    remaining: &[(DeviceId, herald_crypto::Recipient)],
) -> Value {
    let epoch = rotated.current_epoch();
    let bundles: Vec<Value> = remaining
        .iter()
        .map(|(id, r)| json!({"deviceId": id, "sealedBundle": b64_encode(&seal_bundle_to_device(rotated, r, id).unwrap())}))
        .collect();
    let recipient = a.recovery.recipient();
    json!({
        "encryptionKey": rotated.encryption_key_certificate(epoch, CREATED_AT).unwrap(),
        "bundles": bundles,
        "backup": {
            "recoveryKeyId": recipient.key_id,
            "recoveryPublicKey": b64_encode(&recipient.public_key),
            "sealedBundle": b64_encode(&herald_crypto::seal_bundle_to_recovery(rotated, &recipient).unwrap()),
        },
    })
}

/// The body of a pairing request whose new device holds the fixed public keys [1;32] / [2;32].
pub fn pairing_body(id: &PairingId) -> Value {
    json!({
        "id": id,
        "name": "New laptop",
        "platform": "linux",
        "signingKey": b64_encode(&[1u8; 32]),
        "encryptionKey": b64_encode(&[2u8; 32]),
        "spakeMessage": b64_encode(&[3u8; 33]),
    })
}

/// Creates a pairing request with [`pairing_body`] (asserts 201).
pub async fn new_pairing(url: &str) -> (PairingId, CreatePairingResponse) {
    let id = PairingId::from_random(&herald_testkit::fixtures::random_bytes());
    let created = Api::new(url)
        .post("/keys/pairings", &pairing_body(&id))
        .await
        .ok(201, "a pairing request is created");
    (id, created)
}

/// The approving device's response body (fixed SPAKE message and confirmation).
pub fn response_body() -> Value {
    json!({"spakeMessage": b64_encode(&[4u8; 33]), "confirmation": b64_encode(&[5u8; 32])})
}

/// `POST /keys/pairings/{id}/confirmation` with a fixed confirmation, as `token`; the reply
/// unchecked.
pub async fn confirm(url: &str, id: &PairingId, token: &str) -> Reply {
    Api::new(url)
        .bearer(token)
        .post(
            &format!("/keys/pairings/{id}/confirmation"),
            &json!({"confirmation": b64_encode(&[6u8; 32])}),
        )
        .await
}
