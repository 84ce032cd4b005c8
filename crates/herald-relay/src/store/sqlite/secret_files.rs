//! `secret_files` (migration 011): uploads that answer secret-file fields (docs/secrets.md).
//! The file itself is an ordinary row of `files`, attached to the answered request in the
//! answer's transaction; this table narrows who may download it to the asking connection
//! alone and gives it 15 minutes from the answer. The sweeper then marks both rows (the
//! `files` row becomes a `deleted` tombstone) and the bytes are removed.
//!
//! `state` is `waiting` or `expired`; rows stay as tombstones so a late download gets
//! `file_expired` instead of a bare 404.

use herald_protocol::{AccountId, FileId, MessageId};
use rusqlite::{params, Connection, OptionalExtension};

use crate::store::files::{Download, FileError, FileResult};
use crate::store::{Principal, StoreError};

pub(super) const MIGRATION_011: &str = "
CREATE TABLE secret_files (
    file_id        TEXT PRIMARY KEY NOT NULL,
    message_id     TEXT NOT NULL,
    account_id     TEXT NOT NULL,
    connection_id  TEXT NOT NULL,
    state          TEXT NOT NULL,
    expires_at_ms  INTEGER NOT NULL,
    closed_at_ms   INTEGER
) STRICT;
CREATE INDEX secret_files_due ON secret_files (expires_at_ms) WHERE state = 'waiting';
CREATE INDEX secret_files_account ON secret_files (account_id);
";

/// Records `files` (attached to `message` in the same transaction) as secret files of the
/// asking `connection`, deleted at `expires_at_ms`.
pub(super) fn insert(
    conn: &Connection,
    account: &AccountId,
    message: &MessageId,
    connection: &str,
    files: &[FileId],
    expires_at_ms: i64,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO secret_files (file_id, message_id, account_id, connection_id, state,
             expires_at_ms)
         VALUES (?1, ?2, ?3, ?4, 'waiting', ?5)",
    )?;
    for id in files {
        stmt.execute(params![
            id.as_str(),
            message.as_str(),
            account.as_str(),
            connection,
            expires_at_ms
        ])?;
    }
    Ok(())
}

/// The download rule of secret files: `Ok(None)` when `id` is not one (the ordinary rules
/// apply); otherwise only the asking connection may download it (`NotFound` for every
/// other caller, the answering device and the account's other devices included), and only
/// until its deadline (`Expired` after).
pub(super) fn download(
    conn: &Connection,
    caller: &Principal,
    id: &FileId,
    now_ms: i64,
) -> FileResult<Option<Download>> {
    let row: Option<(String, String, String, i64, i64, String)> = conn
        .query_row(
            "SELECT s.account_id, s.connection_id, s.state, s.expires_at_ms, f.size, f.state
             FROM secret_files s JOIN files f ON f.id = s.file_id
             WHERE s.file_id = ?1",
            [id.as_str()],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )
        .optional()?;
    let Some((account, connection, state, expires_at_ms, size, file_state)) = row else {
        return Ok(None);
    };
    let asker = match caller {
        Principal::Connection {
            account: a,
            connection_id,
        } => a.as_str() == account && connection_id.as_str() == connection,
        Principal::Device { .. } => false,
    };
    if !asker {
        return Err(FileError::NotFound);
    }
    if state != "waiting" || expires_at_ms <= now_ms || file_state != "attached" {
        return Err(FileError::Expired);
    }
    Ok(Some(Download { size: size as u64 }))
}

/// Marks at most `limit` secret files past their deadline expired and their `files` rows
/// deleted; returns their ids (the caller removes the bytes after the commit).
pub(super) fn sweep(conn: &Connection, now_ms: i64, limit: u32) -> FileResult<Vec<FileId>> {
    let due: Vec<String> = {
        let mut stmt = conn.prepare_cached(
            "SELECT file_id FROM secret_files
             WHERE state = 'waiting' AND expires_at_ms <= ?1
             ORDER BY expires_at_ms LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![now_ms, limit], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut swept = Vec::with_capacity(due.len());
    for id in due {
        conn.execute(
            "UPDATE secret_files SET state = 'expired', closed_at_ms = ?2 WHERE file_id = ?1",
            params![id, now_ms],
        )?;
        conn.execute(
            "UPDATE files SET state = 'deleted', deleted_at_ms = ?2, expires_at_ms = NULL
             WHERE id = ?1",
            params![id, now_ms],
        )?;
        swept.push(
            FileId::parse(&id)
                .ok_or_else(|| StoreError::Corrupt(format!("bad stored file id {id:?}")))?,
        );
    }
    Ok(swept)
}
