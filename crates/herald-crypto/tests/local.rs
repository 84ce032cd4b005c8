//! At-rest sealing with the device's local key.

use herald_crypto::{open_local, seal_local, Error, LocalKey};

#[test]
fn round_trip_and_fresh_nonces() {
    let key = LocalKey::generate();
    let sealed = seal_local(&key, b"bundle.bin", b"secret bundle");
    assert_eq!(sealed.len(), 12 + 13 + 16, "nonce, ciphertext and tag");
    let again = seal_local(&key, b"bundle.bin", b"secret bundle");
    assert_ne!(sealed, again, "every seal uses a fresh nonce");
    let restored = LocalKey::from_bytes(*key.as_bytes());
    let opened = open_local(&restored, b"bundle.bin", &sealed).expect("the same key opens it");
    assert_eq!(&opened[..], b"secret bundle", "plaintext comes back");
    let empty = seal_local(&key, b"", b"");
    assert_eq!(
        &open_local(&key, b"", &empty).expect("empty opens")[..],
        b"",
        "empty plaintext"
    );
}

#[test]
fn tampering_wrong_key_and_wrong_aad_fail() {
    let key = LocalKey::generate();
    let sealed = seal_local(&key, b"messages/42", b"cached plaintext");
    for at in 0..sealed.len() {
        let mut bad = sealed.clone();
        bad[at] ^= 0x80;
        assert!(
            matches!(
                open_local(&key, b"messages/42", &bad),
                Err(Error::Decryption(_))
            ),
            "a flipped byte at {at} must fail"
        );
    }
    assert!(
        matches!(
            open_local(&key, b"messages/43", &sealed),
            Err(Error::Decryption(_))
        ),
        "another row's aad must fail"
    );
    assert!(
        matches!(
            open_local(&LocalKey::generate(), b"messages/42", &sealed),
            Err(Error::Decryption(_))
        ),
        "another key must fail"
    );
    for len in [0, 11, 27] {
        assert!(
            matches!(
                open_local(&key, b"messages/42", &sealed[..len]),
                Err(Error::Decryption(_))
            ),
            "{len} bytes is too short"
        );
    }
    assert!(
        matches!(
            open_local(&key, b"messages/42", &sealed[..sealed.len() - 1]),
            Err(Error::Decryption(_))
        ),
        "a truncated tag must fail"
    );
}
