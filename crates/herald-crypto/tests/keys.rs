//! Key derivation, key ids, tokens, bundle serialization and redaction.

use herald_crypto::{
    key_id_ed25519, key_id_x25519, new_bearer, new_connection_id, new_device_id, new_message_id,
    AccountKeys, ConnectionId, ConnectionKeys, ConnectionToken, DeviceId, DeviceKeys, Error,
    LocalKey, MessageId, RecoveryKey,
};
use herald_protocol::envelope::b64_encode;

fn hex(bytes: &[u8]) -> String {
    data_encoding::HEXLOWER.encode(bytes)
}

#[test]
fn connection_key_derivation_is_deterministic_snapshot() {
    let mut seed = [0u8; 32];
    for (i, b) in seed.iter_mut().enumerate() {
        *b = i as u8;
    }
    let keys = ConnectionKeys::from_seed(&seed);
    let again = ConnectionKeys::from_seed(&seed);
    assert_eq!(
        keys.recipient(),
        again.recipient(),
        "same seed, same X25519 key"
    );
    assert_eq!(
        keys.signing_public_key(),
        again.signing_public_key(),
        "same seed, same Ed25519 key"
    );
    // Frozen: a change here breaks every connection token ever issued. The values were
    // computed independently (Python: HMAC-SHA256 HKDF, RFC 9180 DeriveKeyPair, pyca Ed25519
    // and X25519), not copied from this crate's output.
    assert_eq!(
        keys.signing_key_id(),
        "k_g7WQ7nMUJBdiIeF-mmvHOq",
        "signing key id snapshot"
    );
    assert_eq!(
        keys.encryption_key_id(),
        "k_URzuHVg2mDgyaLQXSOunfP",
        "encryption key id snapshot"
    );
    assert_eq!(
        hex(&keys.signing_public_key()),
        "738a3c480f0b2c7d8c4be96eb910e275bdff4d28cb7d9f6adaa3d3a2c4e79500",
        "Ed25519 public key snapshot"
    );
    assert_eq!(
        hex(&keys.encryption_public_key()),
        "77d4f9f3e17081fe9b1785db0e8271db341833795471582c9bb659122554fb7e",
        "X25519 public key snapshot"
    );
    let other = ConnectionKeys::from_seed(&[0xff; 32]);
    assert_ne!(
        other.signing_key_id(),
        keys.signing_key_id(),
        "another seed, other keys"
    );
}

