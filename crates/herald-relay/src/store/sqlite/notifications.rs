//! `notifications` and `quiet_hours` (docs/agents.md). A notification row holds the content
//! sealed to the account key (never plaintext), who sent it, its receipt times and the typed
//! reply; `revision` is the account revision of its last change. Rows are deleted 24 hours
//! after they arrived.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{from_millis, parse_id};
use crate::store::agents::{AgentError, AgentResult, NewNotification, NotificationRow};
use crate::store::StoreError;
use herald_protocol::notify::{QuietHours, SealedNotification};
use herald_protocol::{AccountId, NotificationId, Revision};

pub(super) const MIGRATION_013: &str = "
CREATE TABLE notifications (
    id              TEXT PRIMARY KEY NOT NULL,
    account_id      TEXT NOT NULL REFERENCES accounts(id),
    notification_id TEXT NOT NULL,
    source_kind     TEXT NOT NULL,
    source_id       TEXT NOT NULL,
    source_name     TEXT NOT NULL,
    revision        INTEGER NOT NULL,
    sealed          TEXT NOT NULL,
    expect_reply    INTEGER NOT NULL,
    suppressed      INTEGER NOT NULL,
    received_at_ms  INTEGER NOT NULL,
    displayed_at_ms INTEGER,
    spoken_at_ms    INTEGER,
    replied_at_ms   INTEGER,
    reply_text      TEXT,
    UNIQUE (account_id, notification_id)
) STRICT;
CREATE INDEX notifications_feed ON notifications (account_id, revision);
CREATE INDEX notifications_by_arrival ON notifications (received_at_ms);
CREATE TABLE quiet_hours (
    account_id    TEXT PRIMARY KEY NOT NULL REFERENCES accounts(id),
    enabled       INTEGER NOT NULL,
    start_hhmm    TEXT NOT NULL,
    end_hhmm      TEXT NOT NULL,
    timezone      TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL
) STRICT;
";

const COLUMNS: &str = "id, notification_id, revision, source_kind, source_id, source_name, sealed,
    expect_reply, suppressed, received_at_ms, displayed_at_ms, spoken_at_ms, replied_at_ms,
    reply_text";

/// The raw columns of [`COLUMNS`].
struct Raw {
    id: String,
    notification_id: String,
    revision: i64,
    source_kind: String,
    source_id: String,
    source_name: String,
    sealed: String,
    expect_reply: bool,
    suppressed: bool,
    received_at: i64,
    displayed_at: Option<i64>,
    spoken_at: Option<i64>,
    replied_at: Option<i64>,
    reply_text: Option<String>,
}

fn raw(r: &Row<'_>) -> rusqlite::Result<Raw> {
    Ok(Raw {
        id: r.get(0)?,
        notification_id: r.get(1)?,
        revision: r.get(2)?,
        source_kind: r.get(3)?,
        source_id: r.get(4)?,
        source_name: r.get(5)?,
        sealed: r.get(6)?,
        expect_reply: r.get(7)?,
        suppressed: r.get(8)?,
        received_at: r.get(9)?,
        displayed_at: r.get(10)?,
        spoken_at: r.get(11)?,
        replied_at: r.get(12)?,
        reply_text: r.get(13)?,
    })
}

fn row(raw: Raw) -> AgentResult<NotificationRow> {
    let sealed: SealedNotification = serde_json::from_str(&raw.sealed)
        .map_err(|e| StoreError::Corrupt(format!("sealed notification: {e}")))?;
    Ok(NotificationRow {
        id: parse_id(&raw.id)?,
        notification_id: raw.notification_id,
        revision: Revision(raw.revision as u64),
        source_kind: raw.source_kind,
        source_id: raw.source_id,
        source_name: raw.source_name,
        sealed,
        expect_reply: raw.expect_reply,
        suppressed: raw.suppressed,
        received_at: from_millis(raw.received_at)?,
        displayed_at: raw.displayed_at.map(from_millis).transpose()?,
        spoken_at: raw.spoken_at.map(from_millis).transpose()?,
        replied_at: raw.replied_at.map(from_millis).transpose()?,
        reply_text: raw.reply_text,
    })
}

pub(super) fn by_agent_id(
    conn: &Connection,
    account: &AccountId,
    notification_id: &str,
) -> AgentResult<Option<NotificationRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM notifications WHERE account_id = ?1 AND notification_id = ?2"
    );
    conn.query_row(&sql, params![account.as_str(), notification_id], raw)
        .optional()?
        .map(row)
        .transpose()
}

pub(super) fn by_id(
    conn: &Connection,
    account: &AccountId,
    id: &NotificationId,
) -> AgentResult<Option<NotificationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM notifications WHERE account_id = ?1 AND id = ?2");
    conn.query_row(&sql, params![account.as_str(), id.as_str()], raw)
        .optional()?
        .map(row)
        .transpose()
}

pub(super) fn insert(
    conn: &Connection,
    n: &NewNotification,
    revision: Revision,
) -> AgentResult<()> {
    let sealed = serde_json::to_string(&n.sealed)
        .map_err(|e| StoreError::Corrupt(format!("sealed notification: {e}")))?;
    conn.execute(
        "INSERT INTO notifications (id, account_id, notification_id, source_kind, source_id,
             source_name, revision, sealed, expect_reply, suppressed, received_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            n.id.as_str(),
            n.account.as_str(),
            n.notification_id,
            n.source.kind(),
            n.source.id(),
            n.source_name,
            revision.0 as i64,
            sealed,
            n.expect_reply,
            n.suppressed,
            n.now.timestamp_millis(),
        ],
    )?;
    Ok(())
}

