//! Envelopes: round trips, every part tampered, non-recipients, uncertified senders.

mod common;

use common::{Account, NOW};
use herald_crypto::{
    new_connection_id, new_message_id, open, random_bytes, seal, ConnectionKeys, Envelope,
    EnvelopeKind, Error, MessageId, Principal, SealParams, Signer,
};
use herald_protocol::envelope::{b64_decode, b64_encode, EnvelopeHeader};

const CONTENT: &[u8] = br#"{"body":"deploy finished","blocks":[]}"#;

/// A message from the account's connection to the AEK and the connection itself.
fn message(account: &Account, message_id: &MessageId) -> Envelope {
    let recipients = [
        account.keys.current_recipient(),
        account.connection.recipient(),
    ];
    let params = SealParams {
        kind: EnvelopeKind::Message,
        account_id: &account.keys.account_id(),
        message_id,
        created_at: NOW,
        recipients: &recipients,
    };
    seal(
        &params,
        CONTENT,
        &account.connection.signer(&account.connection_id),
    )
    .expect("sealing to certified recipients works")
}

/// Opens as the account's device (every AEK epoch).
fn open_as_device(account: &Account, envelope: &Envelope) -> Result<Vec<u8>, Error> {
    let secrets = account.keys.encryption_secrets();
    let refs: Vec<_> = secrets.iter().collect();
    open(envelope, &account.directory(), &refs).map(|(_, pt)| pt.to_vec())
}

fn flip_b64(s: &str) -> String {
    let mut bytes = b64_decode(s).expect("field is base64url");
    bytes[0] ^= 0x01;
    b64_encode(&bytes)
}

#[test]
fn round_trip_to_aek_and_connection() {
    let account = Account::new();
    let id = new_message_id();
    let envelope = message(&account, &id);

    let secret = account
        .keys
        .encryption_secret(&account.keys.current_recipient().key_id);
    let secret = secret.expect("the current AEK secret is found by its key id");
    let (header, pt) =
        open(&envelope, &account.directory(), &[&secret]).expect("the AEK opens the message");
    assert_eq!(
        &pt[..],
        CONTENT,
        "the device reads what the connection wrote"
    );
    assert_eq!(header.message_id, id, "header binds the message id");
    assert_eq!(
        header.sender,
        Principal::Connection(account.connection_id.clone()),
        "header names the connection as sender"
    );
    assert_eq!(header.kind, EnvelopeKind::Message, "header binds the kind");
    assert_eq!(
        header,
        envelope.header_unverified().expect("header parses"),
        "open returns the header that travelled"
    );

    let conn_secret = account.connection.recipient_secret();
    let (_, pt) = open(&envelope, &account.directory(), &[&conn_secret])
        .expect("the connection opens its own message");
    assert_eq!(&pt[..], CONTENT, "the connection reads it too");
}

#[test]
fn answer_from_device_round_trip_and_secret_answer_is_not_openable_with_aek() {
    let account = Account::new();
    let id = new_message_id();
    let device_signer = account.device.signer(&account.device_id);
    let answer_to = [account.connection.recipient()];
    let params = SealParams {
        kind: EnvelopeKind::Answer,
        account_id: &account.keys.account_id(),
        message_id: &id,
        created_at: NOW,
        recipients: &answer_to,
    };
    let secret_answer = seal(&params, b"{\"secret\":\"hunter2\"}", &device_signer)
        .expect("a device can answer to one connection");

    // The connection verifies with the pinned 16-byte prefix, as the CLI does.
    let pinned = herald_crypto::Directory::verify(
        &account.keys_response(),
        &account.keys.fingerprint()[..16],
    )
    .expect("the CLI's directory verifies");
    let (header, pt) = open(
        &secret_answer,
        &pinned,
        &[&account.connection.recipient_secret()],
    )
    .expect("the asking connection opens the answer");
    assert_eq!(&pt[..], b"{\"secret\":\"hunter2\"}", "answer content");
    assert_eq!(header.kind, EnvelopeKind::Answer, "kind answer");
    assert_eq!(
        pinned.sender_name(&header.sender).as_deref(),
        Some("Laptop"),
        "the sender's certified name"
    );

    assert_eq!(
        open_as_device(&account, &secret_answer),
        Err(Error::NotRecipient),
        "a secret answer must not open with the AEK"
    );
}

