//! `messages`: one row per message or request: metadata the relay needs (account, revision,
//! status, deadline, sender, thread) and the opaque envelope(s), stored as given.
//!
//! `revision` is the account revision of the latest change to the row, so `revision > after`
//! in revision order is the change feed. Status is stored as last written; a pending request
//! whose deadline passed is reported `expired` by [`record_from_row`] even before the sweeper
//! writes it (the sweeper then gives it a new revision).

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::parse_id;
use crate::clock::format_millis;
use crate::store::{NewAnswer, NewMessage, Principal, StoreError, StoreResult, Viewer};
use herald_protocol::envelope::Envelope;
use herald_protocol::wire::{AnswerRecord, MessageRecord, MessageStatus, SenderInfo, SEALED_TITLE};
use herald_protocol::{AccountId, MessageId, Revision};

pub(super) const MIGRATION_005: &str = "
CREATE TABLE messages (
    id              TEXT PRIMARY KEY NOT NULL,
    account_id      TEXT NOT NULL REFERENCES accounts(id),
    revision        INTEGER NOT NULL,
    kind            TEXT NOT NULL,
    status          TEXT NOT NULL,
    expects_answer  INTEGER NOT NULL,
    sender_type     TEXT NOT NULL,
    sender_id       TEXT NOT NULL,
    sender_name     TEXT NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    expires_at_ms   INTEGER,
    reply_to        TEXT,
    thread_id       TEXT NOT NULL,
    thread_sequence INTEGER NOT NULL,
    size            INTEGER NOT NULL,
    envelope        TEXT NOT NULL,
    answer_envelope TEXT,
    answered_at_ms  INTEGER,
    answered_by     TEXT
) STRICT;
CREATE UNIQUE INDEX messages_feed ON messages (account_id, revision);
CREATE INDEX messages_by_sender ON messages (account_id, sender_id, revision);
CREATE INDEX messages_pending_deadline ON messages (expires_at_ms) WHERE status = 'pending';
CREATE INDEX messages_thread ON messages (thread_id, thread_sequence);
";

const COLUMNS: &str = "id, revision, kind, status, expects_answer, sender_type, sender_id,
    sender_name, created_at_ms, expires_at_ms, reply_to, size, envelope, answer_envelope,
    answered_at_ms, answered_by, thread_id, thread_sequence";

/// Builds the wire record; `now_ms` decides whether a pending request has expired.
fn record_from_row(row: &Row<'_>, now_ms: i64) -> rusqlite::Result<StoredRow> {
    Ok(StoredRow {
        id: row.get(0)?,
        revision: row.get(1)?,
        kind: row.get(2)?,
        status: row.get(3)?,
        expects_answer: row.get(4)?,
        sender_type: row.get(5)?,
        sender_id: row.get(6)?,
        sender_name: row.get(7)?,
        created_at_ms: row.get(8)?,
        expires_at_ms: row.get(9)?,
        reply_to: row.get(10)?,
        size: row.get(11)?,
        envelope: row.get(12)?,
        answer_envelope: row.get(13)?,
        answered_at_ms: row.get(14)?,
        answered_by: row.get(15)?,
        thread_id: row.get(16)?,
        thread_sequence: row.get(17)?,
        now_ms,
    })
}

/// A row as read, converted to the wire record by [`StoredRow::into_record`].
struct StoredRow {
    id: String,
    revision: i64,
    kind: String,
    status: String,
    expects_answer: bool,
    sender_type: String,
    sender_id: String,
    sender_name: String,
    created_at_ms: i64,
    expires_at_ms: Option<i64>,
    reply_to: Option<String>,
    size: i64,
    envelope: String,
    answer_envelope: Option<String>,
    answered_at_ms: Option<i64>,
    answered_by: Option<String>,
    thread_id: String,
    thread_sequence: i64,
    now_ms: i64,
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("messages: {what}"))
}

