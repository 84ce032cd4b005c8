//! Group commit on the one writer connection.
//!
//! With `synchronous=FULL` every COMMIT waits for an fsync of the WAL (milliseconds on real
//! disks), so one transaction per write call caps the relay at a few hundred writes per second
//! however small the writes are. Here concurrent write calls share a transaction: each call
//! runs its closure inside its own SAVEPOINT of the open IMMEDIATE transaction (a failing call
//! rolls back only its own changes), and the last call of a batch commits for all of them.
//! No call returns before the COMMIT that holds its changes has returned, so an acknowledged
//! write is still on disk; if that COMMIT fails, every call of the batch gets the error.
//!
//! A call that finishes its closure while other calls wait for the lock leaves the transaction
//! open for them and waits for the commit; the call that finds nobody waiting (or the
//! [`MAX_BATCH`]th call) commits. Calls run one at a time, in lock order, so within a batch
//! each sees the changes of the calls before it, exactly as if they had committed one by one.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

use rusqlite::{ffi, Connection};

use crate::store::StoreError;

/// Most write calls that share one commit (bounds the wait of the first call of a batch).
pub(super) const MAX_BATCH: usize = 64;

/// How a batch ended: committed, or the SQLite error its COMMIT (or a rollback) failed with.
type Outcome = Result<(), (ffi::Error, Option<String>)>;

/// The open transaction's batch.
struct Batch {
    outcome: Arc<OnceLock<Outcome>>,
    calls: usize,
}

struct State {
    conn: Connection,
    open: Option<Batch>,
}

/// The writer connection with group commit.
pub(super) struct Writer {
    state: Mutex<State>,
    /// Signalled whenever a batch ends.
    ended: Condvar,
    /// Write calls waiting for `state`.
    waiting: AtomicUsize,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A stored outcome as a fresh error (rusqlite errors are not `Clone`).
fn to_error(e: &(ffi::Error, Option<String>)) -> StoreError {
    StoreError::Sqlite(rusqlite::Error::SqliteFailure(e.0, e.1.clone()))
}

/// A rusqlite error in the storable form.
fn to_outcome(e: rusqlite::Error) -> (ffi::Error, Option<String>) {
    match e {
        rusqlite::Error::SqliteFailure(code, msg) => (code, msg),
        other => (
            ffi::Error::new(ffi::SQLITE_ERROR),
            Some(format!("write batch failed: {other}")),
        ),
    }
}

/// Runs `f` in a savepoint, rolling its changes back when it fails or panics. The outer
/// error means the transaction itself is gone (SQLite rolled it back, e.g. on a full disk),
/// taking every earlier call of the batch with it.
fn in_savepoint<T, E: From<StoreError>>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> Result<T, E>,
) -> Result<Result<T, E>, rusqlite::Error> {
    conn.execute_batch("SAVEPOINT write_call")?;
    let out = catch_unwind(AssertUnwindSafe(|| f(conn)))
        .unwrap_or_else(|_| Err(StoreError::Task("a write panicked".into()).into()));
    if out.is_err() {
        conn.execute_batch("ROLLBACK TO write_call")?;
    }
    conn.execute_batch("RELEASE write_call")?;
    if conn.is_autocommit() {
        return Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(ffi::SQLITE_ABORT),
            Some("the write transaction was rolled back".into()),
        ));
    }
    Ok(out)
}

impl Writer {
    pub(super) fn new(conn: Connection) -> Writer {
        Writer {
            state: Mutex::new(State { conn, open: None }),
            ended: Condvar::new(),
            waiting: AtomicUsize::new(0),
        }
    }

