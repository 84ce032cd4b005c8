//! The device routes against a real relay (docs/devices.md): recovery lookup and enrolment,
//! the device list, revocation with key rotation, per-device bundles, pairing requests (one
//! response, poll token, expiry, failure, one-time session) and Reset. Accounts here have real
//! keys (herald-testkit `real`), since enrolment verifies the AIK's signature.

use crate::common;
use crate::device_common;

use common::*;
use device_common::*;
use herald_crypto::{open_bundle_for_device, AccountKeys};
use herald_protocol::devices::{
    DeviceBundleResponse, DeviceList, EnrolDeviceResponse, PairingList, PairingState,
    PairingStatus, RecoveryBundle,
};
use herald_protocol::envelope::{b64_decode, b64_encode};
use herald_protocol::wire::{CreateAccountResponse, KeysResponse};
use herald_protocol::{ErrorCode, PairingId};
use herald_testkit::real::{self, RealAccount, CREATED_AT};
use herald_testkit::TestRelay;
use reqwest::Method;
use serde_json::json;

async fn enrol(
    url: &str,
    account: &RealAccount,
    name: &str,
) -> (EnrolDeviceResponse, herald_crypto::DeviceKeys) {
    let (resp, keys) = try_enrol(url, account, name).await;
    assert_eq!(
        resp.status().as_u16(),
        201,
        "enrolment with an AIK-signed certificate"
    );
    (resp.json().await.unwrap(), keys)
}

async fn keys(url: &str, token: &str) -> KeysResponse {
    let resp = call(url, Method::GET, "/keys", Some(token), None).await;
    assert_eq!(resp.status().as_u16(), 200, "GET /keys");
    resp.json().await.unwrap()
}

#[tokio::test]
async fn the_recovery_backup_is_found_by_key_id_and_a_signed_device_enrols() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let key_id = a.recovery.recipient().key_id;
    let resp = call(
        url,
        Method::GET,
        &format!("/keys/backup/{key_id}"),
        None,
        None,
    )
    .await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "the backup is served without a credential"
    );
    let found: RecoveryBundle = resp.json().await.unwrap();
    let opened = herald_crypto::open_bundle_with_recovery(
        &b64_decode(&found.sealed_bundle).unwrap(),
        &a.recovery,
    )
    .expect("the recovery key opens what the relay served");
    assert_eq!(opened.account_id(), a.account_id, "the same account");
    let unknown = herald_crypto::RecoveryKey::generate().recipient().key_id;
    let resp = call(
        url,
        Method::GET,
        &format!("/keys/backup/{unknown}"),
        None,
        None,
    )
    .await;
    expect_error(resp, ErrorCode::NotFound, "an unknown recovery key id").await;

    let (enrolled, _) = enrol(url, &a, "Second laptop").await;
    assert_eq!(
        enrolled.account_id, a.account_id,
        "enrolled into the account"
    );
    let k = keys(url, &enrolled.device_token).await;
    assert_eq!(
        k.devices.len(),
        2,
        "the new device's session works and it is listed"
    );

    // The same device id again is refused.
    let (_, keys2, _) = a.certify_new_device("dup");
    let dup = a.keys.certify_device(
        &enrolled.device_id,
        "dup",
        "linux",
        &keys2.public(),
        CREATED_AT,
    );
    let resp = call(
        url,
        Method::POST,
        "/keys/devices",
        None,
        Some(json!({"certificate": dup})),
    )
    .await;
    let body = expect_error(resp, ErrorCode::InvalidRequest, "a device id that exists").await;
    assert_eq!(
        body.fields,
        vec!["certificate.deviceId".to_string()],
        "names the field"
    );

    // A certificate naming this account but signed by another AIK is refused.
    let stranger = AccountKeys::generate();
    let forged = {
        let (id, keys, _) = a.certify_new_device("forged");
        let mut cert = stranger.certify_device(&id, "forged", "linux", &keys.public(), CREATED_AT);
        let honest = a
            .keys
            .certify_device(&id, "forged", "linux", &keys.public(), CREATED_AT);
        cert.payload = honest.payload; // names this account; signature by the stranger
        cert
    };
    let resp = call(
        url,
        Method::POST,
        "/keys/devices",
        None,
        Some(json!({"certificate": forged})),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::BadSignature,
        "a certificate not signed by the account's AIK",
    )
    .await;
    let foreign = stranger.certify_device(
        &herald_crypto::new_device_id(),
        "foreign",
        "linux",
        &herald_crypto::DeviceKeys::generate().public(),
        CREATED_AT,
    );
    let resp = call(
        url,
        Method::POST,
        "/keys/devices",
        None,
        Some(json!({"certificate": foreign})),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::NotFound,
        "an account the relay does not know",
    )
    .await;
    relay.shutdown().await;
}

