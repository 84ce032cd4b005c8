//! `agent_keys`, `connectors` and `oauth_device_grants`: the agent credentials of an account
//! (docs/agents.md). Tokens are stored as SHA-256 hashes; a connector's hash is set when its
//! token is collected through the device flow (it is handed out once). A device grant lives
//! until 10 minutes after its expiry (the sweeper), so a late poll still learns
//! `expired_token`.

use rusqlite::{params, Connection, OptionalExtension};

use super::{from_millis, hash_from_blob, parse_id};
use crate::store::agents::{
    AgentCredential, AgentCredentialRow, AgentError, AgentKeyRow, AgentResult, ConnectorRow,
    NewDeviceGrant, PollOutcome,
};
use crate::store::TokenHash;
use herald_protocol::{AccountId, AgentKeyId, ConnectorId};

pub(super) const MIGRATION_012: &str = "
CREATE TABLE agent_keys (
    id            TEXT PRIMARY KEY NOT NULL,
    account_id    TEXT NOT NULL REFERENCES accounts(id),
    name          TEXT NOT NULL,
    token_hash    BLOB NOT NULL UNIQUE,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER
) STRICT;
CREATE INDEX agent_keys_by_account ON agent_keys (account_id);
CREATE TABLE connectors (
    id            TEXT PRIMARY KEY NOT NULL,
    account_id    TEXT NOT NULL REFERENCES accounts(id),
    name          TEXT NOT NULL,
    client_id     TEXT NOT NULL,
    token_hash    BLOB UNIQUE,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER
) STRICT;
CREATE INDEX connectors_by_account ON connectors (account_id);
CREATE TABLE oauth_device_grants (
    device_code_hash BLOB PRIMARY KEY NOT NULL,
    user_code        TEXT NOT NULL UNIQUE,
    client_id        TEXT NOT NULL,
    client_name      TEXT,
    created_at_ms    INTEGER NOT NULL,
    expires_at_ms    INTEGER NOT NULL,
    interval_secs    INTEGER NOT NULL,
    last_poll_ms     INTEGER,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'issued')),
    account_id       TEXT REFERENCES accounts(id),
    connector_id     TEXT
) STRICT;
CREATE INDEX oauth_device_grants_by_expiry ON oauth_device_grants (expires_at_ms);
";

pub(super) fn insert_agent_key(
    conn: &Connection,
    account: &AccountId,
    id: &AgentKeyId,
    name: &str,
    hash: &TokenHash,
    now_ms: i64,
) -> AgentResult<()> {
    conn.execute(
        "INSERT INTO agent_keys (id, account_id, name, token_hash, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id.as_str(), account.as_str(), name, &hash[..], now_ms],
    )?;
    Ok(())
}

pub(super) fn list_agent_keys(
    conn: &Connection,
    account: &AccountId,
) -> AgentResult<Vec<AgentKeyRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, created_at_ms, revoked_at_ms FROM agent_keys WHERE account_id = ?1
         ORDER BY created_at_ms, id",
    )?;
    let rows = stmt.query_map([account.as_str()], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, Option<i64>>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, name, created, revoked) = row?;
        out.push(AgentKeyRow {
            id: parse_id(&id)?,
            name,
            created_at: from_millis(created)?,
            revoked_at: revoked.map(from_millis).transpose()?,
        });
    }
    Ok(out)
}

/// Revokes a row of `table` (`agent_keys` or `connectors`) owned by the account.
pub(super) fn revoke(
    conn: &Connection,
    table: &'static str,
    account: &AccountId,
    id: &str,
    now_ms: i64,
) -> AgentResult<()> {
    let revoked: Option<Option<i64>> = conn
        .query_row(
            &format!("SELECT revoked_at_ms FROM {table} WHERE id = ?1 AND account_id = ?2"),
            params![id, account.as_str()],
            |r| r.get(0),
        )
        .optional()?;
    match revoked {
        None => return Err(AgentError::NotFound),
        Some(Some(_)) => return Err(crate::store::StoreError::AlreadyRevoked.into()),
        Some(None) => {}
    }
    conn.execute(
        &format!("UPDATE {table} SET revoked_at_ms = ?3 WHERE id = ?1 AND account_id = ?2"),
        params![id, account.as_str(), now_ms],
    )?;
    Ok(())
}

