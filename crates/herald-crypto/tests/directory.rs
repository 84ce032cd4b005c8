//! Directory::verify: the pin, the statement, and every certificate's AIK signature.

mod common;

use common::{Account, NOW};
use herald_crypto::{
    account_id_for, verify_certificate, AccountKeys, CertificateBody, ConnectionToken, Directory,
    Error, Principal,
};
use herald_protocol::envelope::b64_encode;

#[test]
fn honest_response_verifies_with_device_and_connection_pins() {
    let account = Account::new();
    let response = account.keys_response();
    let full = Directory::verify(&response, &account.keys.fingerprint()).expect("full pin");
    let token = ConnectionToken::new(
        "hdr_abc",
        account.connection_seed,
        &account.keys.fingerprint(),
    );
    let prefix = Directory::verify(&response, &token.fingerprint_prefix).expect("16-byte pin");
    for d in [&full, &prefix] {
        assert_eq!(d.account_id(), &account.keys.account_id(), "account id");
        assert_eq!(d.identity_public(), account.keys.identity_public(), "AIK");
        assert_eq!(d.fingerprint(), account.keys.fingerprint(), "fingerprint");
        assert_eq!(
            d.current_account_recipient(),
            account.keys.current_recipient(),
            "current AEK"
        );
        assert_eq!(
            d.safety_code(),
            account.keys.safety_code(),
            "same safety code on both sides"
        );
    }
    let conn = full
        .connection(&account.connection_id)
        .expect("connection is listed");
    assert_eq!(conn.name, "build-bot", "certified name");
    assert_eq!(
        conn.recipient,
        account.connection.recipient(),
        "certified encryption key"
    );
    assert_eq!(
        full.connection_for_keys(&token.keys()).map(|c| &c.id),
        Some(&account.connection_id),
        "the CLI finds its own connection id from its token"
    );
    let device = full.device(&account.device_id).expect("device is listed");
    assert_eq!(device.platform, "linux", "certified platform");
    assert_eq!(
        full.signing_key(
            &Principal::Device(account.device_id.clone()),
            &device.signing_key_id
        ),
        Some(account.device.public().signing_key),
        "device signing key by principal and key id"
    );
    assert_eq!(
        full.signing_key(&Principal::Device(account.device_id.clone()), "k_other"),
        None,
        "a different key id is not the certified key"
    );
    assert_eq!(
        full.sender_name(&Principal::Connection(account.connection_id.clone()))
            .as_deref(),
        Some("build-bot"),
        "sender name of the connection"
    );
}

#[test]
fn wrong_pin_fails() {
    let account = Account::new();
    let response = account.keys_response();
    let mut pin = account.keys.fingerprint();
    pin[31] ^= 1;
    assert_eq!(
        Directory::verify(&response, &pin).err(),
        Some(Error::PinMismatch),
        "one changed bit in a full pin must fail"
    );
    pin = account.keys.fingerprint();
    pin[0] ^= 1;
    assert_eq!(
        Directory::verify(&response, &pin[..16]).err(),
        Some(Error::PinMismatch),
        "one changed bit in a token pin must fail"
    );
    let other = AccountKeys::generate();
    assert_eq!(
        Directory::verify(&response, &other.fingerprint()).err(),
        Some(Error::PinMismatch),
        "another account's pin must fail"
    );
    for len in [0, 8, 15, 33] {
        let pin = vec![0u8; len];
        assert!(
            matches!(
                Directory::verify(&response, &pin),
                Err(Error::InvalidInput(_))
            ),
            "a {len}-byte pin is not a pin"
        );
    }
}

#[test]
fn relay_substituting_the_whole_account_is_caught_by_the_pin() {
    let account = Account::new();
    let mallory = Account::new();
    let forged = mallory.keys_response();
    assert_eq!(
        Directory::verify(&forged, &account.keys.fingerprint()[..16]).err(),
        Some(Error::PinMismatch),
        "a self-consistent response for another AIK must fail the pin"
    );
}

#[test]
fn any_bad_certificate_fails_the_response() {
    let account = Account::new();
    let mallory = Account::new();
    let pin = account.keys.fingerprint();
    let honest = account.keys_response();
    let rogue_conn =
        mallory
            .keys
            .certify_connection(&account.connection_id, "evil", &mallory.connection, NOW);
    let rogue_aek = mallory
        .keys
        .encryption_key_certificate(1, NOW)
        .expect("epoch 1");

    let mut cases = Vec::new();
    let mut r = honest.clone();
    r.connections.push(rogue_conn.clone());
    cases.push(("connection signed by another AIK", r));
    let mut r = honest.clone();
    r.connections[0] = rogue_conn;
    cases.push(("connection replaced by another AIK's", r));
    let mut r = honest.clone();
    r.encryption_keys.push(rogue_aek);
    cases.push(("encryption key signed by another AIK", r));
    let mut r = honest.clone();
    r.devices[0].signature = r.connections[0].signature.clone();
    cases.push(("device with a signature of another payload", r));
    let mut r = honest.clone();
    r.devices[0].payload.insert(0, 'e');
    cases.push(("device payload tampered", r));
    let mut r = honest.clone();
    r.devices.push(r.connections[0].clone());
    cases.push(("connection certificate in the device list", r));
    let mut r = honest.clone();
    r.encryption_keys.push(r.statement.clone());
    cases.push(("statement in the encryption key list", r));
    let mut r = honest.clone();
    r.encryption_keys.clear();
    cases.push(("no encryption key", r));
    let mut r = honest.clone();
    r.encryption_keys.push(r.encryption_keys[0].clone());
    cases.push(("repeated epoch", r));
    let mut r = honest.clone();
    r.devices.push(r.devices[0].clone());
    cases.push(("duplicate device", r));
    let mut r = honest.clone();
    r.account_id = mallory.keys.account_id();
    cases.push(("account id of another account", r));
    let mut r = honest.clone();
    r.statement.signature = r.devices[0].signature.clone();
    cases.push(("statement signature", r));
    // A statement signed by the right AIK but claiming another account id.
    let mut r = honest.clone();
    r.statement = account.keys.statement(NOW);
    let mut body = r.statement.body_unverified().expect("statement parses");
    if let CertificateBody::Account { account_id, .. } = &mut body {
        *account_id = mallory.keys.account_id();
    }
    r.statement.payload = b64_encode(&serde_json::to_vec(&body).expect("serializes"));
    cases.push(("statement with another account id", r));

    for (name, response) in cases {
        let result = Directory::verify(&response, &pin);
        assert!(
            matches!(result, Err(Error::Verification(_))),
            "{name}: must fail verification, got {result:?}"
        );
    }
}

#[test]
fn certificates_verify_only_with_their_aik() {
    let account = Account::new();
    let cert = account.keys.statement(NOW);
    let body = verify_certificate(&cert, &account.keys.identity_public()).expect("own AIK");
    assert_eq!(
        body,
        CertificateBody::Account {
            account_id: account_id_for(&account.keys.identity_public()),
            identity_key: b64_encode(&account.keys.identity_public()),
            created_at: NOW.into(),
        },
        "the statement says who the account is"
    );
    let other = AccountKeys::generate();
    assert!(
        matches!(
            verify_certificate(&cert, &other.identity_public()),
            Err(Error::Verification(_))
        ),
        "another AIK must not verify it"
    );
    assert_eq!(
        account.keys.encryption_key_certificate(7, NOW).err(),
        Some(Error::UnknownEpoch(7)),
        "no certificate for an epoch the bundle lacks"
    );
}
