//! Revoked device and connection certificates with their revocation times, for `GET /keys`
//! (docs/protocol.md, "Key directory"): readers need them to verify what a credential signed
//! before it was revoked.

use chrono::{DateTime, Utc};
use herald_protocol::envelope::Certificate;
use herald_protocol::AccountId;
use rusqlite::Connection;

use super::{cert_from_json, from_millis};
use crate::store::StoreResult;

/// The revoked rows of `table` (`devices` or `connections`), oldest revocation first.
fn revoked(
    conn: &Connection,
    sql: &'static str,
    account: &AccountId,
) -> StoreResult<Vec<(Certificate, DateTime<Utc>)>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map([account.as_str()], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
    })?;
    rows.map(|r| {
        let (cert, at) = r?;
        Ok((cert_from_json(&cert)?, from_millis(at)?))
    })
    .collect()
}

/// Revoked devices of `account`: certificate and revocation time.
pub(super) fn devices(
    conn: &Connection,
    account: &AccountId,
) -> StoreResult<Vec<(Certificate, DateTime<Utc>)>> {
    revoked(
        conn,
        "SELECT certificate, revoked_at_ms FROM devices
         WHERE account_id = ?1 AND revoked_at_ms IS NOT NULL
         ORDER BY revoked_at_ms, id",
        account,
    )
}

/// Revoked connections of `account`: certificate and revocation time.
pub(super) fn connections(
    conn: &Connection,
    account: &AccountId,
) -> StoreResult<Vec<(Certificate, DateTime<Utc>)>> {
    revoked(
        conn,
        "SELECT certificate, revoked_at_ms FROM connections
         WHERE account_id = ?1 AND revoked_at_ms IS NOT NULL
         ORDER BY revoked_at_ms, id",
        account,
    )
}
