//! Live-update fan-out: one tokio broadcast channel per account with open sockets. A change
//! carries its revision and, when the changed message was sent by a connection, that
//! connection's id, so a connection's socket is nudged only for its own messages. Receivers
//! that lag simply resync: the frame only says "read the feed", so coalescing is harmless.

use std::collections::HashMap;
use std::sync::Mutex;

use herald_protocol::{AccountId, ConnectionId, DeviceId, Revision};
use tokio::sync::broadcast;

use crate::store::agents::AgentCredential;

/// Capacity of each account's channel; a socket further behind gets `Lagged` and resyncs.
const CHANNEL_CAPACITY: usize = 64;

/// One change to an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A message changed (new, answered, expired, cancelled) and took `revision`.
    Message {
        revision: Revision,
        /// The connection that sent the changed message, if a connection sent it.
        sender_connection: Option<ConnectionId>,
    },
    /// A connection was revoked: its open sockets close.
    ConnectionRevoked(ConnectionId),
    /// A device was revoked: its open sockets close.
    DeviceRevoked(DeviceId),
    /// An agent key or connector was revoked: its waiting `GET /v1/replies` calls end (401).
    AgentCredentialRevoked(AgentCredential),
    /// The account was reset (deleted): every socket and waiting call of it ends.
    AccountClosed,
}

#[derive(Default)]
pub struct Hub {
    accounts: Mutex<HashMap<AccountId, broadcast::Sender<Change>>>,
}

impl Hub {
    pub fn subscribe(&self, account: &AccountId) -> broadcast::Receiver<Change> {
        let mut accounts = self.accounts.lock().unwrap_or_else(|e| e.into_inner());
        accounts
            .entry(account.clone())
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .subscribe()
    }

    pub fn publish(&self, account: &AccountId, change: Change) {
        let mut accounts = self.accounts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = accounts.get(account) {
            if tx.send(change).is_err() {
                // No socket listens any more: drop the channel.
                accounts.remove(account);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_reaches_subscribers_of_that_account_only() {
        let hub = Hub::default();
        let a = AccountId::from_random(&[1; 16]);
        let b = AccountId::from_random(&[2; 16]);
        let mut rx_a = hub.subscribe(&a);
        let mut rx_b = hub.subscribe(&b);
        let change = Change::Message {
            revision: Revision(3),
            sender_connection: None,
        };
        hub.publish(&a, change.clone());
        assert_eq!(rx_a.try_recv().ok(), Some(change), "a's socket is nudged");
        assert!(rx_b.try_recv().is_err(), "b's socket hears nothing of a");
    }

    #[test]
    fn publish_without_listeners_is_a_no_op() {
        let hub = Hub::default();
        let a = AccountId::from_random(&[1; 16]);
        drop(hub.subscribe(&a));
        hub.publish(
            &a,
            Change::Message {
                revision: Revision(1),
                sender_connection: None,
            },
        );
        assert!(
            hub.accounts.lock().unwrap().is_empty(),
            "an account with no sockets keeps no channel"
        );
    }
}
