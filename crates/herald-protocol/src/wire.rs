//! Request and response bodies of the relay's inbox API (`/accounts`, `/connections`,
//! `/keys`, `/messages`, `/ws`). Field names are camelCase; times are RFC 3339 UTC strings with
//! millisecond precision, always from the relay's clock unless stated otherwise.

use serde::{Deserialize, Serialize};

use crate::envelope::{Certificate, Envelope};
use crate::ids::{AccountId, ConnectionId, DeviceId, FileId, MessageId, Revision};
use crate::scopes::Scope;

/// Longest accepted `expiresIn`, and the furthest `expiresAt` may lie ahead: 24 hours.
pub const MAX_EXPIRES_IN_SECS: u64 = 24 * 60 * 60;
/// Largest accepted envelope (encoded) in `POST /messages` and answers: 1 MiB. Content limits
/// (50,000-character body, 10 blocks of 50,000) fit well inside it.
pub const MAX_ENVELOPE_BYTES: usize = 1024 * 1024;
/// Longest `Idempotency-Key` of `POST /messages`, in characters.
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 255;

/// What an `Idempotency-Key` may hold, for messages: the rule [`check_idempotency_key`] applies.
pub const IDEMPOTENCY_KEY_RULE: &str =
    "1 to 255 visible ASCII characters (letters, digits and punctuation such as - _ . :), no spaces";

/// Checks an `Idempotency-Key` (`POST /messages`): 1–[`MAX_IDEMPOTENCY_KEY_LEN`] characters,
/// each visible ASCII (`!` to `~`). The relay, the SDK and the CLI apply this same rule; a
/// key outside it is refused before anything is sent. Err: [`IDEMPOTENCY_KEY_RULE`].
pub fn check_idempotency_key(key: &str) -> Result<(), &'static str> {
    if key.is_empty()
        || key.len() > MAX_IDEMPOTENCY_KEY_LEN
        || !key.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(IDEMPOTENCY_KEY_RULE);
    }
    Ok(())
}

/// Default and largest page size of `GET /messages`.
pub const DEFAULT_PAGE_LIMIT: u32 = 100;
/// Largest page size of `GET /messages`.
pub const MAX_PAGE_LIMIT: u32 = 500;
/// Prefix of a connection's bearer credential.
pub const CONNECTION_BEARER_PREFIX: &str = "hdr_";
/// Prefix of a device session credential.
pub const DEVICE_BEARER_PREFIX: &str = "hds_";

/// `POST /accounts` (no credential): the first device creates the account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateAccountRequest {
    /// Self-signed account statement (`CertificateBody::Account`).
    pub statement: Certificate,
    /// First account encryption key (`CertificateBody::EncryptionKey`, epoch 1).
    pub encryption_key: Certificate,
    /// The first device (`CertificateBody::Device`).
    pub device: Certificate,
}

/// Answer to `POST /accounts` (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateAccountResponse {
    pub account_id: AccountId,
    pub device_id: DeviceId,
    /// `hds_…` device session bearer; shown once, stored hashed by the relay.
    pub device_token: String,
}

/// `POST /connections` (device): register a connection's certificate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateConnectionRequest {
    /// `CertificateBody::Connection`, signed by the account identity key.
    pub certificate: Certificate,
    /// What the connection may do (1–3 distinct scopes); absent: all three
    /// ([`Scope::ALL`]). Fewer make a narrower credential, e.g. `["messages:send"]` for an
    /// agent that only notifies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<Scope>>,
}

/// Answer to `POST /connections` (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateConnectionResponse {
    pub connection_id: ConnectionId,
    /// `hdr_…`: the bearer part of the connection token, returned once.
    pub bearer: String,
    /// The scopes the bearer holds, in [`Scope::ALL`] order.
    #[serde(default = "all_scopes")]
    pub scopes: Vec<Scope>,
}

fn all_scopes() -> Vec<Scope> {
    Scope::ALL.to_vec()
}

/// One connection in `GET /connections`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConnectionInfo {
    pub id: ConnectionId,
    pub name: String,
    /// What its bearer may do, in [`Scope::ALL`] order (a relay from before scopes: all).
    #[serde(default = "all_scopes")]
    pub scopes: Vec<Scope>,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub revoked_at: Option<String>,
}

/// `GET /connections`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConnectionList {
    pub connections: Vec<ConnectionInfo>,
}

/// `GET /keys`: everything needed to verify senders and seal to the account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KeysResponse {
    pub account_id: AccountId,
    pub statement: Certificate,
    /// All encryption-key epochs, oldest first; the last is current.
    pub encryption_keys: Vec<Certificate>,
    /// Certificates of the account's devices (not revoked).
    pub devices: Vec<Certificate>,
    /// Certificates of the account's connections (not revoked).
    pub connections: Vec<Certificate>,
    /// Certificates of the account's revoked devices, with the relay's revocation time, so
    /// what they signed before it still verifies (docs/protocol.md, "Key directory").
    /// Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revoked_devices: Vec<RevokedCertificate>,
    /// Certificates of the account's revoked connections, as `revoked_devices`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revoked_connections: Vec<RevokedCertificate>,
}

