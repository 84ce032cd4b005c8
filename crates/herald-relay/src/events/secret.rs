//! Webhook signing secrets (docs/mcp.md, "Reply event"): the Standard Webhooks symmetric form
//! `whsec_` + base64 of 24 to 64 bytes, supplied by the subscriber (SEP-3415), and how the
//! relay keeps them at rest.
//!
//! The relay must sign every delivery, so it cannot store a hash. It stores each secret sealed
//! with ChaCha20-Poly1305 (ring) under a 32-byte local key in `<data_dir>/webhook-secrets.key`
//! (created on first use, mode 0600), with associated data
//! `"herald.v1/webhook-secret" || subscription id`: a copy of `relay.db` alone (a backup, a
//! bug report) does not reveal the secrets, and a sealed secret moved to another row does not
//! open. Someone who holds the data directory holds both, as they would with any server-side
//! signing secret. Secrets never reach logs or `Debug` output.

use std::io::{Read, Write};
use std::path::Path;

use herald_crypto::labels::WEBHOOK_SECRET;
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};
use zeroize::Zeroizing;

/// The prefix of a Standard Webhooks symmetric secret.
pub const SECRET_PREFIX: &str = "whsec_";
/// Fewest secret bytes accepted (after base64 decoding).
pub const MIN_SECRET_BYTES: usize = 24;
/// Most secret bytes accepted (after base64 decoding).
pub const MAX_SECRET_BYTES: usize = 64;
/// The local sealing key's file name, in the data directory.
pub const KEY_FILE: &str = "webhook-secrets.key";

/// A webhook signing secret: the decoded bytes. Wiped on drop; `Debug` shows nothing.
#[derive(Clone)]
pub struct WebhookSecret(Zeroizing<Vec<u8>>);

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(redacted)")
    }
}

impl PartialEq for WebhookSecret {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        self.0.len() == other.0.len() && bool::from(self.0.ct_eq(&other.0))
    }
}

impl WebhookSecret {
    /// Parses `whsec_<base64>` (standard alphabet, padded or not) decoding to 24–64 bytes;
    /// `None` for anything else.
    pub fn parse(value: &str) -> Option<WebhookSecret> {
        let encoded = value.strip_prefix(SECRET_PREFIX)?.as_bytes();
        let decoded = data_encoding::BASE64
            .decode(encoded)
            .or_else(|_| data_encoding::BASE64_NOPAD.decode(encoded))
            .ok()?;
        let decoded = Zeroizing::new(decoded);
        (MIN_SECRET_BYTES..=MAX_SECRET_BYTES)
            .contains(&decoded.len())
            .then(|| WebhookSecret(decoded))
    }

    /// The raw key bytes (the HMAC key).
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Why sealing or opening failed (a relay defect or a damaged key or row).
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("the webhook sealing key file: {0}")]
    KeyFile(#[from] std::io::Error),
    #[error("the webhook sealing key file is not 32 bytes")]
    KeyLength,
    #[error("system randomness failed")]
    Random,
    #[error("a sealed webhook secret does not open")]
    Open,
}

/// The relay's local key for secrets at rest.
pub struct SealKey {
    key: LessSafeKey,
    rng: SystemRandom,
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(redacted)")
    }
}

fn aad(subscription_id: &str) -> Vec<u8> {
    let mut aad = WEBHOOK_SECRET.to_vec();
    aad.extend_from_slice(subscription_id.as_bytes());
    aad
}

impl SealKey {
    /// Reads `<dir>/webhook-secrets.key`, or creates it (32 random bytes, owner-only).
    /// Blocking file I/O.
    pub fn load_or_create(dir: &Path) -> Result<SealKey, SealError> {
        let path = dir.join(KEY_FILE);
        let rng = SystemRandom::new();
        let mut bytes = Zeroizing::new([0u8; 32]);
        match std::fs::File::open(&path) {
            Ok(mut file) => {
                let mut read = Zeroizing::new(Vec::new());
                file.read_to_end(&mut read)?;
                if read.len() != 32 {
                    return Err(SealError::KeyLength);
                }
                bytes.copy_from_slice(&read);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                rng.fill(&mut bytes[..]).map_err(|_| SealError::Random)?;
                let mut options = std::fs::OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::OpenOptionsExt;
                    options.mode(0o600);
                }
                let mut file = options.open(&path)?;
                file.write_all(&bytes[..])?;
                file.sync_all()?;
            }
            Err(e) => return Err(e.into()),
        }
        let unbound =
            UnboundKey::new(&CHACHA20_POLY1305, &bytes[..]).map_err(|_| SealError::KeyLength)?;
        Ok(SealKey {
            key: LessSafeKey::new(unbound),
            rng,
        })
    }

    /// Seals `secret` for the row `subscription_id`: nonce (12 bytes) || ciphertext || tag.
    pub fn seal(
        &self,
        subscription_id: &str,
        secret: &WebhookSecret,
    ) -> Result<Vec<u8>, SealError> {
        let mut nonce = [0u8; NONCE_LEN];
        self.rng.fill(&mut nonce).map_err(|_| SealError::Random)?;
        let mut sealed = secret.bytes().to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad(subscription_id)),
                &mut sealed,
            )
            .map_err(|_| SealError::Random)?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// Opens what [`Self::seal`] made for the same `subscription_id`.
    pub fn open(&self, subscription_id: &str, sealed: &[u8]) -> Result<WebhookSecret, SealError> {
        if sealed.len() < NONCE_LEN {
            return Err(SealError::Open);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| SealError::Open)?;
        let mut buffer = Zeroizing::new(ciphertext.to_vec());
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(aad(subscription_id)), &mut buffer)
            .map_err(|_| SealError::Open)?;
        Ok(WebhookSecret(Zeroizing::new(plain.to_vec())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_only_standard_webhooks_secrets() {
        let b64 = |n: usize| data_encoding::BASE64.encode(&vec![7u8; n]);
        for (value, ok) in [
            (format!("whsec_{}", b64(24)), true),
            (format!("whsec_{}", b64(32)), true),
            (format!("whsec_{}", b64(64)), true),
            (format!("whsec_{}", b64(23)), false),
            (format!("whsec_{}", b64(65)), false),
            (b64(32), false),
            ("whsec_not base64!".to_owned(), false),
            ("whsec_".to_owned(), false),
        ] {
            assert_eq!(WebhookSecret::parse(&value).is_some(), ok, "{value}");
        }
        let s = WebhookSecret::parse(&format!("whsec_{}", b64(32))).unwrap();
        assert_eq!(format!("{s:?}"), "WebhookSecret(redacted)");
    }

    #[test]
    fn sealed_secrets_open_only_for_their_row() {
        let dir = tempfile::tempdir().unwrap();
        let key = SealKey::load_or_create(dir.path()).unwrap();
        let secret = WebhookSecret::parse(&format!(
            "whsec_{}",
            data_encoding::BASE64.encode(&[9u8; 32])
        ))
        .unwrap();
        let sealed = key.seal("sub_a", &secret).unwrap();
        assert!(!sealed.windows(32).any(|w| w == [9u8; 32]), "no plaintext");
        assert_eq!(key.open("sub_a", &sealed).unwrap(), secret);
        assert!(key.open("sub_b", &sealed).is_err(), "bound to its row");
        let again = SealKey::load_or_create(dir.path()).unwrap();
        assert_eq!(
            again.open("sub_a", &sealed).unwrap(),
            secret,
            "the key persists"
        );
    }
}
