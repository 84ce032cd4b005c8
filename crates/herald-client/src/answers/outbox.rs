//! Answers given while the relay is out of reach are kept and posted later, exactly once.
//!
//! `Core::answer` posts at once. When that fails for a transient reason (`network`
//! or a 5xx) and the answer can wait — no files and no secret fields, whose plaintext never
//! touches the disk — it is sealed under the local key into the cache's `answer_outbox`
//! (keyed by the request's id) and the caller gets `answer_queued`. Every catch-up (on each
//! (re)connect and nudge, and `herald inbox`) first posts what is queued:
//!
//! - accepted: stored, the row removed, then announced (so whoever reacts to the
//!   announcement never sees the answer still queued);
//! - `409 already_answered` with the relay's answer made by THIS device: an earlier post of
//!   this very answer landed but its response was lost — delivered, the row removed (the
//!   relay holds one answer per request and this device queues one, so this is exactly once);
//! - refused for good (answered on another device, `request_expired`, `request_cancelled`,
//!   `not_found`, a sender no longer certified…): the relay's record is stored, so the UI shows
//!   the winner's answer or the closed state, and the row removed;
//! - transient again: kept, and the catch-up fails so the sync loop retries with backoff.
//!
//! The request id is the idempotency key: one queued answer per request, kept across
//! restarts, and a second answer to a request with one queued gets `answer_queued` without
//! posting anything.

use herald_crypto::LocalKey;
use herald_protocol::content::{AnswerContent, MessageContent};
use herald_protocol::wire::MessageRecord;
use herald_protocol::{ErrorCode, MessageId};

use crate::context::Store;
use crate::session::{OpenedMessage, Session};
use crate::view::CoreEvent;
use crate::{Error, Result};

/// Associated data of a queued answer's local seal (bound to the request id).
fn aad(id: &str) -> Vec<u8> {
    format!("herald.v1/outbox/{id}").into_bytes()
}

/// Whether an answer may wait in the outbox: no file or secret field is answered (files are
/// uploaded before posting; secret values are never written to disk).
pub(crate) fn can_wait(content: &MessageContent, answer: &AnswerContent) -> bool {
    answer.attachments.is_empty()
        && content
            .effective_fields()
            .iter()
            .all(|f| !f.kind.excludes_actions())
}

/// Learns a rotated account key if needed, seals `answer` and posts it once.
pub(crate) async fn post(
    store: &Store,
    session: &Session,
    id: &MessageId,
    opened: &OpenedMessage,
    answer: AnswerContent,
) -> Result<MessageRecord> {
    crate::devices::fresh_keys(store, session).await?;
    let request = session.answer_request(id, opened, answer).await?;
    session.http.answer(id, &request).await
}

/// Keeps `answer` to request `id` for later. Returns false when one was kept already.
pub(crate) async fn queue(store: &Store, id: &str, answer: &AnswerContent) -> Result<bool> {
    let plaintext = zeroize::Zeroizing::new(
        serde_json::to_vec(answer).map_err(|e| Error::Protocol(e.to_string()))?,
    );
    let sealed = herald_crypto::seal_local(&store.local.key, &aad(id), &plaintext);
    let owned = id.to_owned();
    let queued_at = crate::timestamps::now_rfc3339();
    let added = store
        .cache_call(move |c| c.queue_answer(&owned, &queued_at, &sealed))
        .await?;
    tracing::info!(message = %id, "relay out of reach; answer queued");
    Ok(added)
}

fn open(key: &LocalKey, id: &str, sealed: &[u8]) -> Result<AnswerContent> {
    let bytes = herald_crypto::open_local(key, &aad(id), sealed)?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Storage(format!("queued answer: {e}")))
}

/// Posts every queued answer (see the module docs). Returns how many left the queue.
/// Errors: the first transient failure (`network`, a 5xx), with the rest kept for later.
///
/// A row leaves the queue before the stored record is announced: whoever reacts to the
/// announcement (`Core::message`) must not see the answer still queued, and nothing
/// is announced after the row goes.
pub(crate) async fn flush(store: &Store, session: &Session) -> Result<usize> {
    let queued = store.cache_call(|c| c.queued_answers()).await?;
    let mut done = 0;
    for (id, sealed) in queued {
        let stored = match deliver(store, session, &id, &sealed).await {
            Ok(Delivered::Held(stored)) => Some(stored),
            Ok(Delivered::Refused(stored, e)) => {
                tracing::info!(message = %id, code = %e.code(), "queued answer not delivered");
                Some(stored)
            }
            Err(e) if crate::transport::http::is_transient(&e) => return Err(e),
            Err(e) => {
                tracing::info!(message = %id, code = %e.code(), "queued answer not delivered");
                None
            }
        };
        let owned = id.clone();
        store.cache_call(move |c| c.dequeue_answer(&owned)).await?;
        if let Some(stored) = stored {
            announce(store, &stored).await?;
        }
        done += 1;
    }
    Ok(done)
}

/// What became of one queued answer the relay answered for good; either way the relay's
/// record of the request is stored (not yet announced) under the id carried.
enum Delivered {
    /// The relay holds this answer (taken now, or from an earlier post whose response was
    /// lost).
    Held(String),
    /// Refused for good (answered on another device, expired, cancelled…), with why.
    Refused(String, Error),
}

/// Posts one queued answer and stores the relay's record of the request. Errors: transient
/// ones (kept for later), or anything that left no record stored.
async fn deliver(store: &Store, session: &Session, id: &str, sealed: &[u8]) -> Result<Delivered> {
    let message_id = MessageId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
    let answer = open(&store.local.key, id, sealed)?;
    let owned = id.to_owned();
    let row = store.cache_call(move |c| c.get(&owned)).await?;
    let opened = crate::view::present::opened(&store.local.key, &row)?;
    match post(store, session, &message_id, &opened, answer).await {
        Ok(record) => Ok(Delivered::Held(
            store_record(store, session, &record).await?,
        )),
        Err(e) if crate::transport::http::is_transient(&e) => Err(e),
        Err(e) => {
            let current = session.http.message(&message_id).await?;
            let stored = store_record(store, session, &current).await?;
            let mine = current
                .answer
                .as_ref()
                .is_some_and(|a| a.device_id == session.state.device_id);
            if crate::transport::http::is_code(&e, ErrorCode::AlreadyAnswered) && mine {
                return Ok(Delivered::Held(stored));
            }
            Ok(Delivered::Refused(stored, e))
        }
    }
}

/// Opens and stores `record` outside the feed (keeping the cursor) and tells the UI.
pub(crate) async fn store_and_announce(
    store: &Store,
    session: &Session,
    record: &MessageRecord,
) -> Result<()> {
    let id = store_record(store, session, record).await?;
    announce(store, &id).await
}

/// Opens and stores `record` outside the feed (keeping the cursor). Returns its id.
async fn store_record(store: &Store, session: &Session, record: &MessageRecord) -> Result<String> {
    let row = session.process(&store.local.key, record).await?;
    let id = row.id.clone();
    store.cache_call(move |c| c.store_record(&row)).await?;
    Ok(id)
}

/// Tells the UI what the cache now holds for message `id`.
async fn announce(store: &Store, id: &str) -> Result<()> {
    let message = store.summary_of(id).await?;
    let _ = store.events.send(CoreEvent::MessageUpserted {
        message,
        is_new: false,
    });
    Ok(())
}
