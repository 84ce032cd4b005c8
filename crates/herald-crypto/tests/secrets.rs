//! Secret delivery's cryptography (docs/secrets.md): a secret answer sealed to the asking
//! connection only cannot be opened with the account key; offer keys verify only when the
//! account identity key certified them for this message and a certified device.

mod common;

use common::{Account, NOW};
use herald_crypto::{
    new_device_id, new_message_id, open, seal, verify_offer_key, AccountKeys, Error, OneTimeKey,
    SealParams,
};
use herald_protocol::envelope::EnvelopeKind;

const LATER: &str = "2026-01-01T00:15:00.000Z";

#[test]
fn the_account_key_cannot_open_a_secret_answer() {
    let a = Account::new();
    let directory = a.directory();
    let id = new_message_id();
    let recipients = [a.connection.recipient()];
    let envelope = seal(
        &SealParams {
            kind: EnvelopeKind::SecretAnswer,
            account_id: &a.keys.account_id(),
            message_id: &id,
            created_at: NOW,
            recipients: &recipients,
        },
        br#"{"token":"s3cret"}"#,
        &a.device.signer(&a.device_id),
    )
    .expect("seal");
    let aek = a.keys.encryption_secrets();
    let aek: Vec<_> = aek.iter().collect();
    assert_eq!(
        open(&envelope, &directory, &aek).err(),
        Some(Error::NotRecipient),
        "every AEK epoch is refused"
    );
    let device = a.device.recipient_secret();
    assert_eq!(
        open(&envelope, &directory, &[&device]).err(),
        Some(Error::NotRecipient),
        "the answering device itself cannot read it back"
    );
    let conn = a.connection.recipient_secret();
    let (header, plain) = open(&envelope, &directory, &[&conn]).expect("the connection opens it");
    assert_eq!(header.kind, EnvelopeKind::SecretAnswer, "kind is signed");
    assert_eq!(&plain[..], br#"{"token":"s3cret"}"#, "plaintext");
}

#[test]
fn offer_keys_verify_only_for_this_account_message_and_device() {
    let a = Account::new();
    let directory = a.directory();
    let id = new_message_id();
    let key = OneTimeKey::generate();
    let cert = a
        .keys
        .certify_offer_key(&id, &a.device_id, &key.recipient(), NOW, LATER);
    let verified = verify_offer_key(&cert, &directory, &id).expect("an honest key verifies");
    assert_eq!(verified.recipient, key.recipient(), "the key to seal to");
    assert_eq!(
        verified.expires_at, LATER,
        "its expiry, for the caller's clock"
    );

    let cases = [
        (
            "another message",
            verify_offer_key(&cert, &directory, &new_message_id()),
        ),
        (
            "a key the relay made, signed by another identity key",
            verify_offer_key(
                &AccountKeys::generate().certify_offer_key(
                    &id,
                    &a.device_id,
                    &OneTimeKey::generate().recipient(),
                    NOW,
                    LATER,
                ),
                &directory,
                &id,
            ),
        ),
        (
            "an uncertified device",
            verify_offer_key(
                &a.keys
                    .certify_offer_key(&id, &new_device_id(), &key.recipient(), NOW, LATER),
                &directory,
                &id,
            ),
        ),
        (
            "another certificate type",
            verify_offer_key(&a.keys.statement(NOW), &directory, &id),
        ),
    ];
    for (why, result) in cases {
        assert!(
            matches!(result, Err(Error::Verification(_))),
            "{why} is refused, got {result:?}"
        );
    }
    let mut swapped = cert.clone();
    swapped.payload = a
        .keys
        .certify_offer_key(
            &id,
            &a.device_id,
            &OneTimeKey::generate().recipient(),
            NOW,
            LATER,
        )
        .payload;
    assert!(
        matches!(
            verify_offer_key(&swapped, &directory, &id),
            Err(Error::Verification(_))
        ),
        "a substituted key under the original signature is refused"
    );
}

#[test]
fn one_time_keys_round_trip_and_hide_in_debug() {
    let key = OneTimeKey::generate();
    let bytes = key.to_bytes();
    let back = OneTimeKey::from_bytes(&bytes).expect("parses");
    assert_eq!(
        back.recipient(),
        key.recipient(),
        "same key after a round trip"
    );
    assert!(
        matches!(
            OneTimeKey::from_bytes(&bytes[1..]),
            Err(Error::Malformed(_))
        ),
        "a short key is malformed"
    );
    let shown = format!("{key:?}");
    assert!(
        shown.contains(&key.recipient().key_id),
        "Debug names the key id"
    );
    assert!(
        !shown.contains(&format!("{:?}", &bytes[1..])),
        "Debug never shows the secret"
    );
}
