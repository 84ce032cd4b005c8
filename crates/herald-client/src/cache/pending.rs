//! The requests waiting for the person: how many, and the newest few. The tray, the window
//! title and the global shortcut read them (src-tauri, docs/desktop-lifecycle.md).

use rusqlite::params;

use super::{lock, rows, Cache, CachedMessage};
use crate::Result;

/// The pending requests of the cache (`Cache::pending`).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingRows {
    /// How many requests are pending and not expired.
    pub count: u32,
    /// The newest of them (`created_at`, then `id`, descending), at most the limit asked for;
    /// sealed content and answer not read.
    pub newest: Vec<CachedMessage>,
    /// The earliest `expires_at` among them: when the count next falls without an event.
    pub next_expiry: Option<String>,
}

impl Cache {
    /// Requests with status `pending` whose `expires_at` is unset or later than `now` (an RFC
    /// 3339 UTC time in the relay's format, `2026-01-01T00:00:00.000Z`, compared as text like
    /// every time in the cache). `limit` 0 returns the count alone. Errors: `storage`.
    pub fn pending(&self, now: &str, limit: usize) -> Result<PendingRows> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut c = lock(&self.reader);
        let tx = c.transaction()?;
        let waiting = "status = 'pending' AND (expires_at IS NULL OR expires_at > ?1)";
        let (count, next_expiry): (i64, Option<String>) = tx
            .prepare_cached(&format!(
                "SELECT COUNT(*), MIN(expires_at) FROM messages WHERE {waiting}"
            ))?
            .query_row([now], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let found = tx
            .prepare_cached(&format!(
                "SELECT {} FROM messages WHERE {waiting}
                 ORDER BY created_at DESC, id DESC LIMIT ?2",
                rows::SUMMARY_COLUMNS
            ))?
            .query_map(params![now, limit], rows::from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        tx.finish()?;
        Ok(PendingRows {
            count: u32::try_from(count).unwrap_or(u32::MAX),
            next_expiry,
            newest: found.into_iter().map(rows::finish).collect::<Result<_>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use herald_protocol::wire::MessageStatus;
    use herald_protocol::Revision;

    use super::super::{Cache, StoredRecord};

    fn record(id: &str, second: u32, status: MessageStatus, expires: Option<&str>) -> StoredRecord {
        StoredRecord {
            id: id.into(),
            revision: Revision(u64::from(second) + 1),
            status,
            expects_answer: status == MessageStatus::Pending,
            sender_name: "agent".into(),
            sender_id: Some("con_agent".into()),
            created_at: format!("2026-01-01T00:00:{second:02}.000Z"),
            expires_at: expires.map(str::to_owned),
            sealed_title: Some(vec![1, 2, 3]),
            sealed_content: Some(vec![4; 16]),
            sealed_answer: None,
            answered_at: None,
            error: None,
            thread_id: id.into(),
            thread_sequence: 0,
            reply_to: None,
            kind: "message".into(),
        }
    }

    #[test]
    fn counts_waiting_requests_and_lists_the_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let later = Some("2026-01-01T01:00:00.000Z");
        let past = Some("2026-01-01T00:00:30.000Z");
        let records = [
            record("old", 1, MessageStatus::Pending, None),
            record("plain", 2, MessageStatus::Delivered, None),
            record("answered", 3, MessageStatus::Answered, None),
            record("gone", 4, MessageStatus::Pending, past),
            record("mid", 5, MessageStatus::Pending, later),
            record("new", 6, MessageStatus::Pending, None),
        ];
        cache.store_page(&records, Revision(7)).unwrap();
        let now = "2026-01-01T00:00:40.000Z";
        let pending = cache.pending(now, 2).unwrap();
        assert_eq!(
            pending.count, 3,
            "old, mid and new wait; gone expired at :30"
        );
        assert_eq!(
            pending.next_expiry.as_deref(),
            later,
            "mid expires next; gone is over already"
        );
        let ids: Vec<_> = pending
            .newest
            .iter()
            .map(|m| m.record.id.as_str())
            .collect();
        assert_eq!(ids, ["new", "mid"], "newest first, cut to the limit");
        assert!(
            pending.newest[0].record.sealed_content.is_none(),
            "content not read"
        );
        assert_eq!(cache.pending(now, 0).unwrap().newest.len(), 0, "count only");
        let before_expiry = cache.pending("2026-01-01T00:00:20.000Z", 10).unwrap();
        assert_eq!(before_expiry.count, 4, "gone still waits before :30");
    }
}
