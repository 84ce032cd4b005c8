//! `secret_answers` and `secret_offers` (migration 009): the SQLite side of
//! [`SecretStore`](crate::store::secrets::SecretStore). See that trait for the rules; here
//! they are single IMMEDIATE transactions, so "hand over and delete" is atomic: two callers
//! racing for the same secret get it once and `secret_collected` once.
//!
//! `state` columns: a secret answer is `waiting`, `collected` or `expired`; an offer is
//! `opened`, `sent`, `delivered` or `expired` (no row: `waiting`). Envelopes are set to NULL
//! as soon as they are handed over or expire; the rows stay as tombstones.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{accounts, files, messages, parse_id, record_in, secret_files, SqliteStore};
use crate::clock::format_millis;
use crate::store::secrets::{
    NewOfferKey, NewSecretAnswer, NewSecretPayload, OfferChange, SecretError, SecretResult,
    SecretStore, SecretSweep,
};
use crate::store::{ChangedRecord, NewAnswer, StoreError, Viewer};
use herald_protocol::envelope::Envelope;
use herald_protocol::secrets::{SecretOfferState, SecretOfferStatus, SECRET_OFFER_KIND};
use herald_protocol::wire::MessageRecord;
use herald_protocol::{AccountId, ConnectionId, DeviceId, MessageId};

pub(super) const MIGRATION_009: &str = "
CREATE TABLE secret_answers (
    message_id     TEXT PRIMARY KEY NOT NULL,
    account_id     TEXT NOT NULL,
    connection_id  TEXT NOT NULL,
    envelope       TEXT,
    state          TEXT NOT NULL,
    answered_at_ms INTEGER NOT NULL,
    expires_at_ms  INTEGER NOT NULL,
    closed_at_ms   INTEGER
) STRICT;
CREATE INDEX secret_answers_due ON secret_answers (expires_at_ms) WHERE state = 'waiting';
CREATE INDEX secret_answers_account ON secret_answers (account_id);
CREATE TABLE secret_offers (
    message_id    TEXT PRIMARY KEY NOT NULL,
    account_id    TEXT NOT NULL,
    device_id     TEXT NOT NULL,
    offer_key     TEXT NOT NULL,
    key_id        TEXT NOT NULL,
    opened_at_ms  INTEGER NOT NULL,
    payload       TEXT,
    sent_at_ms    INTEGER,
    state         TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    closed_at_ms  INTEGER
) STRICT;
CREATE INDEX secret_offers_due ON secret_offers (expires_at_ms) WHERE state IN ('opened', 'sent');
CREATE INDEX secret_offers_account ON secret_offers (account_id);
";

/// Most offers the sweeper expires in one transaction.
const SWEEP_BATCH: u32 = 500;

fn corrupt(what: &str) -> SecretError {
    SecretError::Store(StoreError::Corrupt(format!("secrets: {what}")))
}

fn envelope_json(e: &Envelope) -> SecretResult<String> {
    serde_json::to_string(e).map_err(|_| corrupt("envelope"))
}

fn envelope_from(json: &str) -> SecretResult<Envelope> {
    serde_json::from_str(json).map_err(|_| corrupt("envelope"))
}

impl SqliteStore {
    /// Runs `f` in an IMMEDIATE transaction on the writer; commits when it returns Ok. A
    /// refusal that must still write (marking a secret expired) returns `Ok(Err(..))`.
    fn secret_write<T>(&self, f: impl FnOnce(&Connection) -> SecretResult<T>) -> SecretResult<T> {
        self.writer.write(f)
    }
}

/// Gives the message the account's next revision (an offer changed) and returns its record.
fn bump(
    conn: &Connection,
    account: &AccountId,
    id: &MessageId,
    now_ms: i64,
) -> SecretResult<MessageRecord> {
    let revision = accounts::next_revision(conn, account)?;
    conn.execute(
        "UPDATE messages SET revision = ?2 WHERE id = ?1",
        params![id.as_str(), revision.0 as i64],
    )?;
    Ok(record_in(conn, account, id, now_ms)?)
}

/// Checks that the viewer sees the message and that it is a secret offer.
fn require_offer(
    conn: &Connection,
    account: &AccountId,
    id: &MessageId,
    viewer: &Viewer,
) -> SecretResult<()> {
    messages::state(conn, account, id, viewer)?;
    let kind: String = conn.query_row(
        "SELECT kind FROM messages WHERE id = ?1",
        [id.as_str()],
        |r| r.get(0),
    )?;
    if kind != SECRET_OFFER_KIND {
        return Err(SecretError::NotAnOffer);
    }
    Ok(())
}

