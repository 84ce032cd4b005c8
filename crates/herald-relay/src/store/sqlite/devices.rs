//! `devices`: an account's devices, with their certificate and the hash of their session
//! credential (`hds_…`).

use rusqlite::{params, Connection, OptionalExtension};

use super::{cert_from_json, cert_to_json, hash_from_blob};
use crate::store::{CredentialRow, Principal, StoreError, StoreResult, TokenHash};
use herald_protocol::envelope::Certificate;
use herald_protocol::{AccountId, DeviceId};

pub(super) const MIGRATION_003: &str = "
CREATE TABLE devices (
    id            TEXT PRIMARY KEY NOT NULL,
    account_id    TEXT NOT NULL REFERENCES accounts(id),
    certificate   TEXT NOT NULL,
    name          TEXT NOT NULL,
    platform      TEXT NOT NULL,
    token_hash    BLOB NOT NULL UNIQUE,
    created_at_ms INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL
) STRICT;
CREATE INDEX devices_by_account ON devices (account_id);
";

pub(super) struct NewDevice<'a> {
    pub account: &'a AccountId,
    pub id: &'a DeviceId,
    pub certificate: &'a Certificate,
    pub name: &'a str,
    pub platform: &'a str,
    pub token_hash: &'a TokenHash,
    pub now_ms: i64,
}

pub(super) fn insert(conn: &Connection, d: NewDevice<'_>) -> StoreResult<()> {
    let inserted = conn
        .prepare_cached(
            "INSERT INTO devices (id, account_id, certificate, name, platform, token_hash,
                              created_at_ms, last_seen_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) ON CONFLICT(id) DO NOTHING",
        )?
        .execute(params![
            d.id.as_str(),
            d.account.as_str(),
            cert_to_json(d.certificate)?,
            d.name,
            d.platform,
            &d.token_hash[..],
            d.now_ms
        ])?;
    if inserted == 0 {
        return Err(StoreError::DeviceExists);
    }
    Ok(())
}

pub(super) fn certificates(
    conn: &Connection,
    account: &AccountId,
) -> StoreResult<Vec<Certificate>> {
    let mut stmt = conn.prepare_cached(
        "SELECT certificate FROM devices WHERE account_id = ?1 AND revoked_at_ms IS NULL
         ORDER BY created_at_ms, id",
    )?;
    let rows = stmt.query_map([account.as_str()], |r| r.get::<_, String>(0))?;
    rows.map(|r| cert_from_json(&r?)).collect()
}

/// `id, account_id, token_hash, last_seen_ms, revoked_at_ms` of a device row.
type CredentialColumns = (String, String, Vec<u8>, i64, Option<i64>);

pub(super) fn by_token_hash(
    conn: &Connection,
    hash: &TokenHash,
) -> StoreResult<Option<CredentialRow>> {
    let row: Option<CredentialColumns> = conn
        .prepare_cached(
            "SELECT id, account_id, token_hash, last_seen_ms, revoked_at_ms FROM devices
             WHERE token_hash = ?1",
        )?
        .query_row([&hash[..]], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?;
    row.map(|(id, account, hash, last_seen, revoked_at)| {
        Ok(CredentialRow {
            scopes: Vec::new(),
            principal: Principal::Device {
                account: super::parse_id(&account)?,
                device_id: super::parse_id(&id)?,
            },
            token_hash: hash_from_blob(&hash)?,
            revoked: revoked_at.is_some(),
            last_seen: Some(super::from_millis(last_seen)?),
        })
    })
    .transpose()
}

pub(super) fn touch(conn: &Connection, id: &DeviceId, now_ms: i64) -> StoreResult<()> {
    conn.prepare_cached("UPDATE devices SET last_seen_ms = MAX(last_seen_ms, ?2) WHERE id = ?1")?
        .execute(params![id.as_str(), now_ms])?;
    Ok(())
}

pub(super) fn name(conn: &Connection, id: &DeviceId) -> StoreResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT name FROM devices WHERE id = ?1")?
        .query_row([id.as_str()], |r| r.get(0))
        .optional()?)
}

/// Ids of the account's devices that are not revoked.
pub(super) fn live_ids(
    conn: &Connection,
    account: &AccountId,
) -> StoreResult<std::collections::BTreeSet<String>> {
    let mut stmt = conn
        .prepare_cached("SELECT id FROM devices WHERE account_id = ?1 AND revoked_at_ms IS NULL")?;
    let rows = stmt.query_map([account.as_str()], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Revokes a device: its session is refused from now on (see [`by_token_hash`]) and its
/// certificate leaves `GET /keys`. Keeps the first revocation time.
pub(super) fn revoke(conn: &Connection, id: &DeviceId, now_ms: i64) -> StoreResult<()> {
    conn.prepare_cached(
        "UPDATE devices SET revoked_at_ms = COALESCE(revoked_at_ms, ?2) WHERE id = ?1",
    )?
    .execute(params![id.as_str(), now_ms])?;
    Ok(())
}

/// Replaces a device's session credential (a paired device collecting its session).
pub(super) fn set_token_hash(
    conn: &Connection,
    id: &DeviceId,
    hash: &TokenHash,
) -> StoreResult<()> {
    conn.prepare_cached("UPDATE devices SET token_hash = ?2 WHERE id = ?1")?
        .execute(params![id.as_str(), &hash[..]])?;
    Ok(())
}
