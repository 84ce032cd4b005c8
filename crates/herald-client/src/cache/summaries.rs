//! The inbox a page at a time: the newest rows first, then the rows older than the last one
//! shown (keyset paging on the `messages_by_created` order), each page with the number of
//! unread rows still older than it. Only the columns an inbox row needs are read: a page of
//! 150 rows opens 150 sealed titles, whatever the size of the cache (docs/benchmarks.md,
//! "Desktop").

use rusqlite::{params, OptionalExtension, Transaction};

use super::{lock, rows, Cache, CachedMessage};
use crate::{Error, Result};

/// Most rows one page of `Core::inbox_page` holds; a larger limit is cut to it.
pub const MAX_PAGE_ROWS: usize = 5_000;

/// One page of cached messages, newest first (`Cache::summaries`).
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryPage {
    /// The rows, newest first (`created_at`, then `id`, descending). Their sealed content and
    /// answer are not read (`None`).
    pub rows: Vec<CachedMessage>,
    /// Whether older rows than the last one exist.
    pub more: bool,
    /// Unread rows older than the last row of this page (0 when `more` is false).
    pub unread_older: u32,
}

impl Cache {
    /// The `limit` (at least 1; `usize::MAX` for all) newest messages older than message `before` (in
    /// inbox order: `created_at`, then `id`, descending), or the newest of all when `before`
    /// is `None`, read in one transaction on the reader connection. Errors: `not_found` when
    /// `before` is not in the cache (it was cleared: start again from the newest), `storage`.
    pub fn summaries(&self, before: Option<&str>, limit: usize) -> Result<SummaryPage> {
        let limit = limit.max(1);
        let mut c = lock(&self.reader);
        let tx = c.transaction()?;
        let bound = match before {
            None => None,
            Some(id) => Some(key_of(&tx, id)?.ok_or_else(|| Error::NotFound(id.to_owned()))?),
        };
        let mut rows = page(&tx, bound.as_ref(), limit.saturating_add(1))?;
        let more = rows.len() > limit;
        rows.truncate(limit);
        let unread_older = match rows.last() {
            Some(last) if more => {
                let key = (last.record.created_at.clone(), last.record.id.clone());
                unread_before(&tx, &key)?
            }
            _ => 0,
        };
        tx.finish()?;
        Ok(SummaryPage {
            rows,
            more,
            unread_older,
        })
    }
}

/// `(created_at, id)` of a message: its place in the inbox order.
type Key = (String, String);

