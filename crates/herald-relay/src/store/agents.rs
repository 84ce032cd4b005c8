//! Storage of the agent side (docs/agents.md): agent keys (`hrk_…`), OAuth device grants and
//! the connectors they create (`hra_…`), notifications (sealed content plus receipt metadata)
//! and quiet hours.
//!
//! Credentials are stored as SHA-256 hashes like every other credential. Notifications take
//! the account's next revision (the counter messages use), on arrival and on every receipt or
//! reply that changes them, so the existing `/ws` nudge wakes devices. A notification row is
//! deleted 24 hours after it arrived (the sweeper), with its reply.

use chrono::{DateTime, Utc};
use herald_protocol::notify::{QuietHours, SealedNotification};
use herald_protocol::{AccountId, AgentKeyId, ConnectorId, ErrorCode, NotificationId, Revision};

use super::{StoreError, TokenHash};

/// Outcomes of the agent routes a client caused, plus storage failures.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("not found")]
    NotFound,
    /// A reply to a notification that does not expect one.
    #[error("notification expects no reply")]
    ReplyNotExpected,
    /// The one reply was given already.
    #[error("already replied")]
    AlreadyReplied,
    /// A live grant holds this user code already (the caller draws another).
    #[error("user code taken")]
    UserCodeTaken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for AgentError {
    fn from(e: rusqlite::Error) -> Self {
        AgentError::Store(StoreError::Sqlite(e))
    }
}

impl AgentError {
    /// The catalog code for outcomes a client caused; `None` for internal failures.
    pub fn code(&self) -> Option<ErrorCode> {
        Some(match self {
            AgentError::NotFound => ErrorCode::NotFound,
            AgentError::ReplyNotExpected => ErrorCode::NotARequest,
            AgentError::AlreadyReplied => ErrorCode::AlreadyAnswered,
            AgentError::UserCodeTaken => return None,
            AgentError::Store(e) => return e.code(),
        })
    }
}

pub type AgentResult<T> = std::result::Result<T, AgentError>;

/// Which kind of agent credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentCredential {
    AgentKey(AgentKeyId),
    Connector(ConnectorId),
}

impl AgentCredential {
    /// `agentKey` or `connector` (the wire form of a notification's source kind).
    pub fn kind(&self) -> &'static str {
        match self {
            AgentCredential::AgentKey(_) => "agentKey",
            AgentCredential::Connector(_) => "connector",
        }
    }

    pub fn id(&self) -> &str {
        match self {
            AgentCredential::AgentKey(id) => id.as_str(),
            AgentCredential::Connector(id) => id.as_str(),
        }
    }
}

/// An agent credential found by its hash.
#[derive(Debug, Clone)]
pub struct AgentCredentialRow {
    pub account: AccountId,
    pub credential: AgentCredential,
    pub name: String,
    /// The stored hash, compared in constant time by the caller.
    pub token_hash: TokenHash,
    pub revoked: bool,
}

/// An agent key as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentKeyRow {
    pub id: AgentKeyId,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A connector as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorRow {
    pub id: ConnectorId,
    pub name: String,
    pub client_id: String,
    pub token_issued: bool,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A new device authorization (RFC 8628 §3.1).
#[derive(Debug, Clone)]
pub struct NewDeviceGrant {
    pub device_code_hash: TokenHash,
    /// Normalized (8 letters, no dash).
    pub user_code: String,
    pub client_id: String,
    pub client_name: Option<String>,
    pub now: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub interval_secs: u64,
}

/// What a token poll found (RFC 8628 §3.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PollOutcome {
    Pending,
    /// Polled before the interval passed; the interval grew by 5 seconds.
    SlowDown,
    Denied,
    Expired,
    /// Unknown device code, another client's, or its token was handed out already.
    Invalid,
    /// Approved: the connector now holds the token whose hash was given.
    Issued(ConnectorId),
}

/// A notification to store. `sealed` holds the content; the relay keeps no plaintext.
#[derive(Debug, Clone)]
pub struct NewNotification {
    pub account: AccountId,
    pub id: NotificationId,
    pub notification_id: String,
    pub source: AgentCredential,
    pub source_name: String,
    pub sealed: SealedNotification,
    pub expect_reply: bool,
    pub suppressed: bool,
    pub now: DateTime<Utc>,
}

/// A stored notification.
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationRow {
    pub id: NotificationId,
    pub notification_id: String,
    pub revision: Revision,
    pub source_kind: String,
    pub source_id: String,
    pub source_name: String,
    pub sealed: SealedNotification,
    pub expect_reply: bool,
    pub suppressed: bool,
    pub received_at: DateTime<Utc>,
    pub displayed_at: Option<DateTime<Utc>>,
    pub spoken_at: Option<DateTime<Utc>>,
    pub replied_at: Option<DateTime<Utc>>,
    /// The typed reply (kept until the row is deleted, 24 hours after arrival).
    pub reply_text: Option<String>,
}

/// What storing a notification did.
#[derive(Debug, Clone)]
pub enum NotifyOutcome {
    /// Stored with a new revision.
    Created(NotificationRow),
    /// The account has a notification with this `notificationId`: nothing was stored.
    Duplicate(NotificationRow),
}

