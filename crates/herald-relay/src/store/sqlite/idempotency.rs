//! `idempotency`: which message an Idempotency-Key produced, per credential, with the SHA-256
//! of the request body so a reuse with another body is refused.

use rusqlite::{params, Connection, OptionalExtension};

use super::hash_from_blob;
use crate::store::{IdempotencyClaim, StoreResult};
use herald_protocol::MessageId;

pub(super) const MIGRATION_006: &str = "
CREATE TABLE idempotency (
    scope         TEXT NOT NULL,
    key           TEXT NOT NULL,
    request_hash  BLOB NOT NULL,
    message_id    TEXT NOT NULL REFERENCES messages(id),
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
) STRICT;
";

pub(super) fn find(
    conn: &Connection,
    scope: &str,
    key: &str,
) -> StoreResult<Option<([u8; 32], MessageId)>> {
    let row: Option<(Vec<u8>, String)> = conn
        .prepare_cached(
            "SELECT request_hash, message_id FROM idempotency WHERE scope = ?1 AND key = ?2",
        )?
        .query_row(params![scope, key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    row.map(|(hash, id)| Ok((hash_from_blob(&hash)?, super::parse_id(&id)?)))
        .transpose()
}

pub(super) fn insert(
    conn: &Connection,
    claim: &IdempotencyClaim,
    message: &MessageId,
    now_ms: i64,
) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO idempotency (scope, key, request_hash, message_id, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        claim.scope,
        claim.key,
        &claim.request_hash[..],
        message.as_str(),
        now_ms
    ])?;
    Ok(())
}
