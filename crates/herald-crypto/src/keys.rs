//! Key ids, recipients, signers and device keys, plus the random ids and bearers devices make.
//!
//! A key id names a public key on the wire (envelope recipients, `signingKeyId`):
//! `"k_" + base64url(SHA-256("herald.v1/key-id" || alg || public key))[..22]`, with alg `0x01`
//! for Ed25519 and `0x02` for X25519, so the same 32 bytes never get the same id under both
//! algorithms. 22 base64url characters carry 132 bits.

use std::fmt;

use herald_protocol::envelope::{b64_encode, Principal};
use herald_protocol::ids::{ConnectionId, DeviceId, MessageId};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::hpke_base;
use crate::labels;
use crate::primitives::{ed25519_public, ed25519_sign, random_bytes, sha256};

/// Algorithm byte of Ed25519 keys in key ids.
pub const KEY_ALG_ED25519: u8 = 0x01;
/// Algorithm byte of X25519 (HPKE) keys in key ids.
pub const KEY_ALG_X25519: u8 = 0x02;
/// Length of a key id: `"k_"` and 22 base64url characters.
pub const KEY_ID_LEN: usize = 24;

fn key_id(alg: u8, public_key: &[u8; 32]) -> String {
    let hash = sha256(&[labels::KEY_ID, &[alg], public_key]);
    let mut id = b64_encode(&hash);
    id.truncate(KEY_ID_LEN - 2);
    format!("k_{id}")
}

/// Key id of an Ed25519 public key (signing keys: AIK, device, connection).
pub fn key_id_ed25519(public_key: &[u8; 32]) -> String {
    key_id(KEY_ALG_ED25519, public_key)
}

/// Key id of an X25519 public key (HPKE recipients: AEK, device, connection, recovery).
pub fn key_id_x25519(public_key: &[u8; 32]) -> String {
    key_id(KEY_ALG_X25519, public_key)
}

/// A new message id (`msg_` + 128 random bits).
pub fn new_message_id() -> MessageId {
    MessageId::from_random(&random_bytes())
}

/// A new device id (`dev_` + 128 random bits).
pub fn new_device_id() -> DeviceId {
    DeviceId::from_random(&random_bytes())
}

/// A new connection id (`con_` + 128 random bits).
pub fn new_connection_id() -> ConnectionId {
    ConnectionId::from_random(&random_bytes())
}

/// A new bearer credential: `prefix` followed by base64url of 32 random bytes (43 characters),
/// e.g. `new_bearer("hdr_")` for a connection, `new_bearer("hds_")` for a device session.
pub fn new_bearer(prefix: &str) -> String {
    format!("{prefix}{}", b64_encode(&random_bytes::<32>()))
}

/// Someone a content key can be sealed to: an X25519 public key and its key id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Recipient {
    /// [`key_id_x25519`] of `public_key`.
    pub key_id: String,
    /// X25519 public key (32 bytes).
    pub public_key: [u8; 32],
}

impl Recipient {
    /// The recipient of an X25519 public key (computes its key id).
    pub fn from_public_key(public_key: [u8; 32]) -> Recipient {
        Recipient {
            key_id: key_id_x25519(&public_key),
            public_key,
        }
    }

    /// Checks that `key_id` is the key id of `public_key`.
    pub(crate) fn check(&self) -> Result<()> {
        if self.key_id == key_id_x25519(&self.public_key) {
            Ok(())
        } else {
            Err(Error::InvalidInput(
                "recipient key id does not match its public key",
            ))
        }
    }
}

/// The private half of a [`Recipient`]: an X25519 secret with its key id. Zeroized on drop;
/// `Debug` shows the key id only.
#[derive(Clone)]
pub struct RecipientSecret {
    key_id: String,
    public_key: [u8; 32],
    secret: Zeroizing<[u8; 32]>,
}

impl RecipientSecret {
    /// Wraps a (clamped) X25519 secret.
    pub(crate) fn from_secret(secret: Zeroizing<[u8; 32]>) -> RecipientSecret {
        let public_key = hpke_base::public_key(&secret);
        RecipientSecret {
            key_id: key_id_x25519(&public_key),
            public_key,
            secret,
        }
    }

    /// A fresh random key pair.
    pub(crate) fn generate() -> RecipientSecret {
        let (secret, _) = hpke_base::generate_key_pair();
        RecipientSecret::from_secret(secret)
    }

    /// HPKE DeriveKeyPair over `ikm`.
    pub(crate) fn derive(ikm: &[u8]) -> RecipientSecret {
        let (secret, _) = hpke_base::derive_key_pair(ikm);
        RecipientSecret::from_secret(secret)
    }

    /// The key id of the public key.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The public half.
    pub fn recipient(&self) -> Recipient {
        Recipient {
            key_id: self.key_id.clone(),
            public_key: self.public_key,
        }
    }

    pub(crate) fn secret_bytes(&self) -> &[u8; 32] {
        &self.secret
    }
}

