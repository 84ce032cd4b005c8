//! A damaged cache file is detected when the cache opens and replaced by a fresh one that the
//! next catch-up fills from the relay (cursor 0). Nothing is lost: the cache holds only what
//! the relay has (sealed again under the local key), and the keys live elsewhere (the keychain
//! or `local.key`, and `device.sealed`), so they are never touched here.
//!
//! Damage is: SQLite reporting a malformed image or a file that is not a database,
//! `PRAGMA quick_check` finding anything, a migration that fails, or a schema without the
//! tables and the cursor row this build needs. Anything else (the file is locked by another
//! process, the disk is full, permissions) is an error and the file is left alone.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode, OptionalExtension};

use super::CACHE_FILE;
use crate::Error;

/// Why opening the cache failed.
pub(super) enum OpenError {
    /// The file is damaged: move it aside and start a fresh one. The reason names SQLite's
    /// finding only (no content).
    Damaged(String),
    /// Anything else: report it and leave the file alone.
    Failed(Error),
}

impl From<rusqlite::Error> for OpenError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                OpenError::Damaged(e.to_string())
            }
            _ => OpenError::Failed(e.into()),
        }
    }
}

impl From<rusqlite_migration::Error> for OpenError {
    /// A migration that fails on the database's own content (a column already there, a
    /// `user_version` from a newer build) is damage; a locked or full database is not.
    fn from(e: rusqlite_migration::Error) -> Self {
        match e {
            rusqlite_migration::Error::RusqliteError { err, .. } => match err.sqlite_error_code() {
                Some(
                    ErrorCode::DatabaseBusy
                    | ErrorCode::DatabaseLocked
                    | ErrorCode::DiskFull
                    | ErrorCode::ReadOnly
                    | ErrorCode::PermissionDenied
                    | ErrorCode::CannotOpen
                    | ErrorCode::SystemIoFailure
                    | ErrorCode::OutOfMemory,
                ) => OpenError::Failed(Error::Storage(format!("cache migration: {err}"))),
                _ => OpenError::Damaged(format!("cache migration: {err}")),
            },
            other => OpenError::Damaged(format!("cache migration: {other}")),
        }
    }
}

impl From<Error> for OpenError {
    fn from(e: Error) -> Self {
        OpenError::Failed(e)
    }
}

/// Tables every cache of this build has (the migrations make them).
const TABLES: &[&str] = &[
    "sync_state",
    "messages",
    "notifications",
    "notification_sync",
    "answer_outbox",
];

/// `PRAGMA quick_check`: page structure and record formats, O(size), without the index
/// cross-check of `integrity_check`.
pub(super) fn check_pages(c: &Connection) -> Result<(), OpenError> {
    let mut stmt = c.prepare("PRAGMA quick_check")?;
    let findings: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if findings.len() != 1 || findings[0] != "ok" {
        let first = findings.first().cloned().unwrap_or_default();
        return Err(OpenError::Damaged(format!(
            "quick_check found {} problem(s), first: {first}",
            findings.len()
        )));
    }
    Ok(())
}

/// After the migrations: every table of [`TABLES`] and the cursor row are there.
pub(super) fn check_schema(c: &Connection) -> Result<(), OpenError> {
    for table in TABLES {
        let found: Option<i64> = c
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .optional()?;
        if found.is_none() {
            return Err(OpenError::Damaged(format!("table {table} is missing")));
        }
    }
    let cursor: Option<i64> = c
        .query_row("SELECT cursor FROM sync_state WHERE id = 1", [], |r| {
            r.get(0)
        })
        .optional()?;
    match cursor {
        Some(v) if v >= 0 => Ok(()),
        _ => Err(OpenError::Damaged("the cursor row is missing".into())),
    }
}

/// Moves `cache.db` (and its `-wal`, `-shm`) aside as `cache.db.corrupt-<unix ms>` (kept for
/// inspection; the owner may delete it) and logs why, without content. Returns the new path.
pub(super) fn move_aside(data_dir: &Path, reason: &str) -> crate::Result<PathBuf> {
    let stamp = chrono::Utc::now().timestamp_millis();
    let aside = data_dir.join(format!("{CACHE_FILE}.corrupt-{stamp}"));
    let path = data_dir.join(CACHE_FILE);
    std::fs::rename(&path, &aside)?;
    for suffix in ["-wal", "-shm"] {
        let from = data_dir.join(format!("{CACHE_FILE}{suffix}"));
        if from.exists() {
            let to = data_dir.join(format!("{CACHE_FILE}.corrupt-{stamp}{suffix}"));
            std::fs::rename(&from, &to)?;
        }
    }
    tracing::warn!(
        %reason,
        moved_to = %aside.display(),
        "the cache database is damaged; moved aside, rebuilding it from the relay"
    );
    Ok(aside)
}
