//! `connections`: agent credentials of an account, with their certificate, the hash of their
//! bearer (`hdr_…`) and when they were revoked.

use rusqlite::{params, Connection, OptionalExtension};

use super::{cert_from_json, cert_to_json, from_millis, hash_from_blob, parse_id};
use crate::store::{
    ConnectionRow, CredentialRow, NewConnection, Principal, StoreError, StoreResult, TokenHash,
};
use herald_protocol::envelope::Certificate;
use herald_protocol::scopes::Scope;
use herald_protocol::{AccountId, ConnectionId};

pub(super) const MIGRATION_004: &str = "
CREATE TABLE connections (
    id            TEXT PRIMARY KEY NOT NULL,
    account_id    TEXT NOT NULL REFERENCES accounts(id),
    name          TEXT NOT NULL,
    certificate   TEXT NOT NULL,
    token_hash    BLOB NOT NULL UNIQUE,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER
) STRICT;
CREATE INDEX connections_by_account ON connections (account_id);
";

/// Scopes (docs/authorization.md, "Scopes"): space-separated names. Connections made before
/// scopes existed could do everything, and keep it.
pub(super) const MIGRATION_015: &str = "
ALTER TABLE connections ADD COLUMN scopes TEXT NOT NULL
    DEFAULT 'messages:send messages:read events:read';
";

fn scopes_to_text(scopes: &[Scope]) -> String {
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The stored names; a name this relay does not know (written by a newer one) grants nothing.
fn scopes_from_text(text: &str) -> Vec<Scope> {
    Scope::distinct(text.split(' ').filter_map(Scope::parse).collect())
}

pub(super) fn insert(conn: &Connection, c: &NewConnection) -> StoreResult<()> {
    let inserted = conn
        .prepare_cached(
            "INSERT INTO connections
                 (id, account_id, name, certificate, token_hash, created_at_ms, scopes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(id) DO NOTHING",
        )?
        .execute(params![
            c.connection_id.as_str(),
            c.account_id.as_str(),
            c.name,
            cert_to_json(&c.certificate)?,
            &c.token_hash[..],
            c.now.timestamp_millis(),
            scopes_to_text(&c.scopes)
        ])?;
    if inserted == 0 {
        return Err(StoreError::ConnectionExists);
    }
    Ok(())
}

pub(super) fn list(conn: &Connection, account: &AccountId) -> StoreResult<Vec<ConnectionRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, certificate, created_at_ms, revoked_at_ms, scopes FROM connections
         WHERE account_id = ?1 ORDER BY created_at_ms, id",
    )?;
    let rows = stmt.query_map([account.as_str()], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, Option<i64>>(4)?,
            r.get::<_, String>(5)?,
        ))
    })?;
    rows.map(|r| {
        let (id, name, cert, created, revoked, scopes) = r?;
        Ok(ConnectionRow {
            id: parse_id(&id)?,
            name,
            scopes: scopes_from_text(&scopes),
            certificate: cert_from_json(&cert)?,
            created_at: from_millis(created)?,
            revoked_at: revoked.map(from_millis).transpose()?,
        })
    })
    .collect()
}

pub(super) fn revoke(
    conn: &Connection,
    account: &AccountId,
    id: &ConnectionId,
    now_ms: i64,
) -> StoreResult<()> {
    let revoked: Option<Option<i64>> = conn
        .prepare_cached("SELECT revoked_at_ms FROM connections WHERE id = ?1 AND account_id = ?2")?
        .query_row(params![id.as_str(), account.as_str()], |r| r.get(0))
        .optional()?;
    match revoked {
        None => return Err(StoreError::NotFound),
        Some(Some(_)) => return Err(StoreError::AlreadyRevoked),
        Some(None) => {}
    }
    conn.prepare_cached(
        "UPDATE connections SET revoked_at_ms = ?3 WHERE id = ?1 AND account_id = ?2",
    )?
    .execute(params![id.as_str(), account.as_str(), now_ms])?;
    Ok(())
}

pub(super) fn active_certificates(
    conn: &Connection,
    account: &AccountId,
) -> StoreResult<Vec<Certificate>> {
    let mut stmt = conn.prepare_cached(
        "SELECT certificate FROM connections WHERE account_id = ?1 AND revoked_at_ms IS NULL
         ORDER BY created_at_ms, id",
    )?;
    let rows = stmt.query_map([account.as_str()], |r| r.get::<_, String>(0))?;
    rows.map(|r| cert_from_json(&r?)).collect()
}

/// id, account id, token hash, revoked at (ms), scopes.
type CredentialColumns = (String, String, Vec<u8>, Option<i64>, String);

pub(super) fn by_token_hash(
    conn: &Connection,
    hash: &TokenHash,
) -> StoreResult<Option<CredentialRow>> {
    let row: Option<CredentialColumns> = conn
        .prepare_cached(
            "SELECT id, account_id, token_hash, revoked_at_ms, scopes FROM connections
             WHERE token_hash = ?1",
        )?
        .query_row([&hash[..]], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?;
    row.map(|(id, account, hash, revoked, scopes)| {
        Ok(CredentialRow {
            principal: Principal::Connection {
                account: parse_id(&account)?,
                connection_id: parse_id(&id)?,
            },
            scopes: scopes_from_text(&scopes),
            token_hash: hash_from_blob(&hash)?,
            revoked: revoked.is_some(),
            last_seen: None,
        })
    })
    .transpose()
}

pub(super) fn name(conn: &Connection, id: &ConnectionId) -> StoreResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT name FROM connections WHERE id = ?1")?
        .query_row([id.as_str()], |r| r.get(0))
        .optional()?)
}
