//! Connection keys and the connection token.
//!
//! A connection token is `<bearer>.<seed>.<fp>`: the bearer `hdr_…` (the only part ever sent
//! to the relay), a 32-byte seed (base64url, 43 characters) and the first 16 bytes of the
//! account fingerprint (base64url, 22 characters). Both the device that creates the connection
//! and the CLI derive the same keys from the seed:
//! Ed25519 seed = HKDF-SHA256(seed, "herald.v1/connection/signing"), and the X25519 key pair =
//! HPKE DeriveKeyPair(HKDF-SHA256(seed, "herald.v1/connection/encryption")); HKDF salt empty,
//! 32 bytes out (protocol-decisions.md, "Connection keys").

use std::fmt;

use herald_protocol::envelope::{b64_decode, b64_encode, Principal};
use herald_protocol::ids::ConnectionId;
use herald_protocol::wire::CONNECTION_BEARER_PREFIX;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::error::{Error, Result};
use crate::keys::{key_id_ed25519, Recipient, RecipientSecret, Signer};
use crate::labels;
use crate::primitives::{ed25519_public, hkdf32};

/// Longest bearer body accepted after `hdr_` (the relay makes 43 characters).
const MAX_BEARER_BODY: usize = 128;

/// A connection's keys, derived from its token seed. Zeroized on drop; `Debug` shows key ids.
#[derive(Clone)]
pub struct ConnectionKeys {
    signing_seed: Zeroizing<[u8; 32]>,
    signing_key: [u8; 32],
    signing_key_id: String,
    encryption: RecipientSecret,
    idempotency_key: Zeroizing<[u8; 32]>,
}

impl ConnectionKeys {
    /// Derives the keys of a connection from its 32-byte token seed (deterministic).
    pub fn from_seed(seed: &[u8; 32]) -> ConnectionKeys {
        let signing_seed = hkdf32(seed, labels::CONNECTION_SIGNING);
        let ikm = hkdf32(seed, labels::CONNECTION_ENCRYPTION);
        let signing_key = ed25519_public(&signing_seed);
        ConnectionKeys {
            signing_key_id: key_id_ed25519(&signing_key),
            signing_key,
            signing_seed,
            encryption: RecipientSecret::derive(&ikm[..]),
            idempotency_key: hkdf32(seed, labels::CONNECTION_IDEMPOTENCY),
        }
    }

    /// HMAC-SHA256 of `request` (the plaintext request: content and metadata) under a key
    /// derived from the token seed. Sent as `contentDigest` with `POST /messages`, it lets the
    /// relay recognise a retry of the same request under the same Idempotency-Key although
    /// every seal differs, without learning anything about the content.
    pub fn idempotency_digest(&self, request: &[u8]) -> [u8; 32] {
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &self.idempotency_key[..]);
        let tag = ring::hmac::sign(&key, request);
        let mut out = [0u8; 32];
        out.copy_from_slice(tag.as_ref());
        out
    }

    /// A signer for envelopes this connection sends, as `Principal::Connection(connection_id)`.
    /// The CLI can learn its id with
    /// `Directory::connection_for_keys`.
    pub fn signer(&self, connection_id: &ConnectionId) -> Signer {
        Signer::new(
            Principal::Connection(connection_id.clone()),
            &self.signing_seed,
        )
    }

    /// The connection's X25519 recipient (public half).
    pub fn recipient(&self) -> Recipient {
        self.encryption.recipient()
    }

    /// The connection's X25519 secret (opens answers addressed to it).
    pub fn recipient_secret(&self) -> RecipientSecret {
        self.encryption.clone()
    }

    /// Key id of the Ed25519 signing key.
    pub fn signing_key_id(&self) -> &str {
        &self.signing_key_id
    }

    /// Key id of the X25519 encryption key.
    pub fn encryption_key_id(&self) -> &str {
        self.encryption.key_id()
    }

    /// The Ed25519 public key.
    pub fn signing_public_key(&self) -> [u8; 32] {
        self.signing_key
    }

    /// The X25519 public key.
    pub fn encryption_public_key(&self) -> [u8; 32] {
        self.encryption.recipient().public_key
    }
}

