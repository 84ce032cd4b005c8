//! The full page check (`PRAGMA quick_check`, O(size): 0.2–0.7 s on a 43 MB cache) kept off an
//! app's start path without losing what it protects (docs/faults.md, "Damaged caches").
//!
//! [`Cache::open_deferred`] runs the check at open only when the last session did not close
//! the cache cleanly: a marker file `cache.db.open` exists from the open to a clean close
//! ([`Cache::mark_closed`] or dropping the cache), so a crash, `kill -9` or power loss leaves
//! it behind. After a clean close the open does only the cheap checks (SQLite's header and
//! schema, the migrations, the tables and the cursor row) and the caller runs
//! [`Cache::verify`] later (the desktop: after its first paint). A damaged file found then is
//! moved aside exactly as at open and replaced, under the connections' locks, by a fresh cache
//! with cursor 0 that the next catch-up fills from the relay; the keys are never touched.
//!
//! The marker is advisory: two processes on one data dir (the app and `herald inbox`) share
//! it, so one closing may remove it while the other still runs; the check after the paint
//! still runs on every start, so damage is found within one start either way.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;

use super::recover::{self, OpenError};
use super::{lock, open_reader, open_writer, Cache, CACHE_FILE};
use crate::{Error, Result};

/// Name of the marker file, next to the cache: present while a session has the cache open.
pub const OPEN_MARKER: &str = "cache.db.open";

/// What [`Cache::verify`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOutcome {
    /// The file passed (now or at open).
    Sound,
    /// The file was damaged: moved aside as `cache.db.corrupt-<unix ms>`; the cache is now a
    /// fresh one with cursor 0.
    Rebuilt,
}

/// Per cache: where it lives and whether its pages were checked.
pub(super) struct CheckState {
    data_dir: PathBuf,
    /// True once the pages passed `quick_check` (at open or by [`Cache::verify`]). Held while
    /// a check runs, so two callers do not check twice.
    verified: Mutex<bool>,
}

impl CheckState {
    pub(super) fn new(data_dir: &Path, verified: bool) -> Self {
        CheckState {
            data_dir: data_dir.to_path_buf(),
            verified: Mutex::new(verified),
        }
    }
}

/// Whether the last session left the marker behind (it did not close cleanly).
pub(super) fn unclean(data_dir: &Path) -> bool {
    data_dir.join(OPEN_MARKER).exists()
}

/// Creates the marker (empty, 0600). Errors: `storage` (I/O).
pub(super) fn mark_open(data_dir: &Path) -> Result<()> {
    let path = data_dir.join(OPEN_MARKER);
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?;
    Ok(())
}

impl Cache {
    /// Opens the cache like [`Cache::open`], but runs `quick_check` at open only when the
    /// last session did not close it cleanly (module docs); otherwise the caller must call
    /// [`Cache::verify`] once the app has started. Errors as [`Cache::open`].
    pub fn open_deferred(data_dir: &Path) -> Result<Cache> {
        let full = unclean(data_dir) || !data_dir.join(CACHE_FILE).exists();
        Self::open_checked(data_dir, full)
    }

    /// Runs `quick_check` over the whole file on a connection of its own (reads and the sync
    /// writer go on meanwhile) unless the pages were already checked; on damage, moves the
    /// file aside and swaps fresh connections in (blocking readers and the writer for the few
    /// milliseconds that takes). Blocking: O(file size). Errors: `storage` when the check
    /// cannot run (locked, I/O) — the cache is left as it is — or when the fresh cache cannot
    /// be made.
    pub fn verify(&self) -> Result<CheckOutcome> {
        let mut verified = self
            .check
            .verified
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if *verified {
            return Ok(CheckOutcome::Sound);
        }
        let dir = self.check.data_dir.clone();
        let path = dir.join(CACHE_FILE);
        let finding = (|| -> std::result::Result<(), OpenError> {
            let c = Connection::open(&path)?;
            c.busy_timeout(std::time::Duration::from_secs(5))?;
            recover::check_pages(&c)
        })();
        match finding {
            Ok(()) => {
                *verified = true;
                Ok(CheckOutcome::Sound)
            }
            Err(OpenError::Failed(e)) => Err(e),
            Err(OpenError::Damaged(reason)) => {
                let mut writer = lock(&self.writer);
                let mut reader = lock(&self.reader);
                // Close the damaged file's connections before it moves.
                *reader = Connection::open_in_memory()?;
                *writer = Connection::open_in_memory()?;
                recover::move_aside(&dir, &reason)?;
                *writer = open_writer(&path, false).map_err(|e| match e {
                    OpenError::Failed(e) => e,
                    OpenError::Damaged(reason) => {
                        Error::Storage(format!("a fresh cache database is damaged: {reason}"))
                    }
                })?;
                *reader = open_reader(&path)?;
                *verified = true;
                Ok(CheckOutcome::Rebuilt)
            }
        }
    }

