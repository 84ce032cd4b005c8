//! Storage of reply-event webhook subscriptions (docs/mcp.md, "Reply event"). One row per
//! subscription key `(principal, url, name, arguments)`; the row's id is derived from the key,
//! so a repeated `events/subscribe` finds the same row and refreshes it.
//!
//! The signing secret must be usable by the relay (it signs every delivery), so it cannot be
//! hashed: the row holds it sealed under the relay's local key (`crate::events::seal`), never
//! in the clear. Rows of a credential go when it is revoked, rows of an account with the
//! account, and every row when its `refresh_before` passes (the sweeper).

use chrono::{DateTime, Utc};
use herald_protocol::AccountId;

use super::StoreError;

/// Storage failures of the subscription store.
#[derive(Debug, thiserror::Error)]
pub enum EventStoreError {
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for EventStoreError {
    fn from(e: rusqlite::Error) -> Self {
        EventStoreError::Store(StoreError::Sqlite(e))
    }
}

pub type EventResult<T> = std::result::Result<T, EventStoreError>;

/// The credential that owns a subscription (the MCP "principal").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Subscriber {
    pub account: AccountId,
    /// `agentKey` or `connector` (`AgentCredential::kind`).
    pub kind: String,
    /// `agk_…` or `ctr_…`.
    pub id: String,
}

/// One stored webhook subscription.
#[derive(Clone, PartialEq)]
pub struct SubscriptionRow {
    /// `sub_` + 32 lowercase hex digits, derived from the subscription key.
    pub id: String,
    pub principal: Subscriber,
    /// The event name (`notification.replied`).
    pub name: String,
    /// `arguments.notificationId`: only that notification's reply; `None`: every reply to a
    /// notification this credential sent.
    pub notification_filter: Option<String>,
    /// The callback URL as normalized by the relay.
    pub url: String,
    /// The signing secret, sealed (nonce || ciphertext || tag).
    pub secret_sealed: Vec<u8>,
    /// The secret a refresh replaced, sealed, still signed with until `previous_until`.
    pub previous_secret_sealed: Option<Vec<u8>>,
    pub previous_until: Option<DateTime<Utc>>,
    /// The subscription lapses at this instant unless refreshed.
    pub refresh_before: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When an event delivery last got a 2xx.
    pub last_delivery_at: Option<DateTime<Utc>>,
    /// The category of the last failed event delivery (cleared by a success).
    pub last_error: Option<String>,
}

impl std::fmt::Debug for SubscriptionRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a capability in its path; the secrets are sealed but still private.
        f.debug_struct("SubscriptionRow")
            .field("id", &self.id)
            .field("principal", &self.principal)
            .field("name", &self.name)
            .field("refresh_before", &self.refresh_before)
            .finish_non_exhaustive()
    }
}

/// What an upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert {
    /// A new subscription was stored.
    Created,
    /// The subscription existed; its secret, TTL and fields were updated.
    Refreshed,
    /// The principal holds the most live subscriptions allowed; nothing was stored.
    LimitReached,
}

/// Storage of webhook subscriptions, implemented by the SQLite store.
pub trait EventStore: Send + Sync + 'static {
    /// The live (unexpired at `now`) subscription with this id.
    fn subscription(&self, id: &str, now: DateTime<Utc>) -> EventResult<Option<SubscriptionRow>>;
    /// Stores `row` (or updates the row with its id): refused with `LimitReached` when it is
    /// new and the principal already holds `max_per_principal` live subscriptions.
    fn upsert_subscription(
        &self,
        row: &SubscriptionRow,
        max_per_principal: u32,
        now: DateTime<Utc>,
    ) -> EventResult<Upsert>;
    /// Whether the principal holds a live subscription delivering to `url` (so the endpoint
    /// proved its consent for this principal already).
    fn url_verified(
        &self,
        principal: &Subscriber,
        url: &str,
        now: DateTime<Utc>,
    ) -> EventResult<bool>;
    /// Deletes the principal's subscription with this id; whether one was deleted.
    fn delete_subscription(&self, principal: &Subscriber, id: &str) -> EventResult<bool>;
    /// Live subscriptions a reply to the account's notification `notification_id`, sent by the
    /// credential `(source_kind, source_id)`, is delivered to: those naming that
    /// `notificationId`, and those of the sending credential without a filter.
    fn subscriptions_for_reply(
        &self,
        account: &AccountId,
        notification_id: &str,
        source_kind: &str,
        source_id: &str,
        now: DateTime<Utc>,
    ) -> EventResult<Vec<SubscriptionRow>>;
    /// Deletes every subscription of a credential (it was revoked) and returns them.
    fn delete_subscriptions_of(&self, principal: &Subscriber) -> EventResult<Vec<SubscriptionRow>>;
    /// Records the outcome of an event delivery: a success time, or a failure category.
    fn record_delivery(&self, id: &str, at: DateTime<Utc>, error: Option<&str>) -> EventResult<()>;
    /// Deletes subscriptions whose `refresh_before` is at or before `now`; how many went.
    fn sweep_subscriptions(&self, now: DateTime<Utc>) -> EventResult<usize>;
}