impl fmt::Debug for RecipientSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecipientSecret")
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// A sender's Ed25519 signing key bound to the principal it signs as (a device or a
/// connection). Made by [`DeviceKeys::signer`] or
/// `ConnectionKeys::signer`; used by [`seal`](crate::seal).
/// Zeroized on drop; `Debug` shows the principal and key id only. It signs only the crate's
/// own domain-separated transcripts: there is deliberately no "sign these bytes".
#[derive(Clone)]
pub struct Signer {
    principal: Principal,
    key_id: String,
    public_key: [u8; 32],
    seed: Zeroizing<[u8; 32]>,
}

impl Signer {
    pub(crate) fn new(principal: Principal, seed: &Zeroizing<[u8; 32]>) -> Signer {
        let public_key = ed25519_public(seed);
        Signer {
            principal,
            key_id: key_id_ed25519(&public_key),
            public_key,
            seed: seed.clone(),
        }
    }

    /// Key id of the Ed25519 public key (goes into `EnvelopeHeader::signing_key_id`).
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// Who signs (goes into `EnvelopeHeader::sender`).
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The Ed25519 public key (32 bytes).
    pub fn public_key(&self) -> [u8; 32] {
        self.public_key
    }

    pub(crate) fn sign(&self, message: &[u8]) -> [u8; 64] {
        ed25519_sign(&self.seed, message)
    }
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("principal", &self.principal)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// The public keys of a device, as its certificate carries them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevicePublic {
    /// [`key_id_ed25519`] of `signing_key`.
    pub signing_key_id: String,
    /// Ed25519 public key.
    pub signing_key: [u8; 32],
    /// [`key_id_x25519`] of `encryption_key`.
    pub encryption_key_id: String,
    /// X25519 public key.
    pub encryption_key: [u8; 32],
}

/// Version byte of [`DeviceKeys::to_bytes`].
const DEVICE_KEYS_VERSION: u8 = 1;
const DEVICE_KEYS_LEN: usize = 1 + 32 + 32;

/// A device's own keys: an Ed25519 seed (signs what the device sends) and an X25519 secret
/// (receives the account bundle when pairing). Zeroized on drop; `Debug` shows key ids only.
#[derive(Clone)]
pub struct DeviceKeys {
    signing_seed: Zeroizing<[u8; 32]>,
    signing_key: [u8; 32],
    encryption: RecipientSecret,
}

impl DeviceKeys {
    /// Fresh random device keys.
    pub fn generate() -> DeviceKeys {
        let signing_seed = Zeroizing::new(random_bytes::<32>());
        DeviceKeys {
            signing_key: ed25519_public(&signing_seed),
            signing_seed,
            encryption: RecipientSecret::generate(),
        }
    }

    /// Serializes as `0x01 || Ed25519 seed (32) || X25519 secret (32)` (65 bytes). Seal the
    /// result (e.g. with [`seal_local`](crate::seal_local)) before storing it.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(DEVICE_KEYS_LEN));
        out.push(DEVICE_KEYS_VERSION);
        out.extend_from_slice(&self.signing_seed[..]);
        out.extend_from_slice(self.encryption.secret_bytes());
        out
    }

    /// Parses [`DeviceKeys::to_bytes`]. Errors: [`Error::Malformed`] for a wrong length or
    /// version byte.
    pub fn from_bytes(bytes: &[u8]) -> Result<DeviceKeys> {
        if bytes.len() != DEVICE_KEYS_LEN || bytes[0] != DEVICE_KEYS_VERSION {
            return Err(Error::Malformed("device keys"));
        }
        let mut signing_seed = Zeroizing::new([0u8; 32]);
        signing_seed.copy_from_slice(&bytes[1..33]);
        let mut secret = Zeroizing::new([0u8; 32]);
        secret.copy_from_slice(&bytes[33..65]);
        Ok(DeviceKeys {
            signing_key: ed25519_public(&signing_seed),
            signing_seed,
            encryption: RecipientSecret::from_secret(secret),
        })
    }

    /// The public keys, for `AccountKeys::certify_device`
    /// and pairing requests.
    pub fn public(&self) -> DevicePublic {
        DevicePublic {
            signing_key_id: key_id_ed25519(&self.signing_key),
            signing_key: self.signing_key,
            encryption_key_id: self.encryption.key_id().to_owned(),
            encryption_key: self.encryption.public_key,
        }
    }

    /// A signer for envelopes this device sends, as `Principal::Device(device_id)`.
    pub fn signer(&self, device_id: &DeviceId) -> Signer {
        Signer::new(Principal::Device(device_id.clone()), &self.signing_seed)
    }

    /// The device's own X25519 recipient (public half).
    pub fn recipient(&self) -> Recipient {
        self.encryption.recipient()
    }

    /// The device's own X25519 secret.
    pub fn recipient_secret(&self) -> RecipientSecret {
        self.encryption.clone()
    }
}

impl fmt::Debug for DeviceKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceKeys")
            .field("signing_key_id", &key_id_ed25519(&self.signing_key))
            .field("encryption_key_id", &self.encryption.key_id())
            .finish_non_exhaustive()
    }
}