impl StoredRow {
    fn into_record(self) -> StoreResult<MessageRecord> {
        let mut status = MessageStatus::parse(&self.status).ok_or_else(|| corrupt("status"))?;
        if status == MessageStatus::Pending && self.expires_at_ms.is_some_and(|e| e <= self.now_ms)
        {
            status = MessageStatus::Expired;
        }
        let envelope: Envelope =
            serde_json::from_str(&self.envelope).map_err(|_| corrupt("envelope"))?;
        let answer = match (self.answer_envelope, self.answered_at_ms, self.answered_by) {
            (Some(env), Some(at), Some(by)) => Some(AnswerRecord {
                envelope: serde_json::from_str(&env).map_err(|_| corrupt("answer"))?,
                answered_at: format_millis(at),
                device_id: parse_id(&by)?,
            }),
            _ => None,
        };
        Ok(MessageRecord {
            id: parse_id(&self.id)?,
            revision: Revision(self.revision as u64),
            sealed: true,
            title: SEALED_TITLE.to_owned(),
            kind: self.kind,
            status,
            expects_answer: self.expects_answer,
            sender: SenderInfo {
                kind: self.sender_type,
                id: self.sender_id,
                name: self.sender_name,
            },
            created_at: format_millis(self.created_at_ms),
            expires_at: self.expires_at_ms.map(format_millis),
            reply_to: self.reply_to.as_deref().map(parse_id).transpose()?,
            thread_id: parse_id(&self.thread_id)?,
            thread_sequence: u32::try_from(self.thread_sequence)
                .map_err(|_| corrupt("thread_sequence"))?,
            size: self.size as u64,
            envelope,
            answer,
        })
    }
}

/// The status as stored (not adjusted for the clock), with the deadline and sender.
pub(super) struct StoredState {
    pub status: MessageStatus,
    pub expects_answer: bool,
    pub expires_at_ms: Option<i64>,
    pub sender_type: String,
    pub sender_id: String,
}

impl StoredState {
    fn visible_to(&self, viewer: &Viewer) -> bool {
        match viewer {
            Viewer::Device => true,
            Viewer::Connection(id) => {
                self.sender_type == "connection" && self.sender_id == id.as_str()
            }
        }
    }

    /// Refuses a state change of anything but a live pending request, with the matching code.
    pub fn require_pending(&self, now_ms: i64) -> StoreResult<()> {
        if !self.expects_answer {
            return Err(StoreError::NotARequest);
        }
        match self.status {
            MessageStatus::Answered => Err(StoreError::AlreadyAnswered),
            MessageStatus::Cancelled => Err(StoreError::RequestCancelled),
            MessageStatus::Expired => Err(StoreError::RequestExpired),
            MessageStatus::Delivered => Err(StoreError::NotARequest),
            MessageStatus::Pending if self.expires_at_ms.is_some_and(|e| e <= now_ms) => {
                Err(StoreError::RequestExpired)
            }
            MessageStatus::Pending => Ok(()),
        }
    }
}