#[test]
fn key_ids_have_their_shape_and_separate_algorithms() {
    let pk = [42u8; 32];
    let ed = key_id_ed25519(&pk);
    let x = key_id_x25519(&pk);
    for id in [&ed, &x] {
        assert_eq!(id.len(), herald_crypto::KEY_ID_LEN, "key id length of {id}");
        assert!(id.starts_with("k_"), "key id prefix of {id}");
        assert!(
            id[2..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "key id {id} is base64url"
        );
    }
    assert_ne!(
        ed, x,
        "the same bytes as Ed25519 and X25519 must get different ids"
    );
    assert_eq!(key_id_ed25519(&pk), ed, "key ids are deterministic");
}

#[test]
fn ids_and_bearers_have_their_shapes() {
    assert!(
        MessageId::parse(new_message_id().as_str()).is_some(),
        "message id shape"
    );
    assert!(
        DeviceId::parse(new_device_id().as_str()).is_some(),
        "device id shape"
    );
    assert!(
        ConnectionId::parse(new_connection_id().as_str()).is_some(),
        "connection id shape"
    );
    assert_ne!(new_message_id(), new_message_id(), "ids are random");
    let bearer = new_bearer("hds_");
    assert!(bearer.starts_with("hds_"), "bearer keeps its prefix");
    assert_eq!(
        bearer.len(),
        4 + 43,
        "32 random bytes are 43 base64url characters"
    );
}

#[test]
fn connection_token_round_trip() {
    let account = AccountKeys::generate();
    let seed = herald_crypto::random_bytes::<32>();
    let bearer = new_bearer("hdr_");
    let token = ConnectionToken::new(&bearer, seed, &account.fingerprint());
    let text = token.to_string_secret();
    assert!(
        text.starts_with(&format!("{bearer}.")),
        "token starts with the bearer"
    );
    assert_eq!(text.split('.').count(), 3, "three dot-separated parts");
    let parsed = ConnectionToken::parse(&text).expect("a formatted token parses");
    assert_eq!(parsed, token, "round trip");
    assert_eq!(
        parsed.fingerprint_prefix[..],
        account.fingerprint()[..16],
        "pin is the fingerprint prefix"
    );
    assert_eq!(
        parsed.keys().recipient(),
        ConnectionKeys::from_seed(&seed).recipient(),
        "the token's keys are the seed's keys"
    );
    let padded = format!("  {}\n", *text);
    assert_eq!(
        ConnectionToken::parse(&padded).expect("whitespace is trimmed"),
        token,
        "trimmed"
    );
}

#[test]
fn connection_token_bad_inputs() {
    let seed = b64_encode(&[1u8; 32]);
    let fp = b64_encode(&[2u8; 16]);
    let good = format!("hdr_abcDEF123-_.{seed}.{fp}");
    assert!(
        ConnectionToken::parse(&good).is_ok(),
        "the base case parses"
    );
    let bad = [
        ("empty", String::new()),
        ("bearer only", "hdr_abc".to_owned()),
        ("two parts", format!("hdr_abc.{seed}")),
        ("four parts", format!("{good}.x")),
        ("wrong prefix", format!("hds_abc.{seed}.{fp}")),
        ("empty bearer", format!("hdr_.{seed}.{fp}")),
        ("bearer with a space", format!("hdr_a c.{seed}.{fp}")),
        (
            "bearer too long",
            format!("hdr_{}.{seed}.{fp}", "a".repeat(129)),
        ),
        (
            "short seed",
            format!("hdr_abc.{}.{fp}", b64_encode(&[1u8; 31])),
        ),
        (
            "long seed",
            format!("hdr_abc.{}.{fp}", b64_encode(&[1u8; 33])),
        ),
        (
            "seed not base64url",
            format!("hdr_abc.{}.{fp}", seed.replace('A', "+")),
        ),
        ("padded seed", format!("hdr_abc.{seed}=.{fp}")),
        (
            "short fingerprint",
            format!("hdr_abc.{seed}.{}", b64_encode(&[2u8; 15])),
        ),
        (
            "full fingerprint",
            format!("hdr_abc.{seed}.{}", b64_encode(&[2u8; 32])),
        ),
    ];
    for (name, text) in bad {
        assert!(
            matches!(ConnectionToken::parse(&text), Err(Error::Malformed(_))),
            "{name} must be refused as malformed"
        );
    }
}

#[test]
fn account_bundle_round_trip_and_bad_bytes() {
    let mut account = AccountKeys::generate();
    account.rotate_encryption_key();
    let bytes = account.to_bytes();
    assert_eq!(
        bytes.len(),
        1 + 32 + 4 + 2 * 36,
        "two epochs serialize to 109 bytes"
    );
    let back = AccountKeys::from_bytes(&bytes).expect("a serialized bundle parses");
    assert_eq!(back.account_id(), account.account_id(), "same account");
    assert_eq!(back.epochs(), vec![1, 2], "same epochs");
    assert_eq!(
        back.current_recipient(),
        account.current_recipient(),
        "same current AEK"
    );
    assert_eq!(*back.to_bytes(), *bytes, "serialization is stable");
    let old = account.encryption_secrets()[0].key_id().to_owned();
    assert!(
        back.encryption_secret(&old).is_some(),
        "old epochs survive the round trip"
    );

    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("truncated", bytes[..bytes.len() - 1].to_vec()),
        ("trailing byte", [&bytes[..], &[0]].concat()),
    ];
    let mut v = bytes.to_vec();
    v[0] = 2;
    cases.push(("version 2", v));
    let mut v = bytes.to_vec();
    v[33..37].copy_from_slice(&0u32.to_be_bytes());
    cases.push(("zero epochs", v[..37].to_vec()));
    let mut v = bytes.to_vec();
    v[37 + 36..37 + 40].copy_from_slice(&1u32.to_be_bytes());
    cases.push(("epochs not increasing", v));
    let mut v = bytes.to_vec();
    v[37..41].copy_from_slice(&0u32.to_be_bytes());
    cases.push(("epoch zero", v));
    for (name, b) in cases {
        assert!(
            matches!(AccountKeys::from_bytes(&b), Err(Error::Malformed(_))),
            "{name} bundle bytes must be refused"
        );
    }
}

#[test]
fn device_keys_round_trip() {
    let device = DeviceKeys::generate();
    let bytes = device.to_bytes();
    assert_eq!(bytes.len(), 65, "version byte and two 32-byte secrets");
    let back = DeviceKeys::from_bytes(&bytes).expect("device keys parse");
    assert_eq!(
        back.public(),
        device.public(),
        "same public keys after the round trip"
    );
    assert!(
        matches!(
            DeviceKeys::from_bytes(&bytes[..64]),
            Err(Error::Malformed(_))
        ),
        "short device keys are refused"
    );
}

#[test]
fn debug_output_redacts_secrets() {
    let account = AccountKeys::generate();
    let seed = [0xabu8; 32];
    let token = ConnectionToken::new("hdr_SECRETBEARER", seed, &account.fingerprint());
    let seed_text = b64_encode(&seed);
    let printed = [
        format!("{token:?}"),
        format!("{account:?}"),
        format!("{:?}", DeviceKeys::generate()),
        format!("{:?}", ConnectionKeys::from_seed(&seed)),
        format!("{:?}", LocalKey::from_bytes(seed)),
        format!("{:?}", RecoveryKey::generate()),
        format!("{:?}", account.encryption_secrets()[0]),
    ];
    for text in printed {
        assert!(
            !text.contains(&seed_text),
            "Debug must not print the seed: {text}"
        );
        assert!(
            !text.contains("SECRETBEARER"),
            "Debug must not print the bearer: {text}"
        );
        assert!(
            !text.contains("171, 171"),
            "Debug must not print raw key bytes: {text}"
        );
    }
}
