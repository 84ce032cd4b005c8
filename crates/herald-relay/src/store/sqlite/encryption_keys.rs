//! `encryption_keys`: the account encryption key epochs, as certificates (oldest first).

use rusqlite::{params, Connection, OptionalExtension};

use super::{cert_from_json, cert_to_json};
use crate::store::StoreResult;
use herald_protocol::envelope::Certificate;
use herald_protocol::AccountId;

pub(super) const MIGRATION_002: &str = "
CREATE TABLE encryption_keys (
    account_id    TEXT NOT NULL REFERENCES accounts(id),
    epoch         INTEGER NOT NULL,
    certificate   TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (account_id, epoch)
) STRICT;
";

pub(super) fn insert(
    conn: &Connection,
    account: &AccountId,
    epoch: u32,
    cert: &Certificate,
    now_ms: i64,
) -> StoreResult<()> {
    conn.execute(
        "INSERT INTO encryption_keys (account_id, epoch, certificate, created_at_ms)
         VALUES (?1, ?2, ?3, ?4)",
        params![account.as_str(), epoch, cert_to_json(cert)?, now_ms],
    )?;
    Ok(())
}

/// The certificate of the highest epoch, if any.
pub(super) fn current(conn: &Connection, account: &AccountId) -> StoreResult<Option<Certificate>> {
    let mut stmt = conn.prepare_cached(
        "SELECT certificate FROM encryption_keys WHERE account_id = ?1
         ORDER BY epoch DESC LIMIT 1",
    )?;
    let json: Option<String> = stmt
        .query_row([account.as_str()], |r| r.get(0))
        .optional()?;
    json.as_deref().map(cert_from_json).transpose()
}

pub(super) fn list(conn: &Connection, account: &AccountId) -> StoreResult<Vec<Certificate>> {
    let mut stmt = conn.prepare_cached(
        "SELECT certificate FROM encryption_keys WHERE account_id = ?1 ORDER BY epoch",
    )?;
    let rows = stmt.query_map([account.as_str()], |r| r.get::<_, String>(0))?;
    rows.map(|r| cert_from_json(&r?)).collect()
}
