//! Revoked senders (docs/protocol.md, "Key directory" and "Envelope"): what a revoked device
//! or connection signed in a record the relay stored before the revocation still opens with
//! `open_at`; a record stored after it does not; a bad revoked certificate fails the whole
//! directory.

mod common;

use common::{Account, NOW};
use herald_crypto::{
    new_device_id, new_message_id, open, open_at, seal, DeviceKeys, Directory, Envelope,
    EnvelopeKind, Error, Principal, SealParams, Signer,
};
use herald_protocol::wire::{KeysResponse, RevokedCertificate};

const CONTENT: &[u8] = br#"{"title":"deploy?"}"#;
const REVOKED_AT: &str = "2026-01-02T10:00:00.000Z";
const BEFORE: &str = "2026-01-02T09:59:59.999Z";
const AFTER: &str = "2026-01-02T10:00:00.001Z";

fn sealed(account: &Account, kind: EnvelopeKind, signer: &Signer) -> Envelope {
    let recipients = [
        account.keys.current_recipient(),
        account.connection.recipient(),
    ];
    seal(
        &SealParams {
            kind,
            account_id: &account.keys.account_id(),
            message_id: &new_message_id(),
            created_at: NOW,
            recipients: &recipients,
        },
        CONTENT,
        signer,
    )
    .expect("seals")
}

/// The keys response after the relay revoked the connection at `REVOKED_AT`.
fn connection_revoked(account: &Account) -> KeysResponse {
    let mut keys = account.keys_response();
    let certificate = keys.connections.remove(0);
    keys.revoked_connections.push(RevokedCertificate {
        certificate,
        revoked_at: REVOKED_AT.into(),
    });
    keys
}

/// The keys response after the relay revoked the account's device at `REVOKED_AT`, with a
/// second device still live.
fn device_revoked(account: &Account) -> KeysResponse {
    let mut keys = account.keys_response();
    let certificate = keys.devices.remove(0);
    keys.revoked_devices.push(RevokedCertificate {
        certificate,
        revoked_at: REVOKED_AT.into(),
    });
    let other = DeviceKeys::generate();
    keys.devices.push(account.keys.certify_device(
        &new_device_id(),
        "Phone",
        "ios",
        &other.public(),
        NOW,
    ));
    keys
}

fn open_as_device(
    account: &Account,
    directory: &Directory,
    envelope: &Envelope,
    stored_at: &str,
) -> Result<Vec<u8>, Error> {
    let secrets = account.keys.encryption_secrets();
    let refs: Vec<_> = secrets.iter().collect();
    open_at(envelope, directory, &refs, stored_at).map(|(_, pt)| pt.to_vec())
}

#[test]
fn revoked_connection_verifies_only_what_was_stored_before_the_revocation() {
    let account = Account::new();
    let message = sealed(
        &account,
        EnvelopeKind::Message,
        &account.connection.signer(&account.connection_id),
    );
    let directory = Directory::verify(&connection_revoked(&account), &account.keys.fingerprint())
        .expect("a response with a revoked connection verifies");
    assert!(
        directory.connection(&account.connection_id).is_none(),
        "a revoked connection is not live: nothing may be sealed to it"
    );
    assert_eq!(directory.revoked_connections().len(), 1);
    assert_eq!(
        directory.sender_name(&Principal::Connection(account.connection_id.clone())),
        Some("build-bot".into()),
        "history still shows the revoked sender's certified name"
    );

    for stored_at in [BEFORE, REVOKED_AT, "2026-01-02T12:00:00+02:00"] {
        assert_eq!(
            open_as_device(&account, &directory, &message, stored_at).as_deref(),
            Ok(CONTENT),
            "stored at {stored_at}, not after the revocation: opens"
        );
    }
    for stored_at in [AFTER, "2026-01-02T12:00:01+02:00", "yesterday", ""] {
        assert_eq!(
            open_as_device(&account, &directory, &message, stored_at),
            Err(Error::RevokedSender),
            "stored at {stored_at:?}: refused"
        );
    }
    let secrets = account.keys.encryption_secrets();
    let refs: Vec<_> = secrets.iter().collect();
    assert_eq!(
        open(&message, &directory, &refs).err(),
        Some(Error::UnknownSender),
        "open without a relay time accepts live senders only"
    );
}

