//! The inbox a page at a time (docs/benchmarks.md, "Desktop"): the desktop paints the newest
//! page first and reads the older ones after, so the first paint opens a page of sealed titles
//! instead of every cached message's.

use super::Core;
use crate::cache::MAX_PAGE_ROWS;
use crate::view::{InboxPage, MessageSummary};
use crate::{view::present, Result};

impl Core {
    /// The `limit` newest messages older than message `before` (inbox order: `createdAt`,
    /// then `id`, descending), or the newest of all when `before` is `None`; `limit` is
    /// clamped to 1..=[`crate::cache::MAX_PAGE_ROWS`]. Only each row's title is decrypted.
    /// Errors: `not_found` when `before` is not cached (the cache was cleared: start again
    /// from the newest), `storage`.
    pub async fn inbox_page(&self, before: Option<&str>, limit: usize) -> Result<InboxPage> {
        let before = before.map(str::to_owned);
        let page = self
            .inner
            .store
            .cache_call(move |c| c.summaries(before.as_deref(), limit.min(MAX_PAGE_ROWS)))
            .await?;
        Ok(InboxPage {
            messages: page
                .rows
                .iter()
                .map(|r| present::summary(&self.inner.store.local.key, r))
                .collect::<Vec<MessageSummary>>(),
            more: page.more,
            unread_older: page.unread_older,
        })
    }
}
