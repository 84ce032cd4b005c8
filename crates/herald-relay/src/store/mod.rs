//! Storage behind a trait. The relay keeps accounts, their certificates, credentials (as
//! SHA-256 hashes), messages (opaque envelopes plus metadata) and idempotency keys.
//!
//! The trait is synchronous on purpose: implementations do blocking I/O, and the routes call
//! them through [`crate::state::AppState::store_call`], which runs them on tokio's blocking pool
//! so no lock is ever held across an `.await`. Every change to an account's messages takes the
//! account's next revision in the same transaction, which makes `revision` a change feed.
//! [`suite`] is the shared test suite every implementation must pass.

pub mod agents;
pub mod devices;
pub mod events;
pub mod files;
pub mod secrets;
pub mod sqlite;
#[cfg(test)]
pub(crate) mod suite;

use chrono::{DateTime, Utc};
use herald_protocol::envelope::{Certificate, Envelope};
use herald_protocol::scopes::Scope;
use herald_protocol::wire::MessageRecord;
use herald_protocol::{AccountId, ConnectionId, DeviceId, ErrorCode, MessageId, Revision};

/// Storage failures. The conflict variants map one-to-one onto catalog codes.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("account exists")]
    AccountExists,
    #[error("device exists")]
    DeviceExists,
    #[error("connection exists")]
    ConnectionExists,
    #[error("message id taken")]
    MessageIdTaken,
    #[error("idempotency key used with another body")]
    IdempotencyConflict,
    #[error("not found")]
    NotFound,
    /// The connection or agent credential is revoked already.
    #[error("already revoked")]
    AlreadyRevoked,
    #[error("not a request")]
    NotARequest,
    #[error("already answered")]
    AlreadyAnswered,
    #[error("request expired")]
    RequestExpired,
    #[error("request cancelled")]
    RequestCancelled,
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("migration: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("blocking task failed: {0}")]
    Task(String),
}

impl StoreError {
    /// The catalog code for outcomes a client caused; `None` for internal failures.
    pub fn code(&self) -> Option<ErrorCode> {
        Some(match self {
            StoreError::AccountExists => ErrorCode::AccountExists,
            StoreError::DeviceExists => ErrorCode::InvalidRequest,
            StoreError::ConnectionExists => ErrorCode::ConnectionExists,
            StoreError::MessageIdTaken => ErrorCode::MessageIdTaken,
            StoreError::IdempotencyConflict => ErrorCode::IdempotencyConflict,
            StoreError::NotFound => ErrorCode::NotFound,
            StoreError::AlreadyRevoked => ErrorCode::AlreadyRevoked,
            StoreError::NotARequest => ErrorCode::NotARequest,
            StoreError::AlreadyAnswered => ErrorCode::AlreadyAnswered,
            StoreError::RequestExpired => ErrorCode::RequestExpired,
            StoreError::RequestCancelled => ErrorCode::RequestCancelled,
            _ => return None,
        })
    }
}

pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// SHA-256 of a bearer credential; the only form in which credentials are stored.
pub type TokenHash = [u8; 32];

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    Device {
        account: AccountId,
        device_id: DeviceId,
    },
    Connection {
        account: AccountId,
        connection_id: ConnectionId,
    },
}

impl Principal {
    pub fn account(&self) -> &AccountId {
        match self {
            Principal::Device { account, .. } | Principal::Connection { account, .. } => account,
        }
    }

    /// What this caller may read of its account's messages.
    pub fn viewer(&self) -> Viewer {
        match self {
            Principal::Device { .. } => Viewer::Device,
            Principal::Connection { connection_id, .. } => {
                Viewer::Connection(connection_id.clone())
            }
        }
    }

    /// The envelope-header form of this principal.
    pub fn as_envelope_principal(&self) -> herald_protocol::envelope::Principal {
        use herald_protocol::envelope::Principal as P;
        match self {
            Principal::Device { device_id, .. } => P::Device(device_id.clone()),
            Principal::Connection { connection_id, .. } => P::Connection(connection_id.clone()),
        }
    }

