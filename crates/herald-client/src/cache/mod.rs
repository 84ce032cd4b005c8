//! The device's SQLite cache: synced records and the cursor, written by ONE writer connection
//! in one transaction per page (records and cursor together, so the cursor never runs past a
//! record that was not stored), read through a separate reader connection so the UI never
//! waits on the sync writer (WAL). Decrypted content is stored sealed under the local key.
//!
//! All methods are blocking; async callers go through `tokio::task::spawn_blocking`.

mod migrations;
mod notifications;
mod reopen;
mod rows;

use std::path::Path;
use std::sync::Mutex;

use herald_protocol::Revision;
use rusqlite::{params, Connection, OptionalExtension};

pub use notifications::CachedNotification;
pub use rows::{CachedMessage, StoredRecord};

use crate::{Error, Result};

/// File name of the cache database in the data dir.
pub const CACHE_FILE: &str = "cache.db";

/// The cache: one writer, one reader.
pub struct Cache {
    writer: Mutex<Connection>,
    reader: Mutex<Connection>,
}

fn lock(m: &Mutex<Connection>) -> std::sync::MutexGuard<'_, Connection> {
    // A panic while holding the lock leaves SQLite consistent (transactions roll back).
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Cache {
    /// Opens (creating and migrating) the cache at `<data_dir>/cache.db`. A file that is not
    /// a valid database is moved aside and rebuilt from the relay (keys are elsewhere, so
    /// nothing is lost).
    pub fn open(data_dir: &Path) -> Result<Cache> {
        let path = data_dir.join(CACHE_FILE);
        let writer = match open_writer(&path) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "cache database unreadable; rebuilding from the relay");
                let aside = data_dir.join(format!("{CACHE_FILE}.corrupt"));
                let _ = std::fs::rename(&path, aside);
                for suffix in ["-wal", "-shm"] {
                    let _ = std::fs::remove_file(data_dir.join(format!("{CACHE_FILE}{suffix}")));
                }
                open_writer(&path)?
            }
        };
        let reader = Connection::open(&path)?;
        reader.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(Cache {
            writer: Mutex::new(writer),
            reader: Mutex::new(reader),
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
                .query_row(
                    "SELECT revision FROM messages WHERE id = ?1",
                    [r.id.as_str()],
                    |row| row.get(0),
                )
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
        tx.execute("UPDATE sync_state SET cursor = 0 WHERE id = 1", [])?;
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

fn open_writer(path: &Path) -> Result<Connection> {
    private_file(path)?;
    let mut c = Connection::open(path)?;
    c.busy_timeout(std::time::Duration::from_secs(5))?;
    c.pragma_update(None, "journal_mode", "WAL")?;
    c.pragma_update(None, "synchronous", "NORMAL")?;
    let check: String = c.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    if check != "ok" {
        return Err(Error::Storage(format!(
            "cache integrity check failed: {check}"
        )));
    }
    migrations::apply(&mut c)?;
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
