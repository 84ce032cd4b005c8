//! `files`: one row per reserved file (docs/files.md). `state` is `reserved` → `uploaded` →
//! `attached`, or `deleted` (a tombstone: the bytes are gone, the row answers later downloads
//! with `file_expired`). `expires_at_ms` is the deadline of the current state — upload by
//! (reserved), attach by (uploaded) — and NULL once attached or deleted; the sweeper deletes
//! whatever passes its deadline.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{accounts, idempotency, messages, record_in, SqliteStore};
use crate::store::files::{
    Download, FileError, FileResult, FileStore, NewFile, SweptFiles, UploadSlot,
};
use crate::store::{
    IdempotencyClaim, NewAnswer, NewMessage, Principal, SendOutcome, StoreError, Viewer,
};
use herald_protocol::wire::MessageRecord;
use herald_protocol::{AccountId, FileId, MessageId};

pub(super) const MIGRATION_008: &str = "
CREATE TABLE files (
    id              TEXT PRIMARY KEY NOT NULL,
    account_id      TEXT NOT NULL REFERENCES accounts(id),
    uploader_type   TEXT NOT NULL,
    uploader_id     TEXT NOT NULL,
    size            INTEGER NOT NULL,
    state           TEXT NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    expires_at_ms   INTEGER,
    uploaded_at_ms  INTEGER,
    message_id      TEXT REFERENCES messages(id),
    deleted_at_ms   INTEGER
) STRICT;
CREATE INDEX files_due ON files (expires_at_ms) WHERE state IN ('reserved', 'uploaded');
CREATE INDEX files_by_message ON files (message_id) WHERE message_id IS NOT NULL;
";

const RESERVED: &str = "reserved";
const UPLOADED: &str = "uploaded";
const ATTACHED: &str = "attached";
const DELETED: &str = "deleted";

/// `(type, id)` of a principal as stored.
fn who(p: &Principal) -> (&'static str, &str) {
    match p {
        Principal::Device { device_id, .. } => ("device", device_id.as_str()),
        Principal::Connection { connection_id, .. } => ("connection", connection_id.as_str()),
    }
}

/// A file row as the upload and attach checks need it.
struct Row {
    account_id: String,
    uploader_type: String,
    uploader_id: String,
    size: i64,
    state: String,
    expires_at_ms: Option<i64>,
    uploaded_at_ms: Option<i64>,
}

impl Row {
    fn owned_by(&self, account: &AccountId, uploader: &Principal) -> bool {
        let (t, id) = who(uploader);
        self.account_id == account.as_str() && self.uploader_type == t && self.uploader_id == id
    }

    fn past_deadline(&self, now_ms: i64) -> bool {
        self.expires_at_ms.is_some_and(|e| e <= now_ms)
    }
}

fn row(conn: &Connection, id: &FileId) -> FileResult<Option<Row>> {
    Ok(conn
        .query_row(
            "SELECT account_id, uploader_type, uploader_id, size, state, expires_at_ms,
                    uploaded_at_ms
             FROM files WHERE id = ?1",
            [id.as_str()],
            |r| {
                Ok(Row {
                    account_id: r.get(0)?,
                    uploader_type: r.get(1)?,
                    uploader_id: r.get(2)?,
                    size: r.get(3)?,
                    state: r.get(4)?,
                    expires_at_ms: r.get(5)?,
                    uploaded_at_ms: r.get(6)?,
                })
            },
        )
        .optional()?)
}

/// The reservation `uploader` may upload to now.
fn slot(
    conn: &Connection,
    account: &AccountId,
    uploader: &Principal,
    id: &FileId,
    now_ms: i64,
) -> FileResult<Row> {
    let row = row(conn, id)?
        .filter(|r| r.owned_by(account, uploader))
        .ok_or(FileError::NotFound)?;
    match row.state.as_str() {
        RESERVED if row.past_deadline(now_ms) => Err(FileError::ReservationExpired),
        RESERVED => Ok(row),
        DELETED if row.uploaded_at_ms.is_none() => Err(FileError::ReservationExpired),
        _ => Err(FileError::AlreadyUploaded),
    }
}

