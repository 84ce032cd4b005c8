//! Rows of the authorization matrix for the device routes (docs/devices.md). Included by
//! `authorization.rs`; account A there has placeholder keys, so the rows that need a device
//! signed by a real AIK (enrolment) or that would delete A (Reset) use a fresh real account.

use herald_protocol::envelope::{b64_encode, CertificateBody};
use herald_protocol::{ErrorCode, PairingId};
use herald_testkit::fixtures;
use reqwest::{Method, Response};
use serde_json::{json, Value};

use super::common::call;
use super::{Caller, Expect, World, E, S};

#[derive(Debug, Clone, Copy)]
pub enum DeviceRoute {
    BackupByKeyId,
    EnrolDevice,
    ListDevices,
    RevokeDevice,
    /// Runs after `RevokeDevice`, which gave A's device a bundle.
    DeviceBundle,
    CreatePairing,
    ListPairings,
    GetPairing,
    PairingResponse,
    PairingConfirmation,
    PairingFailed,
    PairingComplete,
    /// Runs last: the other account's device resets account B.
    Reset,
}

/// In the order they run.
pub const ALL: [DeviceRoute; 13] = [
    DeviceRoute::BackupByKeyId,
    DeviceRoute::EnrolDevice,
    DeviceRoute::ListDevices,
    DeviceRoute::RevokeDevice,
    DeviceRoute::DeviceBundle,
    DeviceRoute::CreatePairing,
    DeviceRoute::ListPairings,
    DeviceRoute::GetPairing,
    DeviceRoute::PairingResponse,
    DeviceRoute::PairingConfirmation,
    DeviceRoute::PairingFailed,
    DeviceRoute::PairingComplete,
    DeviceRoute::Reset,
];

/// Expected outcome per caller: nobody, device, connection, revoked connection, another
/// account's device.
pub fn expected(route: DeviceRoute) -> [Expect; 5] {
    use ErrorCode::{Forbidden as F, InvalidRequest as I, NotFound as N, Unauthorized as U};
    match route {
        DeviceRoute::BackupByKeyId => [S(200), S(200), S(200), S(200), S(200)],
        DeviceRoute::EnrolDevice => [S(201), S(201), S(201), S(201), S(201)],
        DeviceRoute::ListDevices => [E(U), S(200), E(F), E(U), S(200)],
        DeviceRoute::RevokeDevice => [E(U), S(204), E(F), E(U), E(I)],
        DeviceRoute::DeviceBundle => [E(U), S(200), E(F), E(U), E(N)],
        DeviceRoute::CreatePairing => [S(201), S(201), S(201), S(201), S(201)],
        DeviceRoute::ListPairings => [E(U), S(200), E(F), E(U), S(200)],
        DeviceRoute::GetPairing => [E(U), S(200), E(F), E(U), E(N)],
        DeviceRoute::PairingResponse => [E(U), S(204), E(F), E(U), S(204)],
        // Only the new device (its poll token) confirms; devices/tests/devices.rs covers it.
        DeviceRoute::PairingConfirmation => [E(U), E(F), E(F), E(U), E(F)],
        DeviceRoute::PairingFailed => [E(U), S(204), E(F), E(U), E(N)],
        DeviceRoute::PairingComplete => [E(U), S(201), E(F), E(U), E(N)],
        DeviceRoute::Reset => [E(U), S(201), E(F), E(U), S(201)],
    }
}

const SIGNING_KEY: [u8; 32] = [1; 32];
const ENCRYPTION_KEY: [u8; 32] = [2; 32];

/// A fresh pairing request: `(id, poll token)`.
async fn pairing(url: &str) -> (PairingId, String) {
    let id = PairingId::from_random(&fixtures::random_bytes());
    let body = json!({
        "id": id, "name": "New laptop", "platform": "linux",
        "signingKey": b64_encode(&SIGNING_KEY), "encryptionKey": b64_encode(&ENCRYPTION_KEY),
        "spakeMessage": b64_encode(&[3u8; 33]),
    });
    let resp = call(url, Method::POST, "/keys/pairings", None, Some(body)).await;
    assert_eq!(resp.status().as_u16(), 201, "set-up: a pairing request");
    let v: Value = resp.json().await.unwrap();
    (id, v["pollToken"].as_str().unwrap().to_owned())
}

