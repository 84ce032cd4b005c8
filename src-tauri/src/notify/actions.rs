//! What a click or a button press on a banner does: a click opens its message, notification
//! or the inbox in the window; a button answers its request through the
//! [`AnswerGate`](crate::answering::AnswerGate), so the request is answered once even if the
//! window (or a repeated press) answers too — the loser is shown the request with an "already
//! answered" note instead of an error.

use herald_client::view::AnswerInput;
use herald_client::Core;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tauri_plugin_notification::ActionPerformed;

use super::{
    EXTRA_KIND, EXTRA_MESSAGE_ID, EXTRA_NOTIFICATION_ID, KIND_SUMMARY, OPEN_INBOX_EVENT,
    OPEN_MESSAGE_EVENT, OPEN_NOTIFICATION_EVENT,
};
use crate::answering::{AnswerGate, ALREADY_ANSWERED};

pub(super) fn on_action<R: Runtime>(
    app: &AppHandle<R>,
    core: &Core,
    gate: &AnswerGate,
    performed: &ActionPerformed,
) {
    let extra = performed.notification().map(|n| n.extra());
    if extra
        .and_then(|e| e.get(EXTRA_KIND))
        .and_then(|v| v.as_str())
        == Some(KIND_SUMMARY)
    {
        if performed.action_id() == "tap" {
            focus_window(app);
            if let Err(error) = app.emit(OPEN_INBOX_EVENT, ()) {
                tracing::warn!(%error, "could not ask the UI to show the inbox");
            }
        }
        return;
    }
    if let Some(id) = extra
        .and_then(|e| e.get(EXTRA_NOTIFICATION_ID))
        .and_then(|v| v.as_str())
    {
        if performed.action_id() == "tap" {
            focus_window(app);
            let payload = serde_json::json!({ "notificationId": id });
            if let Err(error) = app.emit(OPEN_NOTIFICATION_EVENT, payload) {
                tracing::warn!(%error, "could not ask the UI to open the notification");
            }
        }
        return;
    }
    let Some(message_id) = extra
        .and_then(|e| e.get(EXTRA_MESSAGE_ID))
        .and_then(|v| v.as_str())
        .map(str::to_owned)
    else {
        return;
    };
    match performed.action_id() {
        "tap" => open_message(app, &message_id, None),
        "dismiss" => {}
        action_id => {
            let core = core.clone();
            let gate = gate.clone();
            let app = app.clone();
            let input = AnswerInput {
                action_id: Some(action_id.to_owned()),
                values_json: None,
                files: Default::default(),
            };
            tauri::async_runtime::spawn(async move {
                // The core validates the action against the request and emits the update,
                // which withdraws the banner.
                match gate.answer(&core, &message_id, input).await {
                    Ok(_) => {}
                    Err(error) if error.code == ALREADY_ANSWERED => {
                        open_message(&app, &message_id, Some("alreadyAnswered"));
                    }
                    Err(error) => {
                        tracing::warn!(code = %error.code, "answer from the notification failed");
                        open_message(&app, &message_id, None);
                    }
                }
            });
        }
    }
}

fn focus_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Brings the main window forward with the message open (and an optional notice code).
fn open_message<R: Runtime>(app: &AppHandle<R>, message_id: &str, notice: Option<&str>) {
    focus_window(app);
    let payload = serde_json::json!({ "messageId": message_id, "notice": notice });
    if let Err(error) = app.emit(OPEN_MESSAGE_EVENT, payload) {
        tracing::warn!(%error, "could not ask the UI to open the message");
    }
}
