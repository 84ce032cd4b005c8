//! Safety codes: Signal's NumericFingerprint over the account identity key, so two people (or a
//! person and `herald whoami`) can compare 30 digits and know they see the same account
//! (protocol-decisions.md, "Safety code").
//!
//! As in libsignal's displayable fingerprint: `h = SHA-512(version (u16 BE) || key || stable id
//! || key)`, then `iterations - 1` times `h = SHA-512(h || key)`; the first 30 bytes, taken 5 at
//! a time as big-endian integers mod 100000, give six 5-digit groups. Herald uses version 0,
//! 5200 iterations, the raw 32-byte AIK public key as the key and the account id text as the
//! stable identifier, and shows only the account's own half, grouped `12345 67890 …`.

use herald_protocol::ids::AccountId;

use crate::primitives::sha512;

/// Hash version prefixed to the first round (libsignal's displayable fingerprints use 0).
pub const SAFETY_CODE_VERSION: u16 = 0;
/// SHA-512 rounds (libsignal's value).
pub const SAFETY_CODE_ITERATIONS: u32 = 5200;

/// The iterated SHA-512 of one party: `iterations` rounds in all (at least one).
pub fn numeric_fingerprint(
    version: u16,
    key: &[u8],
    stable_id: &[u8],
    iterations: u32,
) -> [u8; 64] {
    let mut hash = sha512(&[&version.to_be_bytes(), key, stable_id, key]);
    for _ in 1..iterations {
        hash = sha512(&[&hash, key]);
    }
    hash
}

/// The 30 digits (no spaces) of a [`numeric_fingerprint`]: six big-endian 5-byte chunks of its
/// first 30 bytes, each mod 100000, zero-padded to 5 digits.
pub fn fingerprint_digits(hash: &[u8; 64]) -> String {
    hash[..30]
        .chunks_exact(5)
        .map(|chunk| {
            let n = chunk.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
            format!("{:05}", n % 100_000)
        })
        .collect()
}

/// The safety code of an account: 30 digits in 6 space-separated groups of 5.
pub fn safety_code(identity_public: &[u8; 32], account_id: &AccountId) -> String {
    let hash = numeric_fingerprint(
        SAFETY_CODE_VERSION,
        identity_public,
        account_id.as_str().as_bytes(),
        SAFETY_CODE_ITERATIONS,
    );
    let digits = fingerprint_digits(&hash);
    digits
        .as_bytes()
        .chunks(5)
        .map(|group| std::str::from_utf8(group).expect("digits are ASCII"))
        .collect::<Vec<_>>()
        .join(" ")
}
