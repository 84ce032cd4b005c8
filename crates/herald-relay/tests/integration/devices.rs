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
use herald_testkit::{Api, Reply, TestRelay};
use reqwest::Method;
use serde_json::json;

async fn enrol(
    url: &str,
    account: &RealAccount,
    name: &str,
) -> (EnrolDeviceResponse, herald_crypto::DeviceKeys) {
    let (reply, keys) = try_enrol(url, account, name).await;
    (
        reply.ok(201, "enrolment with an AIK-signed certificate"),
        keys,
    )
}

/// `GET /keys` as `token`, expecting 200.
async fn keys(url: &str, token: &str) -> KeysResponse {
    Api::new(url)
        .bearer(token)
        .get("/keys")
        .await
        .ok(200, "GET /keys")
}

#[tokio::test]
async fn the_recovery_backup_is_found_by_key_id_and_a_signed_device_enrols() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let key_id = a.recovery.recipient().key_id;
    let found: RecoveryBundle = relay
        .api()
        .get(&format!("/keys/backup/{key_id}"))
        .await
        .ok(200, "the backup is served without a credential");
    let opened = herald_crypto::open_bundle_with_recovery(
        &b64_decode(&found.sealed_bundle).unwrap(),
        &a.recovery,
    )
    .expect("the recovery key opens what the relay served");
    assert_eq!(opened.account_id(), a.account_id, "the same account");
    let unknown = herald_crypto::RecoveryKey::generate().recipient().key_id;
    relay
        .api()
        .get(&format!("/keys/backup/{unknown}"))
        .await
        .error(ErrorCode::NotFound, "an unknown recovery key id");

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
    let body = relay
        .api()
        .post("/keys/devices", &json!({"certificate": dup}))
        .await
        .error(ErrorCode::InvalidRequest, "a device id that exists");
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
    relay
        .api()
        .post("/keys/devices", &json!({"certificate": forged}))
        .await
        .error(
            ErrorCode::BadSignature,
            "a certificate not signed by the account's AIK",
        );
    let foreign = stranger.certify_device(
        &herald_crypto::new_device_id(),
        "foreign",
        "linux",
        &herald_crypto::DeviceKeys::generate().public(),
        CREATED_AT,
    );
    relay
        .api()
        .post("/keys/devices", &json!({"certificate": foreign}))
        .await
        .error(ErrorCode::NotFound, "an account the relay does not know");
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
    let b_device = relay.api().bearer(&b.device_token);
    let body = b_device.put("/keys/backup", &stolen).await.error(
        ErrorCode::InvalidRequest,
        "another account's recovery key id",
    );
    assert_eq!(
        body.fields,
        vec!["recoveryKeyId".to_string()],
        "names the field"
    );
    let mut wrong = b.backup();
    wrong.recovery_key_id = a.recovery.recipient().key_id;
    b_device
        .put("/keys/backup", &wrong)
        .await
        .error(ErrorCode::InvalidRequest, "a key id that is not the key's");
    relay.shutdown().await;
}

