//! The `notifications` table (docs/agents.md): notifications from agents with their receipt
//! state, content sealed under the local key, and their own cursor in `notification_sync`
//! (no row = 0, so `Cache::clear` resets it too). A page and its cursor are stored in one
//! transaction, like messages.

use herald_protocol::Revision;
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{lock, Cache};
use crate::{Error, Result};

/// A notification as cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedNotification {
    pub id: String,
    pub revision: Revision,
    pub notification_id: String,
    pub source_kind: String,
    pub source_name: String,
    /// The agent key's or connector's id; `None` for rows cached before it was kept
    /// (migration 8).
    pub source_id: Option<String>,
    pub received_at: String,
    pub expect_reply: bool,
    pub suppressed: bool,
    pub displayed_at: Option<String>,
    pub spoken_at: Option<String>,
    pub replied_at: Option<String>,
    /// `NotificationContent` JSON sealed under the local key (aad = id); `None` when it
    /// could not be opened (`error` says why).
    pub sealed_content: Option<Vec<u8>>,
    /// The reply this device sent, sealed under the local key (aad = id + "/reply").
    pub sealed_reply: Option<Vec<u8>>,
    pub error: Option<String>,
    pub unread: bool,
}

const COLUMNS: &str = "id, revision, notification_id, source_kind, source_name, received_at,
    expect_reply, suppressed, displayed_at, spoken_at, replied_at, sealed_content, sealed_reply,
    error, unread, source_id";

fn read(r: &Row<'_>) -> rusqlite::Result<CachedNotification> {
    Ok(CachedNotification {
        id: r.get(0)?,
        revision: Revision(r.get::<_, i64>(1)? as u64),
        notification_id: r.get(2)?,
        source_kind: r.get(3)?,
        source_name: r.get(4)?,
        received_at: r.get(5)?,
        expect_reply: r.get(6)?,
        suppressed: r.get(7)?,
        displayed_at: r.get(8)?,
        spoken_at: r.get(9)?,
        replied_at: r.get(10)?,
        sealed_content: r.get(11)?,
        sealed_reply: r.get(12)?,
        error: r.get(13)?,
        unread: r.get(14)?,
        source_id: r.get(15)?,
    })
}

/// Inserts or updates a notification unless the cached one is as new; keeps `unread` and
/// `sealed_reply`. Returns whether it was new to the cache.
fn upsert(c: &Connection, n: &CachedNotification) -> Result<bool> {
    let existing: Option<i64> = c
        .query_row(
            "SELECT revision FROM notifications WHERE id = ?1",
            [n.id.as_str()],
            |r| r.get(0),
        )
        .optional()?;
    if existing.is_some_and(|rev| rev as u64 >= n.revision.0) {
        // The sync may have stored this revision (the reply's own) before the device that
        // replied stores it with its reply: keep the reply all the same.
        if let Some(reply) = &n.sealed_reply {
            c.execute(
                "UPDATE notifications SET sealed_reply = ?2 WHERE id = ?1 AND sealed_reply IS NULL",
                params![n.id, reply],
            )?;
        }
        return Ok(false);
    }
    c.execute(
        "INSERT INTO notifications (id, revision, notification_id, source_kind, source_name,
             received_at, expect_reply, suppressed, displayed_at, spoken_at, replied_at,
             sealed_content, sealed_reply, error, source_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT(id) DO UPDATE SET
             revision = excluded.revision, suppressed = excluded.suppressed,
             displayed_at = excluded.displayed_at, spoken_at = excluded.spoken_at,
             replied_at = excluded.replied_at,
             sealed_content = COALESCE(notifications.sealed_content, excluded.sealed_content),
             sealed_reply = COALESCE(excluded.sealed_reply, notifications.sealed_reply),
             error = excluded.error,
             source_id = COALESCE(excluded.source_id, notifications.source_id)",
        params![
            n.id,
            n.revision.0 as i64,
            n.notification_id,
            n.source_kind,
            n.source_name,
            n.received_at,
            n.expect_reply,
            n.suppressed,
            n.displayed_at,
            n.spoken_at,
            n.replied_at,
            n.sealed_content,
            n.sealed_reply,
            n.error,
            n.source_id,
        ],
    )?;
    Ok(existing.is_none())
}

impl Cache {
    /// The highest notification revision stored (0 when none).
    pub fn notification_cursor(&self) -> Result<Revision> {
        let c = lock(&self.reader);
        let v: Option<i64> = c
            .query_row(
                "SELECT cursor FROM notification_sync WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .optional()?;
        Ok(Revision(v.unwrap_or(0) as u64))
    }

    /// Stores a page of notifications and the new cursor in one transaction. Returns, per
    /// notification, whether it was new to this cache.
    pub fn store_notifications(
        &self,
        rows: &[CachedNotification],
        cursor: Revision,
    ) -> Result<Vec<bool>> {
        let mut c = lock(&self.writer);
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut fresh = Vec::with_capacity(rows.len());
        for n in rows {
            fresh.push(upsert(&tx, n)?);
        }
        tx.execute(
            "INSERT INTO notification_sync (id, cursor) VALUES (1, ?1)
             ON CONFLICT(id) DO UPDATE SET cursor = MAX(cursor, excluded.cursor)",
            params![cursor.0 as i64],
        )?;
        tx.commit()?;
        Ok(fresh)
    }

    /// Stores one notification outside the feed (a route's answer), keeping the cursor.
    pub fn store_notification(&self, row: &CachedNotification) -> Result<()> {
        upsert(&lock(&self.writer), row).map(|_| ())
    }

    /// All notifications, newest first.
    pub fn notifications(&self) -> Result<Vec<CachedNotification>> {
        let c = lock(&self.reader);
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM notifications ORDER BY received_at DESC, id DESC"
        ))?;
        let rows = stmt.query_map([], read)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// One notification.
    pub fn notification(&self, id: &str) -> Result<CachedNotification> {
        let c = lock(&self.reader);
        c.query_row(
            &format!("SELECT {COLUMNS} FROM notifications WHERE id = ?1"),
            [id],
            read,
        )
        .optional()?
        .ok_or_else(|| Error::NotFound(id.to_owned()))
    }

    /// Marks a notification read; returns whether it was unread.
    pub fn mark_notification_read(&self, id: &str) -> Result<bool> {
        let n = lock(&self.writer).execute(
            "UPDATE notifications SET unread = 0 WHERE id = ?1 AND unread = 1",
            [id],
        )?;
        Ok(n > 0)
    }
}
