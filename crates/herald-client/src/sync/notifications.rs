//! Notifications from agents on the device (docs/agents.md): the sync of the relay's
//! `GET /notifications` feed with its own cursor, opening each sealed notification with the
//! account key bundle (HPKE, herald-crypto `open_notification`), caching it sealed under the
//! local key, and building [`NotificationView`]s. Notifications are NOT end-to-end encrypted
//! (the relay saw them in transit); every view says so (`endToEnd: false`).

use herald_crypto::LocalKey;
use herald_protocol::notify::{
    NotificationContent, NotificationRecord, Priority, DEFAULT_NOTIFICATION_PAGE,
};
use herald_protocol::ErrorCode;

use crate::cache::CachedNotification;
use crate::context::Store;
use crate::notification_view::{NotificationPriority, NotificationView};
use crate::session::Session;
use crate::transport::http::is_code;
use crate::view::CoreEvent;
use crate::Result;

/// Title shown for a notification that could not be opened.
pub const UNREADABLE_NOTIFICATION: &str = "Unreadable notification";

fn reply_aad(id: &str) -> Vec<u8> {
    format!("{id}/reply").into_bytes()
}

/// Opens a record with the bundle and seals its content under the local key.
pub(crate) fn cached(
    local: &LocalKey,
    keys: &herald_crypto::AccountKeys,
    account: &herald_protocol::AccountId,
    record: &NotificationRecord,
) -> CachedNotification {
    let opened = herald_crypto::open_notification(keys, account, &record.id, &record.sealed)
        .map_err(|_| "This notification could not be decrypted on this device.".to_owned())
        .and_then(|plain| {
            let content: NotificationContent = serde_json::from_slice(&plain)
                .map_err(|_| "This notification's content is malformed.".to_owned())?;
            if content.notification_id != record.receipt.notification_id {
                return Err("This notification's content belongs to another one.".to_owned());
            }
            Ok(herald_crypto::seal_local(
                local,
                record.id.as_str().as_bytes(),
                &plain,
            ))
        });
    let r = &record.receipt;
    let (sealed_content, error) = match opened {
        Ok(sealed) => (Some(sealed), None),
        Err(e) => (None, Some(e)),
    };
    CachedNotification {
        id: record.id.to_string(),
        revision: record.revision,
        notification_id: r.notification_id.clone(),
        source_kind: record.source.kind.clone(),
        source_name: record.source.name.clone(),
        source_id: Some(record.source.id.clone()),
        received_at: r.received_at.clone(),
        expect_reply: r.expect_reply,
        suppressed: r.suppressed,
        displayed_at: r.displayed_at.clone(),
        spoken_at: r.spoken_at.clone(),
        replied_at: r.replied_at.clone(),
        sealed_content,
        sealed_reply: None,
        error,
        unread: true,
    }
}

/// Seals the reply this device sent, for the cache.
pub(crate) fn seal_reply(local: &LocalKey, id: &str, text: &str) -> Vec<u8> {
    herald_crypto::seal_local(local, &reply_aad(id), text.as_bytes())
}

fn priority(p: Priority) -> NotificationPriority {
    match p {
        Priority::Low => NotificationPriority::Low,
        Priority::Normal => NotificationPriority::Normal,
        Priority::High => NotificationPriority::High,
    }
}

/// The view of a cached notification.
pub(crate) fn view(local: &LocalKey, n: &CachedNotification) -> NotificationView {
    let content: Option<NotificationContent> = n
        .sealed_content
        .as_ref()
        .and_then(|s| herald_crypto::open_local(local, n.id.as_bytes(), s).ok())
        .and_then(|plain| serde_json::from_slice(&plain).ok());
    let reply = n
        .sealed_reply
        .as_ref()
        .and_then(|s| herald_crypto::open_local(local, &reply_aad(&n.id), s).ok())
        .and_then(|plain| String::from_utf8(plain.to_vec()).ok());
    let error = match (&n.error, &content) {
        (Some(e), _) => Some(e.clone()),
        (None, None) => Some("This notification could not be read.".to_owned()),
        _ => None,
    };
    let c = content.unwrap_or(NotificationContent {
        notification_id: n.notification_id.clone(),
        title: UNREADABLE_NOTIFICATION.to_owned(),
        subtitle: None,
        body: None,
        speak: false,
        expect_reply: n.expect_reply,
        priority: Priority::Normal,
        sound: false,
        group: None,
        thread_id: None,
    });
    NotificationView {
        id: n.id.clone(),
        notification_id: n.notification_id.clone(),
        end_to_end: false,
        title: c.title,
        subtitle: c.subtitle,
        body: c.body,
        speak: c.speak && error.is_none(),
        expect_reply: n.expect_reply,
        priority: priority(c.priority),
        sound: c.sound,
        group: c.group,
        thread_id: c.thread_id,
        source_kind: n.source_kind.clone(),
        source_name: n.source_name.clone(),
        source_id: n.source_id.clone(),
        received_at: n.received_at.clone(),
        displayed_at: n.displayed_at.clone(),
        spoken_at: n.spoken_at.clone(),
        replied_at: n.replied_at.clone(),
        reply,
        suppressed: n.suppressed,
        unread: n.unread,
        error,
        revision: n.revision.0,
    }
}

/// The cached view of one notification.
pub(crate) async fn view_of(store: &Store, id: &str) -> Result<NotificationView> {
    let owned = id.to_owned();
    let row = store.cache_call(move |c| c.notification(&owned)).await?;
    Ok(view(&store.local.key, &row))
}

/// Fetches and stores every notification after the notification cursor, announcing each
/// (`NotificationUpserted`, `isNew` the first time). Returns how many were stored.
pub(crate) async fn catch_up(store: &Store, session: &Session) -> Result<usize> {
    let mut total = 0;
    let mut learned = false;
    loop {
        let cursor = store.cache_call(|c| c.notification_cursor()).await?;
        let page = match session
            .http
            .notifications(cursor, DEFAULT_NOTIFICATION_PAGE)
            .await
        {
            Ok(page) => page,
            // A relay without the agent side has no notifications.
            Err(e) if is_code(&e, ErrorCode::NotFound) => return Ok(total),
            Err(e) => return Err(e),
        };
        // Sealed to an account key this device lacks: the key may have rotated; learn it once.
        let mut keys = session.account_keys();
        let unknown = page
            .records
            .iter()
            .any(|r| keys.encryption_secret(&r.sealed.key_id).is_none());
        if unknown && !learned {
            learned = true;
            if let Err(e) = crate::devices::learn_rotation(store, session).await {
                tracing::warn!(code = %e.code(), "could not fetch the rotated account key");
            }
            keys = session.account_keys();
        }
        let account = &session.state.account_id;
        let rows: Vec<CachedNotification> = page
            .records
            .iter()
            .map(|r| cached(&store.local.key, &keys, account, r))
            .collect();
        let (next, stored) = (page.cursor, rows.clone());
        let fresh = store
            .cache_call(move |c| c.store_notifications(&stored, next))
            .await?;
        total += rows.len();
        for (row, is_new) in rows.iter().zip(fresh) {
            if let Ok(notification) = view_of(store, &row.id).await {
                let _ = store.events.send(CoreEvent::NotificationUpserted {
                    notification,
                    is_new,
                });
            }
        }
        if !page.has_more || page.records.is_empty() {
            return Ok(total);
        }
    }
}
