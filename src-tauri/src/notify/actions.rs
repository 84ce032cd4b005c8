//! What a click or a button press on a banner does: a click opens its message, notification
//! or the inbox in the window; a button answers its request through the
//! [`AnswerGate`](herald_client::gate::AnswerGate), so the request is answered once even if the
//! window (or a repeated press) answers too — the loser is shown the request with an "already
//! answered" note instead of an error.

use herald_client::view::AnswerInput;
use herald_client::Core;
use tauri::{AppHandle, Runtime};
use tauri_plugin_notification::ActionPerformed;

use super::{EXTRA_KIND, EXTRA_MESSAGE_ID, EXTRA_NOTIFICATION_ID, KIND_SUMMARY};
use crate::targets::{OpenNotice, OpenTarget};
use crate::window::open_soon;
use herald_client::gate::AnswerGate;
use herald_client::view::UiErrorCode;

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
            open_soon(app, Some(OpenTarget::Inbox));
        }
        return;
    }
    if let Some(id) = extra
        .and_then(|e| e.get(EXTRA_NOTIFICATION_ID))
        .and_then(|v| v.as_str())
    {
        if performed.action_id() == "tap" {
            open_soon(app, Some(OpenTarget::Notification { id: id.to_owned() }));
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
                    Err(error) if error.is(UiErrorCode::AlreadyAnswered) => {
                        open_message(&app, &message_id, Some(OpenNotice::AlreadyAnswered));
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

/// Brings the main window forward (creating it when closed) with the message open and an
/// optional notice code.
fn open_message<R: Runtime>(app: &AppHandle<R>, message_id: &str, notice: Option<OpenNotice>) {
    let target = OpenTarget::Message {
        id: message_id.to_owned(),
        notice,
    };
    open_soon(app, Some(target));
}
