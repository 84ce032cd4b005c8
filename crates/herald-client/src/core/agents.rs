//! The agent side of the device core (docs/agents.md): notifications (list, receipts, reply),
//! quiet hours, agent keys and connectors. Each call goes to the relay with this device's
//! session; notification changes are cached and announced like synced ones. Also this
//! device's own notification settings, which stay on the device (notification_settings.rs).

use herald_protocol::notify::{QuietHours, ReceiptUpdate};
use herald_protocol::{AgentKeyId, ConnectorId, NotificationId};

use super::Core;
use crate::notification_view::*;
use crate::sync::notifications::{self, cached, seal_reply};
use crate::view::CoreEvent;
use crate::{Error, Result};

fn notification_id(id: &str) -> Result<NotificationId> {
    NotificationId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))
}

impl Core {
    /// Notifications from agents, newest first, decrypted from the cache. Not end-to-end
    /// encrypted: each view has `endToEnd: false`.
    pub async fn notifications(&self) -> Result<Vec<NotificationView>> {
        let rows = self.inner.store.cache_call(|c| c.notifications()).await?;
        Ok(rows
            .iter()
            .map(|r| notifications::view(&self.inner.store.local.key, r))
            .collect())
    }

    /// One notification from the cache. Errors: `not_found`.
    pub async fn notification(&self, id: &str) -> Result<NotificationView> {
        notifications::view_of(&self.inner.store, id).await
    }

    /// Marks a notification read on this device.
    pub async fn mark_notification_read(&self, id: &str) -> Result<()> {
        let owned = id.to_owned();
        if self
            .inner
            .store
            .cache_call(move |c| c.mark_notification_read(&owned))
            .await?
        {
            self.announce(id, false).await;
        }
        Ok(())
    }

    async fn announce(&self, id: &str, is_new: bool) {
        if let Ok(notification) = notifications::view_of(&self.inner.store, id).await {
            let _ = self
                .inner
                .store
                .events
                .send(CoreEvent::NotificationUpserted {
                    notification,
                    is_new,
                });
        }
    }

    /// Stores a record a route answered with (keeping this device's reply) and announces it.
    async fn store_record(
        &self,
        record: &herald_protocol::notify::NotificationRecord,
        reply: Option<&str>,
    ) -> Result<NotificationView> {
        let session = self.inner.session()?;
        let keys = session.account_keys();
        let mut row = cached(
            &self.inner.store.local.key,
            &keys,
            &session.state.account_id,
            record,
        );
        if let Some(text) = reply {
            row.sealed_reply = Some(seal_reply(&self.inner.store.local.key, &row.id, text));
        }
        let id = row.id.clone();
        self.inner
            .store
            .cache_call(move |c| c.store_notification(&row))
            .await?;
        self.announce(&id, false).await;
        notifications::view_of(&self.inner.store, &id).await
    }

    /// Reports a receipt (displayed with its time, spoken, suppressed) to the relay; the
    /// relay stamps it by its clock, once. Errors: `not_found` (unknown, or older than 24 h).
    pub async fn notification_receipt(
        &self,
        id: &str,
        kind: NotificationReceiptKind,
    ) -> Result<NotificationView> {
        let session = self.inner.session()?;
        let nid = notification_id(id)?;
        let update = match kind {
            NotificationReceiptKind::Displayed => ReceiptUpdate {
                displayed: Some(true),
                ..Default::default()
            },
            NotificationReceiptKind::Spoken => ReceiptUpdate {
                spoken: Some(true),
                ..Default::default()
            },
            NotificationReceiptKind::Suppressed => ReceiptUpdate {
                suppressed: Some(true),
                ..Default::default()
            },
        };
        let record = session.http.notification_receipt(&nid, &update).await?;
        self.store_record(&record, None).await
    }

    /// Sends the one typed reply (1–4,000 characters) to a notification that expects one;
    /// the waiting agent gets it at once. Errors: `invalid_input`, `already_answered`,
    /// `not_a_request` (no reply expected), `not_found`.
    pub async fn reply_notification(&self, id: &str, text: &str) -> Result<NotificationView> {
        let session = self.inner.session()?;
        let nid = notification_id(id)?;
        if text.trim().is_empty() || text.chars().count() > herald_protocol::notify::MAX_REPLY_CHARS
        {
            return Err(Error::InvalidInput(
                "a reply has 1 to 4,000 characters".into(),
            ));
        }
        let record = session.http.reply_notification(&nid, text).await?;
        self.store_record(&record, Some(text)).await
    }

    /// The account's quiet hours (defaults when never set: off, 22:00–07:00 UTC).
    pub async fn quiet_hours(&self) -> Result<QuietHoursSettings> {
        let view = self.inner.session()?.http.quiet_hours().await?;
        Ok(QuietHoursSettings {
            enabled: view.settings.enabled,
            start: view.settings.start,
            end: view.settings.end,
            timezone: view.settings.timezone,
            active: view.active,
        })
    }

