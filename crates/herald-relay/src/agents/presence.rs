//! Which accounts have a device online: a count of open device websockets per account, and
//! when the last one closed. `GET /v1/status` reads it: `online` is "some device of the
//! account holds a live `/ws` now". Connections' sockets do not count.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use herald_protocol::AccountId;

use crate::state::AppState;
use crate::store::Principal;

#[derive(Debug, Default, Clone, Copy)]
struct Entry {
    open: usize,
    last_closed: Option<DateTime<Utc>>,
}

/// Open device sockets per account.
#[derive(Default)]
pub(crate) struct Presence {
    accounts: Mutex<HashMap<AccountId, Entry>>,
}

impl Presence {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<AccountId, Entry>> {
        self.accounts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a device socket of the account is open, and when the last one closed.
    pub fn get(&self, account: &AccountId) -> (bool, Option<DateTime<Utc>>) {
        let entry = self.lock().get(account).copied().unwrap_or_default();
        (entry.open > 0, entry.last_closed)
    }
}

/// Held by a device's websocket session; the account counts as online while any is held.
pub(crate) struct PresenceGuard {
    state: AppState,
    account: AccountId,
}

/// Marks the account online for as long as the returned guard lives (devices only; `None`
/// for a connection).
pub(crate) fn enter(state: &AppState, principal: &Principal) -> Option<PresenceGuard> {
    let Principal::Device { account, .. } = principal else {
        return None;
    };
    state
        .agents()
        .presence
        .lock()
        .entry(account.clone())
        .or_default()
        .open += 1;
    Some(PresenceGuard {
        state: state.clone(),
        account: account.clone(),
    })
}

impl Drop for PresenceGuard {
    fn drop(&mut self) {
        let now = self.state.now();
        let mut accounts = self.state.agents().presence.lock();
        let entry = accounts.entry(self.account.clone()).or_default();
        entry.open = entry.open.saturating_sub(1);
        entry.last_closed = Some(now);
    }
}
