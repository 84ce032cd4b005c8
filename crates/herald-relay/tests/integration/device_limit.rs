//! The device limit (docs/devices.md, "How many devices"): an account holds at most
//! `MAX_DEVICES` (100) live devices. Enrolment with the recovery key, a pairing response and a
//! pairing completion are refused with `409 device_limit_reached` at that count, and accepted
//! again once a device is revoked. Real relay, real keys (herald-testkit `real`).

use crate::common;
use crate::device_common;

use common::*;
use device_common::*;
use herald_protocol::devices::{EnrolDeviceResponse, MAX_DEVICES};
use herald_protocol::{DeviceId, ErrorCode, PairingId};
use herald_testkit::real::{self, RealAccount, CREATED_AT};
use herald_testkit::TestRelay;
use reqwest::Method;
use serde_json::json;

async fn respond(url: &str, a: &RealAccount, id: &PairingId) -> reqwest::Response {
    call(
        url,
        Method::POST,
        &format!("/keys/pairings/{id}/response"),
        Some(&a.device_token),
        Some(response_body()),
    )
    .await
}

async fn complete(url: &str, a: &RealAccount, id: &PairingId) -> reqwest::Response {
    let device_id = herald_crypto::new_device_id();
    let public = herald_crypto::DevicePublic::from_keys([1u8; 32], [2u8; 32]);
    let cert = a
        .keys
        .certify_device(&device_id, "New laptop", "linux", &public, CREATED_AT);
    call(
        url,
        Method::POST,
        &format!("/keys/pairings/{id}/complete"),
        Some(&a.device_token),
        Some(json!({"certificate": cert, "sealedBundle": "AAAA"})),
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
    assert_eq!(
        respond(url, &a, &early).await.status().as_u16(),
        204,
        "answered"
    );
    let resp = confirm(url, &early, &created.poll_token).await;
    assert_eq!(resp.status().as_u16(), 204, "confirmed by the new device");
    // And one still waiting for its response.
    let (late, _) = new_pairing(url).await;

    // Fill the account: its first device plus MAX_DEVICES - 1 enrolled ones.
    let mut others: Vec<(DeviceId, herald_crypto::Recipient)> = Vec::new();
    for _ in 1..MAX_DEVICES {
        let (resp, keys) = try_enrol(url, &a, "Spare").await;
        assert_eq!(resp.status().as_u16(), 201, "enrolled below the limit");
        let enrolled: EnrolDeviceResponse = resp.json().await.unwrap();
        others.push((enrolled.device_id, keys.recipient()));
    }

    let (resp, _) = try_enrol(url, &a, "Spare").await;
    let body = expect_error(
        resp,
        ErrorCode::DeviceLimitReached,
        "enrolment past the limit",
    )
    .await;
    assert!(
        body.message.contains("revoke"),
        "the message says what to do: {}",
        body.message
    );
    expect_error(
        respond(url, &a, &late).await,
        ErrorCode::DeviceLimitReached,
        "a pairing response past the limit (refused before anyone types a code in vain)",
    )
    .await;
    expect_error(
        complete(url, &a, &early).await,
        ErrorCode::DeviceLimitReached,
        "a pairing completion past the limit",
    )
    .await;

    // Revoking a device makes room for exactly one more.
    let (target, _) = others.remove(0);
    let mut remaining = others.clone();
    remaining.push((a.device_id.clone(), a.device_keys.recipient()));
    let mut rotated = a.keys.clone();
    rotated.rotate_encryption_key();
    let body = rotation(&a, &rotated, &remaining);
    let resp = call(
        url,
        Method::DELETE,
        &format!("/keys/devices/{target}"),
        Some(&a.device_token),
        Some(body),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 204, "a device revoked");
    assert_eq!(
        complete(url, &a, &early).await.status().as_u16(),
        201,
        "the waiting pairing completes once there is room"
    );
    let (resp, _) = try_enrol(url, &a, "Spare").await;
    expect_error(
        resp,
        ErrorCode::DeviceLimitReached,
        "full again: revoked devices do not count, new ones do",
    )
    .await;
    relay.shutdown().await;
}