#[test]
fn non_recipient_cannot_open() {
    let account = Account::new();
    let id = new_message_id();
    let to_aek_only = [account.keys.current_recipient()];
    let params = SealParams {
        kind: EnvelopeKind::Message,
        account_id: &account.keys.account_id(),
        message_id: &id,
        created_at: NOW,
        recipients: &to_aek_only,
    };
    let envelope = seal(&params, CONTENT, &account.device.signer(&account.device_id))
        .expect("seal to the AEK");
    let other = ConnectionKeys::from_seed(&random_bytes());
    for secret in [
        account.connection.recipient_secret(),
        other.recipient_secret(),
        account.device.recipient_secret(),
    ] {
        assert_eq!(
            open(&envelope, &account.directory(), &[&secret]),
            Err(Error::NotRecipient),
            "a key that is not a recipient must not open the envelope"
        );
    }
    assert_eq!(
        open(&envelope, &account.directory(), &[]),
        Err(Error::NotRecipient),
        "no secrets, no plaintext"
    );
}

fn tampered(
    name: &str,
    envelope: &Envelope,
    change: impl FnOnce(&mut Envelope),
) -> (String, Envelope) {
    let mut copy = envelope.clone();
    change(&mut copy);
    assert_ne!(
        &copy, envelope,
        "tamper case {name} must change the envelope"
    );
    (name.to_owned(), copy)
}

#[test]
fn every_tampered_part_is_rejected() {
    let account = Account::new();
    let envelope = message(&account, &new_message_id());
    assert_eq!(
        open_as_device(&account, &envelope).as_deref(),
        Ok(CONTENT),
        "untampered opens"
    );

    let edit_header = |f: fn(&mut EnvelopeHeader)| {
        move |e: &mut Envelope| {
            let mut h = e.header_unverified().expect("header parses");
            f(&mut h);
            e.header = b64_encode(&serde_json::to_vec(&h).expect("header serializes"));
        }
    };
    let mut cases = vec![
        tampered("header bytes", &envelope, |e| {
            e.header = flip_b64(&e.header)
        }),
        tampered(
            "header created_at",
            &envelope,
            edit_header(|h| h.created_at = "2030-01-01T00:00:00Z".into()),
        ),
        tampered(
            "header kind",
            &envelope,
            edit_header(|h| h.kind = EnvelopeKind::Answer),
        ),
        tampered(
            "header message id",
            &envelope,
            edit_header(|h| h.message_id = new_message_id()),
        ),
        tampered(
            "header recipients",
            &envelope,
            edit_header(|h| h.recipients.reverse()),
        ),
        tampered("header version", &envelope, edit_header(|h| h.v = 2)),
        tampered(
            "header suite",
            &envelope,
            edit_header(|h| h.suite.push('x')),
        ),
        tampered("ciphertext", &envelope, |e| {
            e.ciphertext = flip_b64(&e.ciphertext)
        }),
        tampered("ciphertext truncated", &envelope, |e| {
            let mut c = b64_decode(&e.ciphertext).expect("b64");
            c.pop();
            e.ciphertext = b64_encode(&c);
        }),
        tampered("signature", &envelope, |e| {
            e.signature = flip_b64(&e.signature)
        }),
        tampered("signature not base64", &envelope, |e| e.signature.push('!')),
        tampered("recipients swapped", &envelope, |e| e.recipients.swap(0, 1)),
        tampered("recipient dropped", &envelope, |e| {
            e.recipients.pop();
        }),
        tampered("recipient duplicated", &envelope, |e| {
            let first = e.recipients[0].clone();
            e.recipients.push(first);
        }),
    ];
    for i in 0..envelope.recipients.len() {
        cases.push(tampered(&format!("recipient {i} key id"), &envelope, |e| {
            e.recipients[i].key_id = herald_crypto::key_id_x25519(&[9; 32]);
        }));
        cases.push(tampered(&format!("recipient {i} enc"), &envelope, |e| {
            e.recipients[i].enc = flip_b64(&e.recipients[i].enc);
        }));
        cases.push(tampered(&format!("recipient {i} ct"), &envelope, |e| {
            e.recipients[i].ct = flip_b64(&e.recipients[i].ct);
        }));
    }
    for (name, bad) in &cases {
        let result = open_as_device(&account, bad);
        assert!(
            matches!(result, Err(Error::Verification(_))),
            "tampered {name} must fail verification, got {result:?}"
        );
        let result = open(
            bad,
            &account.directory(),
            &[&account.connection.recipient_secret()],
        );
        assert!(
            matches!(result, Err(Error::Verification(_))),
            "tampered {name} must fail verification for the connection too, got {result:?}"
        );
    }

    for (name, bad) in [
        tampered("outer version", &envelope, |e| e.v = 2),
        tampered("outer suite", &envelope, |e| {
            e.suite = "herald.v2.mlkem".into()
        }),
    ] {
        let result = open_as_device(&account, &bad);
        assert!(
            matches!(result, Err(Error::Unsupported(_))),
            "{name} must be refused as unsupported, got {result:?}"
        );
    }
}

