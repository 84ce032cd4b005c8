//! Migration 010 and the `pairings` table: typed-code pairing requests (docs/devices.md).
//! The same migration adds device revocation, per-device sealed bundles after a rotation, and
//! makes recovery key ids unique (they address `GET /keys/backup/{recoveryKeyId}`).
//!
//! A pairing row moves `pending → responded → confirmed → completed` or to `failed`; it
//! never moves back. Expiry is judged on read against `expires_at_ms` (relay clock).

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{cert_from_json, cert_to_json, from_millis, hash_from_blob, parse_id};
use crate::store::devices::{DeviceResult, NewPairing, PairingResponse, PairingRow};
use herald_protocol::devices::PairingStatus;
use herald_protocol::{ErrorCode, PairingId};

pub(super) const MIGRATION_010: &str = "
ALTER TABLE devices ADD COLUMN revoked_at_ms INTEGER;
CREATE UNIQUE INDEX recovery_backups_by_key_id ON recovery_backups (recovery_key_id);
CREATE TABLE device_bundles (
    device_id     TEXT PRIMARY KEY NOT NULL REFERENCES devices(id),
    account_id    TEXT NOT NULL REFERENCES accounts(id),
    epoch         INTEGER NOT NULL,
    sealed_bundle TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
) STRICT;
CREATE TABLE pairings (
    id                      TEXT PRIMARY KEY NOT NULL,
    name                    TEXT NOT NULL,
    platform                TEXT NOT NULL,
    signing_key             TEXT NOT NULL,
    encryption_key          TEXT NOT NULL,
    spake_new_device        TEXT NOT NULL,
    poll_token_hash         BLOB NOT NULL UNIQUE,
    status                  TEXT NOT NULL,
    created_at_ms           INTEGER NOT NULL,
    expires_at_ms           INTEGER NOT NULL,
    account_id              TEXT,
    approver_device_id      TEXT,
    spake_approver          TEXT,
    confirmation_approver   TEXT,
    confirmation_new_device TEXT,
    device_id               TEXT,
    certificate             TEXT,
    sealed_bundle           TEXT,
    token_collected         INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX pairings_pending ON pairings (status, expires_at_ms);
";

const COLUMNS: &str = "id, name, platform, signing_key, encryption_key, spake_new_device,
    poll_token_hash, status, created_at_ms, expires_at_ms, account_id, spake_approver,
    confirmation_approver, confirmation_new_device, device_id, certificate, sealed_bundle,
    token_collected";

type RawRow = (
    (
        String,
        String,
        String,
        String,
        String,
        String,
        Vec<u8>,
        String,
    ),
    (i64, i64, Option<String>, Option<String>, Option<String>),
    (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        bool,
    ),
);

fn raw(r: &Row<'_>) -> rusqlite::Result<RawRow> {
    Ok((
        (
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
            r.get(7)?,
        ),
        (r.get(8)?, r.get(9)?, r.get(10)?, r.get(11)?, r.get(12)?),
        (r.get(13)?, r.get(14)?, r.get(15)?, r.get(16)?, r.get(17)?),
    ))
}

fn row(raw: RawRow) -> DeviceResult<PairingRow> {
    let ((id, name, platform, signing_key, encryption_key, spake, hash, status), a, b) = raw;
    let (created, expires, account, spake_approver, confirmation_approver) = a;
    let (confirmation_new_device, device_id, certificate, sealed_bundle, token_collected) = b;
    Ok(PairingRow {
        id: parse_id(&id)?,
        name,
        platform,
        signing_key,
        encryption_key,
        spake_new_device: spake,
        poll_token_hash: hash_from_blob(&hash)?,
        status: PairingStatus::parse(&status).ok_or_else(|| {
            crate::store::StoreError::Corrupt(format!("bad pairing status {status:?}"))
        })?,
        created_at: from_millis(created)?,
        expires_at: from_millis(expires)?,
        account_id: account.as_deref().map(parse_id).transpose()?,
        spake_approver,
        confirmation_approver,
        confirmation_new_device,
        device_id: device_id.as_deref().map(parse_id).transpose()?,
        certificate: certificate.as_deref().map(cert_from_json).transpose()?,
        sealed_bundle,
        token_collected,
    })
}

pub(super) fn insert(conn: &Connection, p: &NewPairing) -> DeviceResult<()> {
    let inserted = conn.execute(
        "INSERT INTO pairings (id, name, platform, signing_key, encryption_key,
             spake_new_device, poll_token_hash, status, created_at_ms, expires_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8, ?9) ON CONFLICT(id) DO NOTHING",
        params![
            p.id.as_str(),
            p.name,
            p.platform,
            p.signing_key,
            p.encryption_key,
            p.spake_message,
            &p.poll_token_hash[..],
            p.now.timestamp_millis(),
            p.expires_at.timestamp_millis()
        ],
    )?;
    if inserted == 0 {
        return Err(ErrorCode::PairingIdTaken.into());
    }
    Ok(())
}