pub(super) fn state(
    conn: &Connection,
    account: &AccountId,
    id: &MessageId,
    viewer: &Viewer,
) -> StoreResult<StoredState> {
    let row: Option<(String, bool, Option<i64>, String, String)> = conn
        .prepare_cached(
            "SELECT status, expects_answer, expires_at_ms, sender_type, sender_id FROM messages
             WHERE id = ?1 AND account_id = ?2",
        )?
        .query_row(params![id.as_str(), account.as_str()], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?;
    let (status, expects_answer, expires_at_ms, sender_type, sender_id) =
        row.ok_or(StoreError::NotFound)?;
    let state = StoredState {
        status: MessageStatus::parse(&status).ok_or_else(|| corrupt("status"))?,
        expects_answer,
        expires_at_ms,
        sender_type,
        sender_id,
    };
    if !state.visible_to(viewer) {
        return Err(StoreError::NotFound);
    }
    Ok(state)
}

pub(super) fn exists(conn: &Connection, id: &MessageId) -> StoreResult<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM messages WHERE id = ?1")?
        .query_row([id.as_str()], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Thread of a new message: a reply joins its parent's thread, a root starts its own.
fn thread_for(
    conn: &Connection,
    account: &AccountId,
    id: &MessageId,
    reply_to: Option<&MessageId>,
) -> StoreResult<(String, i64)> {
    let Some(parent) = reply_to else {
        return Ok((id.as_str().to_owned(), 0));
    };
    let thread: String = conn
        .prepare_cached("SELECT thread_id FROM messages WHERE id = ?1 AND account_id = ?2")?
        .query_row(params![parent.as_str(), account.as_str()], |r| r.get(0))
        .optional()?
        .ok_or(StoreError::NotFound)?;
    let last: i64 = conn
        .prepare_cached(
            "SELECT COALESCE(MAX(thread_sequence), 0) FROM messages WHERE thread_id = ?1",
        )?
        .query_row([&thread], |r| r.get(0))?;
    Ok((thread, last + 1))
}

pub(super) fn insert(conn: &Connection, m: &NewMessage, revision: Revision) -> StoreResult<()> {
    let (sender_type, sender_id) = match &m.sender {
        Principal::Device { device_id, .. } => ("device", device_id.as_str()),
        Principal::Connection { connection_id, .. } => ("connection", connection_id.as_str()),
    };
    let (thread_id, thread_sequence) = thread_for(conn, &m.account_id, &m.id, m.reply_to.as_ref())?;
    let status = if m.expects_answer {
        MessageStatus::Pending
    } else {
        MessageStatus::Delivered
    };
    let envelope = serde_json::to_string(&m.envelope).map_err(|_| corrupt("envelope"))?;
    conn.prepare_cached(
        "INSERT INTO messages (id, account_id, revision, kind, status, expects_answer,
            sender_type, sender_id, sender_name, created_at_ms, expires_at_ms, reply_to,
            thread_id, thread_sequence, size, envelope)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )?
    .execute(params![
        m.id.as_str(),
        m.account_id.as_str(),
        revision.0 as i64,
        m.kind,
        status.as_str(),
        m.expects_answer,
        sender_type,
        sender_id,
        m.sender_name,
        m.now.timestamp_millis(),
        m.expires_at.map(|t| t.timestamp_millis()),
        m.reply_to.as_ref().map(|r| r.as_str()),
        thread_id,
        thread_sequence,
        m.envelope.encoded_len() as i64,
        envelope,
    ])?;
    Ok(())
}

/// One record by id (any account); the caller checks account and visibility.
pub(super) fn get(
    conn: &Connection,
    id: &MessageId,
    now_ms: i64,
) -> StoreResult<Option<(AccountId, MessageRecord)>> {
    let sql = format!("SELECT {COLUMNS}, account_id FROM messages WHERE id = ?1");
    let row = conn
        .prepare_cached(&sql)?
        .query_row([id.as_str()], |r| {
            Ok((record_from_row(r, now_ms)?, r.get::<_, String>(18)?))
        })
        .optional()?;
    row.map(|(stored, account)| Ok((parse_id(&account)?, stored.into_record()?)))
        .transpose()
}

/// Every message of a thread, oldest first.
pub(super) fn thread(
    conn: &Connection,
    account: &AccountId,
    thread_id: &MessageId,
    now_ms: i64,
) -> StoreResult<Vec<MessageRecord>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM messages WHERE account_id = ?1 AND thread_id = ?2
         ORDER BY thread_sequence"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![account.as_str(), thread_id.as_str()], |r| {
        record_from_row(r, now_ms)
    })?;
    rows.map(|r| r?.into_record()).collect()
}

