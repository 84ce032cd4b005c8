//! How many live-update sockets (`GET /ws`) an account and each of its credentials may hold
//! open (docs/protocol.md, "Live updates: socket limits").
//!
//! - Per credential (a device session or a connection token): at most
//!   [`SocketLimits::per_credential`] (10). One more closes the credential's *oldest* socket
//!   with Close code [`REPLACED_CLOSE_CODE`], so a device reconnecting after a network change
//!   is never locked out by its own half-dead socket that the relay has not noticed yet.
//! - Per account: at most [`SocketLimits::per_account`] (1,200). A socket past it is refused
//!   before the upgrade with `429 too_many_sockets`, unless its credential already holds a
//!   socket: then that credential's oldest one is closed instead (the same rule as above).
//!
//! The registry is in memory: a restart starts every count at zero, as it closes every socket.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use herald_protocol::{AccountId, ErrorCode};
use tokio_util::sync::CancellationToken;

use crate::error::ApiError;
use crate::store::Principal;

/// Close code of a socket replaced by a newer one of the same credential (private-use range
/// 4000–4999 of RFC 6455): reconnecting is fine, but expect to replace another of yours.
pub const REPLACED_CLOSE_CODE: u16 = 4000;

/// The socket limits (see the module docs). Both are at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketLimits {
    /// Open sockets per device session or connection token; the oldest is closed past it.
    pub per_credential: usize,
    /// Open sockets per account; refused past it (`429 too_many_sockets`).
    pub per_account: usize,
}

impl Default for SocketLimits {
    /// 10 per credential (the desktop app holds one; the rest is room for CLI and SDK
    /// processes sharing a credential), 1,200 per account (100 devices × 10, plus room for
    /// connections).
    fn default() -> Self {
        SocketLimits {
            per_credential: 10,
            per_account: 1_200,
        }
    }
}

#[derive(Default)]
struct AccountSockets {
    total: usize,
    /// Oldest first: (slot id, the token that closes it).
    by_credential: HashMap<String, VecDeque<(u64, CancellationToken)>>,
}

#[derive(Default)]
struct Registry {
    next_id: u64,
    accounts: HashMap<AccountId, AccountSockets>,
}

/// The open sockets of every account. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct SocketRegistry {
    inner: Arc<Mutex<Registry>>,
}

/// One registered socket. Dropping it frees its place; `replaced` is cancelled when a newer
/// socket of the same credential took its place (the session then closes the socket).
pub struct SocketSlot {
    registry: SocketRegistry,
    account: AccountId,
    credential: String,
    id: u64,
    /// Cancelled when this socket is replaced.
    pub replaced: CancellationToken,
}

fn credential_key(principal: &Principal) -> String {
    match principal {
        Principal::Device { device_id, .. } => format!("device:{device_id}"),
        Principal::Connection { connection_id, .. } => format!("connection:{connection_id}"),
    }
}

impl SocketRegistry {
    /// Registers a new socket of `principal` within `limits`, closing the credential's oldest
    /// socket where the module docs say so. Errors: `429 too_many_sockets` when the account
    /// holds `per_account` sockets and this credential none.
    pub fn register(
        &self,
        principal: &Principal,
        limits: SocketLimits,
    ) -> Result<SocketSlot, ApiError> {
        let credential = credential_key(principal);
        let account = principal.account().clone();
        let mut reg = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let id = reg.next_id;
        reg.next_id += 1;
        let sockets = reg.accounts.entry(account.clone()).or_default();
        let mine = sockets
            .by_credential
            .get(&credential)
            .map_or(0, VecDeque::len);
        let full = sockets.total >= limits.per_account.max(1);
        if full && mine == 0 {
            if sockets.total == 0 {
                reg.accounts.remove(&account);
            }
            return Err(ApiError::new(ErrorCode::TooManySockets));
        }
        let queue = sockets.by_credential.entry(credential.clone()).or_default();
        // Make room: past the credential's limit, or at the account's.
        if queue.len() >= limits.per_credential.max(1) || full {
            if let Some((_, oldest)) = queue.pop_front() {
                oldest.cancel();
                sockets.total -= 1;
            }
        }
        let replaced = CancellationToken::new();
        queue.push_back((id, replaced.clone()));
        sockets.total += 1;
        Ok(SocketSlot {
            registry: self.clone(),
            account,
            credential,
            id,
            replaced,
        })
    }

    /// Open sockets of `account` (tests and metrics).
    pub fn open(&self, account: &AccountId) -> usize {
        let reg = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        reg.accounts.get(account).map_or(0, |a| a.total)
    }
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let mut reg = self
            .registry
            .inner
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let Some(sockets) = reg.accounts.get_mut(&self.account) else {
            return;
        };
        if let Some(queue) = sockets.by_credential.get_mut(&self.credential) {
            // A replaced slot was taken out (and counted out) already.
            if let Some(at) = queue.iter().position(|(id, _)| *id == self.id) {
                queue.remove(at);
                sockets.total -= 1;
            }
            if queue.is_empty() {
                sockets.by_credential.remove(&self.credential);
            }
        }
        if sockets.total == 0 {
            reg.accounts.remove(&self.account);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_protocol::{ConnectionId, DeviceId};

    fn device(account: &AccountId, n: u8) -> Principal {
        Principal::Device {
            account: account.clone(),
            device_id: DeviceId::from_random(&[n; 16]),
        }
    }

    #[test]
    fn the_oldest_socket_of_a_credential_makes_room() {
        let reg = SocketRegistry::default();
        let account = AccountId::from_random(&[1; 16]);
        let limits = SocketLimits {
            per_credential: 2,
            per_account: 3,
        };
        let laptop = device(&account, 1);
        let a = reg.register(&laptop, limits).unwrap();
        let b = reg.register(&laptop, limits).unwrap();
        let c = reg.register(&laptop, limits).unwrap();
        assert!(a.replaced.is_cancelled(), "the oldest is replaced");
        assert!(!b.replaced.is_cancelled() && !c.replaced.is_cancelled());
        assert_eq!(reg.open(&account), 2, "two open");
        drop(a);
        assert_eq!(
            reg.open(&account),
            2,
            "a replaced slot is not counted twice"
        );

        let phone = device(&account, 2);
        let d = reg.register(&phone, limits).unwrap();
        assert_eq!(reg.open(&account), 3, "the account is full");
        let conn = Principal::Connection {
            account: account.clone(),
            connection_id: ConnectionId::from_random(&[3; 16]),
        };
        let refused = reg.register(&conn, limits).err().expect("refused");
        assert_eq!(refused.code(), Some(ErrorCode::TooManySockets));
        let e = reg.register(&phone, limits).unwrap();
        assert!(
            d.replaced.is_cancelled(),
            "a full account still lets a credential replace its own socket"
        );
        drop((b, c, d, e));
        assert_eq!(reg.open(&account), 0, "every place is freed");
        assert!(reg.register(&conn, limits).is_ok());
    }
}
