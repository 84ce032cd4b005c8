//! The sync engine: holds the live-update socket, and on every (re)connect and every nudge
//! reads `GET /messages?after=<cursor>` page by page until `hasMore` is false. Each page is
//! opened and stored with its cursor in one cache transaction, then announced to the UI.
//! Nudges are hints (they coalesce and repeat), so a nudge at or below the stored cursor is a
//! no-op and a catch-up that fails is retried after a jittered backoff.

//!
//! Below it: `page` opens and stores one page of records, `notifications` catches up on agent
//! notifications. Sync may call the session, the cache, the view types and the answers layer
//! (it flushes the outbox on reconnect); it never names `Core`.

pub(crate) mod notifications;
pub(crate) mod page;

use std::sync::Arc;

use herald_protocol::wire::DEFAULT_PAGE_LIMIT;
use herald_protocol::Revision;

use crate::context::Store;
use crate::session::Session;
use crate::transport::backoff::{Backoff, ReconnectBackoff};
use crate::transport::ws::SyncSocket;
use crate::view::CoreEvent;
use crate::Result;

/// Posts the answers queued while the relay was out of reach (outbox.rs), then fetches and
/// stores everything after the cursors: messages, then notifications from agents
/// (docs/agents.md; their own cursor). Returns the number of records stored.
/// Records when it finished (relay clock; `Core::last_synced_at`).
pub(crate) async fn catch_up(store: &Store, session: &Arc<Session>) -> Result<usize> {
    crate::answers::outbox::flush(store, session).await?;
    let messages = catch_up_messages(store, session).await?;
    let total = messages + crate::sync::notifications::catch_up(store, session).await?;
    let at = session
        .http
        .relay_now()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    store.cache_call(move |c| c.set_synced_at(&at)).await?;
    Ok(total)
}

/// The lower of the two cursors: a nudge above it may bring something new.
async fn cursor(store: &Store) -> crate::Result<herald_protocol::Revision> {
    let messages = store.cache_call(|c| c.cursor()).await?;
    let notifications = store.cache_call(|c| c.notification_cursor()).await?;
    Ok(messages.min(notifications))
}

/// Fetches and stores every message after the message cursor, then reads again the cached
/// rows that did not open when the session asked for it (see [`reopen`]).
async fn catch_up_messages(store: &Store, session: &Arc<Session>) -> Result<usize> {
    let total = catch_up_pages(store, session).await?;
    if session.take_reopen() {
        if let Err(e) = reopen(store, session).await {
            session.request_reopen();
            return Err(e);
        }
    }
    Ok(total)
}

/// At most this many unopened rows are read again per pass (newest first).
const REOPEN_LIMIT: u32 = 200;

/// Reads again, one by one (`GET /messages/{id}`), the cached rows whose message or answer
/// did not open, and stores those that open now. Asked for when a session starts (rows cached
/// by an older build, or before a revoked sender's certificate was served) and whenever the
/// account keys change (an answer sealed to an epoch this device had not learned yet). A
/// record the relay no longer has, or refuses, is skipped; only `network` fails the pass.
async fn reopen(store: &Store, session: &Session) -> Result<()> {
    let ids = store.cache_call(|c| c.unopened(REOPEN_LIMIT)).await?;
    for id in ids {
        let Some(message_id) = herald_protocol::MessageId::parse(&id) else {
            continue;
        };
        let record = match session.http.message(&message_id).await {
            Ok(record) => record,
            Err(crate::Error::Network(e)) => return Err(crate::Error::Network(e)),
            Err(e) => {
                tracing::debug!(message = %id, code = %e.code(), "not read again");
                continue;
            }
        };
        let row = session.process(&store.local.key, &record).await?;
        let owned = id.clone();
        let before = store.cache_call(move |c| c.get(&owned)).await?.record;
        // Store only progress: the message opened now, or its answer did (losing nothing).
        let lost = (before.sealed_content.is_some() && row.sealed_content.is_none())
            || (before.sealed_answer.is_some() && row.sealed_answer.is_none());
        let gained = (row.sealed_content.is_some() && before.sealed_content.is_none())
            || (row.sealed_answer.is_some() && before.sealed_answer.is_none());
        if lost || !gained {
            continue;
        }
        if store.cache_call(move |c| c.reopen_record(&row)).await? {
            if let Ok(message) = store.summary_of(&id).await {
                let _ = store.events.send(CoreEvent::MessageUpserted {
                    message,
                    is_new: false,
                });
            }
        }
    }
    Ok(())
}