    /// Sets the account's quiet hours (`active` is ignored). Errors: `invalid_request` naming
    /// `start`, `end` or `timezone`.
    pub async fn set_quiet_hours(
        &self,
        settings: QuietHoursSettings,
    ) -> Result<QuietHoursSettings> {
        let body = QuietHours {
            enabled: settings.enabled,
            start: settings.start,
            end: settings.end,
            timezone: settings.timezone,
        };
        let view = self.inner.session()?.http.put_quiet_hours(&body).await?;
        Ok(QuietHoursSettings {
            enabled: view.settings.enabled,
            start: view.settings.start,
            end: view.settings.end,
            timezone: view.settings.timezone,
            active: view.active,
        })
    }

    /// This device's notification settings (the defaults until saved). Never touches the
    /// relay, and works before an account exists.
    pub async fn notification_settings(&self) -> Result<NotificationSettings> {
        let dir = self.inner.config.data_dir.clone();
        tokio::task::spawn_blocking(move || crate::notification_settings::load(&dir))
            .await
            .map_err(|e| Error::Storage(format!("settings task failed: {e}")))
    }

    /// Saves this device's notification settings; returns them as saved (muted ids sorted,
    /// without repeats). Errors: `invalid_input` naming `muted`, `storage`.
    pub async fn set_notification_settings(
        &self,
        settings: NotificationSettings,
    ) -> Result<NotificationSettings> {
        let dir = self.inner.config.data_dir.clone();
        tokio::task::spawn_blocking(move || crate::notification_settings::save(&dir, settings))
            .await
            .map_err(|e| Error::Storage(format!("settings task failed: {e}")))?
    }

    /// The account's agent keys that are not revoked, oldest first.
    pub async fn agent_keys(&self) -> Result<Vec<AgentKeyView>> {
        let list = self.inner.session()?.http.agent_keys().await?;
        Ok(list
            .agent_keys
            .into_iter()
            .filter(|k| k.revoked_at.is_none())
            .map(|k| AgentKeyView {
                id: k.id.to_string(),
                name: k.name,
                created_at: k.created_at,
            })
            .collect())
    }

    /// Creates an agent key (`hrk_…`, shown once; this device does not keep it).
    /// Errors: `invalid_request` (name: 1–100 characters, no control characters).
    pub async fn create_agent_key(&self, name: &str) -> Result<NewAgentKey> {
        let session = self.inner.session()?;
        let created = session.http.create_agent_key(name.trim()).await?;
        Ok(NewAgentKey {
            id: created.id.to_string(),
            name: created.name.clone(),
            created_at: created.created_at.clone(),
            key: created.key.clone(),
            relay_url: session.state.relay_url.clone(),
        })
    }

    /// Revokes an agent key: the relay refuses it from its next request on.
    /// Errors: `not_found`, `already_revoked`.
    pub async fn revoke_agent_key(&self, id: &str) -> Result<()> {
        let id = AgentKeyId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        self.inner.session()?.http.revoke_agent_key(&id).await
    }

    /// The account's connectors that are not revoked, oldest first.
    pub async fn connectors(&self) -> Result<Vec<ConnectorView>> {
        let list = self.inner.session()?.http.connectors().await?;
        Ok(list
            .connectors
            .into_iter()
            .filter(|c| c.revoked_at.is_none())
            .map(connector_view)
            .collect())
    }

    /// Approves the connector showing `user_code` (`XXXX-XXXX`; case, spaces and dashes
    /// ignored), listing it as `name` (else the name it gave). Errors: `invalid_request`
    /// (not a user code, or a bad name), `not_found` (no connector waits with that code:
    /// expired, answered, or mistyped).
    pub async fn approve_connector(
        &self,
        user_code: &str,
        name: Option<&str>,
    ) -> Result<ConnectorView> {
        let info = self
            .inner
            .session()?
            .http
            .approve_connector(user_code, name.map(str::trim).filter(|n| !n.is_empty()))
            .await?;
        Ok(connector_view(info))
    }

    /// Denies the connector showing `user_code`. Errors: as [`Core::approve_connector`].
    pub async fn deny_connector(&self, user_code: &str) -> Result<()> {
        self.inner.session()?.http.deny_connector(user_code).await
    }

    /// Revokes a connector: the relay refuses its token from its next request on.
    /// Errors: `not_found`, `already_revoked`.
    pub async fn revoke_connector(&self, id: &str) -> Result<()> {
        let id = ConnectorId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        self.inner.session()?.http.revoke_connector(&id).await
    }
}

fn connector_view(c: herald_protocol::agents::ConnectorInfo) -> ConnectorView {
    ConnectorView {
        id: c.id.to_string(),
        name: c.name,
        client_id: c.client_id,
        token_issued: c.token_issued,
        created_at: c.created_at,
    }
}