pub(super) fn page(
    conn: &Connection,
    account: &AccountId,
    viewer: &Viewer,
    after: Revision,
    limit: u32,
    sender: Option<&str>,
    now_ms: i64,
) -> StoreResult<(Vec<MessageRecord>, bool)> {
    let fetch = i64::from(limit) + 1;
    let after = i64::try_from(after.0).unwrap_or(i64::MAX);
    // Both filters use the index (account_id, sender_id, revision).
    let (account_id, own) = (account.as_str(), viewer_connection(viewer));
    let mut filters = String::new();
    let mut args: Vec<&dyn rusqlite::ToSql> = vec![&account_id, &after, &fetch];
    if let Some(own) = &own {
        filters.push_str(" AND sender_type = 'connection' AND sender_id = ?4");
        args.push(own);
    }
    if let Some(sender) = &sender {
        filters.push_str(&format!(" AND sender_id = ?{}", args.len() + 1));
        args.push(sender);
    }
    let sql = format!(
        "SELECT {COLUMNS} FROM messages WHERE account_id = ?1 AND revision > ?2{filters}
         ORDER BY revision LIMIT ?3"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows: Vec<StoredRow> = stmt
        .query_map(args.as_slice(), |r| record_from_row(r, now_ms))?
        .collect::<rusqlite::Result<_>>()?;
    let has_more = rows.len() > limit as usize;
    let records = rows
        .into_iter()
        .take(limit as usize)
        .map(StoredRow::into_record)
        .collect::<StoreResult<Vec<_>>>()?;
    Ok((records, has_more))
}

/// The connection a connection viewer is limited to (its own messages); none for a device.
fn viewer_connection(viewer: &Viewer) -> Option<&str> {
    match viewer {
        Viewer::Device => None,
        Viewer::Connection(id) => Some(id.as_str()),
    }
}

pub(super) fn set_answer(
    conn: &Connection,
    id: &MessageId,
    answer: &NewAnswer,
    revision: Revision,
) -> StoreResult<()> {
    let envelope = serde_json::to_string(&answer.envelope).map_err(|_| corrupt("answer"))?;
    conn.prepare_cached(
        "UPDATE messages SET status = 'answered', answer_envelope = ?2, answered_at_ms = ?3,
             answered_by = ?4, revision = ?5
         WHERE id = ?1 AND status = 'pending'",
    )?
    .execute(params![
        id.as_str(),
        envelope,
        answer.now.timestamp_millis(),
        answer.device_id.as_str(),
        revision.0 as i64
    ])?;
    Ok(())
}

pub(super) fn set_status(
    conn: &Connection,
    id: &MessageId,
    status: MessageStatus,
    revision: Revision,
) -> StoreResult<()> {
    conn.prepare_cached("UPDATE messages SET status = ?2, revision = ?3 WHERE id = ?1")?
        .execute(params![id.as_str(), status.as_str(), revision.0 as i64])?;
    Ok(())
}

/// Pending requests whose deadline is at or before `now_ms` (oldest deadline first).
pub(super) fn due(
    conn: &Connection,
    now_ms: i64,
    limit: u32,
) -> StoreResult<Vec<(AccountId, MessageId)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, id FROM messages WHERE status = 'pending' AND expires_at_ms <= ?1
         ORDER BY expires_at_ms LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![now_ms, limit], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    rows.map(|r| {
        let (account, id) = r?;
        Ok((parse_id(&account)?, parse_id(&id)?))
    })
    .collect()
}

/// Highest revision among a connection's own messages.
pub(super) fn latest_for_connection(
    conn: &Connection,
    account: &AccountId,
    connection: &str,
) -> StoreResult<Revision> {
    let rev: i64 = conn
        .prepare_cached(
            "SELECT COALESCE(MAX(revision), 0) FROM messages WHERE account_id = ?1
         AND sender_id = ?2 AND sender_type = 'connection'",
        )?
        .query_row(params![account.as_str(), connection], |r| r.get(0))?;
    Ok(Revision(rev as u64))
}
