//! Rows of the device routes (docs/devices.md): recovery lookup, enrolment, the device list,
//! revocation with rotation, bundles, reset, and typed-code pairing.

use herald_crypto::DeviceKeys;
use herald_protocol::envelope::b64_encode;
use reqwest::Method;
use serde_json::json;

use super::cells::{ok, Cred, Expect, F, N};
use super::inbox::{account_body, backup};
use super::rows::{scenario, Row};
use super::world::{enrol, Pairing, Reply, World};

pub fn rows() -> Vec<Row> {
    vec![
        Row::new(
            "GET",
            "/keys/backup/{recovery_key_id}",
            "A's backup by its recovery key id (sealed to the recovery key)",
            Expect::public(ok(200)),
            scenario!(backup_by_key_id),
        )
        .public_data(),
        Row::new(
            "POST",
            "/keys/devices",
            "a device certified by its account's identity key",
            Expect::public(ok(201)),
            scenario!(enrol_device),
        ),
        Row::new(
            "GET",
            "/keys/devices",
            "the caller's account's devices",
            Expect::device(ok(200), ok(200)),
            scenario!(list_devices),
        ),
        Row::new(
            "DELETE",
            "/keys/devices/{id}",
            "a device of A, with the caller's account's rotation",
            Expect::device(ok(204), N),
            scenario!(revoke_device),
        ),
        Row::new(
            "GET",
            "/keys/bundle",
            "the bundle sealed to the calling device",
            Expect::device(ok(200), ok(200)),
            scenario!(bundle),
        ),
        Row::new(
            "POST",
            "/keys/reset",
            "the caller's account replaced by a new one (runs last)",
            Expect::device(ok(201), ok(201)),
            scenario!(reset),
        )
        .last(&[Cred::OtherDevice, Cred::Device]),
        Row::new(
            "POST",
            "/keys/pairings",
            "a new pairing request",
            Expect::public(ok(201)),
            scenario!(create_pairing),
        ),
        Row::new(
            "GET",
            "/keys/pairings",
            "pending pairing requests (unclaimed ones belong to no account)",
            Expect::device(ok(200), ok(200)),
            scenario!(list_pairings),
        ),
        Row::new(
            "GET",
            "/keys/pairings/{id}",
            "a pairing request A's device answered",
            Expect::device(ok(200), N).with(Cred::PollToken, ok(200)),
            scenario!(get_pairing),
        ),
        Row::new(
            "POST",
            "/keys/pairings/{id}/response",
            "the one response to an unclaimed pairing request",
            Expect::device(ok(204), ok(204)),
            scenario!(respond),
        ),
        Row::new(
            "POST",
            "/keys/pairings/{id}/confirmation",
            "the new device's confirmation of A's answered pairing",
            Expect::device(F, F).with(Cred::PollToken, ok(204)),
            scenario!(confirm),
        ),
        Row::new(
            "POST",
            "/keys/pairings/{id}/failed",
            "burning a pairing A's device answered",
            Expect::device(ok(204), N).with(Cred::PollToken, ok(204)),
            scenario!(fail),
        ),
        Row::new(
            "POST",
            "/keys/pairings/{id}/complete",
            "registering the device of A's confirmed pairing",
            Expect::device(ok(201), N),
            scenario!(complete),
        ),
    ]
}

/// The bearer of `c` on the pairing `poll` names: the poll token column sends that pairing's
/// own token.
fn pairing_bearer<'a>(w: &'a World, c: Cred, poll: &'a str) -> Option<&'a str> {
    match c {
        Cred::PollToken => Some(poll),
        c => w.bearer(c),
    }
}

async fn backup_by_key_id(w: &World, c: Cred) -> Reply {
    let path = format!("/keys/backup/{}", w.a.recovery.recipient().key_id);
    w.send(Method::GET, &path, w.bearer(c)).await
}

/// Into a fresh account of its own (A stays as it is).
async fn enrol_device(w: &World, c: Cred) -> Reply {
    let fresh = herald_testkit::real::create_account(&w.relay.url).await;
    let (_, _, cert) = fresh.certify_new_device("Enrolled");
    w.send_json(
        Method::POST,
        "/keys/devices",
        w.bearer(c),
        json!({ "certificate": cert }),
    )
    .await
}

async fn list_devices(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/keys/devices", w.bearer(c)).await
}