    /// Whether the pages passed the full check (at open or by [`Cache::verify`]); false
    /// while a check runs.
    pub fn checked(&self) -> bool {
        self.check.verified.try_lock().map(|v| *v).unwrap_or(false)
    }

    /// Records a clean close (removes the marker) without waiting for the last handle to
    /// drop: for a process that exits without running destructors (the desktop app). Call it
    /// after stopping the sync; later writes stay safe (SQLite's WAL), they only go unmarked.
    pub fn mark_closed(&self) {
        let path = self.check.data_dir.join(OPEN_MARKER);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => tracing::warn!(%error, "could not remove the cache's open marker"),
        }
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        // Close both connections (checkpointing the WAL) before recording the clean close.
        for m in [&self.writer, &self.reader] {
            if let Ok(blank) = Connection::open_in_memory() {
                let old = std::mem::replace(&mut *lock(m), blank);
                drop(old);
            }
        }
        self.mark_closed();
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Seek, SeekFrom, Write};

    use herald_protocol::Revision;

    use super::*;
    use crate::cache::StoredRecord;

    fn row(n: u64) -> StoredRecord {
        StoredRecord {
            id: format!("msg_{n:05}"),
            revision: Revision(n),
            status: herald_protocol::wire::MessageStatus::Pending,
            expects_answer: false,
            sender_name: "agent".into(),
            sender_id: Some("con_agent".into()),
            created_at: format!("2026-01-01T00:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
            expires_at: None,
            sealed_title: Some(vec![7; 64]),
            sealed_content: Some(vec![9; 2048]),
            sealed_answer: None,
            answered_at: None,
            error: None,
            thread_id: format!("msg_{n:05}"),
            thread_sequence: 0,
            reply_to: None,
            kind: "message".into(),
        }
    }

    /// A cache of 400 rows, closed cleanly (marker gone, WAL folded in).
    fn filled(dir: &Path) {
        let cache = Cache::open(dir).expect("open");
        assert!(unclean(dir), "the marker exists while open");
        let rows: Vec<_> = (1..=400).map(row).collect();
        cache.store_page(&rows, Revision(400)).expect("store");
        drop(cache);
        assert!(!unclean(dir), "a clean close removes the marker");
    }

    /// Overwrites one page in the middle of the (checkpointed) file with garbage.
    fn overwrite_middle_page(dir: &Path) {
        let path = dir.join(CACHE_FILE);
        let len = std::fs::metadata(&path).unwrap().len();
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(SeekFrom::Start(len / 8192 / 2 * 8192)).unwrap();
        let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 131 % 251) as u8).collect();
        f.write_all(&garbage).unwrap();
    }

    fn corrupt_files(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy()
                    .starts_with(&format!("{CACHE_FILE}.corrupt-"))
            })
            .count()
    }

    #[test]
    fn damage_after_a_clean_close_is_found_by_the_deferred_check() {
        let dir = tempfile::tempdir().unwrap();
        filled(dir.path());
        overwrite_middle_page(dir.path());

        let cache = Cache::open_deferred(dir.path()).expect("the cheap checks pass");
        assert_eq!(corrupt_files(dir.path()), 0, "not checked at open");
        assert_eq!(cache.verify().unwrap(), CheckOutcome::Rebuilt);
        assert_eq!(corrupt_files(dir.path()), 1, "moved aside for inspection");
        assert_eq!(cache.cursor().unwrap(), Revision(0), "a fresh cache");
        assert!(cache.list().unwrap().is_empty(), "nothing of the old file");
        cache
            .store_page(&[row(1)], Revision(1))
            .expect("the fresh cache takes writes");
        assert_eq!(cache.get("msg_00001").unwrap().record.revision, Revision(1));
        assert_eq!(cache.verify().unwrap(), CheckOutcome::Sound, "once only");
    }

    #[test]
    fn after_an_unclean_exit_the_check_runs_at_open() {
        let dir = tempfile::tempdir().unwrap();
        filled(dir.path());
        overwrite_middle_page(dir.path());
        mark_open(dir.path()).unwrap(); // as a crash leaves it

        let cache = Cache::open_deferred(dir.path()).expect("moved aside, not fatal");
        assert_eq!(corrupt_files(dir.path()), 1, "found at open");
        assert_eq!(cache.cursor().unwrap(), Revision(0));
        assert_eq!(cache.verify().unwrap(), CheckOutcome::Sound);
    }

    #[test]
    fn a_sound_cache_passes_the_deferred_check_untouched() {
        let dir = tempfile::tempdir().unwrap();
        filled(dir.path());
        let cache = Cache::open_deferred(dir.path()).unwrap();
        assert!(!cache.checked(), "deferred after a clean close");
        assert_eq!(cache.verify().unwrap(), CheckOutcome::Sound);
        assert!(cache.checked());
        assert_eq!(corrupt_files(dir.path()), 0);
        assert_eq!(cache.cursor().unwrap(), Revision(400));
        assert_eq!(cache.list().unwrap().len(), 400);
        cache.mark_closed();
        assert!(!unclean(dir.path()), "marked closed before the drop");
    }
}