impl World {
    /// A pairing answered by A's device, confirmed by the new device when `confirm`.
    async fn answered_pairing(&self, confirm: bool) -> PairingId {
        let url = &self.relay.url;
        let (id, poll) = pairing(url).await;
        let body =
            json!({"spakeMessage": b64_encode(&[4u8; 33]), "confirmation": b64_encode(&[5u8; 32])});
        let resp = call(
            url,
            Method::POST,
            &format!("/keys/pairings/{id}/response"),
            Some(&self.a.device_token),
            Some(body),
        )
        .await;
        assert_eq!(resp.status().as_u16(), 204, "set-up: A answers");
        if confirm {
            let body = json!({"confirmation": b64_encode(&[6u8; 32])});
            let resp = call(
                url,
                Method::POST,
                &format!("/keys/pairings/{id}/confirmation"),
                Some(&poll),
                Some(body),
            )
            .await;
            assert_eq!(
                resp.status().as_u16(),
                204,
                "set-up: the new device confirms"
            );
        }
        id
    }

    /// A placeholder device certificate of A with the pairing keys.
    fn paired_certificate(&self) -> herald_protocol::envelope::Certificate {
        fixtures::placeholder_certificate(&CertificateBody::Device {
            account_id: self.a.account_id.clone(),
            device_id: fixtures::new_device_id(),
            name: "New laptop".into(),
            platform: "linux".into(),
            signing_key_id: herald_crypto::key_id_ed25519(&SIGNING_KEY),
            signing_key: b64_encode(&SIGNING_KEY),
            encryption_key_id: herald_crypto::key_id_x25519(&ENCRYPTION_KEY),
            encryption_key: b64_encode(&ENCRYPTION_KEY),
            created_at: "2026-01-01T00:00:00.000Z".into(),
        })
    }

    /// A second device of A, added through a completed pairing.
    async fn second_device_of_a(&self) -> String {
        let id = self.answered_pairing(true).await;
        let body = json!({"certificate": self.paired_certificate(), "sealedBundle": "AAAA"});
        let resp = call(
            &self.relay.url,
            Method::POST,
            &format!("/keys/pairings/{id}/complete"),
            Some(&self.a.device_token),
            Some(body),
        )
        .await;
        assert_eq!(resp.status().as_u16(), 201, "set-up: a second device of A");
        let v: Value = resp.json().await.unwrap();
        v["deviceId"].as_str().unwrap().to_owned()
    }

