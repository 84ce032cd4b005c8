//! herald-crypto: Herald's end-to-end encryption, sans I/O.
//!
//! Everything a device or a connection needs to trust the relay with nothing but ciphertext:
//! account and device keys, connection keys derived from a token, certificates signed by the
//! account identity key, the verified key directory, sealed and signed envelopes, the safety
//! code, the recovery key, and at-rest sealing. It reads no files, opens no sockets and reads
//! no clock: times are passed in as RFC 3339 strings, bytes in and out.
//!
//! No primitive is implemented here: ring provides Ed25519, SHA-2, HKDF, ChaCha20-Poly1305 and
//! randomness; the `hpke` crate provides RFC 9180 base mode with DHKEM(X25519, HKDF-SHA256) /
//! HKDF-SHA256 / ChaCha20-Poly1305. This crate fixes how they are composed, with a distinct
//! `herald.v1/…` label for every use ([`labels`]). The normative
//! byte-level construction, with labels and test vectors, is docs/protocol.md ("Cryptography").

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod account;
mod connection;
mod device_bundle;
mod directory;
mod envelope;
mod error;
pub mod files;
mod hpke_base;
mod keys;
pub mod labels;
mod local;
mod notification;
mod offer;
mod pairing;
mod primitives;
mod recovery;
mod safety;

pub use herald_protocol::envelope::{
    Certificate, CertificateBody, Envelope, EnvelopeHeader, EnvelopeKind, Principal, SealedKey,
};
pub use herald_protocol::ids::{AccountId, ConnectionId, DeviceId, MessageId, PairingId};

pub use account::{account_fingerprint, account_id_for, verify_certificate, AccountKeys};
pub use connection::{ConnectionKeys, ConnectionToken};
pub use device_bundle::{open_bundle_for_device, seal_bundle_to_device};
pub use directory::{
    ConnectionInfo, DeviceInfo, Directory, EncryptionKeyInfo, Revoked, MIN_PIN_LEN,
};
pub use envelope::{open, open_at, seal, SealParams};
pub use error::{Error, Result};
pub use files::{decrypt_file, encrypt_file, EncryptedFile, FileError, FileKey};
pub use keys::{
    key_id_ed25519, key_id_x25519, new_bearer, new_connection_id, new_device_id, new_message_id,
    DeviceKeys, DevicePublic, Recipient, RecipientSecret, Signer, KEY_ALG_ED25519, KEY_ALG_X25519,
    KEY_ID_LEN,
};
pub use local::{open_local, seal_local, LocalKey};
pub use notification::{open_notification, seal_notification};
pub use offer::{verify_offer_key, OneTimeKey, VerifiedOfferKey};
pub use pairing::{
    ApproverConfirmed, ApproverPairing, NewDeviceConfirmed, NewDevicePairing, PairingCode,
    PAIRING_CODE_DIGITS,
};
pub use primitives::random_bytes;
pub use recovery::{open_bundle_with_recovery, seal_bundle_to_recovery, RecoveryKey};
pub use safety::{
    fingerprint_digits, numeric_fingerprint, safety_code, SAFETY_CODE_ITERATIONS,
    SAFETY_CODE_VERSION,
};
