//! The banners on screen: showing one through the notification plugin (with its sound and the
//! banner it replaces), withdrawing a request's, and what the notification server can show.
//!
//! What the plugin (tauri-plugin-notification 2.8) passes on, per platform:
//! - Linux and the BSDs: title, body, icon, the actions, and exactly one hint, `sound-name`
//!   (from its `sound` field). No urgency, category, `suppress-sound` or `replaces_id` hint can
//!   be set through it; its `group` and `silent` fields are ignored on desktop. So a sound is
//!   the only difference between "needs your reply" and "new message", sound off means no
//!   `sound-name` hint, and an agent's thread or group replaces its earlier banner by closing
//!   it (`CloseNotification`) before the new one is shown.
//! - macOS and Windows: the same fields reach notify-rust, which cannot close a shown
//!   notification there, so replaced banners stay.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};

use tauri::{AppHandle, Runtime};
use tauri_plugin_notification::{Action, ActionType, NotificationExt};

use super::{EXTRA_KIND, EXTRA_MESSAGE_ID, EXTRA_NOTIFICATION_ID, KIND_SUMMARY};
use herald_client::notify_plan::{self, policy, Banner, Target};

static NEXT_ID: AtomicI32 = AtomicI32::new(1);

/// What the notification server can show, from its capabilities.
#[derive(Clone, Copy, Default)]
pub(super) struct Shows {
    /// A server answered `GetCapabilities` (a banner sent to it was displayed).
    pub answered: bool,
    /// `actions`: buttons on the banner.
    pub buttons: bool,
    /// `body-markup`: the server reads the body as markup, so text is escaped first.
    pub markup: bool,
}

/// The banners this app has shown and may still close. Owned by the notifier task alone.
pub(super) struct Banners<R: Runtime> {
    app: AppHandle<R>,
    /// Request id → the notification id of its banner (withdrawn once it is answered).
    requests: HashMap<String, i32>,
    /// Replacement key (an agent's thread or group) → the notification id shown under it.
    replaceable: HashMap<String, i32>,
    /// The last summary banner (a backlog, or the end of quiet hours): a new one replaces it.
    summary: Option<i32>,
}

impl<R: Runtime> Banners<R> {
    pub fn new(app: AppHandle<R>) -> Self {
        Banners {
            app,
            requests: HashMap::new(),
            replaceable: HashMap::new(),
            summary: None,
        }
    }

    /// Shows a banner (closing the one it replaces first); returns its notification id.
    pub fn show(&mut self, banner: &Banner, shows: Shows) -> Option<i32> {
        if let Some(key) = &banner.replaces {
            if let Some(previous) = self.replaceable.remove(key) {
                close(&self.app, previous);
            }
        }
        let id = show(&self.app, banner, shows.markup)?;
        if let Some(key) = &banner.replaces {
            self.replaceable.insert(key.clone(), id);
        }
        Some(id)
    }

    /// Shows a request's banner and remembers it, so it can be withdrawn.
    pub fn show_request(&mut self, message_id: &str, banner: &Banner, shows: Shows) -> bool {
        match self.show(banner, shows) {
            Some(id) => {
                self.requests.insert(message_id.to_owned(), id);
                true
            }
            None => false,
        }
    }

    /// Shows a summary banner in place of the previous one.
    pub fn show_summary(&mut self, banner: &Banner, shows: Shows) {
        if let Some(previous) = self.summary.take() {
            close(&self.app, previous);
        }
        self.summary = self.show(banner, shows);
    }

    /// The request is no longer pending: its banner goes.
    pub fn withdraw(&mut self, message_id: &str) {
        if let Some(id) = self.requests.remove(message_id) {
            close(&self.app, id);
        }
    }
}

/// Shows a banner; returns its notification id. `show()` returning Ok only means the request
/// went to the notification server (or nowhere, if none runs): it is not proof of display.
/// `markup`: the server interprets the body's markup (`<a>`, `<img>`…), so it gets the text
/// escaped and agent-written tags stay text.
fn show<R: Runtime>(app: &AppHandle<R>, banner: &Banner, markup: bool) -> Option<i32> {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let notification = app.notification();
    // The summary line is plain text by the specification; only bodies are read as markup.
    let body = if markup {
        notify_plan::escape_markup(&banner.body)
    } else {
        banner.body.clone()
    };
    let mut builder = notification
        .builder()
        .id(id)
        .title(banner.title.clone())
        .body(body);
    if let Some(tone) = banner.tone {
        builder = builder.sound(policy::sound_name(tone, std::env::consts::OS));
    }
    builder = match &banner.target {
        Target::Message(message_id) => builder.extra(EXTRA_MESSAGE_ID, message_id.clone()),
        Target::Notification(id) => builder.extra(EXTRA_NOTIFICATION_ID, id.clone()),
        Target::Inbox => builder.extra(EXTRA_KIND, KIND_SUMMARY),
    };
    if !banner.buttons.is_empty() {
        let type_id = format!("herald-request-{id}");
        let actions = banner
            .buttons
            .iter()
            .map(|(action_id, label)| Action::builder(action_id.clone(), label.clone()).build())
            .collect();
        let action_type = ActionType::builder(type_id.clone())
            .actions(actions)
            .build();
        match notification.register_action_types(vec![action_type]) {
            Ok(()) => builder = builder.action_type_id(type_id),
            Err(error) => tracing::warn!(%error, "could not register notification actions"),
        }
    }
    match builder.show() {
        Ok(()) => Some(id),
        Err(error) => {
            tracing::warn!(%error, "notification not shown");
            None
        }
    }
}

/// Closes a shown banner (`CloseNotification` on Linux; a no-op where the platform cannot).
fn close<R: Runtime>(app: &AppHandle<R>, id: i32) {
    let app = app.clone();
    // A blocking D-Bus call on the plugin's connection.
    tauri::async_runtime::spawn_blocking(move || {
        if let Err(error) = app.notification().remove_active(vec![id]) {
            tracing::warn!(%error, "could not withdraw a notification");
        }
    });
}

/// What the notification server can show (`GetCapabilities`); nothing when no server answered
/// (no server, no session bus). Buttons are offered only with `actions`; without them a click
/// still opens the request where clicks are reported.
pub(super) async fn server_shows() -> Shows {
    let Some(capabilities) = server_capabilities().await else {
        return Shows::default();
    };
    let has = |name: &str| capabilities.iter().any(|c| c == name);
    Shows {
        answered: true,
        buttons: has("actions"),
        markup: has("body-markup"),
    }
}

async fn server_capabilities() -> Option<Vec<String>> {
    #[cfg(target_os = "linux")]
    {
        let asked = tauri::async_runtime::spawn_blocking(notify_rust::get_capabilities).await;
        match asked {
            Ok(Ok(capabilities)) => Some(capabilities),
            Ok(Err(error)) => {
                tracing::warn!(%error, "no notification server answered");
                None
            }
            Err(_) => None,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // macOS and Windows: notify-rust shows what it is given, buttons included.
        Some(vec!["actions".to_owned(), "body".to_owned()])
    }
}
