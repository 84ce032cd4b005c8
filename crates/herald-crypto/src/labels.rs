//! Every domain-separation label of protocol version 1, in one place so it is visible that they
//! are distinct and that none is a prefix of another. Each hash, signature, HKDF derivation and
//! HPKE `info` uses exactly one of them (docs/protocol.md, "Labels"; protocol-decisions.md:
//! "HKDF-SHA256 with a distinct `herald.v1/...` label for every derivation").

/// SHA-256 prefix of the account fingerprint: `SHA-256(ACCOUNT_FINGERPRINT || AIK public key)`.
pub const ACCOUNT_FINGERPRINT: &[u8] = b"herald.v1/account-fingerprint";
/// SHA-256 prefix of key ids: `SHA-256(KEY_ID || alg byte || public key)`.
pub const KEY_ID: &[u8] = b"herald.v1/key-id";
/// Ed25519 signature prefix of certificates: `sign(AIK, CERTIFICATE || payload bytes)`.
pub const CERTIFICATE: &[u8] = b"herald.v1/certificate";
/// Ed25519 signature prefix of envelopes (see docs/protocol.md for the full transcript).
pub const ENVELOPE_SIGNATURE: &[u8] = b"herald.v1/envelope/signature";
/// HPKE `info` when sealing an envelope's content key to a recipient.
pub const ENVELOPE_CONTENT_KEY: &[u8] = b"herald.v1/envelope/content-key";
/// HKDF-SHA256 `info` deriving an envelope's body key from its content key.
pub const ENVELOPE_BODY: &[u8] = b"herald.v1/envelope/body";
/// HKDF-SHA256 `info` deriving a connection's Ed25519 seed from the token seed.
pub const CONNECTION_SIGNING: &[u8] = b"herald.v1/connection/signing";
/// HKDF-SHA256 `info` deriving a connection's HPKE DeriveKeyPair input from the token seed.
pub const CONNECTION_ENCRYPTION: &[u8] = b"herald.v1/connection/encryption";
/// HKDF-SHA256 `info` deriving a connection's idempotency-digest (HMAC-SHA256) key from the
/// token seed.
pub const CONNECTION_IDEMPOTENCY: &[u8] = b"herald.v1/connection/idempotency";
/// HKDF-SHA256 `info` deriving the recovery key pair's DeriveKeyPair input.
pub const RECOVERY_ENCRYPTION: &[u8] = b"herald.v1/recovery/encryption";
/// HPKE `info` when sealing the account key bundle to the recovery key.
pub const RECOVERY_BUNDLE: &[u8] = b"herald.v1/recovery/bundle";
/// SPAKE2 identity prefix of the new device (side A) in typed-code pairing.
pub const PAIRING_NEW_DEVICE: &[u8] = b"herald.v1/pairing/new-device";
/// SPAKE2 identity of the approving device (side B) in typed-code pairing.
pub const PAIRING_APPROVER: &[u8] = b"herald.v1/pairing/approver";
/// SHA-256 prefix of the pairing transcript both key confirmations cover.
pub const PAIRING_TRANSCRIPT: &[u8] = b"herald.v1/pairing/transcript";
/// HKDF-SHA256 `info` deriving the approver's key-confirmation (HMAC) key from the PAKE key.
pub const PAIRING_CONFIRM_APPROVER: &[u8] = b"herald.v1/pairing/confirm/approver";
/// HKDF-SHA256 `info` deriving the new device's key-confirmation (HMAC) key from the PAKE key.
pub const PAIRING_CONFIRM_NEW_DEVICE: &[u8] = b"herald.v1/pairing/confirm/new-device";
/// HKDF-SHA256 `info` deriving the HPKE PSK (the bundle's pre-shared key) from the PAKE key.
pub const PAIRING_PSK: &[u8] = b"herald.v1/pairing/psk";
/// HPKE `psk_id` of the pairing bundle.
pub const PAIRING_PSK_ID: &[u8] = b"herald.v1/pairing/id-of-psk";
/// HPKE `info` when sealing the account bundle to a new device in pairing (PSK mode).
pub const PAIRING_BUNDLE: &[u8] = b"herald.v1/pairing/bundle";
/// HPKE `info` when sealing a rotated account bundle to a remaining device (base mode).
pub const DEVICE_BUNDLE: &[u8] = b"herald.v1/device/bundle";
/// HKDF-SHA256 `info` deriving the at-rest sealing key from the keychain's local key.
pub const LOCAL_SEAL: &[u8] = b"herald.v1/local/seal";

/// HPKE `info` when the relay seals an agent's notification to the account encryption key
/// (docs/agents.md, "Storage").
pub const NOTIFICATION: &[u8] = b"herald.v1/notification";

/// AEAD associated-data prefix when the relay seals a reply-event webhook signing secret at
/// rest under its local key (docs/mcp.md, "Reply event"); the subscription id follows it.
pub const WEBHOOK_SECRET: &[u8] = b"herald.v1/webhook-secret";

/// All labels above, for the distinctness test and for documentation generators.
pub const ALL: &[&[u8]] = &[
    ACCOUNT_FINGERPRINT,
    KEY_ID,
    CERTIFICATE,
    ENVELOPE_SIGNATURE,
    ENVELOPE_CONTENT_KEY,
    ENVELOPE_BODY,
    CONNECTION_SIGNING,
    CONNECTION_ENCRYPTION,
    CONNECTION_IDEMPOTENCY,
    RECOVERY_ENCRYPTION,
    RECOVERY_BUNDLE,
    PAIRING_NEW_DEVICE,
    PAIRING_APPROVER,
    PAIRING_TRANSCRIPT,
    PAIRING_CONFIRM_APPROVER,
    PAIRING_CONFIRM_NEW_DEVICE,
    PAIRING_PSK,
    PAIRING_PSK_ID,
    PAIRING_BUNDLE,
    DEVICE_BUNDLE,
    LOCAL_SEAL,
    NOTIFICATION,
    WEBHOOK_SECRET,
];

#[cfg(test)]
mod tests {
    use super::ALL;

    #[test]
    fn labels_are_distinct_and_prefix_free() {
        for (i, a) in ALL.iter().enumerate() {
            for (j, b) in ALL.iter().enumerate() {
                if i != j {
                    assert!(
                        !b.starts_with(a),
                        "label {:?} must not be a prefix of {:?}",
                        String::from_utf8_lossy(a),
                        String::from_utf8_lossy(b)
                    );
                }
            }
        }
    }
}
