//! `accounts`: one row per account, with its statement certificate and the revision counter
//! that orders every change to the account's messages.

use rusqlite::{params, Connection, OptionalExtension};

use super::{cert_from_json, cert_to_json};
use crate::store::{StoreError, StoreResult};
use herald_protocol::envelope::Certificate;
use herald_protocol::{AccountId, Revision};

pub(super) const MIGRATION_001: &str = "
CREATE TABLE accounts (
    id            TEXT PRIMARY KEY NOT NULL,
    statement     TEXT NOT NULL,
    revision      INTEGER NOT NULL DEFAULT 0,
    created_at_ms INTEGER NOT NULL
) STRICT;
";

pub(super) fn insert(
    conn: &Connection,
    id: &AccountId,
    statement: &Certificate,
    now_ms: i64,
) -> StoreResult<()> {
    let inserted = conn
        .prepare_cached(
            "INSERT INTO accounts (id, statement, revision, created_at_ms) VALUES (?1, ?2, 0, ?3)
         ON CONFLICT(id) DO NOTHING",
        )?
        .execute(params![id.as_str(), cert_to_json(statement)?, now_ms])?;
    if inserted == 0 {
        return Err(StoreError::AccountExists);
    }
    Ok(())
}

pub(super) fn statement(conn: &Connection, id: &AccountId) -> StoreResult<Option<Certificate>> {
    let json: Option<String> = conn
        .prepare_cached("SELECT statement FROM accounts WHERE id = ?1")?
        .query_row([id.as_str()], |r| r.get(0))
        .optional()?;
    json.map(|j| cert_from_json(&j)).transpose()
}

/// Takes the account's next revision (call inside the write transaction that uses it).
pub(super) fn next_revision(conn: &Connection, id: &AccountId) -> StoreResult<Revision> {
    let rev: i64 = conn
        .prepare_cached(
            "UPDATE accounts SET revision = revision + 1 WHERE id = ?1 RETURNING revision",
        )?
        .query_row([id.as_str()], |r| r.get(0))
        .optional()?
        .ok_or(StoreError::NotFound)?;
    Ok(Revision(rev as u64))
}

/// The account's latest revision.
pub(super) fn revision(conn: &Connection, id: &AccountId) -> StoreResult<Revision> {
    let rev: Option<i64> = conn
        .prepare_cached("SELECT revision FROM accounts WHERE id = ?1")?
        .query_row([id.as_str()], |r| r.get(0))
        .optional()?;
    Ok(Revision(rev.unwrap_or(0) as u64))
}
