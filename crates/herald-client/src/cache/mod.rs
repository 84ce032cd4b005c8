//! The device's SQLite cache: synced records and the cursor, written by ONE writer connection
//! in one transaction per page (records and cursor together, so the cursor never runs past a
//! record that was not stored), read through a separate reader connection so the UI never
//! waits on the sync writer (WAL). Decrypted content is stored sealed under the local key.
//!
//! All methods are blocking; async callers go through `tokio::task::spawn_blocking`.

mod check;
mod migrations;
mod notifications;
mod outbox;
mod pages;
mod pending;
mod recover;
mod reopen;
mod rows;
mod summaries;

use std::path::Path;
use std::sync::Mutex;

use herald_protocol::Revision;
use rusqlite::{params, Connection, OptionalExtension};

pub use check::{CheckOutcome, OPEN_MARKER};
pub use notifications::CachedNotification;
pub use pending::PendingRows;
pub use rows::{CachedMessage, StoredRecord};
pub use summaries::{SummaryPage, MAX_PAGE_ROWS};

use crate::{Error, Result};
use recover::OpenError;

/// File name of the cache database in the data dir.
pub const CACHE_FILE: &str = "cache.db";

/// The cache: one writer, one reader.
pub struct Cache {
    writer: Mutex<Connection>,
    reader: Mutex<Connection>,
    /// The deferred page check and the open marker (cache/check.rs).
    check: check::CheckState,
}

