//! The embedded SQLite store: one file (`relay.db`), WAL, `synchronous=FULL` so an
//! acknowledged write is on disk, numbered migrations applied in a transaction.
//!
//! ONE writer connection, with group commit (concurrent write calls share one transaction
//! and its fsync; `writer.rs`), and a small pool of read-only connections, so reads never
//! wait for the writer (WAL). Every method is blocking and is called from tokio's
//! blocking pool (see `AppState::store_call`); no lock is held across an `.await`. Write
//! transactions are `IMMEDIATE`, so the revision counter is read and bumped under the write
//! lock and revisions commit in order.

mod accounts;
mod agent_credentials;
mod agents;
mod backups;
mod connections;
mod device_admin;
mod devices;
mod encryption_keys;
mod events;
mod files;
mod idempotency;
mod messages;
mod notifications;
mod pairings;
mod revoked;
mod secret_files;
mod secrets;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags};
use rusqlite_migration::{Migrations, M};

use super::{
    AccountKeys, ChangedRecord, ConnectionRow, CredentialRow, IdempotencyClaim, NewAccount,
    NewAnswer, NewConnection, NewMessage, Principal, SendOutcome, Store, StoreError, StoreResult,
    TokenHash, Viewer,
};
use herald_protocol::envelope::Certificate;
use herald_protocol::wire::{MessageRecord, MessageStatus};
use herald_protocol::{AccountId, ConnectionId, DeviceId, MessageId, Revision};

/// Numbered migrations, never edited once released: append new ones.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(accounts::MIGRATION_001),
        M::up(encryption_keys::MIGRATION_002),
        M::up(devices::MIGRATION_003),
        M::up(connections::MIGRATION_004),
        M::up(messages::MIGRATION_005),
        M::up(idempotency::MIGRATION_006),
        M::up(backups::MIGRATION_007),
        M::up(files::MIGRATION_008),
        M::up(secrets::MIGRATION_009),
        M::up(pairings::MIGRATION_010),
        M::up(secret_files::MIGRATION_011),
        M::up(agent_credentials::MIGRATION_012),
        M::up(notifications::MIGRATION_013),
        M::up(events::MIGRATION_014),
        M::up(connections::MIGRATION_015),
    ])
}

/// Most read connections kept open. Opening one parses the schema, so this covers the reads a
/// busy relay runs at once (one per request in flight on the blocking pool) instead of opening
/// and closing connections under load.
const MAX_IDLE_READERS: usize = 32;
/// Prepared statements cached per connection (the hot paths use about 20).
const STATEMENT_CACHE: usize = 64;
/// Most requests the sweeper expires in one transaction.
const EXPIRE_BATCH: u32 = 500;

pub struct SqliteStore {
    path: PathBuf,
    writer: writer::Writer,
    readers: Mutex<Vec<Connection>>,
}