/// Receipts a device sets (each only once).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReceiptFlags {
    pub displayed: bool,
    pub spoken: bool,
    pub suppressed: bool,
}

/// Storage of the agent side, implemented by the SQLite store.
pub trait AgentStore: Send + Sync + 'static {
    /// Stores a new agent key.
    fn create_agent_key(
        &self,
        account: &AccountId,
        id: &AgentKeyId,
        name: &str,
        token_hash: &TokenHash,
        now: DateTime<Utc>,
    ) -> AgentResult<()>;
    /// The account's agent keys, oldest first.
    fn list_agent_keys(&self, account: &AccountId) -> AgentResult<Vec<AgentKeyRow>>;
    /// Revokes an agent key (`NotFound` when the account has none with that id; twice is fine).
    fn revoke_agent_key(
        &self,
        account: &AccountId,
        id: &AgentKeyId,
        now: DateTime<Utc>,
    ) -> AgentResult<()>;

    /// Stores a device grant; `UserCodeTaken` when a grant holds the user code.
    fn create_device_grant(&self, grant: NewDeviceGrant) -> AgentResult<()>;
    /// Approves the pending, unexpired grant with `user_code` for `account`, creating its
    /// connector (without a token until the poll collects it). `NotFound` otherwise.
    fn approve_device_grant(
        &self,
        account: &AccountId,
        user_code: &str,
        connector: &ConnectorId,
        name: Option<&str>,
        now: DateTime<Utc>,
    ) -> AgentResult<ConnectorRow>;
    /// Denies the pending, unexpired grant with `user_code`. `NotFound` otherwise.
    fn deny_device_grant(
        &self,
        account: &AccountId,
        user_code: &str,
        now: DateTime<Utc>,
    ) -> AgentResult<()>;
    /// One token poll: checks the interval and the grant's state; on an approved grant gives
    /// its connector `token_hash` and marks the grant issued, atomically (handed out once).
    fn poll_device_grant(
        &self,
        device_code_hash: &TokenHash,
        client_id: &str,
        token_hash: &TokenHash,
        now: DateTime<Utc>,
    ) -> AgentResult<PollOutcome>;
    /// The account's connectors, oldest first.
    fn list_connectors(&self, account: &AccountId) -> AgentResult<Vec<ConnectorRow>>;
    /// Revokes a connector (`NotFound` when the account has none with that id).
    fn revoke_connector(
        &self,
        account: &AccountId,
        id: &ConnectorId,
        now: DateTime<Utc>,
    ) -> AgentResult<()>;
    /// Looks an agent key or connector token up by its hash.
    fn agent_credential(&self, token_hash: &TokenHash) -> AgentResult<Option<AgentCredentialRow>>;

    /// The account's notification with the agent's `notificationId`.
    fn notification_by_agent_id(
        &self,
        account: &AccountId,
        notification_id: &str,
    ) -> AgentResult<Option<NotificationRow>>;
    /// The account's notification with the relay's id.
    fn notification(
        &self,
        account: &AccountId,
        id: &NotificationId,
    ) -> AgentResult<Option<NotificationRow>>;
    /// Stores a notification with the account's next revision, or finds the one already
    /// stored under its `notificationId`.
    fn insert_notification(&self, new: NewNotification) -> AgentResult<NotifyOutcome>;
    /// Notifications with revision > `after`, in revision order, at most `limit`, and
    /// whether more remain.
    fn notifications_after(
        &self,
        account: &AccountId,
        after: Revision,
        limit: u32,
    ) -> AgentResult<(Vec<NotificationRow>, bool)>;
    /// Sets receipts not set yet (stamped `now`); takes a new revision only when one changed.
    /// Returns the row and whether it changed.
    fn set_receipts(
        &self,
        account: &AccountId,
        id: &NotificationId,
        flags: ReceiptFlags,
        now: DateTime<Utc>,
    ) -> AgentResult<(NotificationRow, bool)>;
    /// Stores the one reply (new revision).
    fn set_reply(
        &self,
        account: &AccountId,
        id: &NotificationId,
        text: &str,
        now: DateTime<Utc>,
    ) -> AgentResult<NotificationRow>;
    /// Deletes notifications received at or before `notifications_before` and device grants
    /// that expired before `grants_before`. Returns how many rows went.
    fn sweep_agents(
        &self,
        notifications_before: DateTime<Utc>,
        grants_before: DateTime<Utc>,
    ) -> AgentResult<usize>;

    /// The account's quiet hours, if ever set.
    fn quiet_hours(&self, account: &AccountId) -> AgentResult<Option<QuietHours>>;
    /// Replaces the account's quiet hours.
    fn put_quiet_hours(
        &self,
        account: &AccountId,
        quiet: &QuietHours,
        now: DateTime<Utc>,
    ) -> AgentResult<()>;
    /// When a live device of the account was last seen (its last authenticated request or
    /// socket), if any.
    fn last_device_activity(&self, account: &AccountId) -> AgentResult<Option<DateTime<Utc>>>;
}