pub(super) fn insert_grant(conn: &Connection, g: &NewDeviceGrant) -> AgentResult<()> {
    let taken: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM oauth_device_grants WHERE user_code = ?1)",
        [&g.user_code],
        |r| r.get(0),
    )?;
    if taken {
        return Err(AgentError::UserCodeTaken);
    }
    conn.execute(
        "INSERT INTO oauth_device_grants (device_code_hash, user_code, client_id, client_name,
             created_at_ms, expires_at_ms, interval_secs, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending')",
        params![
            &g.device_code_hash[..],
            g.user_code,
            g.client_id,
            g.client_name,
            g.now.timestamp_millis(),
            g.expires_at.timestamp_millis(),
            g.interval_secs as i64,
        ],
    )?;
    Ok(())
}

/// The pending, unexpired grant with this user code: `(device_code_hash, client_id,
/// client_name)`.
fn pending_grant(
    conn: &Connection,
    user_code: &str,
    now_ms: i64,
) -> AgentResult<(Vec<u8>, String, Option<String>)> {
    conn.query_row(
        "SELECT device_code_hash, client_id, client_name FROM oauth_device_grants
         WHERE user_code = ?1 AND state = 'pending' AND expires_at_ms > ?2",
        params![user_code, now_ms],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .optional()?
    .ok_or(AgentError::NotFound)
}

pub(super) fn approve_grant(
    conn: &Connection,
    account: &AccountId,
    user_code: &str,
    connector: &ConnectorId,
    name: Option<&str>,
    now_ms: i64,
) -> AgentResult<ConnectorRow> {
    let (hash, client_id, client_name) = pending_grant(conn, user_code, now_ms)?;
    let name = name
        .map(str::to_owned)
        .or(client_name)
        .unwrap_or_else(|| client_id.clone());
    conn.execute(
        "INSERT INTO connectors (id, account_id, name, client_id, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            connector.as_str(),
            account.as_str(),
            name,
            client_id,
            now_ms
        ],
    )?;
    conn.execute(
        "UPDATE oauth_device_grants SET state = 'approved', account_id = ?2, connector_id = ?3
         WHERE device_code_hash = ?1",
        params![hash, account.as_str(), connector.as_str()],
    )?;
    Ok(ConnectorRow {
        id: connector.clone(),
        name,
        client_id,
        token_issued: false,
        created_at: from_millis(now_ms)?,
        revoked_at: None,
    })
}

pub(super) fn deny_grant(
    conn: &Connection,
    account: &AccountId,
    user_code: &str,
    now_ms: i64,
) -> AgentResult<()> {
    let (hash, _, _) = pending_grant(conn, user_code, now_ms)?;
    conn.execute(
        "UPDATE oauth_device_grants SET state = 'denied', account_id = ?2
         WHERE device_code_hash = ?1",
        params![hash, account.as_str()],
    )?;
    Ok(())
}

/// `state, client_id, expires_at_ms, interval_secs, last_poll_ms, connector_id`.
type GrantColumns = (String, String, i64, i64, Option<i64>, Option<String>);