/// One `secret_offers` row.
struct OfferRow {
    device_id: String,
    offer_key: String,
    key_id: String,
    opened_at_ms: i64,
    payload: Option<String>,
    sent_at_ms: Option<i64>,
    state: String,
    expires_at_ms: i64,
    closed_at_ms: Option<i64>,
}

impl OfferRow {
    /// The stored state, with a live offer past its deadline reported as expired.
    fn status(&self, now_ms: i64) -> SecretResult<SecretOfferStatus> {
        let status = match self.state.as_str() {
            "opened" => SecretOfferStatus::Opened,
            "sent" => SecretOfferStatus::Sent,
            "delivered" => SecretOfferStatus::Delivered,
            "expired" => SecretOfferStatus::Expired,
            _ => return Err(corrupt("offer state")),
        };
        let live = matches!(status, SecretOfferStatus::Opened | SecretOfferStatus::Sent);
        Ok(if live && self.expires_at_ms <= now_ms {
            SecretOfferStatus::Expired
        } else {
            status
        })
    }

    fn wire(&self, now_ms: i64) -> SecretResult<SecretOfferState> {
        let status = self.status(now_ms)?;
        let closed_at = match (status, self.closed_at_ms) {
            (_, Some(at)) => Some(format_millis(at)),
            (SecretOfferStatus::Expired, None) => Some(format_millis(self.expires_at_ms)),
            _ => None,
        };
        Ok(SecretOfferState {
            status,
            offer_key: Some(serde_json::from_str(&self.offer_key).map_err(|_| corrupt("key"))?),
            device_id: Some(parse_id(&self.device_id)?),
            opened_at: Some(format_millis(self.opened_at_ms)),
            sent_at: self.sent_at_ms.map(format_millis),
            closed_at,
        })
    }
}

fn offer_row(conn: &Connection, id: &MessageId) -> SecretResult<Option<OfferRow>> {
    Ok(conn
        .query_row(
            "SELECT device_id, offer_key, key_id, opened_at_ms, payload, sent_at_ms, state,
                    expires_at_ms, closed_at_ms
             FROM secret_offers WHERE message_id = ?1",
            [id.as_str()],
            |r| {
                Ok(OfferRow {
                    device_id: r.get(0)?,
                    offer_key: r.get(1)?,
                    key_id: r.get(2)?,
                    opened_at_ms: r.get(3)?,
                    payload: r.get(4)?,
                    sent_at_ms: r.get(5)?,
                    state: r.get(6)?,
                    expires_at_ms: r.get(7)?,
                    closed_at_ms: r.get(8)?,
                })
            },
        )
        .optional()?)
}

fn waiting_state() -> SecretOfferState {
    SecretOfferState {
        status: SecretOfferStatus::Waiting,
        offer_key: None,
        device_id: None,
        opened_at: None,
        sent_at: None,
        closed_at: None,
    }
}

/// Marks an offer expired (deleting its secret) and gives the message a new revision.
fn expire_offer(
    conn: &Connection,
    account: &AccountId,
    id: &MessageId,
    now_ms: i64,
) -> SecretResult<MessageRecord> {
    conn.execute(
        "UPDATE secret_offers SET state = 'expired', payload = NULL, closed_at_ms = expires_at_ms
         WHERE message_id = ?1",
        [id.as_str()],
    )?;
    bump(conn, account, id, now_ms)
}

/// The offer's key id when it waits for the sender's secret.
fn key_id_for_payload(
    conn: &Connection,
    account: &AccountId,
    connection: &ConnectionId,
    id: &MessageId,
    now_ms: i64,
) -> SecretResult<String> {
    require_offer(conn, account, id, &Viewer::Connection(connection.clone()))?;
    let row = offer_row(conn, id)?.ok_or(SecretError::NotOpened)?;
    match row.status(now_ms)? {
        SecretOfferStatus::Opened => Ok(row.key_id),
        SecretOfferStatus::Sent | SecretOfferStatus::Delivered => Err(SecretError::PayloadExists),
        SecretOfferStatus::Expired => Err(SecretError::Expired),
        SecretOfferStatus::Waiting => Err(SecretError::NotOpened),
    }
}

fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