/// A revoked device's or connection's certificate in `GET /keys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RevokedCertificate {
    /// The certificate as it was served while the credential was valid (AIK-signed).
    pub certificate: Certificate,
    /// When the relay revoked it, RFC 3339 UTC with milliseconds (the relay's clock, the same
    /// clock that stamps `createdAt` and `answeredAt`).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub revoked_at: String,
}

/// `PUT /keys/backup` and `GET /keys/backup` (devices only): the account key bundle sealed
/// to the recovery key, so a new device can unlock with the recovery key alone, and any
/// unlocked device can re-seal it after a key rotation without the person typing the key.
/// The relay stores it as given; it cannot open it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RecoveryBackup {
    /// Key id of the recovery public key the bundle is sealed to.
    pub recovery_key_id: String,
    /// base64url X25519 recovery public key (so devices can re-seal to it).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub recovery_public_key: String,
    /// base64url of the sealed bundle (herald-crypto `seal_bundle_to_recovery`), ≤ 16 KiB.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub sealed_bundle: String,
    /// Set by the relay on read: when the backup was last written (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub updated_at: Option<String>,
}

/// Largest accepted `sealedBundle`, encoded (16 KiB; a bundle with many epochs is ~2 KiB).
pub const MAX_BACKUP_CHARS: usize = 16 * 1024;

/// `POST /messages` (header `Idempotency-Key` required).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SendMessageRequest {
    /// Made by the sender and equal to the envelope header's `messageId`.
    pub id: MessageId,
    /// Content kind visible to the relay, e.g. `message`; default `message`.
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Whether the message asks for an answer (then it is a request, status `pending`).
    #[serde(default)]
    pub expects_answer: bool,
    /// Absolute deadline (RFC 3339), at most 24 h after the relay receives it.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub expires_at: Option<String>,
    /// Relative deadline in seconds (1 ..= 86,400); exclusive with `expiresAt`.
    pub expires_in: Option<u64>,
    /// Continue the conversation of this message.
    pub reply_to: Option<MessageId>,
    /// base64url of 32 bytes: the sender's keyed digest (HMAC) of the plaintext request.
    /// Two seals of the same content always differ, so with a digest the relay recognises a
    /// retry (same Idempotency-Key, same digest → the original record) without seeing the
    /// content; without one it compares the body bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Base64Url>))]
    pub content_digest: Option<String>,
    pub envelope: Envelope,
    /// The files this message carries (≤ 10, no duplicates), ids only: their names, types and
    /// keys are inside the encrypted content. Each must be a completed upload by the same
    /// credential, not attached anywhere yet; the relay links them to the message so that
    /// whoever may read the message may download them (docs/files.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<FileId>,
}

fn default_kind() -> String {
    "message".to_owned()
}

/// Status of a message as the relay tracks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum MessageStatus {
    Delivered,
    Pending,
    Answered,
    Expired,
    Cancelled,
}

impl MessageStatus {
    /// Wire text.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Delivered => "delivered",
            MessageStatus::Pending => "pending",
            MessageStatus::Answered => "answered",
            MessageStatus::Expired => "expired",
            MessageStatus::Cancelled => "cancelled",
        }
    }

    /// Parses wire text.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "delivered" => MessageStatus::Delivered,
            "pending" => MessageStatus::Pending,
            "answered" => MessageStatus::Answered,
            "expired" => MessageStatus::Expired,
            "cancelled" => MessageStatus::Cancelled,
            _ => return None,
        })
    }
}

/// Who sent a message, as the relay knows it (metadata, not a proof: receivers verify the
/// envelope signature).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SenderInfo {
    /// `connection` or `device`.
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    pub name: String,
}

/// The answer stored with a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AnswerRecord {
    pub envelope: Envelope,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub answered_at: String,
    pub device_id: DeviceId,
}

/// The `title` of every [`MessageRecord`]: the relay cannot read the real one, which is inside
/// the envelope.
pub const SEALED_TITLE: &str = "Encrypted message";

fn sealed_title() -> String {
    SEALED_TITLE.to_owned()
}

fn always_sealed() -> bool {
    true
}

