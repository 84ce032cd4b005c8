//! Opening the core without the full cache check on the start path, and running that check
//! once the app is up (cache/check.rs; docs/faults.md, "Damaged caches").

use super::{Cache, Core, CoreConfig};
use crate::cache::CheckOutcome;
use crate::Result;

impl Core {
    /// Like [`Core::open`], but the cache's full page check (`quick_check`, O(cache size))
    /// runs at open only after an unclean exit ([`Cache::open_deferred`]). The caller must
    /// then call [`Core::verify_cache`] once it has started (the desktop: after its first
    /// paint). Errors as [`Core::open`].
    pub fn open_deferring_cache_check(config: CoreConfig) -> Result<Core> {
        Self::open_with(config, Cache::open_deferred)
    }

    /// Checks the cache's pages if that has not been done (a no-op after [`Core::open`]). A
    /// damaged file is moved aside and replaced by an empty cache that the next catch-up
    /// refills from the relay (every message arrives again as a `messageUpserted` event);
    /// keys are untouched. Call it before [`Core::start_sync`] (the desktop does): a running
    /// sync task is stopped for the check and started again after it, so no page read
    /// against the damaged cache's cursor is stored into the fresh one. Errors: `storage` (the
    /// check could not run, or no fresh cache could be made).
    pub async fn verify_cache(&self) -> Result<CheckOutcome> {
        if self.inner.store.cache.checked() {
            return Ok(CheckOutcome::Sound);
        }
        let task = self
            .inner
            .sync_task
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let was_running = task.as_ref().is_some_and(|t| !t.is_finished());
        if let Some(task) = task {
            task.abort();
            let _ = task.await;
        }
        let outcome = self.inner.store.cache_call(|c| c.verify()).await;
        if matches!(outcome, Ok(CheckOutcome::Rebuilt)) {
            self.inner.clear_rendered();
        }
        if was_running {
            self.start_sync()?;
        }
        outcome
    }

    /// Stops the sync and records that the cache was closed cleanly, for a process that exits
    /// without dropping its handles (the desktop app at exit). Using the core afterwards still
    /// works; it is just no longer recorded as open.
    pub fn close(&self) {
        self.stop_sync();
        self.inner.store.cache.mark_closed();
    }
}