impl fmt::Debug for ConnectionKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectionKeys")
            .field("signing_key_id", &self.signing_key_id)
            .field("encryption_key_id", &self.encryption.key_id())
            .finish_non_exhaustive()
    }
}

/// A parsed connection token `hdr_<…>.<seed>.<fp>`. Zeroized on drop; `Debug` redacts the
/// bearer and the seed.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ConnectionToken {
    /// The bearer credential, `hdr_` included (sent as `Authorization: Bearer …`).
    pub bearer: String,
    /// The key seed; never leaves the CLI.
    pub seed: [u8; 32],
    /// The first 16 bytes of the account fingerprint, the CLI's pin for
    /// `Directory::verify`.
    pub fingerprint_prefix: [u8; 16],
}

fn is_b64url(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl ConnectionToken {
    /// A token from its parts; `account_fingerprint` is the full 32-byte fingerprint, of which
    /// the token keeps the first 16 bytes.
    pub fn new(bearer: &str, seed: [u8; 32], account_fingerprint: &[u8; 32]) -> ConnectionToken {
        let mut fingerprint_prefix = [0u8; 16];
        fingerprint_prefix.copy_from_slice(&account_fingerprint[..16]);
        ConnectionToken {
            bearer: bearer.to_owned(),
            seed,
            fingerprint_prefix,
        }
    }

    /// Parses `hdr_<bearer>.<seed>.<fp>` (surrounding whitespace ignored). Errors:
    /// [`Error::Malformed`] naming the part that is wrong: the shape, the bearer (prefix `hdr_`,
    /// 1–128 base64url characters), the seed (43 base64url characters, 32 bytes) or the
    /// fingerprint (22 base64url characters, 16 bytes).
    pub fn parse(s: &str) -> Result<ConnectionToken> {
        let mut parts = s.trim().split('.');
        let (Some(bearer), Some(seed), Some(fp), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Error::Malformed(
                "connection token: expected hdr_<id>.<seed>.<fingerprint>",
            ));
        };
        let body = bearer
            .strip_prefix(CONNECTION_BEARER_PREFIX)
            .ok_or(Error::Malformed(
                "connection token: bearer must start with hdr_",
            ))?;
        if body.is_empty() || body.len() > MAX_BEARER_BODY || !is_b64url(body) {
            return Err(Error::Malformed("connection token bearer"));
        }
        let seed =
            Zeroizing::new(b64_decode(seed).ok_or(Error::Malformed("connection token seed"))?);
        let seed: [u8; 32] = seed[..]
            .try_into()
            .map_err(|_| Error::Malformed("connection token seed"))?;
        let fingerprint_prefix: [u8; 16] = b64_decode(fp)
            .and_then(|v| v.try_into().ok())
            .ok_or(Error::Malformed("connection token fingerprint"))?;
        Ok(ConnectionToken {
            bearer: bearer.to_owned(),
            seed,
            fingerprint_prefix,
        })
    }

    /// The token as text, `<bearer>.<seed b64url>.<fp b64url>`; show it once, never log it.
    pub fn to_string_secret(&self) -> Zeroizing<String> {
        let seed = Zeroizing::new(b64_encode(&self.seed));
        Zeroizing::new(format!(
            "{}.{}.{}",
            self.bearer,
            *seed,
            b64_encode(&self.fingerprint_prefix)
        ))
    }

    /// The connection's keys ([`ConnectionKeys::from_seed`] of the seed).
    pub fn keys(&self) -> ConnectionKeys {
        ConnectionKeys::from_seed(&self.seed)
    }
}

/// Constant-time in the seed and bearer contents (only the bearer length may leak).
impl PartialEq for ConnectionToken {
    fn eq(&self, other: &Self) -> bool {
        let same = self.bearer.as_bytes().ct_eq(other.bearer.as_bytes())
            & self.seed.ct_eq(&other.seed)
            & self.fingerprint_prefix.ct_eq(&other.fingerprint_prefix);
        same.into()
    }
}

impl Eq for ConnectionToken {}

impl fmt::Debug for ConnectionToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectionToken")
            .field("bearer", &"hdr_<redacted>")
            .field("seed", &"<redacted>")
            .field("fingerprint_prefix", &b64_encode(&self.fingerprint_prefix))
            .finish()
    }
}
