//! `event_subscriptions`: reply-event webhook subscriptions (docs/mcp.md, "Reply event").
//! The secret columns hold sealed bytes only (`crate::events::seal`).

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{from_millis, SqliteStore};
use crate::store::events::{EventResult, EventStore, Subscriber, SubscriptionRow, Upsert};
use crate::store::StoreError;
use herald_protocol::AccountId;

pub(super) const MIGRATION_014: &str = "
CREATE TABLE event_subscriptions (
    id                     TEXT PRIMARY KEY NOT NULL,
    account_id             TEXT NOT NULL REFERENCES accounts(id),
    principal_kind         TEXT NOT NULL,
    principal_id           TEXT NOT NULL,
    name                   TEXT NOT NULL,
    notification_filter    TEXT,
    url                    TEXT NOT NULL,
    secret_sealed          BLOB NOT NULL,
    previous_secret_sealed BLOB,
    previous_until_ms      INTEGER,
    refresh_before_ms      INTEGER NOT NULL,
    created_at_ms          INTEGER NOT NULL,
    updated_at_ms          INTEGER NOT NULL,
    last_delivery_at_ms    INTEGER,
    last_error             TEXT
) STRICT;
CREATE INDEX event_subscriptions_by_principal
    ON event_subscriptions (account_id, principal_kind, principal_id);
CREATE INDEX event_subscriptions_by_filter
    ON event_subscriptions (account_id, notification_filter);
CREATE INDEX event_subscriptions_by_expiry ON event_subscriptions (refresh_before_ms);
";

const COLUMNS: &str = "id, account_id, principal_kind, principal_id, name, notification_filter,
    url, secret_sealed, previous_secret_sealed, previous_until_ms, refresh_before_ms,
    created_at_ms, updated_at_ms, last_delivery_at_ms, last_error";

/// The raw columns of [`COLUMNS`].
struct Raw {
    id: String,
    account: String,
    kind: String,
    principal_id: String,
    name: String,
    filter: Option<String>,
    url: String,
    secret: Vec<u8>,
    previous: Option<Vec<u8>>,
    previous_until: Option<i64>,
    refresh_before: i64,
    created_at: i64,
    updated_at: i64,
    last_delivery_at: Option<i64>,
    last_error: Option<String>,
}

fn raw(r: &Row<'_>) -> rusqlite::Result<Raw> {
    Ok(Raw {
        id: r.get(0)?,
        account: r.get(1)?,
        kind: r.get(2)?,
        principal_id: r.get(3)?,
        name: r.get(4)?,
        filter: r.get(5)?,
        url: r.get(6)?,
        secret: r.get(7)?,
        previous: r.get(8)?,
        previous_until: r.get(9)?,
        refresh_before: r.get(10)?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
        last_delivery_at: r.get(13)?,
        last_error: r.get(14)?,
    })
}

fn row(raw: Raw) -> EventResult<SubscriptionRow> {
    let account = AccountId::parse(&raw.account)
        .ok_or_else(|| StoreError::Corrupt("event_subscriptions: bad account id".into()))?;
    Ok(SubscriptionRow {
        id: raw.id,
        principal: Subscriber {
            account,
            kind: raw.kind,
            id: raw.principal_id,
        },
        name: raw.name,
        notification_filter: raw.filter,
        url: raw.url,
        secret_sealed: raw.secret,
        previous_secret_sealed: raw.previous,
        previous_until: raw.previous_until.map(from_millis).transpose()?,
        refresh_before: from_millis(raw.refresh_before)?,
        created_at: from_millis(raw.created_at)?,
        updated_at: from_millis(raw.updated_at)?,
        last_delivery_at: raw.last_delivery_at.map(from_millis).transpose()?,
        last_error: raw.last_error,
    })
}

fn query(
    conn: &Connection,
    sql: &str,
    args: impl rusqlite::Params,
) -> EventResult<Vec<SubscriptionRow>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let raws = stmt
        .query_map(args, raw)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    raws.into_iter().map(row).collect()
}

fn by_id(conn: &Connection, id: &str, now_ms: i64) -> EventResult<Option<SubscriptionRow>> {
    let found = conn
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM event_subscriptions WHERE id = ?1 AND refresh_before_ms > ?2"
            ),
            params![id, now_ms],
            raw,
        )
        .optional()?;
    found.map(row).transpose()
}

impl SqliteStore {
    fn event_read<T>(&self, f: impl FnOnce(&Connection) -> EventResult<T>) -> EventResult<T> {
        self.read(|c| Ok(f(c)))?
    }

    fn event_write<T>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> EventResult<T>,
    ) -> EventResult<T> {
        self.writer.write(f)
    }
}

impl EventStore for SqliteStore {
    fn subscription(&self, id: &str, now: DateTime<Utc>) -> EventResult<Option<SubscriptionRow>> {
        self.event_read(|c| by_id(c, id, now.timestamp_millis()))
    }

