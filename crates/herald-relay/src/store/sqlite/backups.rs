//! `recovery_backups`: per account, the key bundle sealed to the recovery key (opaque to the
//! relay). One row per account, replaced on every re-seal.

use rusqlite::{params, Connection, OptionalExtension};

use crate::clock::format_millis;
use crate::store::StoreResult;
use herald_protocol::wire::RecoveryBackup;
use herald_protocol::AccountId;

pub(super) const MIGRATION_007: &str = "
CREATE TABLE recovery_backups (
    account_id          TEXT PRIMARY KEY REFERENCES accounts(id),
    recovery_key_id     TEXT NOT NULL,
    recovery_public_key TEXT NOT NULL,
    sealed_bundle       TEXT NOT NULL,
    updated_at_ms       INTEGER NOT NULL
) STRICT;
";

pub(super) fn put(
    conn: &Connection,
    account: &AccountId,
    b: &RecoveryBackup,
    now_ms: i64,
) -> StoreResult<()> {
    conn.execute(
        "INSERT INTO recovery_backups (account_id, recovery_key_id, recovery_public_key, sealed_bundle, updated_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(account_id) DO UPDATE SET
             recovery_key_id = excluded.recovery_key_id,
             recovery_public_key = excluded.recovery_public_key,
             sealed_bundle = excluded.sealed_bundle,
             updated_at_ms = excluded.updated_at_ms",
        params![account.as_str(), b.recovery_key_id, b.recovery_public_key, b.sealed_bundle, now_ms],
    )?;
    Ok(())
}

pub(super) fn get(conn: &Connection, account: &AccountId) -> StoreResult<Option<RecoveryBackup>> {
    Ok(conn
        .query_row(
            "SELECT recovery_key_id, recovery_public_key, sealed_bundle, updated_at_ms
             FROM recovery_backups WHERE account_id = ?1",
            [account.as_str()],
            |r| {
                Ok(RecoveryBackup {
                    recovery_key_id: r.get(0)?,
                    recovery_public_key: r.get(1)?,
                    sealed_bundle: r.get(2)?,
                    updated_at: Some(format_millis(r.get(3)?)),
                })
            },
        )
        .optional()?)
}
