//! Storage of encrypted files' metadata (docs/files.md). The bytes live on disk beside the
//! database (`crate::blobs`); a row says who reserved the file, its encrypted size, whether
//! the upload completed, which message carries it, and when it expires or was deleted.
//!
//! Life of a file: reserved (15 minutes to upload) → uploaded (15 minutes to be attached) →
//! attached to a message (lives as long as the message) — or deleted by the sweeper when a
//! deadline passes. A deleted file keeps a tombstone row, so a later download gets
//! `file_expired` instead of a bare 404.
//!
//! Linking a file to a message happens in the same transaction that stores the message or
//! its answer, so a message never names files it does not carry and a file is never carried
//! by two messages.

use chrono::{DateTime, Utc};
use herald_protocol::{AccountId, ErrorCode, FileId, MessageId};

use super::{IdempotencyClaim, NewAnswer, NewMessage, Principal, SendOutcome, StoreError};
use herald_protocol::wire::MessageRecord;

/// Outcomes of the file routes a client caused, plus storage failures.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// No such file for this caller (or not visible to it).
    #[error("file not found")]
    NotFound,
    /// The upload was completed before.
    #[error("file already uploaded")]
    AlreadyUploaded,
    /// The reservation's deadline passed before the upload completed.
    #[error("file reservation expired")]
    ReservationExpired,
    /// The file was deleted (expired unattached, or removed with its message).
    #[error("file expired")]
    Expired,
    /// Attachment `index` is not a completed upload by this credential.
    #[error("attachment {index} is not a completed upload by this credential")]
    NotAttachable { index: usize },
    /// Attachment `index` is carried by another message already.
    #[error("attachment {index} is attached to another message")]
    AlreadyAttached { index: usize },
    /// Attachment `index` expired before it was attached.
    #[error("attachment {index} expired")]
    AttachmentExpired { index: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for FileError {
    fn from(e: rusqlite::Error) -> Self {
        FileError::Store(StoreError::Sqlite(e))
    }
}

impl FileError {
    /// The catalog code for outcomes a client caused; `None` for internal failures.
    pub fn code(&self) -> Option<ErrorCode> {
        Some(match self {
            FileError::NotFound => ErrorCode::NotFound,
            FileError::AlreadyUploaded => ErrorCode::FileAlreadyUploaded,
            FileError::ReservationExpired => ErrorCode::FileReservationExpired,
            FileError::Expired | FileError::AttachmentExpired { .. } => ErrorCode::FileExpired,
            FileError::NotAttachable { .. } => ErrorCode::InvalidRequest,
            FileError::AlreadyAttached { .. } => ErrorCode::FileAlreadyAttached,
            FileError::Store(e) => return e.code(),
        })
    }

    /// The offending attachment, for the error body's `fields`.
    pub fn attachment_index(&self) -> Option<usize> {
        match self {
            FileError::NotAttachable { index }
            | FileError::AlreadyAttached { index }
            | FileError::AttachmentExpired { index } => Some(*index),
            _ => None,
        }
    }
}

pub type FileResult<T> = std::result::Result<T, FileError>;

/// A new reservation.
#[derive(Debug, Clone)]
pub struct NewFile {
    pub id: FileId,
    pub account: AccountId,
    pub uploader: Principal,
    /// Encrypted bytes the upload must send.
    pub size: u64,
    pub now: DateTime<Utc>,
    /// Reservation deadline.
    pub expires_at: DateTime<Utc>,
}

/// A file the caller may upload now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadSlot {
    pub size: u64,
    pub expires_at: DateTime<Utc>,
}

/// A file the caller may download now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    pub size: u64,
}

/// Files whose deadline passed and were marked deleted: their bytes can go.
#[derive(Debug, Clone, Default)]
pub struct SweptFiles {
    pub ids: Vec<FileId>,
}

/// Storage of file metadata; implemented by the SQLite store.
pub trait FileStore: Send + Sync + 'static {
    /// Records a reservation.
    fn reserve_file(&self, new: NewFile) -> FileResult<()>;

    /// Checks that `uploader` may upload file `id` now: `NotFound` (not its reservation),
    /// `AlreadyUploaded`, `ReservationExpired`, `Expired` (swept).
    fn upload_slot(
        &self,
        account: &AccountId,
        uploader: &Principal,
        id: &FileId,
        now: DateTime<Utc>,
    ) -> FileResult<UploadSlot>;

    /// Marks the upload complete (the bytes are on disk) and gives the file `attach_by` to be
    /// attached. Errors as [`FileStore::upload_slot`], judged again at `now`.
    fn complete_upload(
        &self,
        account: &AccountId,
        uploader: &Principal,
        id: &FileId,
        now: DateTime<Utc>,
        attach_by: DateTime<Utc>,
    ) -> FileResult<()>;

    /// Whether `caller` may download file `id`: a device of the account for any file
    /// attached to one of the account's messages; a connection for files attached to its own
    /// messages (including answers to them); any uploader for its own upload. `NotFound` for
    /// everyone else (whatever the file's state), `Expired` when deleted.
    fn download(&self, caller: &Principal, id: &FileId, now: DateTime<Utc>)
        -> FileResult<Download>;

    /// Stores a message like [`super::Store::send_message`] and, in the same transaction,
    /// attaches `files` (uploaded by the sender, not attached yet) to it. A replay returns the
    /// original record and changes nothing.
    fn send_with_files(
        &self,
        new: NewMessage,
        claim: IdempotencyClaim,
        files: &[FileId],
    ) -> FileResult<SendOutcome>;

    /// Accepts an answer like [`super::Store::answer`] and, in the same transaction, attaches
    /// `files` (uploaded by the answering device) to the answered request.
    fn answer_with_files(
        &self,
        account: &AccountId,
        id: &MessageId,
        answer: NewAnswer,
        uploader: &Principal,
        files: &[FileId],
    ) -> FileResult<MessageRecord>;

    /// Marks deleted every file not attached to a message whose deadline passed at `now`
    /// (reservations never completed, uploads never attached), at most `limit`.
    fn sweep_files(&self, now: DateTime<Utc>, limit: u32) -> FileResult<SweptFiles>;
}