fn key_of(tx: &Transaction<'_>, id: &str) -> Result<Option<Key>> {
    Ok(tx
        .prepare_cached("SELECT created_at, id FROM messages WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

fn page(tx: &Transaction<'_>, before: Option<&Key>, limit: usize) -> Result<Vec<CachedMessage>> {
    let cols = rows::SUMMARY_COLUMNS;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let found = match before {
        None => tx
            .prepare_cached(&format!(
                "SELECT {cols} FROM messages ORDER BY created_at DESC, id DESC LIMIT ?1"
            ))?
            .query_map([limit], rows::from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
        // `created_at <= ?1` lets SQLite range-scan messages_by_created; the OR breaks ties.
        Some((at, id)) => tx
            .prepare_cached(&format!(
                "SELECT {cols} FROM messages
                 WHERE created_at <= ?1 AND (created_at < ?1 OR id < ?2)
                 ORDER BY created_at DESC, id DESC LIMIT ?3"
            ))?
            .query_map(params![at, id, limit], rows::from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    found.into_iter().map(rows::finish).collect()
}

fn unread_before(tx: &Transaction<'_>, (at, id): &Key) -> Result<u32> {
    let n: i64 = tx
        .prepare_cached(
            "SELECT COUNT(*) FROM messages
             WHERE unread = 1 AND created_at <= ?1 AND (created_at < ?1 OR id < ?2)",
        )?
        .query_row(params![at, id], |r| r.get(0))?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use herald_protocol::wire::MessageStatus;
    use herald_protocol::Revision;

    use super::super::{Cache, StoredRecord};

    fn record(id: &str, created_at: &str) -> StoredRecord {
        StoredRecord {
            id: id.into(),
            revision: Revision(1),
            status: MessageStatus::Delivered,
            expects_answer: false,
            sender_name: "agent".into(),
            sender_id: Some("con_agent".into()),
            created_at: created_at.into(),
            expires_at: None,
            sealed_title: Some(vec![1, 2, 3]),
            sealed_content: Some(vec![4; 2048]),
            sealed_answer: Some(vec![5; 64]),
            answered_at: None,
            error: None,
            thread_id: id.into(),
            thread_sequence: 0,
            reply_to: None,
            kind: "message".into(),
        }
    }

    /// 25 messages `m00`..`m24`, created a second apart, except that `m10`..`m12` share one
    /// timestamp (ties are ordered by id); `m03`, `m11` and `m20` are read.
    fn filled() -> (tempfile::TempDir, Cache) {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let records: Vec<_> = (0..25)
            .map(|i| {
                let second = if (10..=12).contains(&i) { 10 } else { i };
                record(
                    &format!("m{i:02}"),
                    &format!("2026-01-01T00:00:{second:02}.000Z"),
                )
            })
            .collect();
        cache.store_page(&records, Revision(1)).unwrap();
        for id in ["m03", "m11", "m20"] {
            assert!(cache.mark_read(id).unwrap());
        }
        (dir, cache)
    }

    #[test]
    fn pages_walk_the_whole_inbox_newest_first_without_gaps_or_repeats() {
        let (_dir, cache) = filled();
        let all: Vec<String> = cache
            .list()
            .unwrap()
            .into_iter()
            .map(|m| m.record.id)
            .collect();
        assert_eq!(all.len(), 25);
        assert_eq!(&all[..3], ["m24", "m23", "m22"]);
        assert_eq!(
            &all[12..15],
            ["m12", "m11", "m10"],
            "ties on created_at go by id, descending"
        );

        let mut walked = Vec::new();
        let mut before: Option<String> = None;
        let mut pages = 0;
        loop {
            let page = cache.summaries(before.as_deref(), 7).unwrap();
            pages += 1;
            assert!(page.rows.len() <= 7);
            let ids: Vec<String> = page.rows.iter().map(|m| m.record.id.clone()).collect();
            walked.extend(ids.iter().cloned());
            let expected_unread = all[walked.len()..]
                .iter()
                .filter(|id| !["m03", "m11", "m20"].contains(&id.as_str()))
                .count() as u32;
            assert_eq!(
                page.unread_older, expected_unread,
                "unread older than page {pages}"
            );
            assert_eq!(page.more, walked.len() < all.len());
            if !page.more {
                break;
            }
            before = ids.last().cloned();
        }
        assert_eq!(pages, 4, "7 + 7 + 7 + 4");
        assert_eq!(walked, all, "the pages together are the inbox, in order");
    }

    #[test]
    fn a_page_carries_titles_and_read_state_but_not_the_content() {
        let (_dir, cache) = filled();
        let page = cache.summaries(None, 5).unwrap();
        let first = &page.rows[0];
        assert_eq!(first.record.id, "m24");
        assert_eq!(first.record.sealed_title.as_deref(), Some(&[1u8, 2, 3][..]));
        assert_eq!(first.record.sealed_content, None, "content is not read");
        assert_eq!(first.record.sealed_answer, None);
        assert!(first.unread);
        assert_eq!(page.rows[4].record.id, "m20");
        assert!(!page.rows[4].unread, "m20 was read");
        let full = cache.get("m24").unwrap();
        assert!(
            full.record.sealed_content.is_some(),
            "the row itself is whole"
        );
    }

    #[test]
    fn a_zero_limit_reads_one_row_and_an_unknown_cursor_is_not_found() {
        let (_dir, cache) = filled();
        let one = cache.summaries(None, 0).unwrap();
        assert_eq!(one.rows.len(), 1, "a zero limit reads one row");
        assert!(one.more);
        let all = cache.summaries(None, usize::MAX).unwrap();
        assert_eq!(all.rows.len(), 25);
        assert!(!all.more);
        assert_eq!(all.unread_older, 0);
        let last = cache.summaries(Some("m00"), 10).unwrap();
        assert!(last.rows.is_empty() && !last.more, "nothing is older");
        let err = cache.summaries(Some("nope"), 10).unwrap_err();
        assert_eq!(err.code(), "not_found");
    }
}
