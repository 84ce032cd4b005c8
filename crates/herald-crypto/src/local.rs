//! At-rest sealing on a device. Only a 32-byte local key lives in the OS keychain; the account
//! bundle, device keys and cached plaintext are sealed under it (protocol-decisions.md, "At
//! rest on the desktop"). The sealing key is `HKDF-SHA256(local key, "herald.v1/local/seal")`,
//! the cipher ChaCha20-Poly1305 with a random 96-bit nonce stored in front of the ciphertext.
//! Random 96-bit nonces are safe far beyond the number of items a device seals (keep it below
//! 2^32 seals per key). Callers pass an `aad` naming what is sealed (file name, table and row
//! id) so a sealed item cannot be swapped for another.

use std::fmt;

use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::labels;
use crate::primitives::{chacha_open, chacha_seal, hkdf32, random_bytes};

const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;

/// The device's 32-byte local key (kept in the OS keychain). Zeroized on drop; `Debug` redacts.
#[derive(Clone)]
pub struct LocalKey(Zeroizing<[u8; 32]>);

impl LocalKey {
    /// A fresh random key.
    pub fn generate() -> LocalKey {
        LocalKey(Zeroizing::new(random_bytes()))
    }

    /// A key read back from the keychain.
    pub fn from_bytes(bytes: [u8; 32]) -> LocalKey {
        LocalKey(Zeroizing::new(bytes))
    }

    /// The raw key, to store in the keychain.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    fn sealing_key(&self) -> Zeroizing<[u8; 32]> {
        hkdf32(&self.0[..], labels::LOCAL_SEAL)
    }
}

impl fmt::Debug for LocalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LocalKey(<redacted>)")
    }
}

/// Seals `plaintext` under `key`: `nonce (12) || ciphertext || tag (16)`.
pub fn seal_local(key: &LocalKey, aad: &[u8], plaintext: &[u8]) -> Vec<u8> {
    let nonce = random_bytes::<NONCE_LEN>();
    let mut out = Vec::with_capacity(NONCE_LEN + plaintext.len() + TAG_LEN);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&chacha_seal(&key.sealing_key(), nonce, aad, plaintext));
    out
}

/// Opens [`seal_local`] output. Errors: [`Error::Decryption`] when it is too short, was
/// tampered with, or was sealed under another key or `aad`.
pub fn open_local(key: &LocalKey, aad: &[u8], sealed: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if sealed.len() < NONCE_LEN + TAG_LEN {
        return Err(Error::Decryption("sealed local data is too short"));
    }
    let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
    let nonce: [u8; NONCE_LEN] = nonce.try_into().expect("split at the nonce length");
    chacha_open(&key.sealing_key(), nonce, aad, ciphertext)
        .ok_or(Error::Decryption("sealed local data"))
}
