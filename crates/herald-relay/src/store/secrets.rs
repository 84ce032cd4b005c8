//! Storage of secret deliveries (docs/secrets.md), kept apart from message records so a
//! secret never appears in `GET /messages`:
//!
//! - **secret answers**: the `secretAnswer` envelope stored with an answer, handed to the
//!   asking connection once, deleted when collected or 15 minutes after the answer;
//! - **secret offers**: the one-time key a device posts for a message of kind `secret`, and
//!   the `secretPayload` envelope the sender seals to it, handed to that device once.
//!
//! A handed-over or expired secret leaves a tombstone row (no envelope), so a second call
//! gets `secret_collected` or `secret_expired` instead of a bare 404. Every change to an
//! offer takes the account's next revision and stamps it on the message, so the sender's
//! wait and the devices' feeds hear of it.

use chrono::{DateTime, Utc};
use herald_protocol::envelope::{Certificate, Envelope};
use herald_protocol::secrets::SecretOfferState;
use herald_protocol::wire::MessageRecord;
use herald_protocol::{AccountId, ConnectionId, DeviceId, ErrorCode, FileId, MessageId};

use super::files::FileError;
use super::{ChangedRecord, NewAnswer, Principal, StoreError, Viewer};

/// Outcomes of the secret routes a client caused, plus storage failures.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("secret already collected")]
    Collected,
    #[error("secret expired")]
    Expired,
    #[error("not a secret offer")]
    NotAnOffer,
    #[error("offer key exists")]
    OfferKeyExists,
    #[error("offer not opened")]
    NotOpened,
    #[error("secret payload exists")]
    PayloadExists,
    #[error("secret not sent")]
    NotSent,
    /// The caller may see the message but not this secret (a device asking for a secret
    /// answer, another device asking for an offer's secret).
    #[error("forbidden")]
    Forbidden,
    /// A secret answer to a request that no connection sent: nobody could collect it.
    #[error("the request was not sent by a connection")]
    NoConnection,
    /// A file of the answer's `list` (`attachments` or `secretAttachments`) cannot be
    /// attached; `error` says why and which one.
    #[error("{list}: {error}")]
    Files {
        list: &'static str,
        error: FileError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for SecretError {
    fn from(e: rusqlite::Error) -> Self {
        SecretError::Store(StoreError::Sqlite(e))
    }
}

impl SecretError {
    /// The catalog code for outcomes a client caused; `None` for internal failures.
    pub fn code(&self) -> Option<ErrorCode> {
        Some(match self {
            SecretError::Collected => ErrorCode::SecretCollected,
            SecretError::Expired => ErrorCode::SecretExpired,
            SecretError::NotAnOffer => ErrorCode::NotASecretOffer,
            SecretError::OfferKeyExists => ErrorCode::OfferKeyExists,
            SecretError::NotOpened => ErrorCode::OfferNotOpened,
            SecretError::PayloadExists => ErrorCode::SecretPayloadExists,
            SecretError::NotSent => ErrorCode::SecretNotSent,
            SecretError::Forbidden => ErrorCode::Forbidden,
            SecretError::NoConnection => ErrorCode::InvalidRequest,
            SecretError::Files { error, .. } => return error.code(),
            SecretError::Store(e) => return e.code(),
        })
    }
}

pub type SecretResult<T> = std::result::Result<T, SecretError>;

/// A secret answer to keep beside its answer, with the files the answer carries.
#[derive(Debug, Clone)]
pub struct NewSecretAnswer {
    pub envelope: Envelope,
    /// When the relay deletes it if nobody collected it; secret files go at the same time.
    pub expires_at: DateTime<Utc>,
    /// The answering device, which uploaded the files.
    pub uploader: Principal,
    /// Ordinary attachments of the answer (file fields), linked like any answer's.
    pub files: Vec<FileId>,
    /// Uploads for secret-file fields: downloadable by the asking connection only.
    pub secret_files: Vec<FileId>,
}

/// A one-time key a device posts for a secret offer.
#[derive(Debug, Clone)]
pub struct NewOfferKey {
    pub device_id: DeviceId,
    pub certificate: Certificate,
    /// Key id of the one-time key (the only recipient the payload may have).
    pub key_id: String,
    pub now: DateTime<Utc>,
    /// When the relay forgets the key if the sender never sealed to it.
    pub expires_at: DateTime<Utc>,
}

/// A secret an offer's sender posts.
#[derive(Debug, Clone)]
pub struct NewSecretPayload {
    pub connection_id: ConnectionId,
    pub envelope: Envelope,
    pub now: DateTime<Utc>,
    /// When the relay deletes it if the device never collected it.
    pub expires_at: DateTime<Utc>,
}

/// An offer after a change: its state and the message record with its new revision.
#[derive(Debug, Clone)]
pub struct OfferChange {
    pub state: SecretOfferState,
    pub record: MessageRecord,
}

/// What [`SecretStore::sweep_secrets`] did.
#[derive(Debug, Clone, Default)]
pub struct SecretSweep {
    /// Secret answers deleted unread.
    pub answers: usize,
    /// Offers whose key or secret expired, with their new record (to nudge).
    pub offers: Vec<ChangedRecord>,
    /// Secret files deleted 15 minutes after their answer (their bytes can go).
    pub files: Vec<FileId>,
}

/// The relay's storage of secrets. Implemented by the SQLite store; every method is one
/// transaction.
pub trait SecretStore: Send + Sync + 'static {
    /// Accepts the one answer of a pending request together with its secret envelope, in one
    /// transaction (same refusals as [`Store::answer`](super::Store::answer)). The request
    /// must have been sent by a connection ([`SecretError::NoConnection`] otherwise). The
    /// answer's files and secret files (uploads by `secret.uploader`) are attached to the
    /// request in the same transaction ([`SecretError::Files`] when one cannot be).
    fn answer_with_secret(
        &self,
        account: &AccountId,
        id: &MessageId,
        answer: NewAnswer,
        secret: NewSecretAnswer,
    ) -> SecretResult<MessageRecord>;

    /// Hands the secret answer of `id` to the connection that asked, and deletes it in the
    /// same transaction. `NotFound` when the connection cannot see the message or it has no
    /// secret answer; `Collected` the second time; `Expired` after its deadline.
    fn collect_secret_answer(
        &self,
        account: &AccountId,
        connection: &ConnectionId,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<Envelope>;

    /// Records the one-time key of a secret offer (first device wins: `OfferKeyExists`
    /// after). Bumps the message's revision.
    fn put_offer_key(
        &self,
        account: &AccountId,
        id: &MessageId,
        key: NewOfferKey,
    ) -> SecretResult<OfferChange>;

    /// The state of a secret offer visible to `viewer` (`NotFound` otherwise).
    fn offer_state(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<SecretOfferState>;

    /// The key id the offer's secret must be sealed to, checking that `connection` sent the
    /// offer and that it waits for its secret (`NotOpened`, `PayloadExists`, `Expired`).
    fn offer_key_id(
        &self,
        account: &AccountId,
        connection: &ConnectionId,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<String>;

    /// Stores the secret of an offer (once). Bumps the message's revision.
    fn put_secret_payload(
        &self,
        account: &AccountId,
        id: &MessageId,
        payload: NewSecretPayload,
    ) -> SecretResult<OfferChange>;

    /// Hands the offer's secret to the device that opened it and deletes it in the same
    /// transaction; bumps the message's revision. `NotSent` before the sender posted it,
    /// `Collected` the second time, `Expired` after its deadline, `Forbidden` for another
    /// device.
    fn collect_secret_payload(
        &self,
        account: &AccountId,
        device: &DeviceId,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<(Envelope, OfferChange)>;

    /// Deletes every secret answer, offer key, offer secret and secret file whose deadline is
    /// at or before `now`, leaving tombstones. Secret files' bytes are the caller's to remove.
    fn sweep_secrets(&self, now: DateTime<Utc>) -> SecretResult<SecretSweep>;
}