#[test]
fn revoked_device_answer_opens_for_the_connection_when_answered_before() {
    let account = Account::new();
    let answer = sealed(
        &account,
        EnvelopeKind::Answer,
        &account.device.signer(&account.device_id),
    );
    let token = herald_crypto::ConnectionToken::new(
        "hdr_abc",
        account.connection_seed,
        &account.keys.fingerprint(),
    );
    let directory = Directory::verify(&device_revoked(&account), &token.fingerprint_prefix)
        .expect("the agent's view verifies");
    assert!(directory.device(&account.device_id).is_none());
    let secret = account.connection.recipient_secret();
    let (header, plain) =
        open_at(&answer, &directory, &[&secret], BEFORE).expect("answered before: opens");
    assert_eq!(&plain[..], CONTENT);
    assert_eq!(header.sender, Principal::Device(account.device_id.clone()));
    assert_eq!(
        open_at(&answer, &directory, &[&secret], AFTER).err(),
        Some(Error::RevokedSender),
        "answered after the revocation: refused"
    );
}

#[test]
fn another_key_under_a_revoked_id_is_unknown() {
    let account = Account::new();
    let rogue = DeviceKeys::generate();
    let forged = sealed(
        &account,
        EnvelopeKind::Answer,
        &rogue.signer(&account.device_id),
    );
    let directory = Directory::verify(&device_revoked(&account), &account.keys.fingerprint())
        .expect("verifies");
    assert_eq!(
        open_as_device(&account, &directory, &forged, BEFORE),
        Err(Error::UnknownSender),
        "only the revoked certificate's own key is accepted"
    );
}

#[test]
fn any_bad_revoked_certificate_fails_the_response() {
    let account = Account::new();
    let mallory = Account::new();
    let pin = account.keys.fingerprint();
    let revoked = device_revoked(&account);
    let mut cases = Vec::new();

    let mut r = revoked.clone();
    r.revoked_devices[0].certificate.payload.insert(0, 'e');
    cases.push(("revoked device payload tampered", r));
    let mut r = revoked.clone();
    r.revoked_devices[0].certificate.signature = r.connections[0].signature.clone();
    cases.push(("revoked device with another payload's signature", r));
    let mut r = revoked.clone();
    r.revoked_devices[0].certificate = mallory.keys.certify_device(
        &account.device_id,
        "Laptop",
        "linux",
        &mallory.device.public(),
        NOW,
    );
    cases.push(("revoked device signed by another AIK", r));
    let mut r = revoked.clone();
    r.revoked_devices[0].revoked_at = "soon".into();
    cases.push(("revocation time not RFC 3339", r));
    let mut r = revoked.clone();
    let live = r.devices[0].clone();
    r.revoked_devices.push(RevokedCertificate {
        certificate: live,
        revoked_at: REVOKED_AT.into(),
    });
    cases.push(("a device both live and revoked", r));
    let mut r = revoked.clone();
    let conn = r.connections[0].clone();
    r.revoked_devices.push(RevokedCertificate {
        certificate: conn,
        revoked_at: REVOKED_AT.into(),
    });
    cases.push(("connection certificate in the revoked device list", r));
    let mut r = connection_revoked(&account);
    r.revoked_connections[0].certificate.payload.insert(0, 'e');
    cases.push(("revoked connection payload tampered", r));
    let mut r = connection_revoked(&account);
    r.revoked_connections[0].certificate =
        mallory
            .keys
            .certify_connection(&account.connection_id, "evil", &mallory.connection, NOW);
    cases.push(("revoked connection signed by another AIK", r));

    for (name, response) in cases {
        let result = Directory::verify(&response, &pin);
        assert!(
            matches!(result, Err(Error::Verification(_))),
            "{name}: must fail verification, got {result:?}"
        );
    }
}

#[test]
fn the_revoked_lists_are_additive_on_the_wire() {
    let account = Account::new();
    let plain = account.keys_response();
    let json = serde_json::to_value(&plain).expect("serializes");
    assert!(
        json.get("revokedDevices").is_none() && json.get("revokedConnections").is_none(),
        "empty lists are left out, as before"
    );
    let back: KeysResponse = serde_json::from_value(json).expect("an older relay's body parses");
    assert_eq!(back, plain);

    let json = serde_json::to_value(connection_revoked(&account)).expect("serializes");
    assert_eq!(json["revokedConnections"][0]["revokedAt"], REVOKED_AT);
    assert!(json["revokedConnections"][0]["certificate"]["payload"].is_string());
}
