//! Thin wrappers over ring: randomness, SHA-2, HKDF-SHA256, Ed25519, ChaCha20-Poly1305.
//! Nothing here implements a primitive; it only fixes the shapes the rest of the crate uses
//! (32-byte keys, 64-byte signatures) so that call sites stay short.

use ring::{
    aead, digest, hkdf,
    rand::{SecureRandom, SystemRandom},
    signature::{self, KeyPair},
};
use zeroize::Zeroizing;

/// `N` bytes from the operating system's CSPRNG (ring's `SystemRandom`).
///
/// # Panics
/// If the operating system cannot provide randomness, which leaves no safe way to go on.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    fill_random(&mut out);
    out
}

/// Fills `out` from the operating system's CSPRNG. Panics as [`random_bytes`] does.
pub(crate) fn fill_random(out: &mut [u8]) {
    SystemRandom::new()
        .fill(out)
        .expect("the operating system's random number generator failed");
}

/// SHA-256 over the concatenation of `parts`.
pub(crate) fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut ctx = digest::Context::new(&digest::SHA256);
    for part in parts {
        ctx.update(part);
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

/// SHA-512 over the concatenation of `parts`.
pub(crate) fn sha512(parts: &[&[u8]]) -> [u8; 64] {
    let mut ctx = digest::Context::new(&digest::SHA512);
    for part in parts {
        ctx.update(part);
    }
    let mut out = [0u8; 64];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

struct OutputLen(usize);

impl hkdf::KeyType for OutputLen {
    fn len(&self) -> usize {
        self.0
    }
}

/// HKDF-SHA256 (RFC 5869) with an empty salt: 32 bytes of `Expand(Extract("", ikm), info)`.
pub(crate) fn hkdf32(ikm: &[u8], info: &[u8]) -> Zeroizing<[u8; 32]> {
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, &[]).extract(ikm);
    let info = [info];
    let okm = prk
        .expand(&info, OutputLen(32))
        .expect("32 bytes is within HKDF-SHA256's output limit");
    let mut out = Zeroizing::new([0u8; 32]);
    okm.fill(&mut out[..])
        .expect("the buffer has the requested length");
    out
}

fn ed25519_key_pair(seed: &[u8; 32]) -> signature::Ed25519KeyPair {
    signature::Ed25519KeyPair::from_seed_unchecked(seed)
        .expect("every 32-byte seed is a valid Ed25519 private key")
}

/// The Ed25519 public key of a 32-byte seed (RFC 8032).
pub(crate) fn ed25519_public(seed: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(ed25519_key_pair(seed).public_key().as_ref());
    out
}

/// An Ed25519 signature of `message` by the key of `seed`.
pub(crate) fn ed25519_sign(seed: &[u8; 32], message: &[u8]) -> [u8; 64] {
    let mut out = [0u8; 64];
    out.copy_from_slice(ed25519_key_pair(seed).sign(message).as_ref());
    out
}

/// Whether `signature` is a valid Ed25519 signature of `message` by `public`.
pub(crate) fn ed25519_verify(public: &[u8; 32], message: &[u8], signature: &[u8]) -> bool {
    signature::UnparsedPublicKey::new(&signature::ED25519, public)
        .verify(message, signature)
        .is_ok()
}

fn chacha_key(key: &[u8; 32]) -> aead::LessSafeKey {
    aead::LessSafeKey::new(
        aead::UnboundKey::new(&aead::CHACHA20_POLY1305, key)
            .expect("ChaCha20-Poly1305 takes 32-byte keys"),
    )
}

/// ChaCha20-Poly1305 (RFC 8439): ciphertext with the 16-byte tag appended.
pub(crate) fn chacha_seal(
    key: &[u8; 32],
    nonce: [u8; 12],
    aad: &[u8],
    plaintext: &[u8],
) -> Vec<u8> {
    let mut buf = plaintext.to_vec();
    chacha_key(key)
        .seal_in_place_append_tag(
            aead::Nonce::assume_unique_for_key(nonce),
            aead::Aad::from(aad),
            &mut buf,
        )
        .expect("plaintext within ChaCha20-Poly1305's length limit");
    buf
}

/// Opens [`chacha_seal`] output; `None` when the tag does not verify.
pub(crate) fn chacha_open(
    key: &[u8; 32],
    nonce: [u8; 12],
    aad: &[u8],
    ciphertext: &[u8],
) -> Option<Zeroizing<Vec<u8>>> {
    let mut buf = Zeroizing::new(ciphertext.to_vec());
    let len = chacha_key(key)
        .open_in_place(
            aead::Nonce::assume_unique_for_key(nonce),
            aead::Aad::from(aad),
            buf.as_mut_slice(),
        )
        .ok()?
        .len();
    buf.truncate(len);
    Some(buf)
}