pub(super) fn get(conn: &Connection, id: &PairingId) -> DeviceResult<Option<PairingRow>> {
    let raw = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM pairings WHERE id = ?1"),
            [id.as_str()],
            raw,
        )
        .optional()?;
    raw.map(row).transpose()
}

pub(super) fn pending(conn: &Connection, now_ms: i64) -> DeviceResult<Vec<PairingRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM pairings WHERE status = 'pending' AND expires_at_ms > ?1
         ORDER BY created_at_ms DESC, id LIMIT 100"
    ))?;
    let rows = stmt.query_map([now_ms], raw)?;
    rows.map(|r| row(r?)).collect()
}

/// The request, or the refusal its state calls for when `expected` is not where it stands.
pub(super) fn require(
    conn: &Connection,
    id: &PairingId,
    expected: PairingStatus,
    now_ms: i64,
) -> DeviceResult<PairingRow> {
    let p = get(conn, id)?.ok_or(ErrorCode::NotFound)?;
    if p.status == PairingStatus::Failed {
        return Err(ErrorCode::PairingFailed.into());
    }
    if p.status != PairingStatus::Completed && p.expires_at.timestamp_millis() <= now_ms {
        return Err(ErrorCode::PairingExpired.into());
    }
    if p.status != expected {
        return Err(match (expected, p.status) {
            (PairingStatus::Pending, _) => ErrorCode::PairingClaimed,
            _ => ErrorCode::PairingNotReady,
        }
        .into());
    }
    Ok(p)
}

pub(super) fn respond(conn: &Connection, r: &PairingResponse) -> DeviceResult<()> {
    require(
        conn,
        &r.id,
        PairingStatus::Pending,
        r.now.timestamp_millis(),
    )?;
    conn.execute(
        "UPDATE pairings SET status = 'responded', account_id = ?2, approver_device_id = ?3,
             spake_approver = ?4, confirmation_approver = ?5
         WHERE id = ?1 AND status = 'pending'",
        params![
            r.id.as_str(),
            r.account_id.as_str(),
            r.device_id.as_str(),
            r.spake_message,
            r.confirmation
        ],
    )?;
    Ok(())
}

pub(super) fn confirm(
    conn: &Connection,
    id: &PairingId,
    confirmation: &str,
    now_ms: i64,
) -> DeviceResult<()> {
    require(conn, id, PairingStatus::Responded, now_ms)?;
    conn.execute(
        "UPDATE pairings SET status = 'confirmed', confirmation_new_device = ?2
         WHERE id = ?1 AND status = 'responded'",
        params![id.as_str(), confirmation],
    )?;
    Ok(())
}

pub(super) fn fail(conn: &Connection, id: &PairingId) -> DeviceResult<()> {
    let p = get(conn, id)?.ok_or(ErrorCode::NotFound)?;
    if p.status == PairingStatus::Completed {
        return Err(ErrorCode::PairingNotReady.into());
    }
    conn.execute(
        "UPDATE pairings SET status = 'failed' WHERE id = ?1",
        [id.as_str()],
    )?;
    Ok(())
}

pub(super) fn complete(
    conn: &Connection,
    id: &PairingId,
    device_id: &str,
    certificate: &herald_protocol::envelope::Certificate,
    sealed_bundle: &str,
) -> DeviceResult<()> {
    conn.execute(
        "UPDATE pairings SET status = 'completed', device_id = ?2, certificate = ?3,
             sealed_bundle = ?4
         WHERE id = ?1 AND status = 'confirmed'",
        params![
            id.as_str(),
            device_id,
            cert_to_json(certificate)?,
            sealed_bundle
        ],
    )?;
    Ok(())
}

/// Marks the session collected; `true` only for the call that did it.
pub(super) fn mark_collected(conn: &Connection, id: &PairingId) -> DeviceResult<bool> {
    let n = conn.execute(
        "UPDATE pairings SET token_collected = 1
         WHERE id = ?1 AND status = 'completed' AND token_collected = 0",
        [id.as_str()],
    )?;
    Ok(n == 1)
}