/// Attaches `files` (uploaded by `uploader`, completed, not attached, not expired) to
/// `message`, inside the caller's transaction. The secret-file flow can call this from its
/// own transaction too.
pub(super) fn attach_in(
    conn: &Connection,
    account: &AccountId,
    uploader: &Principal,
    message: &MessageId,
    files: &[FileId],
    now_ms: i64,
) -> FileResult<()> {
    for (index, id) in files.iter().enumerate() {
        let row = row(conn, id)?
            .filter(|r| r.owned_by(account, uploader))
            .ok_or(FileError::NotAttachable { index })?;
        match row.state.as_str() {
            UPLOADED if row.past_deadline(now_ms) => {
                return Err(FileError::AttachmentExpired { index })
            }
            UPLOADED => {}
            RESERVED => return Err(FileError::NotAttachable { index }),
            ATTACHED => return Err(FileError::AlreadyAttached { index }),
            _ => return Err(FileError::AttachmentExpired { index }),
        }
        conn.execute(
            "UPDATE files SET state = 'attached', message_id = ?2, expires_at_ms = NULL
             WHERE id = ?1",
            params![id.as_str(), message.as_str()],
        )?;
    }
    Ok(())
}

impl SqliteStore {
    /// Runs `f` on a read connection.
    fn file_read<T>(&self, f: impl FnOnce(&Connection) -> FileResult<T>) -> FileResult<T> {
        self.read(|c| Ok(f(c)))?
    }

    /// Runs `f` in an IMMEDIATE transaction on the writer; commits when it returns Ok.
    fn file_write<T>(&self, f: impl FnOnce(&Connection) -> FileResult<T>) -> FileResult<T> {
        self.writer.write(f)
    }
}