#[test]
fn uncertified_signing_key_is_refused() {
    let account = Account::new();
    let id = new_message_id();
    let recipients = [account.keys.current_recipient()];
    let params = SealParams {
        kind: EnvelopeKind::Message,
        account_id: &account.keys.account_id(),
        message_id: &id,
        created_at: NOW,
        recipients: &recipients,
    };
    let rogue = ConnectionKeys::from_seed(&random_bytes());
    let signers: [(&str, Signer); 2] = [
        // A rogue key claiming to be the certified connection.
        (
            "rogue key as certified connection",
            rogue.signer(&account.connection_id),
        ),
        // A rogue connection id the account never certified.
        ("uncertified connection", rogue.signer(&new_connection_id())),
    ];
    for (name, signer) in signers {
        let envelope = seal(&params, CONTENT, &signer).expect("anyone can seal");
        assert_eq!(
            open_as_device(&account, &envelope),
            Err(Error::UnknownSender),
            "{name}: a key not certified by the pinned AIK must be refused"
        );
    }

    // A certified connection of ANOTHER account (its own AIK) is not this account's sender.
    let other = Account::new();
    let envelope = message(&other, &id);
    assert!(
        matches!(
            open_as_device(&account, &envelope),
            Err(Error::Verification(_))
        ),
        "an envelope of another account must be refused"
    );
}

#[test]
fn seal_refuses_bad_recipient_lists() {
    let account = Account::new();
    let id = new_message_id();
    let signer = account.connection.signer(&account.connection_id);
    let aek = account.keys.current_recipient();
    let mut wrong_id = account.connection.recipient();
    wrong_id.key_id = aek.key_id.clone();
    for (name, recipients) in [
        ("empty", vec![]),
        ("duplicate", vec![aek.clone(), aek.clone()]),
        ("key id of another key", vec![aek.clone(), wrong_id]),
    ] {
        let params = SealParams {
            kind: EnvelopeKind::Message,
            account_id: &account.keys.account_id(),
            message_id: &id,
            created_at: NOW,
            recipients: &recipients,
        };
        assert!(
            matches!(seal(&params, CONTENT, &signer), Err(Error::InvalidInput(_))),
            "{name} recipient list must be refused"
        );
    }
}

#[test]
fn old_epochs_still_open_after_rotation() {
    let mut account = Account::new();
    let before = message(&account, &new_message_id());
    let old_key_id = account.keys.current_recipient().key_id;
    assert_eq!(
        account.keys.rotate_encryption_key(),
        2,
        "rotation starts epoch 2"
    );
    assert_ne!(
        account.keys.current_recipient().key_id,
        old_key_id,
        "epoch 2 is a new key"
    );
    assert_eq!(
        account.directory().current_account_recipient(),
        account.keys.current_recipient(),
        "the directory's current AEK is the newest epoch"
    );
    assert_eq!(
        open_as_device(&account, &before).as_deref(),
        Ok(CONTENT),
        "epoch 1 mail still opens"
    );
    let after = message(&account, &new_message_id());
    assert_eq!(
        after.recipients[0].key_id,
        account.keys.current_recipient().key_id,
        "new mail goes to epoch 2"
    );
    assert_eq!(
        open_as_device(&account, &after).as_deref(),
        Ok(CONTENT),
        "epoch 2 mail opens"
    );
}