pub(super) fn page(
    conn: &Connection,
    account: &AccountId,
    after: Revision,
    limit: u32,
) -> AgentResult<(Vec<NotificationRow>, bool)> {
    let sql = format!(
        "SELECT {COLUMNS} FROM notifications WHERE account_id = ?1 AND revision > ?2
         ORDER BY revision LIMIT ?3"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let raws = stmt.query_map(
        // A cursor past i64::MAX is past every revision (SQLite integers are i64): saturate,
        // as the message feed does, rather than wrap to a negative cursor.
        params![
            account.as_str(),
            i64::try_from(after.0).unwrap_or(i64::MAX),
            i64::from(limit) + 1
        ],
        raw,
    )?;
    let mut rows = Vec::new();
    for r in raws {
        rows.push(row(r?)?);
    }
    let has_more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    Ok((rows, has_more))
}

/// Sets the receipt columns not set yet; returns whether any changed.
pub(super) fn set_receipts(
    conn: &Connection,
    id: &NotificationId,
    displayed: bool,
    spoken: bool,
    suppressed: bool,
    revision: Revision,
    now_ms: i64,
) -> AgentResult<bool> {
    let n = conn.execute(
        "UPDATE notifications SET
             displayed_at_ms = CASE WHEN ?2 THEN COALESCE(displayed_at_ms, ?5) ELSE displayed_at_ms END,
             spoken_at_ms = CASE WHEN ?3 THEN COALESCE(spoken_at_ms, ?5) ELSE spoken_at_ms END,
             suppressed = CASE WHEN ?4 THEN 1 ELSE suppressed END,
             revision = ?6
         WHERE id = ?1 AND (
             (?2 AND displayed_at_ms IS NULL) OR (?3 AND spoken_at_ms IS NULL)
             OR (?4 AND suppressed = 0))",
        params![
            id.as_str(),
            displayed,
            spoken,
            suppressed,
            now_ms,
            revision.0 as i64
        ],
    )?;
    Ok(n > 0)
}

/// Whether a receipt update would change the row (so a revision is taken only then).
pub(super) fn receipts_would_change(
    row: &NotificationRow,
    displayed: bool,
    spoken: bool,
    suppressed: bool,
) -> bool {
    (displayed && row.displayed_at.is_none())
        || (spoken && row.spoken_at.is_none())
        || (suppressed && !row.suppressed)
}

pub(super) fn set_reply(
    conn: &Connection,
    row: &NotificationRow,
    text: &str,
    revision: Revision,
    now_ms: i64,
) -> AgentResult<()> {
    if !row.expect_reply {
        return Err(AgentError::ReplyNotExpected);
    }
    if row.replied_at.is_some() {
        return Err(AgentError::AlreadyReplied);
    }
    conn.execute(
        "UPDATE notifications SET replied_at_ms = ?2, reply_text = ?3, revision = ?4
         WHERE id = ?1 AND replied_at_ms IS NULL",
        params![row.id.as_str(), now_ms, text, revision.0 as i64],
    )?;
    Ok(())
}

pub(super) fn sweep(conn: &Connection, before_ms: i64) -> AgentResult<usize> {
    Ok(conn.execute(
        "DELETE FROM notifications WHERE received_at_ms <= ?1",
        [before_ms],
    )?)
}

pub(super) fn quiet_hours(
    conn: &Connection,
    account: &AccountId,
) -> AgentResult<Option<QuietHours>> {
    Ok(conn
        .query_row(
            "SELECT enabled, start_hhmm, end_hhmm, timezone FROM quiet_hours WHERE account_id = ?1",
            [account.as_str()],
            |r| {
                Ok(QuietHours {
                    enabled: r.get(0)?,
                    start: r.get(1)?,
                    end: r.get(2)?,
                    timezone: r.get(3)?,
                })
            },
        )
        .optional()?)
}

pub(super) fn put_quiet_hours(
    conn: &Connection,
    account: &AccountId,
    q: &QuietHours,
    now_ms: i64,
) -> AgentResult<()> {
    conn.execute(
        "INSERT INTO quiet_hours (account_id, enabled, start_hhmm, end_hhmm, timezone, updated_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(account_id) DO UPDATE SET enabled = ?2, start_hhmm = ?3, end_hhmm = ?4,
             timezone = ?5, updated_at_ms = ?6",
        params![account.as_str(), q.enabled, q.start, q.end, q.timezone, now_ms],
    )?;
    Ok(())
}

/// The latest `last_seen_ms` of the account's live devices.
pub(super) fn last_device_activity(
    conn: &Connection,
    account: &AccountId,
) -> AgentResult<Option<i64>> {
    Ok(conn.query_row(
        "SELECT MAX(last_seen_ms) FROM devices WHERE account_id = ?1 AND revoked_at_ms IS NULL",
        [account.as_str()],
        |r| r.get(0),
    )?)
}