    /// Runs `f` in the shared IMMEDIATE transaction and returns its result once the commit
    /// holding its changes has returned. `f` sees the changes of earlier calls of the same
    /// batch; when it fails (or panics) its own changes are rolled back and the others stay.
    /// Errors: `f`'s own, or [`StoreError::Sqlite`] when BEGIN, the savepoint or the COMMIT
    /// failed (then nothing of this call was written).
    pub(super) fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let mut s = lock(&self.state);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        if s.open.is_none() {
            s.conn
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(StoreError::from)?;
            s.open = Some(Batch {
                outcome: Arc::new(OnceLock::new()),
                calls: 0,
            });
        }
        let out = match in_savepoint(&s.conn, f) {
            Ok(out) => out,
            Err(lost) => {
                let outcome = to_outcome(lost);
                let err = to_error(&outcome);
                self.end(&mut s, Err(outcome));
                return Err(err.into());
            }
        };
        let (outcome, calls) = match s.open.as_mut() {
            Some(batch) => {
                batch.calls += 1;
                (batch.outcome.clone(), batch.calls)
            }
            None => unreachable!("the batch stays open while its lock is held"),
        };
        if self.waiting.load(Ordering::SeqCst) > 0 && calls < MAX_BATCH {
            // Someone is about to take the lock: leave the transaction to them.
            s = self
                .ended
                .wait_while(s, |_| outcome.get().is_none())
                .unwrap_or_else(|e| e.into_inner());
        } else {
            let committed = s.conn.execute_batch("COMMIT").map_err(to_outcome);
            self.end(&mut s, committed);
        }
        drop(s);
        match outcome.get() {
            Some(Ok(())) => out,
            Some(Err(e)) => Err(to_error(e).into()),
            None => unreachable!("waited for the batch to end"),
        }
    }

    /// Ends the open batch with `outcome` (rolling back what is left of a failed one) and
    /// wakes its waiting calls.
    fn end(&self, s: &mut State, outcome: Outcome) {
        if outcome.is_err() && !s.conn.is_autocommit() {
            if let Err(e) = s.conn.execute_batch("ROLLBACK") {
                tracing::error!(error = %e, "rolling back a failed write batch failed");
            }
        }
        if let Some(batch) = s.open.take() {
            let _ = batch.outcome.set(outcome);
        }
        self.ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    fn writer() -> (tempfile::TempDir, Arc<Writer>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let conn = Connection::open(dir.path().join("w.db")).expect("open");
        conn.pragma_update(None, "journal_mode", "WAL")
            .expect("wal");
        conn.execute_batch("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")
            .expect("table");
        (dir, Arc::new(Writer::new(conn)))
    }

    fn count(dir: &tempfile::TempDir) -> i64 {
        let conn = Connection::open(dir.path().join("w.db")).expect("reader");
        conn.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))
            .expect("count")
    }

    #[test]
    fn concurrent_calls_all_commit_and_failures_roll_back_alone() {
        let (dir, w) = writer();
        let threads = 16;
        let per = 50;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (w, barrier) = (w.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    for i in 0..per {
                        let k = (t * per + i) as i64;
                        let r: Result<(), StoreError> = w.write(|c| {
                            c.execute("INSERT INTO t (k, v) VALUES (?1, 'x')", [k])?;
                            if k % 7 == 0 {
                                // Inserted, then refused: must not be kept.
                                return Err(StoreError::NotFound);
                            }
                            Ok(())
                        });
                        assert_eq!(r.is_err(), k % 7 == 0, "call {k} gets its own outcome");
                        // Acknowledged means committed: a separate connection sees it.
                        if r.is_ok() {
                            let conn = Connection::open(dir_path(&w)).expect("reader");
                            let seen: i64 = conn
                                .query_row("SELECT COUNT(*) FROM t WHERE k = ?1", [k], |r| r.get(0))
                                .expect("read");
                            assert_eq!(seen, 1, "row {k} is committed when its call returns");
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("writer thread");
        }
        let total = (threads * per) as i64;
        let refused = (0..total).filter(|k| k % 7 == 0).count() as i64;
        assert_eq!(
            count(&dir),
            total - refused,
            "every accepted row, no refused one"
        );
    }

    fn dir_path(w: &Writer) -> std::path::PathBuf {
        let s = lock(&w.state);
        std::path::PathBuf::from(s.conn.path().expect("file database"))
    }

    #[test]
    fn a_panicking_call_is_rolled_back_and_the_writer_keeps_working() {
        let (dir, w) = writer();
        let r: Result<(), StoreError> = w.write(|c| {
            c.execute("INSERT INTO t (k, v) VALUES (1, 'x')", [])?;
            panic!("boom");
        });
        assert!(matches!(r, Err(StoreError::Task(_))), "a panic is an error");
        let r: Result<(), StoreError> = w.write(|c| {
            c.execute("INSERT INTO t (k, v) VALUES (2, 'y')", [])?;
            Ok(())
        });
        assert!(r.is_ok(), "the next call commits");
        assert_eq!(count(&dir), 1, "only the second row is stored");
    }

    #[test]
    fn a_call_that_ends_the_transaction_fails_its_batch_cleanly() {
        let (dir, w) = writer();
        let r: Result<(), StoreError> = w.write(|c| {
            c.execute("INSERT INTO t (k, v) VALUES (1, 'x')", [])?;
            c.execute_batch("ROLLBACK")?; // a transaction lost under the call
            Ok(())
        });
        assert!(r.is_err(), "the lost transaction is reported");
        let r: Result<(), StoreError> = w.write(|c| {
            c.execute("INSERT INTO t (k, v) VALUES (2, 'y')", [])?;
            Ok(())
        });
        assert!(r.is_ok(), "the writer recovers");
        assert_eq!(count(&dir), 1);
    }
}