/// A fresh device of A; the body is the rotation of the caller's party (B: B's own).
async fn revoke_device(w: &World, c: Cred) -> Reply {
    let (target, _) = enrol(&w.relay.url, &w.client, &w.a, "Doomed").await;
    let party = w.party(c);
    let (body, rotated) = w.rotation(party, &target).await;
    let reply = w
        .send_json(
            Method::DELETE,
            &format!("/keys/devices/{target}"),
            w.bearer(c),
            body,
        )
        .await;
    if reply.status == 204 {
        *party.keys.lock().expect("keys") = rotated;
    }
    reply
}

async fn bundle(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/keys/bundle", w.bearer(c)).await
}

async fn reset(w: &World, c: Cred) -> Reply {
    let (req, keys) = account_body();
    let mut body = serde_json::to_value(req).expect("a body");
    body["backup"] = backup(&herald_crypto::RecoveryKey::generate(), &keys);
    w.send_json(Method::POST, "/keys/reset", w.bearer(c), body)
        .await
}

async fn create_pairing(w: &World, c: Cred) -> Reply {
    let keys = DeviceKeys::generate().public();
    let id = herald_protocol::PairingId::from_random(&herald_testkit::fixtures::random_bytes());
    let body = json!({
        "id": id, "name": "New laptop", "platform": "linux",
        "signingKey": b64_encode(&keys.signing_key),
        "encryptionKey": b64_encode(&keys.encryption_key),
        "spakeMessage": b64_encode(&[3u8; 33]),
    });
    w.send_json(Method::POST, "/keys/pairings", w.bearer(c), body)
        .await
}

async fn list_pairings(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/keys/pairings", w.bearer(c)).await
}

async fn answered(w: &World) -> &Pairing {
    w.shared
        .answered_pairing
        .get_or_init(|| w.answered_pairing(false))
        .await
}

async fn get_pairing(w: &World, c: Cred) -> Reply {
    let p = answered(w).await;
    let path = format!("/keys/pairings/{}", p.id);
    w.send(Method::GET, &path, pairing_bearer(w, c, &p.poll))
        .await
}

/// Devices the call may let through answer a fresh request; the others share one.
async fn respond(w: &World, c: Cred) -> Reply {
    let fresh;
    let p = if matches!(c, Cred::Device | Cred::OtherDevice) {
        fresh = w.pairing().await;
        &fresh
    } else {
        w.shared.unclaimed_pairing.get_or_init(|| w.pairing()).await
    };
    let (id, poll) = (&p.id, &p.poll);
    let body =
        json!({"spakeMessage": b64_encode(&[4u8; 33]), "confirmation": b64_encode(&[5u8; 32])});
    let path = format!("/keys/pairings/{id}/response");
    w.send_json(Method::POST, &path, pairing_bearer(w, c, poll), body)
        .await
}

async fn confirm(w: &World, c: Cred) -> Reply {
    let fresh;
    let p = if c == Cred::PollToken {
        fresh = w.answered_pairing(false).await;
        &fresh
    } else {
        answered(w).await
    };
    let (id, poll) = (&p.id, &p.poll);
    let body = json!({"confirmation": b64_encode(&[6u8; 32])});
    let path = format!("/keys/pairings/{id}/confirmation");
    w.send_json(Method::POST, &path, pairing_bearer(w, c, poll), body)
        .await
}

async fn fail(w: &World, c: Cred) -> Reply {
    let fresh;
    let p = if matches!(c, Cred::Device | Cred::PollToken) {
        fresh = w.answered_pairing(false).await;
        &fresh
    } else {
        answered(w).await
    };
    let (id, poll) = (&p.id, &p.poll);
    let path = format!("/keys/pairings/{id}/failed");
    w.send(Method::POST, &path, pairing_bearer(w, c, poll))
        .await
}

/// The caller's party certifies the pairing's keys as its new device.
async fn complete(w: &World, c: Cred) -> Reply {
    let fresh;
    let p = if c == Cred::Device {
        fresh = w.answered_pairing(true).await;
        &fresh
    } else {
        w.shared
            .confirmed_pairing
            .get_or_init(|| w.answered_pairing(true))
            .await
    };
    let (id, poll) = (&p.id, &p.poll);
    let body = w.completion(w.party(c), p);
    let path = format!("/keys/pairings/{id}/complete");
    w.send_json(Method::POST, &path, pairing_bearer(w, c, poll), body)
        .await
}