    /// Scope of idempotency keys: keys are per credential holder.
    pub fn idempotency_scope(&self) -> String {
        match self {
            Principal::Device { device_id, .. } => format!("device:{device_id}"),
            Principal::Connection { connection_id, .. } => format!("connection:{connection_id}"),
        }
    }
}

/// Message visibility: a device sees all of its account's messages, a connection only those
/// it sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Viewer {
    Device,
    Connection(ConnectionId),
}

impl Viewer {
    /// Whether a record is visible to this viewer.
    pub fn sees(&self, record: &MessageRecord) -> bool {
        match self {
            Viewer::Device => true,
            Viewer::Connection(id) => {
                record.sender.kind == "connection" && record.sender.id == id.as_str()
            }
        }
    }
}

/// A credential found by its hash.
#[derive(Debug, Clone)]
pub struct CredentialRow {
    pub principal: Principal,
    /// A connection's scopes; devices hold every scope (an empty list here).
    pub scopes: Vec<Scope>,
    /// The stored hash, compared in constant time by the caller.
    pub token_hash: TokenHash,
    pub revoked: bool,
    /// When a device was last seen (devices only).
    pub last_seen: Option<DateTime<Utc>>,
}

/// A new account with its first device.
#[derive(Debug, Clone)]
pub struct NewAccount {
    pub account_id: AccountId,
    pub statement: Certificate,
    pub encryption_key: Certificate,
    pub encryption_key_epoch: u32,
    pub device_id: DeviceId,
    pub device: Certificate,
    pub device_name: String,
    pub device_platform: String,
    pub device_token_hash: TokenHash,
    pub now: DateTime<Utc>,
}

/// A new connection.
#[derive(Debug, Clone)]
pub struct NewConnection {
    pub account_id: AccountId,
    pub connection_id: ConnectionId,
    pub certificate: Certificate,
    pub name: String,
    /// Distinct, in [`Scope::ALL`] order.
    pub scopes: Vec<Scope>,
    pub token_hash: TokenHash,
    pub now: DateTime<Utc>,
}

