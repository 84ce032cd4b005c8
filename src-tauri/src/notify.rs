//! OS notifications for new requests, with the request's one-tap actions as buttons.
//!
//! A notification carries the sender's name as its title and the request's title as its body
//! (what the person needs to decide from the banner; never the body text or form data). Its
//! `extra.messageId` ties a button press back to the request: the press is answered through
//! the device core exactly as a click in the app would be, and a click on the notification
//! itself opens the request in the main window (`herald://open-message`).

use std::sync::atomic::{AtomicI32, Ordering};

use herald_client::view::{AnswerInput, MessageSummary};
use herald_client::Core;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tauri_plugin_notification::{Action, ActionPerformed, ActionType, NotificationExt};

/// Tauri event asking the UI to open a message; payload `{ "messageId": "msg_..." }`.
pub const OPEN_MESSAGE_EVENT: &str = "herald://open-message";
/// How many action buttons a banner shows at most; the rest are answered in the app.
const MAX_BUTTONS: usize = 3;
const EXTRA_MESSAGE_ID: &str = "messageId";

static NEXT_ID: AtomicI32 = AtomicI32::new(1);

/// Registers the handler for notification clicks and buttons. Call once at setup, before
/// the first notification (notifications shown without a handler report nothing).
pub fn listen<R: Runtime>(app: &AppHandle<R>, core: Core) {
    let handle = app.clone();
    let registered = app.notification().on_action(move |performed| {
        on_action(&handle, &core, performed);
    });
    if let Err(error) = registered {
        tracing::warn!(%error, "notification actions unavailable");
    }
}

/// Shows the notification for a new request. Runs as its own task: looking up the actions and
/// talking to the notification server never holds up the event stream.
pub fn request<R: Runtime>(app: &AppHandle<R>, core: Core, message: MessageSummary) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let actions = match core.message(&message.id).await {
            Ok(view) => view.actions,
            Err(error) => {
                tracing::warn!(%error, "no actions for the notification");
                Vec::new()
            }
        };
        let notification = app.notification();
        let mut builder = notification
            .builder()
            .id(NEXT_ID.fetch_add(1, Ordering::Relaxed))
            .title(message.sender_name.clone())
            .body(message.title.clone())
            .extra(EXTRA_MESSAGE_ID, message.id.clone());
        if !actions.is_empty() {
            let type_id = format!("herald-request-{}", message.id);
            let buttons = actions
                .iter()
                .take(MAX_BUTTONS)
                .map(|a| Action::builder(a.id.clone(), a.label.clone()).build())
                .collect();
            let action_type = ActionType::builder(type_id.clone())
                .actions(buttons)
                .build();
            match notification.register_action_types(vec![action_type]) {
                Ok(()) => builder = builder.action_type_id(type_id),
                Err(error) => tracing::warn!(%error, "could not register notification actions"),
            }
        }
        if let Err(error) = builder.show() {
            tracing::warn!(%error, "notification not shown");
        }
    });
}

fn on_action<R: Runtime>(app: &AppHandle<R>, core: &Core, performed: &ActionPerformed) {
    let Some(message_id) = performed
        .notification()
        .and_then(|n| n.extra().get(EXTRA_MESSAGE_ID))
        .and_then(|v| v.as_str())
        .map(str::to_owned)
    else {
        return;
    };
    match performed.action_id() {
        "tap" => open_message(app, &message_id),
        "dismiss" => {}
        action_id => {
            let core = core.clone();
            let app = app.clone();
            let input = AnswerInput {
                action_id: Some(action_id.to_owned()),
                values_json: None,
                files: Default::default(),
            };
            tauri::async_runtime::spawn(async move {
                // The core validates the action against the request and emits the update.
                if let Err(error) = core.answer(&message_id, input).await {
                    tracing::warn!(%error, "answer from the notification failed");
                    open_message(&app, &message_id);
                }
            });
        }
    }
}

/// Brings the main window forward with the message open.
fn open_message<R: Runtime>(app: &AppHandle<R>, message_id: &str) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
    let payload = serde_json::json!({ "messageId": message_id });
    if let Err(error) = app.emit(OPEN_MESSAGE_EVENT, payload) {
        tracing::warn!(%error, "could not ask the UI to open the message");
    }
}