    fn upsert_subscription(
        &self,
        new: &SubscriptionRow,
        max_per_principal: u32,
        now: DateTime<Utc>,
    ) -> EventResult<Upsert> {
        let now_ms = now.timestamp_millis();
        self.event_write(|tx| {
            tx.execute(
                "DELETE FROM event_subscriptions WHERE id = ?1 AND refresh_before_ms <= ?2",
                params![new.id, now_ms],
            )?;
            let exists = by_id(tx, &new.id, now_ms)?.is_some();
            let p = &new.principal;
            if !exists {
                let live: i64 = tx.query_row(
                    "SELECT COUNT(*) FROM event_subscriptions
                     WHERE account_id = ?1 AND principal_kind = ?2 AND principal_id = ?3
                       AND refresh_before_ms > ?4",
                    params![p.account.as_str(), p.kind, p.id, now_ms],
                    |r| r.get(0),
                )?;
                if live >= i64::from(max_per_principal) {
                    return Ok(Upsert::LimitReached);
                }
            }
            tx.execute(
                "INSERT INTO event_subscriptions (id, account_id, principal_kind, principal_id,
                     name, notification_filter, url, secret_sealed, previous_secret_sealed,
                     previous_until_ms, refresh_before_ms, created_at_ms, updated_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                 ON CONFLICT (id) DO UPDATE SET
                     secret_sealed = excluded.secret_sealed,
                     previous_secret_sealed = excluded.previous_secret_sealed,
                     previous_until_ms = excluded.previous_until_ms,
                     refresh_before_ms = excluded.refresh_before_ms,
                     updated_at_ms = excluded.updated_at_ms",
                params![
                    new.id,
                    p.account.as_str(),
                    p.kind,
                    p.id,
                    new.name,
                    new.notification_filter,
                    new.url,
                    new.secret_sealed,
                    new.previous_secret_sealed,
                    new.previous_until.map(|t| t.timestamp_millis()),
                    new.refresh_before.timestamp_millis(),
                    new.created_at.timestamp_millis(),
                    new.updated_at.timestamp_millis(),
                ],
            )?;
            Ok(if exists {
                Upsert::Refreshed
            } else {
                Upsert::Created
            })
        })
    }

    fn url_verified(
        &self,
        principal: &Subscriber,
        url: &str,
        now: DateTime<Utc>,
    ) -> EventResult<bool> {
        self.event_read(|c| {
            let found: Option<i64> = c
                .query_row(
                    "SELECT 1 FROM event_subscriptions
                     WHERE account_id = ?1 AND principal_kind = ?2 AND principal_id = ?3
                       AND url = ?4 AND refresh_before_ms > ?5 LIMIT 1",
                    params![
                        principal.account.as_str(),
                        principal.kind,
                        principal.id,
                        url,
                        now.timestamp_millis()
                    ],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(found.is_some())
        })
    }

    fn delete_subscription(&self, principal: &Subscriber, id: &str) -> EventResult<bool> {
        self.event_write(|tx| {
            let n = tx.execute(
                "DELETE FROM event_subscriptions
                 WHERE id = ?1 AND account_id = ?2 AND principal_kind = ?3 AND principal_id = ?4",
                params![id, principal.account.as_str(), principal.kind, principal.id],
            )?;
            Ok(n > 0)
        })
    }

    fn subscriptions_for_reply(
        &self,
        account: &AccountId,
        notification_id: &str,
        source_kind: &str,
        source_id: &str,
        now: DateTime<Utc>,
    ) -> EventResult<Vec<SubscriptionRow>> {
        self.event_read(|c| {
            query(
                c,
                &format!(
                    "SELECT {COLUMNS} FROM event_subscriptions
                     WHERE account_id = ?1 AND refresh_before_ms > ?5
                       AND (notification_filter = ?2
                            OR (notification_filter IS NULL
                                AND principal_kind = ?3 AND principal_id = ?4))
                     ORDER BY id"
                ),
                params![
                    account.as_str(),
                    notification_id,
                    source_kind,
                    source_id,
                    now.timestamp_millis()
                ],
            )
        })
    }

    fn delete_subscriptions_of(&self, principal: &Subscriber) -> EventResult<Vec<SubscriptionRow>> {
        self.event_write(|tx| {
            let rows = query(
                tx,
                &format!(
                    "SELECT {COLUMNS} FROM event_subscriptions
                     WHERE account_id = ?1 AND principal_kind = ?2 AND principal_id = ?3
                     ORDER BY id"
                ),
                params![principal.account.as_str(), principal.kind, principal.id],
            )?;
            tx.execute(
                "DELETE FROM event_subscriptions
                 WHERE account_id = ?1 AND principal_kind = ?2 AND principal_id = ?3",
                params![principal.account.as_str(), principal.kind, principal.id],
            )?;
            Ok(rows)
        })
    }

    fn record_delivery(&self, id: &str, at: DateTime<Utc>, error: Option<&str>) -> EventResult<()> {
        self.event_write(|tx| {
            match error {
                None => tx.execute(
                    "UPDATE event_subscriptions SET last_delivery_at_ms = ?2, last_error = NULL
                     WHERE id = ?1",
                    params![id, at.timestamp_millis()],
                )?,
                Some(category) => tx.execute(
                    "UPDATE event_subscriptions SET last_error = ?2 WHERE id = ?1",
                    params![id, category],
                )?,
            };
            Ok(())
        })
    }

    fn sweep_subscriptions(&self, now: DateTime<Utc>) -> EventResult<usize> {
        self.event_write(|tx| {
            Ok(tx.execute(
                "DELETE FROM event_subscriptions WHERE refresh_before_ms <= ?1",
                [now.timestamp_millis()],
            )?)
        })
    }
}