impl FileStore for SqliteStore {
    fn reserve_file(&self, new: NewFile) -> FileResult<()> {
        let (t, uploader) = who(&new.uploader);
        self.file_write(|tx| {
            tx.execute(
                "INSERT INTO files (id, account_id, uploader_type, uploader_id, size, state,
                     created_at_ms, expires_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'reserved', ?6, ?7)",
                params![
                    new.id.as_str(),
                    new.account.as_str(),
                    t,
                    uploader,
                    new.size as i64,
                    new.now.timestamp_millis(),
                    new.expires_at.timestamp_millis(),
                ],
            )?;
            Ok(())
        })
    }

    fn upload_slot(
        &self,
        account: &AccountId,
        uploader: &Principal,
        id: &FileId,
        now: DateTime<Utc>,
    ) -> FileResult<UploadSlot> {
        let row = self.file_read(|c| slot(c, account, uploader, id, now.timestamp_millis()))?;
        let expires_at = row
            .expires_at_ms
            .and_then(DateTime::<Utc>::from_timestamp_millis)
            .ok_or_else(|| StoreError::Corrupt("files: reservation without deadline".into()))?;
        Ok(UploadSlot {
            size: row.size as u64,
            expires_at,
        })
    }

    fn complete_upload(
        &self,
        account: &AccountId,
        uploader: &Principal,
        id: &FileId,
        now: DateTime<Utc>,
        attach_by: DateTime<Utc>,
    ) -> FileResult<()> {
        let now_ms = now.timestamp_millis();
        self.file_write(|tx| {
            slot(tx, account, uploader, id, now_ms)?;
            tx.execute(
                "UPDATE files SET state = 'uploaded', uploaded_at_ms = ?2, expires_at_ms = ?3
                 WHERE id = ?1",
                params![id.as_str(), now_ms, attach_by.timestamp_millis()],
            )?;
            Ok(())
        })
    }

    fn download(
        &self,
        caller: &Principal,
        id: &FileId,
        now: DateTime<Utc>,
    ) -> FileResult<Download> {
        let now_ms = now.timestamp_millis();
        // Uploads for secret-file fields: the asking connection only (docs/secrets.md).
        if let Some(secret) =
            self.file_read(|c| super::secret_files::download(c, caller, id, now_ms))?
        {
            return Ok(secret);
        }
        let found = self.file_read(|c| {
            Ok(c.query_row(
                "SELECT f.account_id, f.uploader_type, f.uploader_id, f.size, f.state,
                        f.expires_at_ms, f.message_id, m.sender_type, m.sender_id
                 FROM files f LEFT JOIN messages m ON m.id = f.message_id
                 WHERE f.id = ?1",
                [id.as_str()],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        (r.get::<_, String>(1)?, r.get::<_, String>(2)?),
                        r.get::<_, i64>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, Option<i64>>(5)?,
                        r.get::<_, Option<String>>(6)?,
                        (
                            r.get::<_, Option<String>>(7)?,
                            r.get::<_, Option<String>>(8)?,
                        ),
                    ))
                },
            )
            .optional()?)
        })?;
        let Some((account, uploader, size, state, expires_at_ms, message, sender)) = found else {
            return Err(FileError::NotFound);
        };
        if account != caller.account().as_str() {
            return Err(FileError::NotFound);
        }
        let (t, me) = who(caller);
        let own_upload = uploader.0 == t && uploader.1 == me;
        let via_message = message.is_some()
            && match caller.viewer() {
                Viewer::Device => true,
                Viewer::Connection(c) => {
                    sender.0.as_deref() == Some("connection")
                        && sender.1.as_deref() == Some(c.as_str())
                }
            };
        if !own_upload && !via_message {
            return Err(FileError::NotFound);
        }
        match state.as_str() {
            DELETED => Err(FileError::Expired),
            RESERVED => Err(FileError::NotFound),
            UPLOADED if expires_at_ms.is_some_and(|e| e <= now_ms) => Err(FileError::Expired),
            _ => Ok(Download { size: size as u64 }),
        }
    }

    fn send_with_files(
        &self,
        new: NewMessage,
        claim: IdempotencyClaim,
        files: &[FileId],
    ) -> FileResult<SendOutcome> {
        let now_ms = new.now.timestamp_millis();
        self.file_write(|tx| {
            if let Some((hash, id)) = idempotency::find(tx, &claim.scope, &claim.key)? {
                if hash != claim.request_hash {
                    return Err(StoreError::IdempotencyConflict.into());
                }
                let (_, record) = messages::get(tx, &id, now_ms)?.ok_or(StoreError::NotFound)?;
                return Ok(SendOutcome::Replayed(record));
            }
            if messages::exists(tx, &new.id)? {
                return Err(StoreError::MessageIdTaken.into());
            }
            let revision = accounts::next_revision(tx, &new.account_id)?;
            messages::insert(tx, &new, revision)?;
            idempotency::insert(tx, &claim, &new.id, now_ms)?;
            attach_in(tx, &new.account_id, &new.sender, &new.id, files, now_ms)?;
            Ok(SendOutcome::Created(record_in(
                tx,
                &new.account_id,
                &new.id,
                now_ms,
            )?))
        })
    }

    fn answer_with_files(
        &self,
        account: &AccountId,
        id: &MessageId,
        answer: NewAnswer,
        uploader: &Principal,
        files: &[FileId],
    ) -> FileResult<MessageRecord> {
        let now_ms = answer.now.timestamp_millis();
        self.file_write(|tx| {
            messages::state(tx, account, id, &Viewer::Device)?.require_pending(now_ms)?;
            let revision = accounts::next_revision(tx, account)?;
            messages::set_answer(tx, id, &answer, revision)?;
            attach_in(tx, account, uploader, id, files, now_ms)?;
            Ok(record_in(tx, account, id, now_ms)?)
        })
    }

    fn sweep_files(&self, now: DateTime<Utc>, limit: u32) -> FileResult<SweptFiles> {
        let now_ms = now.timestamp_millis();
        self.file_write(|tx| {
            let mut stmt = tx.prepare(
                "SELECT id FROM files
                 WHERE state IN ('reserved', 'uploaded') AND expires_at_ms <= ?1
                 ORDER BY expires_at_ms LIMIT ?2",
            )?;
            let ids = stmt
                .query_map(params![now_ms, limit], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            let mut swept = SweptFiles::default();
            for id in ids {
                tx.execute(
                    "UPDATE files SET state = 'deleted', deleted_at_ms = ?2, expires_at_ms = NULL
                     WHERE id = ?1",
                    params![id, now_ms],
                )?;
                swept.ids.push(
                    FileId::parse(&id)
                        .ok_or_else(|| StoreError::Corrupt(format!("bad stored id {id:?}")))?,
                );
            }
            Ok(swept)
        })
    }
}