/// A message as the relay stores and serves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MessageRecord {
    pub id: MessageId,
    /// Revision of the latest change to this record.
    pub revision: Revision,
    /// Always true: the content is in `envelope`, end-to-end encrypted, readable only on the
    /// account's devices and by the connections it is addressed to. (A relay from before
    /// this field is read as true too.)
    #[serde(default = "always_sealed")]
    pub sealed: bool,
    /// Always [`SEALED_TITLE`] (`"Encrypted message"`): what a reader that cannot decrypt
    /// shows. The real title is inside the envelope.
    #[serde(default = "sealed_title")]
    pub title: String,
    pub kind: String,
    pub status: MessageStatus,
    pub expects_answer: bool,
    pub sender: SenderInfo,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub expires_at: Option<String>,
    pub reply_to: Option<MessageId>,
    /// The conversation this message belongs to: the id of its first message (a message that
    /// replies to nothing starts its own thread). Assigned by the relay.
    pub thread_id: MessageId,
    /// Position in the thread: 0 for the first message, then 1, 2, … in arrival order.
    pub thread_sequence: u32,
    /// Encoded size of the envelope in bytes.
    pub size: u64,
    pub envelope: Envelope,
    pub answer: Option<AnswerRecord>,
}

/// `GET /messages?after=<cursor>&limit=N`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MessagePage {
    /// Records with revision > `after`, in revision order.
    pub records: Vec<MessageRecord>,
    /// The cursor to pass as `after` next: the highest revision in `records`, or `after` when
    /// empty.
    pub cursor: Revision,
    /// Whether more records remain after this page.
    pub has_more: bool,
}

/// `GET /messages/:id/thread`: the thread of a message, oldest first (by `threadSequence`),
/// only the records visible to the caller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThreadPage {
    pub thread_id: MessageId,
    pub records: Vec<MessageRecord>,
}

/// `POST /messages/:id/answer` (device only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AnswerRequest {
    pub envelope: Envelope,
    /// The values of secret fields, sealed to the asking connection only (envelope kind
    /// `secretAnswer`); `envelope` then carries `{"secret": true}` in their place. The relay
    /// keeps it apart from the record and hands it to the asking connection once
    /// (docs/secrets.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_envelope: Option<Envelope>,
    /// Files the answer carries (uploads by the answering device for file fields), as in
    /// [`SendMessageRequest::attachments`]; linked to the answered request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<FileId>,
    /// Uploads by the answering device for secret-file fields (docs/secrets.md): their keys
    /// travel only in `secret_envelope`, which must be present. The relay lets only the
    /// asking connection download them and deletes them 15 minutes after the answer. At most
    /// 10 files between this list and `attachments`, none in both.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_attachments: Vec<FileId>,
}

/// Frames the relay sends on `GET /ws` (text frames, JSON). Keepalive uses websocket pings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ServerFrame {
    /// The account changed; its latest revision is `revision`. Sent once on connect too.
    Sync { revision: Revision },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_from_an_older_relay_reads_as_sealed() {
        let record = serde_json::json!({
            "id": "msg_aaaaaaaaaaaaaaaaaaaaaaaaaa", "revision": 3, "kind": "message",
            "status": "delivered", "expectsAnswer": false,
            "sender": {"type": "device", "id": "dev_aaaaaaaaaaaaaaaaaaaaaaaaaa", "name": "Laptop"},
            "createdAt": "2026-12-01T10:00:00.000Z", "expiresAt": null, "replyTo": null,
            "threadId": "msg_aaaaaaaaaaaaaaaaaaaaaaaaaa", "threadSequence": 0, "size": 10,
            "envelope": {"v": 1, "suite": "x", "header": "", "recipients": [], "ciphertext": "",
                         "signature": ""},
            "answer": null
        });
        let parsed: MessageRecord = serde_json::from_value(record).expect("the sample parses");
        assert!(parsed.sealed, "sealed by default");
        assert_eq!(parsed.title, SEALED_TITLE, "the published title by default");
        let back = serde_json::to_value(&parsed).expect("serializes");
        assert_eq!(back["sealed"], true, "written out");
        assert_eq!(back["title"], "Encrypted message", "written out");
    }

    #[test]
    fn sync_frame_snapshot() {
        assert_eq!(
            serde_json::to_string(&ServerFrame::Sync {
                revision: Revision(7)
            })
            .unwrap(),
            r#"{"type":"sync","revision":7}"#,
            "the published live-update frame"
        );
    }

    #[test]
    fn status_round_trip() {
        for s in ["delivered", "pending", "answered", "expired", "cancelled"] {
            assert_eq!(MessageStatus::parse(s).unwrap().as_str(), s, "status {s}");
        }
    }

    #[test]
    fn idempotency_keys_are_visible_ascii_up_to_255() {
        for good in [
            "k",
            "idk_abc-DEF.1:2/3",
            &"k".repeat(MAX_IDEMPOTENCY_KEY_LEN),
        ] {
            assert!(check_idempotency_key(good).is_ok(), "{good:?}");
        }
        for bad in [
            "",
            "bad key",
            "tab\tkey",
            "new\nline",
            "clé",
            &"k".repeat(256),
        ] {
            assert_eq!(
                check_idempotency_key(bad),
                Err(IDEMPOTENCY_KEY_RULE),
                "{bad:?}"
            );
        }
    }
}