/// Fetches and stores every page after the message cursor.
async fn catch_up_pages(store: &Store, session: &Arc<Session>) -> Result<usize> {
    let mut total = 0;
    loop {
        let cursor = store.cache_call(|c| c.cursor()).await?;
        let page = session.http.messages(cursor, DEFAULT_PAGE_LIMIT).await?;
        // A record sealed to an account key this device lacks: the key may have rotated (a
        // change asks for the unopened rows to be read again).
        crate::devices::learn_rotation_for(store, session, &page.records).await;
        // Opened on several cores, in order (sync_page.rs).
        let rows =
            crate::sync::page::process_page(&store.local.key, session, &page.records).await?;
        let next = page.cursor;
        let (rows, fresh) = store
            .cache_call(move |c| {
                let fresh = c.store_page(&rows, next)?;
                Ok((rows, fresh))
            })
            .await?;
        total += rows.len();
        crate::sync::page::announce_page(store, &rows, fresh).await;
        if !page.has_more || page.records.is_empty() {
            return Ok(total);
        }
    }
}

/// Longest wait for the sync frame the relay sends when a socket opens.
const FIRST_FRAME_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs until the task is aborted: connect, read the relay's first frame, catch up, follow
/// nudges (skipping those a finished catch-up already covered), reconnect with backoff. The
/// backoff starts over only after a catch-up succeeded. `policy` gives the reconnect policy in
/// force (read again before each wait, so a change applies to the next reconnect).
pub(crate) async fn run(
    store: Arc<Store>,
    session: Arc<Session>,
    policy: impl Fn() -> ReconnectBackoff + Send + 'static,
) {
    let store = &*store;
    let mut backoff = Backoff::new(policy());
    loop {
        match SyncSocket::connect(&session.http).await {
            Ok(mut socket) => {
                let _ = store.events.send(CoreEvent::SyncState {
                    connected: true,
                    error: None,
                });
                let mut healthy = true;
                // The relay's first frame names its latest revision when it subscribed this
                // socket: a catch-up that starts after it covers every change up to it, and
                // later ones come as nudges. Without one in time, catch up all the same.
                let first = match tokio::time::timeout(FIRST_FRAME_WAIT, socket.next_sync()).await {
                    Ok(Ok(Some(revision))) => Some(revision),
                    Ok(Ok(None) | Err(_)) => {
                        healthy = false;
                        None
                    }
                    Err(_) => None,
                };
                // What a finished catch-up of this socket is known to cover.
                let mut covered = Revision::default();
                if healthy {
                    match catch_up(store, &session).await {
                        Ok(_) => {
                            // Reset only once the relay served us: a relay that accepts the
                            // socket but fails every fetch must not be retried at full rate.
                            backoff.reset();
                            covered = first.unwrap_or_default();
                        }
                        Err(e) => {
                            tracing::warn!(code = %e.code(), "catch-up failed");
                            healthy = false;
                        }
                    }
                }
                while healthy {
                    match socket.next_sync().await {
                        Ok(Some(revision)) => {
                            // A repeated or stale nudge: a catch-up that started after it was
                            // sent already ran (both cursors are not enough: a feed without
                            // records since never moves its cursor).
                            let cursor = cursor(store).await.unwrap_or_default();
                            if revision <= cursor.max(covered) {
                                continue;
                            }
                            match catch_up(store, &session).await {
                                Ok(_) => covered = covered.max(revision),
                                Err(e) => {
                                    tracing::warn!(code = %e.code(), "catch-up failed");
                                    healthy = false;
                                }
                            }
                        }
                        Ok(None) | Err(_) => healthy = false,
                    }
                }
                socket.close().await;
                let _ = store.events.send(CoreEvent::SyncState {
                    connected: false,
                    error: Some("Connection to the relay lost; reconnecting.".into()),
                });
            }
            Err(e) => {
                let _ = store.events.send(CoreEvent::SyncState {
                    connected: false,
                    error: Some(format!("Cannot reach the relay ({}); retrying.", e.code())),
                });
            }
        }
        backoff.set_policy(policy());
        tokio::time::sleep(backoff.next_delay()).await;
    }
}