/// Creates the database file owner-only if it is missing, and narrows it and any existing
/// side file (`-wal`, `-shm`, `-journal`) to 0600.
fn owner_only(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)?;
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            match std::fs::set_permissions(&name, std::fs::Permissions::from_mode(0o600)) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                other => other?,
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and migrates it to the latest schema.
    /// The database and its `-wal`, `-shm` and `-journal` files are owner-only (0600 on Unix;
    /// SQLite gives the side files the database's mode), also when an older relay made them
    /// 0644.
    pub fn open(path: impl AsRef<Path>) -> StoreResult<SqliteStore> {
        let path = path.as_ref().to_path_buf();
        owner_only(&path)?;
        let mut writer = Connection::open(&path)?;
        writer.pragma_update(None, "journal_mode", "WAL")?;
        writer.pragma_update(None, "synchronous", "FULL")?;
        // On macOS a plain fsync leaves writes in the drive's cache: F_FULLFSYNC for commits
        // and checkpoints (a no-op elsewhere).
        writer.pragma_update(None, "fullfsync", "ON")?;
        writer.pragma_update(None, "checkpoint_fullfsync", "ON")?;
        writer.pragma_update(None, "foreign_keys", "ON")?;
        // Secrets are deleted once handed over: overwrite their bytes instead of leaving
        // them in free pages (docs/secrets.md).
        writer.pragma_update(None, "secure_delete", "ON")?;
        writer.busy_timeout(std::time::Duration::from_secs(5))?;
        writer.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        migrations().to_latest(&mut writer)?;
        Ok(SqliteStore {
            path,
            writer: writer::Writer::new(writer),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open_reader(&self) -> StoreResult<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        Ok(conn)
    }

    /// Runs `f` on a read connection inside one read transaction, so every statement in `f`
    /// sees the same committed snapshot (a device is never seen both live and revoked when a
    /// revocation commits between two statements).
    fn read<T>(&self, f: impl FnOnce(&Connection) -> StoreResult<T>) -> StoreResult<T> {
        let pooled = lock(&self.readers).pop();
        let conn = match pooled {
            Some(c) => c,
            None => self.open_reader()?,
        };
        let out = snapshot(&conn, f);
        let mut readers = lock(&self.readers);
        if readers.len() < MAX_IDLE_READERS {
            readers.push(conn);
        }
        out
    }

    /// Runs `f` in an IMMEDIATE transaction on the writer (shared with concurrent calls:
    /// group commit, see `writer.rs`); returns once the commit holding its changes returned.
    /// When `f` fails its changes are rolled back.
    fn write<T>(&self, f: impl FnOnce(&Connection) -> StoreResult<T>) -> StoreResult<T> {
        self.writer.write(f)
    }
}

/// Runs `f` in a deferred transaction that is rolled back afterwards (reads only).
fn snapshot<T>(conn: &Connection, f: impl FnOnce(&Connection) -> StoreResult<T>) -> StoreResult<T> {
    let tx = conn.unchecked_transaction()?;
    let out = f(&tx);
    tx.rollback()?;
    out
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Parses a stored id of any kind.
pub(crate) trait ParseId: Sized {
    fn parse_id(s: &str) -> Option<Self>;
}

macro_rules! parse_id_impl {
    ($($t:ty),*) => {$(
        impl ParseId for $t {
            fn parse_id(s: &str) -> Option<Self> { <$t>::parse(s) }
        }
    )*};
}
parse_id_impl!(
    AccountId,
    DeviceId,
    ConnectionId,
    MessageId,
    herald_protocol::PairingId
);

fn parse_id<T: ParseId>(s: &str) -> StoreResult<T> {
    T::parse_id(s).ok_or_else(|| StoreError::Corrupt(format!("bad stored id {s:?}")))
}

fn cert_to_json(cert: &Certificate) -> StoreResult<String> {
    serde_json::to_string(cert).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn cert_from_json(json: &str) -> StoreResult<Certificate> {
    serde_json::from_str(json).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn hash_from_blob(blob: &[u8]) -> StoreResult<TokenHash> {
    blob.try_into()
        .map_err(|_| StoreError::Corrupt("bad stored hash".into()))
}

fn from_millis(ms: i64) -> StoreResult<DateTime<Utc>> {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .ok_or_else(|| StoreError::Corrupt("bad stored time".into()))
}

fn record_in(
    conn: &Connection,
    account: &AccountId,
    id: &MessageId,
    now_ms: i64,
) -> StoreResult<MessageRecord> {
    match messages::get(conn, id, now_ms)? {
        Some((owner, record)) if &owner == account => Ok(record),
        _ => Err(StoreError::NotFound),
    }
}

impl Store for SqliteStore {
    fn devices(&self) -> &dyn super::devices::DeviceStore {
        self
    }

    fn create_account(&self, new: NewAccount) -> StoreResult<()> {
        let now_ms = new.now.timestamp_millis();
        self.write(|tx| {
            accounts::insert(tx, &new.account_id, &new.statement, now_ms)?;
            encryption_keys::insert(
                tx,
                &new.account_id,
                new.encryption_key_epoch,
                &new.encryption_key,
                now_ms,
            )?;
            devices::insert(
                tx,
                devices::NewDevice {
                    account: &new.account_id,
                    id: &new.device_id,
                    certificate: &new.device,
                    name: &new.device_name,
                    platform: &new.device_platform,
                    token_hash: &new.device_token_hash,
                    now_ms,
                },
            )
        })
    }

    fn create_connection(&self, new: NewConnection) -> StoreResult<()> {
        self.write(|tx| {
            if accounts::statement(tx, &new.account_id)?.is_none() {
                return Err(StoreError::NotFound);
            }
            connections::insert(tx, &new)
        })
    }

    fn list_connections(&self, account: &AccountId) -> StoreResult<Vec<ConnectionRow>> {
        self.read(|c| connections::list(c, account))
    }

    fn revoke_connection(
        &self,
        account: &AccountId,
        id: &ConnectionId,
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.write(|tx| connections::revoke(tx, account, id, now.timestamp_millis()))
    }

    fn account_keys(&self, account: &AccountId) -> StoreResult<AccountKeys> {
        self.read(|c| {
            let statement = accounts::statement(c, account)?.ok_or(StoreError::NotFound)?;
            Ok(AccountKeys {
                statement,
                encryption_keys: encryption_keys::list(c, account)?,
                devices: devices::certificates(c, account)?,
                connections: connections::active_certificates(c, account)?,
                revoked_devices: revoked::devices(c, account)?,
                revoked_connections: revoked::connections(c, account)?,
            })
        })
    }

    fn current_encryption_key(&self, account: &AccountId) -> StoreResult<Option<Certificate>> {
        self.read(|c| encryption_keys::current(c, account))
    }

    fn put_backup(
        &self,
        account: &AccountId,
        backup: &herald_protocol::wire::RecoveryBackup,
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.write(|tx| backups::put(tx, account, backup, now.timestamp_millis()))
    }

    fn backup(&self, account: &AccountId) -> StoreResult<herald_protocol::wire::RecoveryBackup> {
        self.read(|c| backups::get(c, account)?.ok_or(StoreError::NotFound))
    }

    fn credential(&self, token_hash: &TokenHash) -> StoreResult<Option<CredentialRow>> {
        self.read(|c| match devices::by_token_hash(c, token_hash)? {
            Some(row) => Ok(Some(row)),
            None => connections::by_token_hash(c, token_hash),
        })
    }

    fn touch_device(&self, device: &DeviceId, now: DateTime<Utc>) -> StoreResult<()> {
        self.write(|tx| devices::touch(tx, device, now.timestamp_millis()))
    }

    fn principal_name(&self, principal: &Principal) -> StoreResult<String> {
        self.read(|c| {
            match principal {
                Principal::Device { device_id, .. } => devices::name(c, device_id),
                Principal::Connection { connection_id, .. } => connections::name(c, connection_id),
            }?
            .ok_or(StoreError::NotFound)
        })
    }

    fn idempotent_send(
        &self,
        scope: &str,
        key: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<([u8; 32], MessageRecord)>> {
        self.read(|c| {
            let Some((hash, id)) = idempotency::find(c, scope, key)? else {
                return Ok(None);
            };
            let (_, record) =
                messages::get(c, &id, now.timestamp_millis())?.ok_or(StoreError::NotFound)?;
            Ok(Some((hash, record)))
        })
    }

    fn send_message(&self, new: NewMessage, claim: IdempotencyClaim) -> StoreResult<SendOutcome> {
        let now_ms = new.now.timestamp_millis();
        self.write(|tx| {
            if let Some((hash, id)) = idempotency::find(tx, &claim.scope, &claim.key)? {
                if hash != claim.request_hash {
                    return Err(StoreError::IdempotencyConflict);
                }
                let (_, record) = messages::get(tx, &id, now_ms)?.ok_or(StoreError::NotFound)?;
                return Ok(SendOutcome::Replayed(record));
            }
            if messages::exists(tx, &new.id)? {
                return Err(StoreError::MessageIdTaken);
            }
            let revision = accounts::next_revision(tx, &new.account_id)?;
            messages::insert(tx, &new, revision)?;
            idempotency::insert(tx, &claim, &new.id, now_ms)?;
            Ok(SendOutcome::Created(record_in(
                tx,
                &new.account_id,
                &new.id,
                now_ms,
            )?))
        })
    }

    fn message(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<MessageRecord>> {
        self.read(|c| match messages::get(c, id, now.timestamp_millis())? {
            Some((owner, record)) if &owner == account && viewer.sees(&record) => Ok(Some(record)),
            _ => Ok(None),
        })
    }

    fn thread(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Vec<MessageRecord>>> {
        let now_ms = now.timestamp_millis();
        self.read(|c| match messages::get(c, id, now_ms)? {
            Some((owner, record)) if &owner == account && viewer.sees(&record) => {
                let all = messages::thread(c, account, &record.thread_id, now_ms)?;
                Ok(Some(all.into_iter().filter(|r| viewer.sees(r)).collect()))
            }
            _ => Ok(None),
        })
    }

    fn messages_after(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        after: Revision,
        limit: u32,
        sender: Option<&str>,
        now: DateTime<Utc>,
    ) -> StoreResult<(Vec<MessageRecord>, bool)> {
        let now_ms = now.timestamp_millis();
        self.read(|c| messages::page(c, account, viewer, after, limit, sender, now_ms))
    }

    fn answer(
        &self,
        account: &AccountId,
        id: &MessageId,
        answer: NewAnswer,
    ) -> StoreResult<MessageRecord> {
        let now_ms = answer.now.timestamp_millis();
        self.write(|tx| {
            messages::state(tx, account, id, &Viewer::Device)?.require_pending(now_ms)?;
            let revision = accounts::next_revision(tx, account)?;
            messages::set_answer(tx, id, &answer, revision)?;
            record_in(tx, account, id, now_ms)
        })
    }

    fn cancel(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> StoreResult<MessageRecord> {
        let now_ms = now.timestamp_millis();
        self.write(|tx| {
            messages::state(tx, account, id, viewer)?.require_pending(now_ms)?;
            let revision = accounts::next_revision(tx, account)?;
            messages::set_status(tx, id, MessageStatus::Cancelled, revision)?;
            record_in(tx, account, id, now_ms)
        })
    }

    fn expire_due(&self, now: DateTime<Utc>) -> StoreResult<Vec<ChangedRecord>> {
        let now_ms = now.timestamp_millis();
        self.write(|tx| {
            let mut changed = Vec::new();
            for (account, id) in messages::due(tx, now_ms, EXPIRE_BATCH)? {
                let revision = accounts::next_revision(tx, &account)?;
                messages::set_status(tx, &id, MessageStatus::Expired, revision)?;
                let record = record_in(tx, &account, &id, now_ms)?;
                changed.push(ChangedRecord {
                    account_id: account,
                    record,
                });
            }
            Ok(changed)
        })
    }

    fn latest_revision(&self, account: &AccountId, viewer: &Viewer) -> StoreResult<Revision> {
        self.read(|c| match viewer {
            Viewer::Device => accounts::revision(c, account),
            Viewer::Connection(id) => messages::latest_for_connection(c, account, id.as_str()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path().join("relay.db")).expect("open store");
        (dir, store)
    }

    #[test]
    fn migrations_are_valid() {
        migrations()
            .validate()
            .expect("migrations must apply cleanly");
    }

    /// A connection made before scopes existed keeps doing everything it could.
    #[test]
    fn connections_from_before_scopes_hold_every_scope() {
        let mut conn = Connection::open_in_memory().expect("memory db");
        migrations()
            .to_version(&mut conn, 14)
            .expect("migrate to 14");
        conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO connections (id, account_id, name, certificate, token_hash, created_at_ms)
             VALUES ('con_old', 'acc_old', 'Old', '{}', x'01', 0);",
        )
        .expect("a connection of the old schema");
        migrations()
            .to_latest(&mut conn)
            .expect("migrate to latest");
        let scopes: String = conn
            .query_row(
                "SELECT scopes FROM connections WHERE id = 'con_old'",
                [],
                |r| r.get(0),
            )
            .expect("scopes");
        assert_eq!(scopes, "messages:send messages:read events:read");
    }

    /// The only check of fsync-level durability: the kill -9 fault tests cannot see a missing
    /// fsync, because the OS page cache outlives a killed process (docs/faults.md). Read on
    /// the writer connection itself, the one every commit runs on.
    #[test]
    fn pragmas_make_writes_durable() {
        let (_dir, store) = open();
        let (mode, sync, full, checkpoint_full) = store
            .write(|conn| {
                let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                let sync: i64 = conn.query_row("PRAGMA synchronous", [], |r| r.get(0))?;
                let full: i64 = conn.query_row("PRAGMA fullfsync", [], |r| r.get(0))?;
                let checkpoint_full: i64 =
                    conn.query_row("PRAGMA checkpoint_fullfsync", [], |r| r.get(0))?;
                Ok((mode, sync, full, checkpoint_full))
            })
            .expect("reading the writer's pragmas");
        assert_eq!(mode, "wal", "WAL lets readers run beside the writer");
        assert_eq!(
            sync, 2,
            "synchronous=FULL: every commit fsyncs the WAL, acknowledged means on disk"
        );
        assert_eq!(full, 1, "fullfsync: commits flush the drive cache on macOS");
        assert_eq!(
            checkpoint_full, 1,
            "checkpoint_fullfsync: so do checkpoints into relay.db"
        );
    }

    #[test]
    fn reopening_keeps_data_and_schema() {
        let (dir, store) = open();
        super::super::suite::seed_account(&store);
        drop(store);
        let store = SqliteStore::open(dir.path().join("relay.db")).expect("reopen");
        assert!(
            store
                .account_keys(&super::super::suite::account_id())
                .is_ok(),
            "the account survives a reopen and migrations are not re-run"
        );
    }

    /// A revocation that commits between two statements of one read is seen by neither: the
    /// key directory never lists a credential as both live and revoked (CI once saw GET /keys
    /// do exactly that during two concurrent device revocations).
    #[test]
    fn one_read_sees_one_snapshot() {
        let (_dir, store) = open();
        super::super::suite::seed_account(&store);
        let account = super::super::suite::account_id();
        super::super::suite::add_connection(&store, 1);
        let first = super::super::suite::connection_id(1);
        let (live, revoked) = store
            .read(|c| {
                let live = connections::active_certificates(c, &account)?.len();
                store.revoke_connection(&account, &first, super::super::suite::t0())?;
                let revoked = revoked::connections(c, &account)?.len();
                Ok((live, revoked))
            })
            .expect("read");
        assert_eq!(
            (live, revoked),
            (1, 0),
            "both statements saw the state before"
        );
        let after = store.account_keys(&account).expect("keys");
        assert_eq!(
            (after.connections.len(), after.revoked_connections.len()),
            (0, 1),
            "the next read sees the revocation"
        );
    }

    crate::store_suite!(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path().join("relay.db")).expect("open store");
        (dir, store)
    });
}