impl SecretStore for SqliteStore {
    fn answer_with_secret(
        &self,
        account: &AccountId,
        id: &MessageId,
        answer: NewAnswer,
        secret: NewSecretAnswer,
    ) -> SecretResult<MessageRecord> {
        let now_ms = millis(answer.now);
        self.secret_write(|tx| {
            let state = messages::state(tx, account, id, &Viewer::Device)?;
            state.require_pending(now_ms)?;
            if state.sender_type != "connection" {
                return Err(SecretError::NoConnection);
            }
            let revision = accounts::next_revision(tx, account)?;
            messages::set_answer(tx, id, &answer, revision)?;
            let attach = |list: &'static str, ids: &[herald_protocol::FileId]| {
                files::attach_in(tx, account, &secret.uploader, id, ids, now_ms)
                    .map_err(|error| SecretError::Files { list, error })
            };
            attach("attachments", &secret.files)?;
            attach("secretAttachments", &secret.secret_files)?;
            secret_files::insert(
                tx,
                account,
                id,
                &state.sender_id,
                &secret.secret_files,
                millis(secret.expires_at),
            )?;
            tx.execute(
                "INSERT INTO secret_answers (message_id, account_id, connection_id, envelope,
                     state, answered_at_ms, expires_at_ms)
                 VALUES (?1, ?2, ?3, ?4, 'waiting', ?5, ?6)",
                params![
                    id.as_str(),
                    account.as_str(),
                    state.sender_id,
                    envelope_json(&secret.envelope)?,
                    now_ms,
                    millis(secret.expires_at),
                ],
            )?;
            Ok(record_in(tx, account, id, now_ms)?)
        })
    }

    fn collect_secret_answer(
        &self,
        account: &AccountId,
        connection: &ConnectionId,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<Envelope> {
        let now_ms = millis(now);
        self.secret_write(|tx| {
            messages::state(tx, account, id, &Viewer::Connection(connection.clone()))?;
            let row: Option<(Option<String>, String, i64)> = tx
                .query_row(
                    "SELECT envelope, state, expires_at_ms FROM secret_answers
                     WHERE message_id = ?1 AND account_id = ?2 AND connection_id = ?3",
                    params![id.as_str(), account.as_str(), connection.as_str()],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let (envelope, state, expires_at_ms) =
                row.ok_or(SecretError::Store(StoreError::NotFound))?;
            match (state.as_str(), envelope) {
                ("collected", _) => Ok(Err(SecretError::Collected)),
                ("expired", _) => Ok(Err(SecretError::Expired)),
                ("waiting", Some(_)) if expires_at_ms <= now_ms => {
                    tx.execute(
                        "UPDATE secret_answers SET state = 'expired', envelope = NULL,
                             closed_at_ms = ?2 WHERE message_id = ?1",
                        params![id.as_str(), now_ms],
                    )?;
                    Ok(Err(SecretError::Expired))
                }
                ("waiting", Some(json)) => {
                    tx.execute(
                        "UPDATE secret_answers SET state = 'collected', envelope = NULL,
                             closed_at_ms = ?2 WHERE message_id = ?1",
                        params![id.as_str(), now_ms],
                    )?;
                    Ok(envelope_from(&json))
                }
                _ => Err(corrupt("secret answer state")),
            }
        })?
    }

    fn put_offer_key(
        &self,
        account: &AccountId,
        id: &MessageId,
        key: NewOfferKey,
    ) -> SecretResult<OfferChange> {
        let now_ms = millis(key.now);
        self.secret_write(|tx| {
            require_offer(tx, account, id, &Viewer::Device)?;
            if offer_row(tx, id)?.is_some() {
                return Err(SecretError::OfferKeyExists);
            }
            let cert = serde_json::to_string(&key.certificate).map_err(|_| corrupt("key"))?;
            tx.execute(
                "INSERT INTO secret_offers (message_id, account_id, device_id, offer_key, key_id,
                     opened_at_ms, state, expires_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'opened', ?7)",
                params![
                    id.as_str(),
                    account.as_str(),
                    key.device_id.as_str(),
                    cert,
                    key.key_id,
                    now_ms,
                    millis(key.expires_at),
                ],
            )?;
            let record = bump(tx, account, id, now_ms)?;
            let state = offer_row(tx, id)?
                .ok_or_else(|| corrupt("offer row"))?
                .wire(now_ms)?;
            Ok(OfferChange { state, record })
        })
    }

    fn offer_state(
        &self,
        account: &AccountId,
        viewer: &Viewer,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<SecretOfferState> {
        let now_ms = millis(now);
        self.read(|c| {
            Ok((|| {
                require_offer(c, account, id, viewer)?;
                match offer_row(c, id)? {
                    Some(row) => row.wire(now_ms),
                    None => Ok(waiting_state()),
                }
            })())
        })?
    }

    fn offer_key_id(
        &self,
        account: &AccountId,
        connection: &ConnectionId,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<String> {
        let now_ms = millis(now);
        self.read(|c| Ok(key_id_for_payload(c, account, connection, id, now_ms)))?
    }

    fn put_secret_payload(
        &self,
        account: &AccountId,
        id: &MessageId,
        payload: NewSecretPayload,
    ) -> SecretResult<OfferChange> {
        let now_ms = millis(payload.now);
        self.secret_write(|tx| {
            key_id_for_payload(tx, account, &payload.connection_id, id, now_ms)?;
            tx.execute(
                "UPDATE secret_offers SET state = 'sent', payload = ?2, sent_at_ms = ?3,
                     expires_at_ms = ?4 WHERE message_id = ?1",
                params![
                    id.as_str(),
                    envelope_json(&payload.envelope)?,
                    now_ms,
                    millis(payload.expires_at),
                ],
            )?;
            let record = bump(tx, account, id, now_ms)?;
            let state = offer_row(tx, id)?
                .ok_or_else(|| corrupt("offer row"))?
                .wire(now_ms)?;
            Ok(OfferChange { state, record })
        })
    }

    fn collect_secret_payload(
        &self,
        account: &AccountId,
        device: &DeviceId,
        id: &MessageId,
        now: DateTime<Utc>,
    ) -> SecretResult<(Envelope, OfferChange)> {
        let now_ms = millis(now);
        self.secret_write(|tx| {
            require_offer(tx, account, id, &Viewer::Device)?;
            let row = offer_row(tx, id)?.ok_or(SecretError::NotOpened)?;
            if row.device_id != device.as_str() {
                return Err(SecretError::Forbidden);
            }
            let live = matches!(row.state.as_str(), "opened" | "sent");
            if live && row.expires_at_ms <= now_ms {
                expire_offer(tx, account, id, now_ms)?;
                return Ok(Err(SecretError::Expired));
            }
            match (row.state.as_str(), row.payload) {
                ("opened", _) => Ok(Err(SecretError::NotSent)),
                ("delivered", _) => Ok(Err(SecretError::Collected)),
                ("expired", _) => Ok(Err(SecretError::Expired)),
                ("sent", Some(json)) => {
                    tx.execute(
                        "UPDATE secret_offers SET state = 'delivered', payload = NULL,
                             closed_at_ms = ?2 WHERE message_id = ?1",
                        params![id.as_str(), now_ms],
                    )?;
                    let record = bump(tx, account, id, now_ms)?;
                    let state = offer_row(tx, id)?
                        .ok_or_else(|| corrupt("offer row"))?
                        .wire(now_ms)?;
                    Ok(Ok((envelope_from(&json)?, OfferChange { state, record })))
                }
                _ => Err(corrupt("offer state")),
            }
        })?
    }

    fn sweep_secrets(&self, now: DateTime<Utc>) -> SecretResult<SecretSweep> {
        let now_ms = millis(now);
        self.secret_write(|tx| {
            let answers = tx.execute(
                "UPDATE secret_answers SET state = 'expired', envelope = NULL, closed_at_ms = ?1
                 WHERE state = 'waiting' AND expires_at_ms <= ?1",
                [now_ms],
            )?;
            let due: Vec<(String, String)> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT account_id, message_id FROM secret_offers
                     WHERE state IN ('opened', 'sent') AND expires_at_ms <= ?1
                     ORDER BY expires_at_ms LIMIT ?2",
                )?;
                let rows =
                    stmt.query_map(params![now_ms, SWEEP_BATCH], |r| Ok((r.get(0)?, r.get(1)?)))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            let mut offers = Vec::with_capacity(due.len());
            for (account, id) in due {
                let (account, id): (AccountId, MessageId) = (parse_id(&account)?, parse_id(&id)?);
                let record = expire_offer(tx, &account, &id, now_ms)?;
                offers.push(ChangedRecord {
                    account_id: account,
                    record,
                });
            }
            let files = secret_files::sweep(tx, now_ms, SWEEP_BATCH).map_err(|error| {
                SecretError::Files {
                    list: "secretAttachments",
                    error,
                }
            })?;
            Ok(SecretSweep {
                answers,
                offers,
                files,
            })
        })
    }
}