#[tokio::test]
async fn recovery_key_ids_must_match_their_key_and_are_unique() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let b = real::create_account(url).await;
    let mut stolen = a.backup();
    stolen.sealed_bundle = b64_encode(b"mine now");
    let resp = call(
        url,
        Method::PUT,
        "/keys/backup",
        Some(&b.device_token),
        Some(serde_json::to_value(&stolen).unwrap()),
    )
    .await;
    let body = expect_error(
        resp,
        ErrorCode::InvalidRequest,
        "another account's recovery key id",
    )
    .await;
    assert_eq!(
        body.fields,
        vec!["recoveryKeyId".to_string()],
        "names the field"
    );
    let mut wrong = b.backup();
    wrong.recovery_key_id = a.recovery.recipient().key_id;
    let resp = call(
        url,
        Method::PUT,
        "/keys/backup",
        Some(&b.device_token),
        Some(serde_json::to_value(&wrong).unwrap()),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::InvalidRequest,
        "a key id that is not the key's",
    )
    .await;
    relay.shutdown().await;
}

#[tokio::test]
async fn revoking_a_device_rotates_the_key_atomically() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let (laptop, _) = enrol(url, &a, "Laptop").await;
    let (phone, phone_keys) = enrol(url, &a, "Phone").await;
    let list: DeviceList = call(
        url,
        Method::GET,
        "/keys/devices",
        Some(&a.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(list.devices.len(), 3, "three devices listed");
    assert!(
        list.devices
            .iter()
            .all(|d| d.revoked_at.is_none() && !d.last_seen_at.is_empty()),
        "all live, with last seen"
    );

    let mut rotated = a.keys.clone();
    rotated.rotate_encryption_key();
    let me = (a.device_id.clone(), a.device_keys.recipient());
    let ph = (phone.device_id.clone(), phone_keys.recipient());
    let path = format!("/keys/devices/{}", laptop.device_id);

    let resp = call(
        url,
        Method::DELETE,
        &format!("/keys/devices/{}", a.device_id),
        Some(&a.device_token),
        Some(rotation(&a, &rotated, std::slice::from_ref(&ph))),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::CannotRevokeSelf,
        "a device revoking itself",
    )
    .await;
    let resp = call(
        url,
        Method::DELETE,
        &path,
        Some(&a.device_token),
        Some(rotation(&a, &rotated, std::slice::from_ref(&me))),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::KeysChanged,
        "a bundle missing for a remaining device",
    )
    .await;
    let mut twice = rotated.clone();
    twice.rotate_encryption_key();
    let resp = call(
        url,
        Method::DELETE,
        &path,
        Some(&a.device_token),
        Some(rotation(&a, &twice, &[me.clone(), ph.clone()])),
    )
    .await;
    expect_error(resp, ErrorCode::KeysChanged, "an epoch that skips one").await;
    assert_eq!(
        keys(url, &laptop.device_token).await.encryption_keys.len(),
        1,
        "nothing changed on refusal"
    );

    let resp = call(
        url,
        Method::DELETE,
        &path,
        Some(&a.device_token),
        Some(rotation(&a, &rotated, &[me, ph])),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 204, "revoked and rotated");
    let resp = call(url, Method::GET, "/keys", Some(&laptop.device_token), None).await;
    expect_error(
        resp,
        ErrorCode::Unauthorized,
        "the revoked device's session is refused at once",
    )
    .await;
    let k = keys(url, &phone.device_token).await;
    assert_eq!(k.encryption_keys.len(), 2, "epoch 2 is certified");
    assert_eq!(k.devices.len(), 2, "the revoked device left GET /keys");
    assert_eq!(k.revoked_devices.len(), 1, "and is listed apart as revoked");
    assert!(
        matches!(
            k.revoked_devices[0].certificate.body_unverified(),
            Some(herald_protocol::envelope::CertificateBody::Device { device_id, .. })
                if device_id == laptop.device_id
        ),
        "with its certificate"
    );
    assert!(
        k.revoked_devices[0].revoked_at.ends_with('Z'),
        "and the relay's revocation time: {}",
        k.revoked_devices[0].revoked_at
    );
    let b: DeviceBundleResponse = call(
        url,
        Method::GET,
        "/keys/bundle",
        Some(&phone.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(b.epoch, 2, "the phone's bundle is of epoch 2");
    let opened = open_bundle_for_device(
        &b64_decode(&b.sealed_bundle).unwrap(),
        &phone_keys,
        &phone.device_id,
        &a.keys.identity_public(),
    )
    .unwrap();
    assert_eq!(opened.epochs(), vec![1, 2], "the phone opens both epochs");
    let backup: RecoveryBundle = call(
        url,
        Method::GET,
        &format!("/keys/backup/{}", a.recovery.recipient().key_id),
        None,
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    let recovered = herald_crypto::open_bundle_with_recovery(
        &b64_decode(&backup.sealed_bundle).unwrap(),
        &a.recovery,
    )
    .unwrap();
    assert_eq!(
        recovered.epochs(),
        vec![1, 2],
        "the recovery backup was re-sealed"
    );
    let list: DeviceList = call(
        url,
        Method::GET,
        "/keys/devices",
        Some(&a.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(
        list.devices
            .iter()
            .any(|d| d.id == laptop.device_id && d.revoked_at.is_some()),
        "listed as revoked"
    );
    let resp = call(
        url,
        Method::DELETE,
        &path,
        Some(&a.device_token),
        Some(rotation(&a, &twice, &[])),
    )
    .await;
    expect_error(resp, ErrorCode::NotFound, "revoking twice").await;

    // After the rotation a sender must seal to epoch 2: a device's answer or an agent's
    // message addressed to epoch 1 only is refused, so it reloads the keys.
    let conn = herald_testkit::fixtures::create_connection(
        url,
        &herald_testkit::fixtures::TestAccount {
            account_id: a.account_id.clone(),
            device_id: a.device_id.clone(),
            device_token: a.device_token.clone(),
            device_name: "First device".into(),
        },
        "Agent",
    )
    .await;
    let mut stale =
        herald_testkit::fixtures::message_request(&a.account_id, conn.principal(), false);
    herald_testkit::fixtures::readdress(&mut stale.envelope, &a.keys.current_recipient().key_id);
    let resp = herald_testkit::fixtures::post_message(
        url,
        &conn.bearer,
        &herald_testkit::fixtures::new_idempotency_key(),
        &stale,
    )
    .await;
    expect_error(
        resp,
        ErrorCode::KeysChanged,
        "a message sealed to the rotated-out key",
    )
    .await;
    let mut fresh =
        herald_testkit::fixtures::message_request(&a.account_id, conn.principal(), false);
    herald_testkit::fixtures::readdress(&mut fresh.envelope, &rotated.current_recipient().key_id);
    send(url, &conn.bearer, &fresh).await;
    let resp = call(
        url,
        Method::GET,
        "/keys/bundle",
        Some(&laptop.device_token),
        None,
    )
    .await;
    expect_error(
        resp,
        ErrorCode::Unauthorized,
        "the revoked device gets no bundle",
    )
    .await;
    relay.shutdown().await;
}

async fn poll(url: &str, id: &PairingId, token: &str) -> reqwest::Response {
    call(
        url,
        Method::GET,
        &format!("/keys/pairings/{id}"),
        Some(token),
        None,
    )
    .await
}

#[tokio::test]
async fn a_pairing_takes_one_response_and_hands_the_session_over_once() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let b = real::create_account(url).await;
    let (id, created) = new_pairing(url).await;
    assert!(created.poll_token.starts_with("hdp_"), "a poll token");
    let resp = call(
        url,
        Method::POST,
        "/keys/pairings",
        None,
        Some(pairing_body(&id)),
    )
    .await;
    expect_error(resp, ErrorCode::PairingIdTaken, "the same pairing id twice").await;

    let list: PairingList = call(
        url,
        Method::GET,
        "/keys/pairings",
        Some(&a.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(
        list.pairings
            .iter()
            .any(|p| p.id == id && p.name == "New laptop"),
        "listed to devices"
    );
    let resp = call(
        url,
        Method::GET,
        &format!("/keys/pairings/{id}"),
        None,
        None,
    )
    .await;
    expect_error(
        resp,
        ErrorCode::Unauthorized,
        "polling needs the poll token",
    )
    .await;
    let resp = poll(url, &id, "hdp_not-the-token").await;
    expect_error(resp, ErrorCode::Unauthorized, "a wrong poll token").await;
    let state: PairingState = poll(url, &id, &created.poll_token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(state.status, PairingStatus::Pending, "pending");

    let path = format!("/keys/pairings/{id}");
    let resp = call(
        url,
        Method::POST,
        &format!("{path}/response"),
        Some(&a.device_token),
        Some(response_body()),
    )
    .await;
    assert_eq!(
        resp.status().as_u16(),
        204,
        "the first response is accepted"
    );
    let resp = call(
        url,
        Method::POST,
        &format!("{path}/response"),
        Some(&b.device_token),
        Some(response_body()),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::PairingClaimed,
        "a second response (one attempt per code)",
    )
    .await;
    let list: PairingList = call(
        url,
        Method::GET,
        "/keys/pairings",
        Some(&a.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(
        list.pairings.iter().all(|p| p.id != id),
        "an answered request leaves the list"
    );
    let resp = call(url, Method::GET, &path, Some(&b.device_token), None).await;
    expect_error(
        resp,
        ErrorCode::NotFound,
        "another account's device sees nothing",
    )
    .await;

    let resp = call(
        url,
        Method::POST,
        &format!("{path}/complete"),
        Some(&a.device_token),
        Some(json!({"certificate": a.certify_new_device("x").2, "sealedBundle": "AAAA"})),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::PairingNotReady,
        "completing before the new device confirmed",
    )
    .await;

    let state: PairingState = poll(url, &id, &created.poll_token)
        .await
        .json()
        .await
        .unwrap();
    let approval = state.approval.expect("the new device sees the approval");
    assert_eq!(
        approval.spake_message,
        b64_encode(&[4u8; 33]),
        "the approver's message"
    );
    assert_eq!(
        approval.statement.payload,
        a.keys.statement(CREATED_AT).payload,
        "and the approving account's statement"
    );

    let resp = confirm(url, &id, &a.device_token).await;
    expect_error(resp, ErrorCode::Forbidden, "only the new device confirms").await;
    let resp = confirm(url, &id, &created.poll_token).await;
    assert_eq!(resp.status().as_u16(), 204, "the new device confirms");
    let state: PairingState = call(url, Method::GET, &path, Some(&a.device_token), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(state.status, PairingStatus::Confirmed, "confirmed");
    assert_eq!(
        state.confirmation,
        Some(b64_encode(&[6u8; 32])),
        "the approver reads the confirmation"
    );

    // The certificate must carry the request's keys.
    let (_, other_keys, wrong) = a.certify_new_device("New laptop");
    drop(other_keys);
    let resp = call(
        url,
        Method::POST,
        &format!("{path}/complete"),
        Some(&a.device_token),
        Some(json!({"certificate": wrong, "sealedBundle": "AAAA"})),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::InvalidRequest,
        "a certificate for other keys",
    )
    .await;
    let device_id = herald_crypto::new_device_id();
    let public = herald_crypto::DevicePublic::from_keys([1u8; 32], [2u8; 32]);
    let cert = a
        .keys
        .certify_device(&device_id, "New laptop", "linux", &public, CREATED_AT);
    let resp = call(
        url,
        Method::POST,
        &format!("{path}/complete"),
        Some(&a.device_token),
        Some(json!({"certificate": cert, "sealedBundle": "AAAA"})),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 201, "completed");

    let state: PairingState = poll(url, &id, &created.poll_token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(state.status, PairingStatus::Completed, "completed");
    let completion = state.completion.expect("the completion");
    let token = completion
        .device_token
        .expect("the session, on the first poll");
    assert_eq!(completion.device_id, device_id, "for the certified device");
    let again: PairingState = poll(url, &id, &created.poll_token)
        .await
        .json()
        .await
        .unwrap();
    assert!(
        again
            .completion
            .expect("still completed")
            .device_token
            .is_none(),
        "the session is handed over once"
    );
    assert_eq!(
        keys(url, &token).await.account_id,
        a.account_id,
        "the new session works"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn a_pairing_expires_after_ten_minutes_and_a_failed_one_is_burned() {
    let mut relay = TestRelay::start_with_manual_clock().await;
    // Only this test's explicit sweep calls may delete (their counts are asserted).
    relay.stop_sweeper().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let (id, created) = new_pairing(url).await;
    relay.clock().advance(chrono::TimeDelta::seconds(600));
    let resp = poll(url, &id, &created.poll_token).await;
    expect_error(
        resp,
        ErrorCode::PairingExpired,
        "polling an expired request",
    )
    .await;
    let resp = call(
        url,
        Method::POST,
        &format!("/keys/pairings/{id}/response"),
        Some(&a.device_token),
        Some(response_body()),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::PairingExpired,
        "answering an expired request",
    )
    .await;
    let list: PairingList = call(
        url,
        Method::GET,
        "/keys/pairings",
        Some(&a.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(
        list.pairings.iter().all(|p| p.id != id),
        "expired requests are not listed"
    );
    assert_eq!(
        relay.state.sweep_pairings().await.expect("sweep"),
        0,
        "an expired request is kept an hour, so late polls read pairing_expired"
    );
    relay.clock().advance(chrono::TimeDelta::minutes(61));
    assert_eq!(
        relay.state.sweep_pairings().await.expect("sweep"),
        1,
        "then the sweeper deletes it"
    );
    let resp = poll(url, &id, &created.poll_token).await;
    assert_eq!(
        resp.status().as_u16(),
        401,
        "its poll token is gone with it"
    );

    let (id, created) = new_pairing(url).await;
    let path = format!("/keys/pairings/{id}");
    let resp = call(
        url,
        Method::POST,
        &format!("{path}/response"),
        Some(&a.device_token),
        Some(response_body()),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 204, "answered");
    let resp = call(
        url,
        Method::POST,
        &format!("{path}/failed"),
        Some(&created.poll_token),
        None,
    )
    .await;
    assert_eq!(
        resp.status().as_u16(),
        204,
        "the new device reports a wrong code"
    );
    let state: PairingState = call(url, Method::GET, &path, Some(&a.device_token), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        state.status,
        PairingStatus::Failed,
        "the approver sees the failure"
    );
    let resp = confirm(url, &id, &created.poll_token).await;
    expect_error(
        resp,
        ErrorCode::PairingFailed,
        "a burned request takes no confirmation",
    )
    .await;
    let resp = call(
        url,
        Method::POST,
        &format!("{path}/response"),
        Some(&a.device_token),
        Some(response_body()),
    )
    .await;
    expect_error(resp, ErrorCode::PairingFailed, "nor another response").await;
    relay.shutdown().await;
}

#[tokio::test]
async fn reset_replaces_the_account_and_signs_every_device_out() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let (other, _) = enrol(url, &a, "Other").await;
    let conn = herald_testkit::fixtures::create_connection(
        url,
        &herald_testkit::fixtures::TestAccount {
            account_id: a.account_id.clone(),
            device_id: a.device_id.clone(),
            device_token: a.device_token.clone(),
            device_name: "First device".into(),
        },
        "Agent",
    )
    .await;
    let mut req = herald_testkit::fixtures::message_request(&a.account_id, conn.principal(), false);
    let aek = a.keys.current_recipient().key_id;
    herald_testkit::fixtures::readdress(&mut req.envelope, &aek);
    send(url, &conn.bearer, &req).await;

    let fresh = AccountKeys::generate();
    let device_keys = herald_crypto::DeviceKeys::generate();
    let device_id = herald_crypto::new_device_id();
    let recovery = herald_crypto::RecoveryKey::generate().recipient();
    let body = json!({
        "statement": fresh.statement(CREATED_AT),
        "encryptionKey": fresh.encryption_key_certificate(1, CREATED_AT).unwrap(),
        "device": fresh.certify_device(&device_id, "First device", "linux", &device_keys.public(), CREATED_AT),
        "backup": {
            "recoveryKeyId": recovery.key_id,
            "recoveryPublicKey": b64_encode(&recovery.public_key),
            "sealedBundle": b64_encode(&herald_crypto::seal_bundle_to_recovery(&fresh, &recovery).unwrap()),
        },
    });
    let resp = call(
        url,
        Method::POST,
        "/keys/reset",
        Some(&conn.bearer),
        Some(body.clone()),
    )
    .await;
    expect_error(resp, ErrorCode::Forbidden, "a connection cannot reset").await;
    let resp = call(
        url,
        Method::POST,
        "/keys/reset",
        Some(&a.device_token),
        Some(body),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 201, "reset");
    let created: CreateAccountResponse = resp.json().await.unwrap();
    assert_eq!(
        created.account_id,
        fresh.account_id(),
        "the new account id comes from the new AIK"
    );
    for (token, who) in [
        (&a.device_token, "the resetting device's old session"),
        (&other.device_token, "another device"),
        (&conn.bearer, "a connection"),
    ] {
        let resp = call(url, Method::GET, "/keys", Some(token), None).await;
        expect_error(resp, ErrorCode::Unauthorized, who).await;
    }
    let page = feed(
        url,
        &created.device_token,
        herald_protocol::Revision(0),
        None,
    )
    .await;
    assert!(page.records.is_empty(), "the new account starts empty");
    let resp = call(
        url,
        Method::GET,
        &format!("/keys/backup/{}", a.recovery.recipient().key_id),
        None,
        None,
    )
    .await;
    expect_error(resp, ErrorCode::NotFound, "the old backup is gone").await;
    let k = keys(url, &created.device_token).await;
    assert_eq!(k.devices.len(), 1, "one device in the new account");
    relay.shutdown().await;
}

#[tokio::test]
async fn failed_unauthenticated_lookups_are_rate_limited() {
    let relay = TestRelay::start_with_manual_clock().await;
    let url = &relay.url;
    let mut limited = false;
    for _ in 0..=120 {
        let unknown = herald_crypto::RecoveryKey::generate().recipient().key_id;
        let resp = call(
            url,
            Method::GET,
            &format!("/keys/backup/{unknown}"),
            None,
            None,
        )
        .await;
        if resp.status().as_u16() == 429 {
            expect_error(resp, ErrorCode::RateLimited, "past the failure budget").await;
            limited = true;
            break;
        }
        expect_error(
            resp,
            ErrorCode::NotFound,
            "an unknown key id within the budget",
        )
        .await;
    }
    assert!(
        limited,
        "failed lookups past the client's budget in a minute are refused"
    );
    relay.clock().advance(chrono::TimeDelta::seconds(60));
    let unknown = herald_crypto::RecoveryKey::generate().recipient().key_id;
    let resp = call(
        url,
        Method::GET,
        &format!("/keys/backup/{unknown}"),
        None,
        None,
    )
    .await;
    expect_error(
        resp,
        ErrorCode::NotFound,
        "the next minute has a fresh budget",
    )
    .await;
    relay.shutdown().await;
}
