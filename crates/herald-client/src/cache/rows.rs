//! The `messages` table: one row per message, holding relay metadata in the clear (the relay
//! sees it too) and everything decrypted sealed under the local key.

use herald_protocol::wire::MessageStatus;
use herald_protocol::Revision;
use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::{Error, Result};

/// A record ready to store: metadata plus sealed blobs (sealing happens before the cache).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRecord {
    pub id: String,
    pub revision: Revision,
    pub status: MessageStatus,
    pub expects_answer: bool,
    pub sender_name: String,
    /// The sender's id (`con_…` for a connection, a device id for a device); `None` for rows
    /// cached before it was kept (migration 8).
    pub sender_id: Option<String>,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub sealed_title: Option<Vec<u8>>,
    pub sealed_content: Option<Vec<u8>>,
    pub sealed_answer: Option<Vec<u8>>,
    pub answered_at: Option<String>,
    /// Why the message could not be verified, opened or validated.
    pub error: Option<String>,
    /// The thread (id of its first message) and the position in it, from the relay.
    pub thread_id: String,
    pub thread_sequence: u32,
    pub reply_to: Option<String>,
    /// The relay's kind: `message`, or `secret` for a secret offer (metadata the relay sees).
    pub kind: String,
}

/// A stored record as read back, with this device's read state.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedMessage {
    pub record: StoredRecord,
    pub unread: bool,
}

pub(super) fn upsert(c: &Connection, r: &StoredRecord) -> Result<()> {
    // Prepared once per connection: a cold sync stores thousands of rows.
    c.prepare_cached(
        "INSERT INTO messages (id, revision, status, expects_answer, sender_name, created_at,
             expires_at, sealed_title, sealed_content, sealed_answer, answered_at, error,
             thread_id, thread_sequence, reply_to, kind, sender_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
         ON CONFLICT(id) DO UPDATE SET
             revision = excluded.revision, status = excluded.status,
             expects_answer = excluded.expects_answer, sender_name = excluded.sender_name,
             created_at = excluded.created_at, expires_at = excluded.expires_at,
             sealed_title = excluded.sealed_title, sealed_content = excluded.sealed_content,
             sealed_answer = excluded.sealed_answer, answered_at = excluded.answered_at,
             error = excluded.error, thread_id = excluded.thread_id,
             thread_sequence = excluded.thread_sequence, reply_to = excluded.reply_to,
             kind = excluded.kind,
             sender_id = COALESCE(excluded.sender_id, messages.sender_id)",
    )?
    .execute(params![
        r.id,
        r.revision.0 as i64,
        r.status.as_str(),
        r.expects_answer,
        r.sender_name,
        r.created_at,
        r.expires_at,
        r.sealed_title,
        r.sealed_content,
        r.sealed_answer,
        r.answered_at,
        r.error,
        r.thread_id,
        r.thread_sequence,
        r.reply_to,
        r.kind,
        r.sender_id,
    ])?;
    Ok(())
}

const COLUMNS: &str = "id, revision, status, expects_answer, sender_name, created_at, expires_at,
    sealed_title, sealed_content, sealed_answer, answered_at, error, unread,
    COALESCE(thread_id, id), thread_sequence, reply_to, kind, sender_id";

/// [`COLUMNS`] without the sealed content and answer (read back as `None`): what an inbox row
/// needs, without reading a message's largest blobs.
pub(super) const SUMMARY_COLUMNS: &str = "id, revision, status, expects_answer, sender_name,
    created_at, expires_at, sealed_title, NULL, NULL, answered_at, error, unread,
    COALESCE(thread_id, id), thread_sequence, reply_to, kind, sender_id";

pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<(CachedMessage, String)> {
    let status: String = row.get(2)?;
    Ok((
        CachedMessage {
            record: StoredRecord {
                id: row.get(0)?,
                revision: Revision(row.get::<_, i64>(1)? as u64),
                status: MessageStatus::Pending,
                expects_answer: row.get(3)?,
                sender_name: row.get(4)?,
                sender_id: row.get(17)?,
                created_at: row.get(5)?,
                expires_at: row.get(6)?,
                sealed_title: row.get(7)?,
                sealed_content: row.get(8)?,
                sealed_answer: row.get(9)?,
                answered_at: row.get(10)?,
                error: row.get(11)?,
                thread_id: row.get(13)?,
                thread_sequence: row.get(14)?,
                reply_to: row.get(15)?,
                kind: row.get(16)?,
            },
            unread: row.get(12)?,
        },
        status,
    ))
}

pub(super) fn finish((mut m, status): (CachedMessage, String)) -> Result<CachedMessage> {
    m.record.status = MessageStatus::parse(&status)
        .ok_or_else(|| Error::Storage(format!("unknown status {status:?} in cache")))?;
    Ok(m)
}

pub(super) fn list(c: &Connection) -> Result<Vec<CachedMessage>> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM messages ORDER BY created_at DESC, id DESC"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    rows.map(|r| finish(r?)).collect()
}

pub(super) fn thread(c: &Connection, thread_id: &str) -> Result<Vec<CachedMessage>> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM messages WHERE COALESCE(thread_id, id) = ?1
         ORDER BY thread_sequence, created_at"
    ))?;
    let rows = stmt.query_map([thread_id], from_row)?;
    rows.map(|r| finish(r?)).collect()
}

pub(super) fn get(c: &Connection, id: &str) -> Result<Option<CachedMessage>> {
    let mut stmt = c.prepare_cached(&format!("SELECT {COLUMNS} FROM messages WHERE id = ?1"))?;
    stmt.query_row([id], from_row)
        .optional()?
        .map(finish)
        .transpose()
}
