//! Envelopes and certificates as they travel (FROZEN: these bytes are signed and sealed;
//! changing a field name or encoding breaks every stored message — add a new `v` instead).
//!
//! Binary values are base64url without padding. The header and certificate payloads are
//! carried as the exact bytes that were signed (base64url of UTF-8 JSON), so no canonical JSON
//! is needed: verifiers check the signature over the bytes, then parse them.
//! The cryptography lives in herald-crypto; docs/protocol.md is the normative description.

use serde::{Deserialize, Serialize};

use crate::ids::{AccountId, ConnectionId, DeviceId, MessageId};

/// Envelope format version.
pub const ENVELOPE_VERSION: u32 = 1;

/// The one cipher suite of version 1: HPKE DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 /
/// ChaCha20-Poly1305 for recipients, ChaCha20-Poly1305 for the body, Ed25519 signatures.
pub const SUITE_V1: &str = "herald.v1.x25519-hkdfsha256-chacha20poly1305.ed25519";

/// A sealed, signed message or answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Envelope {
    /// [`ENVELOPE_VERSION`].
    pub v: u32,
    /// [`SUITE_V1`].
    pub suite: String,
    /// base64url of the UTF-8 JSON of an [`EnvelopeHeader`].
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub header: String,
    /// The content key sealed to each recipient key, in header order.
    pub recipients: Vec<SealedKey>,
    /// base64url AEAD ciphertext of the content JSON.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub ciphertext: String,
    /// base64url Ed25519 signature by the sender's signing key.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub signature: String,
}

/// The content key sealed to one recipient with HPKE.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SealedKey {
    /// Key id of the recipient's X25519 key.
    pub key_id: String,
    /// base64url HPKE encapsulated key.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub enc: String,
    /// base64url HPKE ciphertext of the 32-byte content key.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub ct: String,
}

/// What an envelope carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EnvelopeKind {
    /// A message or request from an agent (or device).
    Message,
    /// An answer to a request.
    Answer,
    /// The secret values of an answer, sealed to the asking connection only (docs/secrets.md).
    SecretAnswer,
    /// The secret of a secret offer, sealed by the sending connection to the device's
    /// one-time key (docs/secrets.md).
    SecretPayload,
}

/// Who signed an envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "id", rename_all = "camelCase")]
pub enum Principal {
    Device(DeviceId),
    Connection(ConnectionId),
}

/// The protected header, signed and bound (by hash) to every sealed key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvelopeHeader {
    pub v: u32,
    pub suite: String,
    pub kind: EnvelopeKind,
    pub account_id: AccountId,
    /// The message this envelope is (kind message) or answers (kind answer).
    pub message_id: MessageId,
    pub sender: Principal,
    /// Key id of the sender's Ed25519 key.
    pub signing_key_id: String,
    /// The sender's clock, RFC 3339; informational only (the relay's clock orders messages).
    pub created_at: String,
    /// Key ids of the recipients, in the same order as [`Envelope::recipients`].
    pub recipients: Vec<String>,
}

/// A signed statement: `payload` is base64url of the UTF-8 JSON of a [`CertificateBody`],
/// `signature` the Ed25519 signature of the account identity key over it (domain-separated,
/// see docs/protocol.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Certificate {
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub payload: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub signature: String,
}

/// What a certificate says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum CertificateBody {
    /// The account statement, self-signed by the account identity key (AIK).
    #[serde(rename_all = "camelCase")]
    Account {
        account_id: AccountId,
        /// base64url Ed25519 public key (32 bytes).
        identity_key: String,
        created_at: String,
    },
    /// An account encryption key (AEK) epoch.
    #[serde(rename_all = "camelCase")]
    EncryptionKey {
        account_id: AccountId,
        epoch: u32,
        key_id: String,
        /// base64url X25519 public key.
        public_key: String,
        created_at: String,
    },
    /// A device of the account.
    #[serde(rename_all = "camelCase")]
    Device {
        account_id: AccountId,
        device_id: DeviceId,
        name: String,
        platform: String,
        signing_key_id: String,
        signing_key: String,
        encryption_key_id: String,
        encryption_key: String,
        created_at: String,
    },
    /// A connection (agent credential) of the account.
    #[serde(rename_all = "camelCase")]
    Connection {
        account_id: AccountId,
        connection_id: ConnectionId,
        name: String,
        signing_key_id: String,
        signing_key: String,
        encryption_key_id: String,
        encryption_key: String,
        created_at: String,
    },
    /// A device's one-time X25519 key for one secret offer (docs/secrets.md): the sender seals
    /// the secret to `publicKey` only if this certificate verifies and has not expired.
    #[serde(rename_all = "camelCase")]
    OfferKey {
        account_id: AccountId,
        /// The secret offer (a message of kind `secret`) this key is for.
        message_id: MessageId,
        /// The device holding the private half.
        device_id: DeviceId,
        key_id: String,
        /// base64url X25519 public key.
        public_key: String,
        created_at: String,
        /// RFC 3339, `created_at` + 15 minutes by the device's clock; the relay's clock decides expiry.
        expires_at: String,
    },
}

/// Decodes a base64url (no padding) string.
pub fn b64_decode(s: &str) -> Option<Vec<u8>> {
    data_encoding::BASE64URL_NOPAD.decode(s.as_bytes()).ok()
}

/// Encodes bytes as base64url without padding.
pub fn b64_encode(bytes: &[u8]) -> String {
    data_encoding::BASE64URL_NOPAD.encode(bytes)
}

impl Certificate {
    /// Parses the payload WITHOUT checking the signature. Only for routing and display (the
    /// relay uses it to index keys); devices and connections must verify with herald-crypto.
    pub fn body_unverified(&self) -> Option<CertificateBody> {
        serde_json::from_slice(&b64_decode(&self.payload)?).ok()
    }
}

impl Envelope {
    /// Parses the header WITHOUT checking the signature (routing and size checks only).
    pub fn header_unverified(&self) -> Option<EnvelopeHeader> {
        serde_json::from_slice(&b64_decode(&self.header)?).ok()
    }

    /// Approximate stored size in bytes (the sum of the encoded parts).
    pub fn encoded_len(&self) -> usize {
        self.header.len()
            + self.ciphertext.len()
            + self.signature.len()
            + self
                .recipients
                .iter()
                .map(|r| r.key_id.len() + r.enc.len() + r.ct.len())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_body_snapshot() {
        let body = CertificateBody::EncryptionKey {
            account_id: AccountId::from_random(&[1; 16]),
            epoch: 1,
            key_id: "k1".into(),
            public_key: "pk".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"type": "encryptionKey", "accountId": "acc_aeaqcaibaeaqcaibaeaqcaibae", "epoch": 1, "keyId": "k1", "publicKey": "pk", "createdAt": "2026-01-01T00:00:00Z"}),
            "frozen certificate shape"
        );
    }

    #[test]
    fn principal_snapshot() {
        let p = Principal::Connection(ConnectionId::from_random(&[0; 16]));
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            serde_json::json!({"type": "connection", "id": "con_aaaaaaaaaaaaaaaaaaaaaaaaaa"}),
            "frozen principal shape"
        );
    }
}
