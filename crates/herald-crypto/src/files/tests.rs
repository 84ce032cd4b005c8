//! The file format's promises: round trip at chunk boundaries, and every way a file can be
//! wrong — truncated, tampered, extended, another key, another size, another hash — is
//! refused with its own error.

use std::io::{self, Read};

use super::*;

const CHUNK: usize = 64 * 1024;

/// Deterministic, non-repeating-looking bytes (so chunks differ).
fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 + i / 251) as u8).collect()
}

fn encrypt(plain: &[u8]) -> (Vec<u8>, EncryptedFile) {
    let mut out = Vec::new();
    let info = encrypt_file(plain, &mut out, u64::MAX).expect("encrypts");
    (out, info)
}

fn decrypt(cipher: &[u8], info: &EncryptedFile) -> Result<Vec<u8>, FileError> {
    let mut out = Vec::new();
    decrypt_file(
        cipher,
        &mut out,
        &info.key,
        info.plaintext_size,
        &info.sha256,
    )?;
    Ok(out)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref());
    out
}

#[test]
fn round_trip_at_chunk_boundaries() {
    for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 17] {
        let plain = data(n);
        let (cipher, info) = encrypt(&plain);
        assert_eq!(info.plaintext_size, n as u64, "{n}: plaintext size counted");
        assert_eq!(info.sha256, sha256(&plain), "{n}: SHA-256 of the plaintext");
        assert_eq!(
            info.encrypted_size,
            cipher.len() as u64,
            "{n}: encrypted size counted"
        );
        assert!(
            cipher.starts_with(b"age-encryption.org/v1\n-> X25519 "),
            "{n}: an age v1 file to one X25519 recipient"
        );
        assert_eq!(decrypt(&cipher, &info).expect("opens"), plain, "{n}");
    }
}

#[test]
fn each_file_gets_its_own_key() {
    let (a, ia) = encrypt(b"same");
    let (b, ib) = encrypt(b"same");
    assert_ne!(
        ia.key.expose(),
        ib.key.expose(),
        "a fresh identity per file"
    );
    assert_ne!(a, b, "so the ciphertexts differ");
    assert!(ia.key.expose().starts_with(FILE_KEY_PREFIX), "age identity");
    assert_eq!(ia.key.expose().len(), FILE_KEY_LEN, "74 characters");
    assert_eq!(
        format!("{:?}", ia.key),
        "FileKey(<redacted>)",
        "Debug never shows the key"
    );
    assert!(
        !format!("{ia:?}").contains(ia.key.expose()),
        "nor does the Debug of the whole result"
    );
    assert_eq!(
        FileKey::parse(ia.key.expose())
            .expect("parses back")
            .expose(),
        ia.key.expose()
    );
}

#[test]
fn truncation_is_rejected() {
    let plain = data(2 * CHUNK + 100);
    let (cipher, info) = encrypt(&plain);
    let header_end = cipher.len() - (plain.len() + 3 * 16) - 16;
    for cut in [
        cipher.len() - 1,
        cipher.len() - 116,           // inside the last chunk
        header_end + 16 + CHUNK + 16, // exactly after the first chunk
        header_end + 16,              // the nonce only
    ] {
        let err = decrypt(&cipher[..cut], &info).expect_err("a truncated file is refused");
        assert!(
            matches!(err, FileError::Truncated | FileError::Tampered),
            "cut at {cut}: {err:?}"
        );
    }
    // Cutting at a chunk boundary leaves only whole, authentic chunks: the missing
    // last-chunk flag is what gives it away.
    let err = decrypt(&cipher[..header_end + 16 + CHUNK + 16], &info).expect_err("refused");
    assert!(matches!(err, FileError::Truncated), "{err:?}");
    let err = decrypt(&cipher[..20], &info).expect_err("a cut header is refused");
    assert!(
        matches!(err, FileError::Truncated | FileError::Malformed),
        "{err:?}"
    );
}

#[test]
fn tampering_and_trailing_data_are_rejected() {
    let plain = data(CHUNK + 10);
    let (cipher, info) = encrypt(&plain);
    let mut flipped = cipher.clone();
    let last = flipped.len() - 5;
    flipped[last] ^= 1;
    assert!(
        matches!(decrypt(&flipped, &info), Err(FileError::Tampered)),
        "a flipped payload bit"
    );
    let mut header = cipher.clone();
    header[40] ^= 1;
    assert!(
        matches!(
            decrypt(&header, &info),
            Err(FileError::WrongKey | FileError::Malformed)
        ),
        "a flipped header bit"
    );
    let mut extended = cipher.clone();
    extended.extend_from_slice(&[0u8; 32]);
    assert!(
        matches!(decrypt(&extended, &info), Err(FileError::Tampered)),
        "data after the last chunk"
    );
    assert!(
        matches!(
            decrypt(b"not an age file at all\n", &info),
            Err(FileError::Malformed)
        ),
        "not age"
    );
}

#[test]
fn another_key_is_rejected() {
    let (cipher, info) = encrypt(b"for one key only");
    let other = EncryptedFile {
        key: FileKey::generate(),
        ..info.clone()
    };
    assert!(
        matches!(decrypt(&cipher, &other), Err(FileError::WrongKey)),
        "a different identity"
    );
    assert!(
        matches!(
            FileKey::parse("AGE-SECRET-KEY-1XYZ"),
            Err(FileError::InvalidKey)
        ),
        "a malformed key"
    );
}

#[test]
fn hash_and_size_must_match_the_message() {
    let plain = data(1000);
    let (cipher, info) = encrypt(&plain);
    let mut wrong_hash = info.clone();
    wrong_hash.sha256[0] ^= 1;
    assert!(
        matches!(decrypt(&cipher, &wrong_hash), Err(FileError::HashMismatch)),
        "another SHA-256"
    );
    let mut smaller = info.clone();
    smaller.plaintext_size = 999;
    assert!(
        matches!(
            decrypt(&cipher, &smaller),
            Err(FileError::SizeMismatch {
                expected: 999,
                actual: 1000
            })
        ),
        "more bytes than promised: reading stops one past"
    );
    let mut larger = info.clone();
    larger.plaintext_size = 1001;
    assert!(
        matches!(
            decrypt(&cipher, &larger),
            Err(FileError::SizeMismatch {
                expected: 1001,
                actual: 1000
            })
        ),
        "fewer bytes than promised"
    );
}

#[test]
fn size_limit_and_stream_errors() {
    let mut out = Vec::new();
    let err = encrypt_file(&data(101)[..], &mut out, 100).expect_err("over the limit");
    assert!(matches!(err, FileError::TooLarge { limit: 100 }), "{err:?}");
    assert!(
        encrypt_file(&data(100)[..], &mut Vec::new(), 100).is_ok(),
        "at the limit"
    );

    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::ConnectionReset, "gone"))
        }
    }
    assert!(
        matches!(encrypt_file(Broken, &mut out, 10), Err(FileError::Io(_))),
        "a failing input is an i/o error"
    );
    let (cipher, info) = encrypt(&data(CHUNK * 2));
    let failing = (&cipher[..cipher.len() / 2]).chain(Broken);
    let err = decrypt_file(
        failing,
        &mut Vec::new(),
        &info.key,
        info.plaintext_size,
        &info.sha256,
    )
    .expect_err("the transport failed");
    assert!(
        matches!(err, FileError::Io(_)),
        "a failing transport is not tampering: {err:?}"
    );
}