#[tokio::test]
async fn revoking_a_device_rotates_the_key_atomically() {
    let relay = TestRelay::start().await;
    let url = &relay.url;
    let a = real::create_account(url).await;
    let (laptop, _) = enrol(url, &a, "Laptop").await;
    let (phone, phone_keys) = enrol(url, &a, "Phone").await;
    let device = relay.api().bearer(&a.device_token);
    let list: DeviceList = device
        .get("/keys/devices")
        .await
        .ok(200, "the device lists the account's devices");
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

    let revoke = |path: String, body: serde_json::Value| {
        let device = device.clone();
        async move { device.send(Method::DELETE, &path, Some(&body)).await }
    };
    revoke(
        format!("/keys/devices/{}", a.device_id),
        rotation(&a, &rotated, std::slice::from_ref(&ph)),
    )
    .await
    .error(ErrorCode::CannotRevokeSelf, "a device revoking itself");
    revoke(
        path.clone(),
        rotation(&a, &rotated, std::slice::from_ref(&me)),
    )
    .await
    .error(
        ErrorCode::KeysChanged,
        "a bundle missing for a remaining device",
    );
    let mut twice = rotated.clone();
    twice.rotate_encryption_key();
    revoke(
        path.clone(),
        rotation(&a, &twice, &[me.clone(), ph.clone()]),
    )
    .await
    .error(ErrorCode::KeysChanged, "an epoch that skips one");
    assert_eq!(
        keys(url, &laptop.device_token).await.encryption_keys.len(),
        1,
        "nothing changed on refusal"
    );

    revoke(path.clone(), rotation(&a, &rotated, &[me, ph]))
        .await
        .expect_status(204, "revoked and rotated");
    let laptop_device = relay.api().bearer(&laptop.device_token);
    laptop_device.get("/keys").await.error(
        ErrorCode::Unauthorized,
        "the revoked device's session is refused at once",
    );
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
    let b: DeviceBundleResponse = relay
        .api()
        .bearer(&phone.device_token)
        .get("/keys/bundle")
        .await
        .ok(200, "the phone reads its bundle");
    assert_eq!(b.epoch, 2, "the phone's bundle is of epoch 2");
    let opened = open_bundle_for_device(
        &b64_decode(&b.sealed_bundle).unwrap(),
        &phone_keys,
        &phone.device_id,
        &a.keys.identity_public(),
    )
    .unwrap();
    assert_eq!(opened.epochs(), vec![1, 2], "the phone opens both epochs");
    let backup: RecoveryBundle = relay
        .api()
        .get(&format!("/keys/backup/{}", a.recovery.recipient().key_id))
        .await
        .ok(200, "the backup is served without a credential");
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
    let list: DeviceList = device
        .get("/keys/devices")
        .await
        .ok(200, "the device lists the account's devices");
    assert!(
        list.devices
            .iter()
            .any(|d| d.id == laptop.device_id && d.revoked_at.is_some()),
        "listed as revoked"
    );
    revoke(path.clone(), rotation(&a, &twice, &[]))
        .await
        .error(ErrorCode::NotFound, "revoking twice");

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
    relay
        .api()
        .bearer(&conn.bearer)
        .post_message(&herald_testkit::fixtures::new_idempotency_key(), &stale)
        .await
        .error(
            ErrorCode::KeysChanged,
            "a message sealed to the rotated-out key",
        );
    let mut fresh =
        herald_testkit::fixtures::message_request(&a.account_id, conn.principal(), false);
    herald_testkit::fixtures::readdress(&mut fresh.envelope, &rotated.current_recipient().key_id);
    send(url, &conn.bearer, &fresh).await;
    laptop_device
        .get("/keys/bundle")
        .await
        .error(ErrorCode::Unauthorized, "the revoked device gets no bundle");
    relay.shutdown().await;
}