fn lock(m: &Mutex<Connection>) -> std::sync::MutexGuard<'_, Connection> {
    // A panic while holding the lock leaves SQLite consistent (transactions roll back).
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Cache {
    /// Opens (creating and migrating) the cache at `<data_dir>/cache.db`. A damaged file (cache/recover.rs:
    /// malformed, not a database, failing `quick_check`, a failed migration or a
    /// missing table) is moved aside as `cache.db.corrupt-<unix ms>` and a fresh cache with
    /// cursor 0 takes its place, so the next catch-up rebuilds it from the relay; the keys are
    /// elsewhere and untouched. Errors: `storage` for anything else (locked by another process,
    /// disk full, permissions), leaving the file as it is.
    pub fn open(data_dir: &Path) -> Result<Cache> {
        Self::open_checked(data_dir, true)
    }

    /// [`Cache::open`], with `quick_check` only when `full` ([`Cache::open_deferred`]).
    fn open_checked(data_dir: &Path, full: bool) -> Result<Cache> {
        let path = data_dir.join(CACHE_FILE);
        let writer = match open_writer(&path, full) {
            Ok(c) => c,
            Err(OpenError::Failed(e)) => return Err(e),
            Err(OpenError::Damaged(reason)) => {
                recover::move_aside(data_dir, &reason)?;
                open_writer(&path, true).map_err(|e| match e {
                    OpenError::Failed(e) => e,
                    OpenError::Damaged(reason) => {
                        Error::Storage(format!("a fresh cache database is damaged: {reason}"))
                    }
                })?
            }
        };
        let reader = open_reader(&path)?;
        check::mark_open(data_dir)?;
        Ok(Cache {
            writer: Mutex::new(writer),
            reader: Mutex::new(reader),
            check: check::CheckState::new(data_dir, full),
        })
    }

    /// The highest revision stored.
    pub fn cursor(&self) -> Result<Revision> {
        let c = lock(&self.reader);
        let v: i64 = c.query_row("SELECT cursor FROM sync_state WHERE id = 1", [], |r| {
            r.get(0)
        })?;
        Ok(Revision(v as u64))
    }

    /// When the last catch-up finished (RFC 3339, as stored by [`Cache::set_synced_at`]);
    /// `None` before the first.
    pub fn synced_at(&self) -> Result<Option<String>> {
        let c = lock(&self.reader);
        Ok(
            c.query_row("SELECT synced_at FROM sync_state WHERE id = 1", [], |r| {
                r.get(0)
            })?,
        )
    }

    /// Records that a catch-up finished at `at` (RFC 3339).
    pub fn set_synced_at(&self, at: &str) -> Result<()> {
        lock(&self.writer).execute(
            "UPDATE sync_state SET synced_at = ?1 WHERE id = 1",
            params![at],
        )?;
        Ok(())
    }

    /// Stores a page of records and the new cursor in one transaction. Returns, per record,
    /// whether it was new to this cache. A record older than the stored one is ignored.
    pub fn store_page(&self, records: &[StoredRecord], cursor: Revision) -> Result<Vec<bool>> {
        let mut c = lock(&self.writer);
        // IMMEDIATE: take the write lock up front, so another process (a second `herald inbox`)
        // waits on the busy timeout instead of failing on a read-to-write upgrade.
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut fresh = Vec::with_capacity(records.len());
        for r in records {
            let existing: Option<i64> = tx
                .prepare_cached("SELECT revision FROM messages WHERE id = ?1")?
                .query_row([r.id.as_str()], |row| row.get(0))
                .optional()?;
            fresh.push(existing.is_none());
            if existing.is_some_and(|rev| rev as u64 >= r.revision.0) {
                continue;
            }
            rows::upsert(&tx, r)?;
        }
        tx.execute(
            "UPDATE sync_state SET cursor = MAX(cursor, ?1) WHERE id = 1",
            params![cursor.0 as i64],
        )?;
        tx.commit()?;
        Ok(fresh)
    }

    /// Stores one record outside the feed (e.g. the answer response), keeping the cursor.
    pub fn store_record(&self, record: &StoredRecord) -> Result<()> {
        let c = lock(&self.writer);
        let existing: Option<i64> = c
            .query_row(
                "SELECT revision FROM messages WHERE id = ?1",
                [record.id.as_str()],
                |row| row.get(0),
            )
            .optional()?;
        if existing.is_some_and(|rev| rev as u64 >= record.revision.0) {
            return Ok(());
        }
        rows::upsert(&c, record)
    }

    /// All messages, newest first.
    pub fn list(&self) -> Result<Vec<CachedMessage>> {
        rows::list(&lock(&self.reader))
    }

    /// One message.
    pub fn get(&self, id: &str) -> Result<CachedMessage> {
        rows::get(&lock(&self.reader), id)?.ok_or_else(|| Error::NotFound(id.to_owned()))
    }

    /// The messages of a thread, oldest first.
    pub fn thread(&self, thread_id: &str) -> Result<Vec<CachedMessage>> {
        rows::thread(&lock(&self.reader), thread_id)
    }

    /// Forgets everything synced (another account's messages after a reset or a new unlock):
    /// every table but the cursor row is emptied and the cursor goes back to 0, in one
    /// transaction, so the next catch-up reads the account's whole history.
    pub fn clear(&self) -> Result<()> {
        let mut c = lock(&self.writer);
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let tables: Vec<String> = {
            let mut stmt = tx.prepare(
                "SELECT name FROM sqlite_master
                 WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'sync_state'",
            )?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for table in tables {
            // Names come from sqlite_master, not from input; quoted all the same.
            tx.execute(
                &format!("DELETE FROM \"{}\"", table.replace('"', "\"\"")),
                [],
            )?;
        }
        tx.execute(
            "UPDATE sync_state SET cursor = 0, synced_at = NULL WHERE id = 1",
            [],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Marks a message read.
    pub fn mark_read(&self, id: &str) -> Result<bool> {
        let n = lock(&self.writer).execute(
            "UPDATE messages SET unread = 0 WHERE id = ?1 AND unread = 1",
            [id],
        )?;
        Ok(n > 0)
    }
}

/// The reader connection (WAL: never waits on the writer).
fn open_reader(path: &Path) -> Result<Connection> {
    let reader = Connection::open(path)?;
    reader.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(reader)
}

/// The writer connection, migrated and checked: `quick_check` over every page when
/// `full_check`, the schema and cursor row always.
fn open_writer(path: &Path, full_check: bool) -> std::result::Result<Connection, OpenError> {
    private_file(path)?;
    let mut c = Connection::open(path)?;
    c.busy_timeout(std::time::Duration::from_secs(5))?;
    // New caches only (ignored once the file has pages): a message row holds its sealed
    // content inline, typically 1–4 KB, and 4 KiB pages fit one such row each; 8 KiB pages fit
    // two to three (docs/benchmarks.md, "Device core and files": cache size per message).
    c.pragma_update(None, "page_size", 8192)?;
    c.pragma_update(None, "journal_mode", "WAL")?;
    c.pragma_update(None, "synchronous", "NORMAL")?;
    if full_check {
        recover::check_pages(&c)?;
    }
    migrations::apply_checked(&mut c)?;
    recover::check_schema(&c)?;
    Ok(c)
}

/// Creates the database file readable by its owner only (0600), or narrows an existing one to
/// that, before SQLite opens it: the cache holds sealed content but also metadata (who, when).
/// SQLite gives the `-wal` and `-shm` files the database file's permissions.
#[cfg(unix)]
fn private_file(path: &Path) -> Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(())
}

#[cfg(not(unix))]
fn private_file(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests;
