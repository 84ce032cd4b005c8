//! The requests waiting for the person, for the tray, the window title and the global
//! shortcut (docs/desktop-lifecycle.md).

use chrono::SecondsFormat;

use super::Core;
use crate::view::PendingRequests;
use crate::{view::present, Result};

/// Most requests [`Core::pending_requests`] lists: 20.
pub const MAX_PENDING_LISTED: usize = 20;

impl Core {
    /// How many requests wait for an answer (status `pending`, not expired by the relay's
    /// clock) and the `limit` newest of them (clamped to [`MAX_PENDING_LISTED`]), newest
    /// first, each with only its title decrypted. Read from the cache alone. Errors: `storage`.
    pub async fn pending_requests(&self, limit: usize) -> Result<PendingRequests> {
        let now = self
            .relay_now()
            .to_rfc3339_opts(SecondsFormat::Millis, true);
        let limit = limit.min(MAX_PENDING_LISTED);
        let rows = self
            .inner
            .store
            .cache_call(move |c| c.pending(&now, limit))
            .await?;
        Ok(PendingRequests {
            count: rows.count,
            newest: rows
                .newest
                .iter()
                .map(|r| present::summary(&self.inner.store.local.key, r))
                .collect(),
            next_expiry: rows.next_expiry,
        })
    }
}
