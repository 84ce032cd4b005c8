//! The sync engine: holds the live-update socket, and on every (re)connect and every nudge
//! reads `GET /messages?after=<cursor>` page by page until `hasMore` is false. Each page is
//! opened and stored with its cursor in one cache transaction, then announced to the UI.
//! Nudges are hints (they coalesce and repeat), so a nudge at or below the stored cursor is a
//! no-op and a catch-up that fails is retried after a jittered backoff.

use std::sync::Arc;

use herald_protocol::wire::DEFAULT_PAGE_LIMIT;

use crate::backoff::Backoff;
use crate::core::Inner;
use crate::session::Session;
use crate::view::CoreEvent;
use crate::ws::SyncSocket;
use crate::Result;

/// Fetches and stores everything after the cursors: messages, then notifications from agents
/// (docs/agents.md; their own cursor). Returns the number of records stored.
pub(crate) async fn catch_up(inner: &Inner, session: &Session) -> Result<usize> {
    let messages = catch_up_messages(inner, session).await?;
    Ok(messages + crate::notifications::catch_up(inner, session).await?)
}

/// The lower of the two cursors: a nudge above it may bring something new.
async fn cursor(inner: &Inner) -> crate::Result<herald_protocol::Revision> {
    let messages = inner.cache_call(|c| c.cursor()).await?;
    let notifications = inner.cache_call(|c| c.notification_cursor()).await?;
    Ok(messages.min(notifications))
}

/// Fetches and stores every message after the message cursor.
async fn catch_up_messages(inner: &Inner, session: &Session) -> Result<usize> {
    let mut total = 0;
    loop {
        let cursor = inner.cache_call(|c| c.cursor()).await?;
        let page = session.http.messages(cursor, DEFAULT_PAGE_LIMIT).await?;
        // A record sealed to an account key this device lacks: the key may have rotated.
        crate::devices::learn_rotation_for(inner, session, &page.records).await;
        let mut rows = Vec::with_capacity(page.records.len());
        for record in &page.records {
            rows.push(session.process(&inner.local.key, record).await?);
        }
        let next = page.cursor;
        let stored = rows.clone();
        let fresh = inner
            .cache_call(move |c| c.store_page(&stored, next))
            .await?;
        total += rows.len();
        for (row, is_new) in rows.iter().zip(fresh) {
            if let Ok(message) = inner.summary_of(&row.id).await {
                let _ = inner
                    .events
                    .send(CoreEvent::MessageUpserted { message, is_new });
            }
        }
        if !page.has_more || page.records.is_empty() {
            return Ok(total);
        }
    }
}

/// Runs until the task is aborted: connect, catch up, follow nudges, reconnect with backoff.
pub(crate) async fn run(inner: Arc<Inner>, session: Arc<Session>) {
    let mut backoff = Backoff::default();
    loop {
        match SyncSocket::connect(&session.http).await {
            Ok(mut socket) => {
                let _ = inner.events.send(CoreEvent::SyncState {
                    connected: true,
                    error: None,
                });
                backoff.reset();
                let mut healthy = true;
                // Catch up after subscribing, so nothing between the two is missed.
                if let Err(e) = catch_up(&inner, &session).await {
                    tracing::warn!(code = %e.code(), "catch-up failed");
                    healthy = false;
                }
                while healthy {
                    match socket.next_sync().await {
                        Ok(Some(revision)) => {
                            let cursor = cursor(&inner).await.unwrap_or_default();
                            if revision <= cursor {
                                continue; // duplicate or stale nudge
                            }
                            if let Err(e) = catch_up(&inner, &session).await {
                                tracing::warn!(code = %e.code(), "catch-up failed");
                                healthy = false;
                            }
                        }
                        Ok(None) | Err(_) => healthy = false,
                    }
                }
                socket.close().await;
                let _ = inner.events.send(CoreEvent::SyncState {
                    connected: false,
                    error: Some("Connection to the relay lost; reconnecting.".into()),
                });
            }
            Err(e) => {
                let _ = inner.events.send(CoreEvent::SyncState {
                    connected: false,
                    error: Some(format!("Cannot reach the relay ({}); retrying.", e.code())),
                });
            }
        }
        tokio::time::sleep(backoff.next_delay()).await;
    }
}