pub(super) fn poll_grant(
    conn: &Connection,
    device_code_hash: &TokenHash,
    client_id: &str,
    token_hash: &TokenHash,
    now_ms: i64,
) -> AgentResult<PollOutcome> {
    let row: Option<GrantColumns> = conn
        .query_row(
            "SELECT state, client_id, expires_at_ms, interval_secs, last_poll_ms, connector_id
             FROM oauth_device_grants WHERE device_code_hash = ?1",
            [&device_code_hash[..]],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )
        .optional()?;
    let Some((state, owner, expires_at, interval, last_poll, connector)) = row else {
        return Ok(PollOutcome::Invalid);
    };
    if owner != client_id || state == "issued" {
        return Ok(PollOutcome::Invalid);
    }
    if state == "denied" {
        return Ok(PollOutcome::Denied);
    }
    if now_ms >= expires_at {
        return Ok(PollOutcome::Expired);
    }
    let too_fast = last_poll.is_some_and(|last| now_ms - last < interval * 1000);
    if too_fast {
        conn.execute(
            "UPDATE oauth_device_grants
             SET interval_secs = interval_secs + ?2, last_poll_ms = ?3
             WHERE device_code_hash = ?1",
            params![
                &device_code_hash[..],
                herald_protocol::agents::SLOW_DOWN_STEP_SECS as i64,
                now_ms
            ],
        )?;
        return Ok(PollOutcome::SlowDown);
    }
    conn.execute(
        "UPDATE oauth_device_grants SET last_poll_ms = ?2 WHERE device_code_hash = ?1",
        params![&device_code_hash[..], now_ms],
    )?;
    match (state.as_str(), connector) {
        ("approved", Some(connector)) => {
            let id: ConnectorId = parse_id(&connector)?;
            let n = conn.execute(
                "UPDATE connectors SET token_hash = ?2
                 WHERE id = ?1 AND token_hash IS NULL AND revoked_at_ms IS NULL",
                params![id.as_str(), &token_hash[..]],
            )?;
            conn.execute(
                "UPDATE oauth_device_grants SET state = 'issued' WHERE device_code_hash = ?1",
                [&device_code_hash[..]],
            )?;
            // Revoked before the token was collected: nothing to hand out.
            Ok(if n == 1 {
                PollOutcome::Issued(id)
            } else {
                PollOutcome::Denied
            })
        }
        _ => Ok(PollOutcome::Pending),
    }
}

pub(super) fn list_connectors(
    conn: &Connection,
    account: &AccountId,
) -> AgentResult<Vec<ConnectorRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, client_id, token_hash IS NOT NULL, created_at_ms, revoked_at_ms
         FROM connectors WHERE account_id = ?1 ORDER BY created_at_ms, id",
    )?;
    let rows = stmt.query_map([account.as_str()], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, bool>(3)?,
            r.get::<_, i64>(4)?,
            r.get::<_, Option<i64>>(5)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, name, client_id, token_issued, created, revoked) = row?;
        out.push(ConnectorRow {
            id: parse_id(&id)?,
            name,
            client_id,
            token_issued,
            created_at: from_millis(created)?,
            revoked_at: revoked.map(from_millis).transpose()?,
        });
    }
    Ok(out)
}

/// `id, account_id, name, token_hash, revoked_at_ms`.
type CredentialColumns = (String, String, String, Vec<u8>, Option<i64>);

fn credential_in(
    conn: &Connection,
    table: &'static str,
    hash: &TokenHash,
) -> AgentResult<Option<CredentialColumns>> {
    let sql = format!(
        "SELECT id, account_id, name, token_hash, revoked_at_ms FROM {table}
         WHERE token_hash = ?1"
    );
    Ok(conn
        .query_row(&sql, [&hash[..]], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?)
}

pub(super) fn credential(
    conn: &Connection,
    hash: &TokenHash,
) -> AgentResult<Option<AgentCredentialRow>> {
    let (cols, is_key) = match credential_in(conn, "agent_keys", hash)? {
        Some(cols) => (cols, true),
        None => match credential_in(conn, "connectors", hash)? {
            Some(cols) => (cols, false),
            None => return Ok(None),
        },
    };
    let (id, account, name, stored, revoked) = cols;
    let credential = if is_key {
        AgentCredential::AgentKey(parse_id(&id)?)
    } else {
        AgentCredential::Connector(parse_id(&id)?)
    };
    Ok(Some(AgentCredentialRow {
        account: parse_id(&account)?,
        credential,
        name,
        token_hash: hash_from_blob(&stored)?,
        revoked: revoked.is_some(),
    }))
}

/// Deletes grants that expired before `before_ms`.
pub(super) fn sweep_grants(conn: &Connection, before_ms: i64) -> AgentResult<usize> {
    Ok(conn.execute(
        "DELETE FROM oauth_device_grants WHERE expires_at_ms < ?1",
        [before_ms],
    )?)
}