    /// A rotation body for A revoking `target`: the next epoch and a bundle per remaining device.
    async fn rotation_of_a(&self, target: &str) -> Value {
        let url = &self.relay.url;
        let devices: Value = call(
            url,
            Method::GET,
            "/keys/devices",
            Some(&self.a.device_token),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
        let bundles: Vec<Value> = devices["devices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["revokedAt"].is_null() && d["id"] != target)
            .map(|d| json!({"deviceId": d["id"], "sealedBundle": "AAAA"}))
            .collect();
        let keys: Value = call(url, Method::GET, "/keys", Some(&self.a.device_token), None)
            .await
            .json()
            .await
            .unwrap();
        let epoch = keys["encryptionKeys"].as_array().unwrap().len() as u32 + 1;
        let key = fixtures::random_bytes::<32>();
        let cert = fixtures::placeholder_certificate(&CertificateBody::EncryptionKey {
            account_id: self.a.account_id.clone(),
            epoch,
            key_id: herald_crypto::key_id_x25519(&key),
            public_key: b64_encode(&key),
            created_at: "2026-01-01T00:00:00.000Z".into(),
        });
        json!({"encryptionKey": cert, "bundles": bundles})
    }

    pub async fn run_device(&self, route: DeviceRoute, caller: Caller) -> (u16, Option<Response>) {
        let url = &self.relay.url;
        let bearer = self.bearer(caller);
        let resp = match route {
            DeviceRoute::BackupByKeyId => {
                let real = herald_testkit::real::create_account(url).await;
                let id = real.recovery.recipient().key_id;
                call(
                    url,
                    Method::GET,
                    &format!("/keys/backup/{id}"),
                    bearer,
                    None,
                )
                .await
            }
            DeviceRoute::EnrolDevice => {
                let real = herald_testkit::real::create_account(url).await;
                let (_, _, cert) = real.certify_new_device("Enrolled");
                call(
                    url,
                    Method::POST,
                    "/keys/devices",
                    bearer,
                    Some(json!({"certificate": cert})),
                )
                .await
            }
            DeviceRoute::ListDevices => call(url, Method::GET, "/keys/devices", bearer, None).await,
            DeviceRoute::RevokeDevice => {
                let target = self.second_device_of_a().await;
                let body = self.rotation_of_a(&target).await;
                call(
                    url,
                    Method::DELETE,
                    &format!("/keys/devices/{target}"),
                    bearer,
                    Some(body),
                )
                .await
            }
            DeviceRoute::DeviceBundle => call(url, Method::GET, "/keys/bundle", bearer, None).await,
            DeviceRoute::CreatePairing => {
                let id = PairingId::from_random(&fixtures::random_bytes());
                let body = json!({
                    "id": id, "name": "New laptop", "platform": "linux",
                    "signingKey": b64_encode(&SIGNING_KEY), "encryptionKey": b64_encode(&ENCRYPTION_KEY),
                    "spakeMessage": b64_encode(&[3u8; 33]),
                });
                call(url, Method::POST, "/keys/pairings", bearer, Some(body)).await
            }
            DeviceRoute::ListPairings => {
                call(url, Method::GET, "/keys/pairings", bearer, None).await
            }
            DeviceRoute::GetPairing => {
                let id = self.answered_pairing(false).await;
                call(
                    url,
                    Method::GET,
                    &format!("/keys/pairings/{id}"),
                    bearer,
                    None,
                )
                .await
            }
            DeviceRoute::PairingResponse => {
                let (id, _) = pairing(url).await;
                let body = json!({"spakeMessage": b64_encode(&[4u8; 33]), "confirmation": b64_encode(&[5u8; 32])});
                call(
                    url,
                    Method::POST,
                    &format!("/keys/pairings/{id}/response"),
                    bearer,
                    Some(body),
                )
                .await
            }
            DeviceRoute::PairingConfirmation => {
                let id = self.answered_pairing(false).await;
                let body = json!({"confirmation": b64_encode(&[6u8; 32])});
                call(
                    url,
                    Method::POST,
                    &format!("/keys/pairings/{id}/confirmation"),
                    bearer,
                    Some(body),
                )
                .await
            }
            DeviceRoute::PairingFailed => {
                let id = self.answered_pairing(false).await;
                call(
                    url,
                    Method::POST,
                    &format!("/keys/pairings/{id}/failed"),
                    bearer,
                    None,
                )
                .await
            }
            DeviceRoute::PairingComplete => {
                let id = self.answered_pairing(true).await;
                let body =
                    json!({"certificate": self.paired_certificate(), "sealedBundle": "AAAA"});
                call(
                    url,
                    Method::POST,
                    &format!("/keys/pairings/{id}/complete"),
                    bearer,
                    Some(body),
                )
                .await
            }
            DeviceRoute::Reset => {
                // Account A must survive the matrix: "a device" here is a fresh account's.
                let fresh;
                let bearer = if caller == Caller::Device {
                    fresh = herald_testkit::real::create_account(url).await;
                    Some(fresh.device_token.as_str())
                } else {
                    bearer
                };
                let (req, _, _) = fixtures::account_request("Reset device");
                let key = fixtures::random_bytes::<32>();
                let mut body = serde_json::to_value(&req).unwrap();
                body["backup"] = json!({
                    "recoveryKeyId": herald_crypto::key_id_x25519(&key),
                    "recoveryPublicKey": b64_encode(&key),
                    "sealedBundle": b64_encode(b"opaque"),
                });
                call(url, Method::POST, "/keys/reset", bearer, Some(body)).await
            }
        };
        (resp.status().as_u16(), Some(resp))
    }
}