/// A connection as listed to devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionRow {
    pub id: ConnectionId,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub certificate: Certificate,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Certificates of an account, for `GET /keys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountKeys {
    pub statement: Certificate,
    /// Oldest epoch first.
    pub encryption_keys: Vec<Certificate>,
    pub devices: Vec<Certificate>,
    /// Non-revoked connections only.
    pub connections: Vec<Certificate>,
    /// Revoked devices: certificate and revocation time, oldest revocation first.
    pub revoked_devices: Vec<(Certificate, DateTime<Utc>)>,
    /// Revoked connections, as `revoked_devices`.
    pub revoked_connections: Vec<(Certificate, DateTime<Utc>)>,
}

/// A validated message to store.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub account_id: AccountId,
    pub id: MessageId,
    pub kind: String,
    pub expects_answer: bool,
    pub sender: Principal,
    pub sender_name: String,
    pub expires_at: Option<DateTime<Utc>>,
    pub reply_to: Option<MessageId>,
    pub envelope: Envelope,
    pub now: DateTime<Utc>,
}

/// The idempotency key a send claims.
#[derive(Debug, Clone)]
pub struct IdempotencyClaim {
    pub scope: String,
    pub key: String,
    pub request_hash: [u8; 32],
}

/// What a send did.
#[derive(Debug, Clone)]
pub enum SendOutcome {
    /// A new message (new revision).
    Created(MessageRecord),
    /// The key was used before with the same body: the original message, nothing changed.
    Replayed(MessageRecord),
}

/// An answer to store.
#[derive(Debug, Clone)]
pub struct NewAnswer {
    pub device_id: DeviceId,
    pub envelope: Envelope,
    pub now: DateTime<Utc>,
}

/// A changed record, for live-update nudges.
#[derive(Debug, Clone)]
pub struct ChangedRecord {
    pub account_id: AccountId,
    pub record: MessageRecord,
}

/// The relay's storage.
pub trait Store: Send + Sync + 'static {
    /// Device enrolment, pairing, revocation and Reset (docs/devices.md).
    fn devices(&self) -> &dyn devices::DeviceStore;
    fn create_account(&self, new: NewAccount) -> StoreResult<()>;
    fn create_connection(&self, new: NewConnection) -> StoreResult<()>;
    fn list_connections(&self, account: &AccountId) -> StoreResult<Vec<ConnectionRow>>;
    /// Revokes a connection of the account. `NotFound` when the account has no such
    /// connection; revoking twice is fine (keeps the first time).
    fn revoke_connection(
        &self,
        account: &AccountId,
        id: &ConnectionId,
        now: DateTime<Utc>,
    ) -> StoreResult<()>;
    fn account_keys(&self, account: &AccountId) -> StoreResult<AccountKeys>;
    /// The account's newest encryption key certificate (highest epoch), `None` without one;
    /// the one row of [`Store::account_keys`] that every send checks against.
    fn current_encryption_key(&self, account: &AccountId) -> StoreResult<Option<Certificate>> {
        Ok(self.account_keys(account)?.encryption_keys.pop())
    }
    /// Replaces the account's recovery backup.
    fn put_backup(
        &self,
        account: &AccountId,
        backup: &herald_protocol::wire::RecoveryBackup,
        now: DateTime<Utc>,
    ) -> StoreResult<()>;
    /// The account's recovery backup, with `updated_at` set; `NotFound` when none.
    fn backup(&self, account: &AccountId) -> StoreResult<herald_protocol::wire::RecoveryBackup>;
    /// Looks a credential up by the hash of its token.
    fn credential(&self, token_hash: &TokenHash) -> StoreResult<Option<CredentialRow>>;
    /// Records that a device was seen at `now`.
    fn touch_device(&self, device: &DeviceId, now: DateTime<Utc>) -> StoreResult<()>;
    /// The sender name of a principal (from its certificate).
    fn principal_name(&self, principal: &Principal) -> StoreResult<String>;
    /// A previous use of an idempotency key: the request hash and the message.
    fn idempotent_send(
        &self,
        scope: &str,
        key: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<([u8; 32], MessageRecord)>>;
    /// Stores a message under an idempotency key, atomically: a replay returns the original, a
    /// conflicting reuse fails, a new message takes the account's next revision.
    fn send_message(&self, new: NewMessage, claim: IdempotencyClaim) -> StoreResult<SendOutcome>;
    /// A message of the account visible to the viewer, with its status as of `now`.
    fn message(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<MessageRecord>>;
    /// The thread of a message visible to the viewer, oldest first, filtered to what the
    /// viewer sees; `None` when the message itself is not visible.
    fn thread(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Vec<MessageRecord>>>;
    /// Records with revision > `after`, in revision order, at most `limit`, and whether more
    /// remain. With `sender` (a `con_…` or `dev_…` id), only the records that sender sent: the
    /// one search the relay can do (docs/protocol.md, "Messages").
    fn messages_after(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        after: Revision,
        limit: u32,
        sender: Option<&str>,
        now: DateTime<Utc>,
    ) -> StoreResult<(Vec<MessageRecord>, bool)>;
    /// Accepts the one answer of a pending request.
    fn answer(
        &self,
        account: &AccountId,
        id: &MessageId,
        answer: NewAnswer,
    ) -> StoreResult<MessageRecord>;
    /// Cancels a pending request visible to the viewer.
    fn cancel(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> StoreResult<MessageRecord>;
    /// Marks every pending request whose deadline is at or before `now` as expired, each with
    /// a new revision. Returns the changed records.
    fn expire_due(&self, now: DateTime<Utc>) -> StoreResult<Vec<ChangedRecord>>;
    /// The highest revision visible to the viewer (0 when none).
    fn latest_revision(&self, account: &AccountId, viewer: &Viewer) -> StoreResult<Revision>;
}
