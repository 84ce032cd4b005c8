//! The device limit (docs/devices.md, "How many devices"): an account holds at most
//! `MAX_DEVICES` (100) live devices. Enrolment with the recovery key, a pairing response and a
//! pairing completion are refused with `409 device_limit_reached` at that count, and accepted
//! again once a device is revoked. Real relay, real keys (herald-testkit `real`).

use crate::device_common;

use device_common::*;
use herald_protocol::devices::{EnrolDeviceResponse, MAX_DEVICES};
use herald_protocol::{DeviceId, ErrorCode, PairingId};
use herald_testkit::real::{self, RealAccount, CREATED_AT};
use herald_testkit::{Api, Reply, TestRelay};
use reqwest::Method;
use serde_json::json;

/// `a`'s device answers pairing `id` (`POST /keys/pairings/{id}/response`).
async fn respond(url: &str, a: &RealAccount, id: &PairingId) -> Reply {
    Api::new(url)
        .bearer(&a.device_token)
        .post(&format!("/keys/pairings/{id}/response"), &response_body())
        .await
}

/// `a`'s device completes pairing `id` with a certificate for the fixed keys of
/// [`pairing_body`] (`POST /keys/pairings/{id}/complete`).
async fn complete(url: &str, a: &RealAccount, id: &PairingId) -> Reply {
    let device_id = herald_crypto::new_device_id();
    let public = herald_crypto::DevicePublic::from_keys([1u8; 32], [2u8; 32]);
    let cert = a
        .keys
        .certify_device(&device_id, "New laptop", "linux", &public, CREATED_AT);
    Api::new(url)
        .bearer(&a.device_token)
        .post(
            &format!("/keys/pairings/{id}/complete"),
            &json!({"certificate": cert, "sealedBundle": "AAAA"}),
        )
        .await
}

#[tokio::test]
async fn an_account_holds_at_most_max_devices_until_one_is_revoked() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;

    // A pairing answered and confirmed while there was room: only its completion is left.
    let (early, created) = new_pairing(url).await;
    respond(url, &a, &early)
        .await
        .expect_status(204, "answered");
    confirm(url, &early, &created.poll_token)
        .await
        .expect_status(204, "confirmed by the new device");
    // And one still waiting for its response.
    let (late, _) = new_pairing(url).await;

    // Fill the account: its first device plus MAX_DEVICES - 1 enrolled ones.
    let mut others: Vec<(DeviceId, herald_crypto::Recipient)> = Vec::new();
    for _ in 1..MAX_DEVICES {
        let (reply, keys) = try_enrol(url, &a, "Spare").await;
        let enrolled: EnrolDeviceResponse = reply.ok(201, "enrolled below the limit");
        others.push((enrolled.device_id, keys.recipient()));
    }

    let (reply, _) = try_enrol(url, &a, "Spare").await;
    let body = reply.error(ErrorCode::DeviceLimitReached, "enrolment past the limit");
    assert!(
        body.message.contains("revoke"),
        "the message says what to do: {}",
        body.message
    );
    respond(url, &a, &late).await.error(
        ErrorCode::DeviceLimitReached,
        "a pairing response past the limit (refused before anyone types a code in vain)",
    );
    complete(url, &a, &early).await.error(
        ErrorCode::DeviceLimitReached,
        "a pairing completion past the limit",
    );

    // Revoking a device makes room for exactly one more.
    let (target, _) = others.remove(0);
    let mut remaining = others.clone();
    remaining.push((a.device_id.clone(), a.device_keys.recipient()));
    let mut rotated = a.keys.clone();
    rotated.rotate_encryption_key();
    let body = rotation(&a, &rotated, &remaining);
    relay
        .api()
        .bearer(&a.device_token)
        .send(
            Method::DELETE,
            &format!("/keys/devices/{target}"),
            Some(&body),
        )
        .await
        .expect_status(204, "a device revoked");
    complete(url, &a, &early)
        .await
        .expect_status(201, "the waiting pairing completes once there is room");
    let (reply, _) = try_enrol(url, &a, "Spare").await;
    reply.error(
        ErrorCode::DeviceLimitReached,
        "full again: revoked devices do not count, new ones do",
    );
    relay.shutdown().await;
}