/// `GET /keys/pairings/{id}` as `token` (the poll token, or a device); the reply unchecked.
async fn poll(url: &str, id: &PairingId, token: &str) -> Reply {
    Api::new(url)
        .bearer(token)
        .get(&format!("/keys/pairings/{id}"))
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
    relay
        .api()
        .post("/keys/pairings", &pairing_body(&id))
        .await
        .error(ErrorCode::PairingIdTaken, "the same pairing id twice");

    let a_device = relay.api().bearer(&a.device_token);
    let b_device = relay.api().bearer(&b.device_token);
    let list: PairingList = a_device
        .get("/keys/pairings")
        .await
        .ok(200, "a device lists the pairing requests");
    assert!(
        list.pairings
            .iter()
            .any(|p| p.id == id && p.name == "New laptop"),
        "listed to devices"
    );
    let path = format!("/keys/pairings/{id}");
    relay
        .api()
        .get(&path)
        .await
        .error(ErrorCode::Unauthorized, "polling needs the poll token");
    poll(url, &id, "hdp_not-the-token")
        .await
        .error(ErrorCode::Unauthorized, "a wrong poll token");
    let state: PairingState = poll(url, &id, &created.poll_token)
        .await
        .ok(200, "the new device polls");
    assert_eq!(state.status, PairingStatus::Pending, "pending");

    a_device
        .post(&format!("{path}/response"), &response_body())
        .await
        .expect_status(204, "the first response is accepted");
    b_device
        .post(&format!("{path}/response"), &response_body())
        .await
        .error(
            ErrorCode::PairingClaimed,
            "a second response (one attempt per code)",
        );
    let list: PairingList = a_device
        .get("/keys/pairings")
        .await
        .ok(200, "a device lists the pairing requests");
    assert!(
        list.pairings.iter().all(|p| p.id != id),
        "an answered request leaves the list"
    );
    b_device
        .get(&path)
        .await
        .error(ErrorCode::NotFound, "another account's device sees nothing");

    a_device
        .post(
            &format!("{path}/complete"),
            &json!({"certificate": a.certify_new_device("x").2, "sealedBundle": "AAAA"}),
        )
        .await
        .error(
            ErrorCode::PairingNotReady,
            "completing before the new device confirmed",
        );

    let state: PairingState = poll(url, &id, &created.poll_token)
        .await
        .ok(200, "the new device polls");
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

    confirm(url, &id, &a.device_token)
        .await
        .error(ErrorCode::Forbidden, "only the new device confirms");
    confirm(url, &id, &created.poll_token)
        .await
        .expect_status(204, "the new device confirms");
    let state: PairingState = a_device
        .get(&path)
        .await
        .ok(200, "the approver reads the request");
    assert_eq!(state.status, PairingStatus::Confirmed, "confirmed");
    assert_eq!(
        state.confirmation,
        Some(b64_encode(&[6u8; 32])),
        "the approver reads the confirmation"
    );

    // The certificate must carry the request's keys.
    let (_, other_keys, wrong) = a.certify_new_device("New laptop");
    drop(other_keys);
    a_device
        .post(
            &format!("{path}/complete"),
            &json!({"certificate": wrong, "sealedBundle": "AAAA"}),
        )
        .await
        .error(ErrorCode::InvalidRequest, "a certificate for other keys");
    let device_id = herald_crypto::new_device_id();
    let public = herald_crypto::DevicePublic::from_keys([1u8; 32], [2u8; 32]);
    let cert = a
        .keys
        .certify_device(&device_id, "New laptop", "linux", &public, CREATED_AT);
    a_device
        .post(
            &format!("{path}/complete"),
            &json!({"certificate": cert, "sealedBundle": "AAAA"}),
        )
        .await
        .expect_status(201, "completed");

    let state: PairingState = poll(url, &id, &created.poll_token)
        .await
        .ok(200, "the new device polls");
    assert_eq!(state.status, PairingStatus::Completed, "completed");
    let completion = state.completion.expect("the completion");
    let token = completion
        .device_token
        .expect("the session, on the first poll");
    assert_eq!(completion.device_id, device_id, "for the certified device");
    let again: PairingState = poll(url, &id, &created.poll_token)
        .await
        .ok(200, "the new device polls again");
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
    poll(url, &id, &created.poll_token)
        .await
        .error(ErrorCode::PairingExpired, "polling an expired request");
    let a_device = relay.api().bearer(&a.device_token);
    a_device
        .post(&format!("/keys/pairings/{id}/response"), &response_body())
        .await
        .error(ErrorCode::PairingExpired, "answering an expired request");
    let list: PairingList = a_device
        .get("/keys/pairings")
        .await
        .ok(200, "a device lists the pairing requests");
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
    poll(url, &id, &created.poll_token)
        .await
        .expect_status(401, "its poll token is gone with it");

    let (id, created) = new_pairing(url).await;
    let path = format!("/keys/pairings/{id}");
    a_device
        .post(&format!("{path}/response"), &response_body())
        .await
        .expect_status(204, "answered");
    relay
        .api()
        .bearer(&created.poll_token)
        .post_empty(&format!("{path}/failed"))
        .await
        .expect_status(204, "the new device reports a wrong code");
    let state: PairingState = a_device
        .get(&path)
        .await
        .ok(200, "the approver reads the request");
    assert_eq!(
        state.status,
        PairingStatus::Failed,
        "the approver sees the failure"
    );
    confirm(url, &id, &created.poll_token).await.error(
        ErrorCode::PairingFailed,
        "a burned request takes no confirmation",
    );
    a_device
        .post(&format!("{path}/response"), &response_body())
        .await
        .error(ErrorCode::PairingFailed, "nor another response");
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
    // Files of the account: one carried by a message, one uploaded and never attached.
    let agent = relay.api().bearer(&conn.bearer);
    let mut uploaded = Vec::new();
    for bytes in [b"carried".to_vec(), b"never attached".to_vec()] {
        let reservation: herald_protocol::files::FileReservation = agent
            .post(
                "/files",
                &json!({"name": "encrypted", "type": "application/octet-stream", "size": bytes.len()}),
            )
            .await
            .ok(201, "a reservation");
        agent
            .put_bytes(&format!("/files/{}", reservation.id), bytes)
            .await
            .expect_status(200, "the upload completes");
        uploaded.push(reservation.id);
    }
    let mut req = herald_testkit::fixtures::message_request(&a.account_id, conn.principal(), false);
    req.attachments = vec![uploaded[0].clone()];
    let aek = a.keys.current_recipient().key_id;
    herald_testkit::fixtures::readdress(&mut req.envelope, &aek);
    send(url, &conn.bearer, &req).await;
    let blobs = relay.dir.path().join("files");
    for id in &uploaded {
        assert!(blobs.join(id.as_str()).exists(), "{id}'s bytes are on disk");
    }

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
    relay
        .api()
        .bearer(&conn.bearer)
        .post("/keys/reset", &body)
        .await
        .error(ErrorCode::Forbidden, "a connection cannot reset");
    let created: CreateAccountResponse = relay
        .api()
        .bearer(&a.device_token)
        .post("/keys/reset", &body)
        .await
        .ok(201, "reset");
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
        relay
            .api()
            .bearer(token)
            .get("/keys")
            .await
            .error(ErrorCode::Unauthorized, who);
    }
    let page = feed(
        url,
        &created.device_token,
        herald_protocol::Revision(0),
        None,
    )
    .await;
    assert!(page.records.is_empty(), "the new account starts empty");
    relay
        .api()
        .get(&format!("/keys/backup/{}", a.recovery.recipient().key_id))
        .await
        .error(ErrorCode::NotFound, "the old backup is gone");
    let k = keys(url, &created.device_token).await;
    assert_eq!(k.devices.len(), 1, "one device in the new account");
    // Every file body of the old account is deleted, attached or not (spec: a reset deletes
    // all files).
    for id in &uploaded {
        assert!(
            !blobs.join(id.as_str()).exists(),
            "{id}'s bytes are removed from disk by the reset"
        );
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn failed_unauthenticated_lookups_are_rate_limited() {
    let relay = TestRelay::start_with_manual_clock().await;
    let mut limited = false;
    for _ in 0..=120 {
        let unknown = herald_crypto::RecoveryKey::generate().recipient().key_id;
        let reply = relay.api().get(&format!("/keys/backup/{unknown}")).await;
        if reply.status() == 429 {
            reply.error(ErrorCode::RateLimited, "past the failure budget");
            limited = true;
            break;
        }
        reply.error(ErrorCode::NotFound, "an unknown key id within the budget");
    }
    assert!(
        limited,
        "failed lookups past the client's budget in a minute are refused"
    );
    relay.clock().advance(chrono::TimeDelta::seconds(60));
    let unknown = herald_crypto::RecoveryKey::generate().recipient().key_id;
    relay
        .api()
        .get(&format!("/keys/backup/{unknown}"))
        .await
        .error(ErrorCode::NotFound, "the next minute has a fresh budget");
    relay.shutdown().await;
}
