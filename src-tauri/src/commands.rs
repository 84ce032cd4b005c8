//! One-line adapters from the webview to the device core. Each returns the core's view types
//! or a `UiError {code, message}`; the UI's typed wrappers live in ui/src/lib/backend/tauri.ts.

use herald_client::view::{
    AnswerInput, ConnectionView, CoreEvent, InboxPage, MessageSummary, MessageView, NewConnection,
    OnboardResult, SetupState, UiError,
};
use herald_client::SecretReveal;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_opener::OpenerExt;

use crate::shell::AppState;

type CmdResult<T> = Result<T, UiError>;

/// The core's typed error as the UI sees it: a stable code and a readable message.
pub fn ui_error(error: herald_client::Error) -> UiError {
    UiError {
        code: error.code().to_owned(),
        message: error.to_string(),
    }
}

/// An error of the shell itself (not the core), with its stable code.
pub fn shell_error(code: &str, message: impl Into<String>) -> UiError {
    UiError {
        code: code.to_owned(),
        message: message.into(),
    }
}

#[tauri::command]
pub fn setup_state(state: State<'_, AppState>) -> SetupState {
    state.core.setup_state()
}

/// Creates the account on `relay_url`, or on the embedded relay (started here) when it is null,
/// then starts sync.
#[tauri::command]
pub async fn create_account(
    state: State<'_, AppState>,
    relay_url: Option<String>,
) -> CmdResult<OnboardResult> {
    let url = match relay_url {
        Some(url) => normalize_relay_url(&url)?,
        None => state
            .relay
            .start()
            .await
            .map_err(|e| shell_error("embedded_relay", e.to_string()))?,
    };
    let result = state.core.create_account(&url).await.map_err(ui_error)?;
    crate::embedded::write_relay_url(&state.data_dir, &url)
        .map_err(|e| shell_error("io", format!("could not record the relay URL: {e}")))?;
    state.core.start_sync().map_err(ui_error)?;
    if state.demo {
        let core = state.core.clone();
        tauri::async_runtime::spawn(async move {
            if let Err(error) = herald_client::demo::run_demo(&core).await {
                tracing::warn!(%error, "demo agent failed");
            }
        });
    }
    Ok(result)
}

#[tauri::command]
pub async fn list_connections(state: State<'_, AppState>) -> CmdResult<Vec<ConnectionView>> {
    state.core.list_connections().await.map_err(ui_error)
}

#[tauri::command]
pub async fn create_connection(
    state: State<'_, AppState>,
    name: String,
) -> CmdResult<NewConnection> {
    state.core.create_connection(&name).await.map_err(ui_error)
}

#[tauri::command]
pub async fn inbox(state: State<'_, AppState>) -> CmdResult<Vec<MessageSummary>> {
    state.core.inbox().await.map_err(ui_error)
}

/// A page of the inbox, newest first: the `limit` (1..=5,000) newest messages, or those
/// older than message `before` (the last id of the previous page). Errors: `not_found` when
/// `before` is no longer cached (reload from the newest), `storage`.
#[tauri::command]
pub async fn inbox_page(
    state: State<'_, AppState>,
    before: Option<String>,
    limit: u32,
) -> CmdResult<InboxPage> {
    state
        .core
        .inbox_page(before.as_deref(), limit as usize)
        .await
        .map_err(ui_error)
}

#[tauri::command]
pub async fn message(state: State<'_, AppState>, id: String) -> CmdResult<MessageView> {
    state.core.message(&id).await.map_err(ui_error)
}

#[tauri::command]
pub async fn mark_read(state: State<'_, AppState>, id: String) -> CmdResult<()> {
    state.core.mark_read(&id).await.map_err(ui_error)
}

/// Answers a request. From the webview, `input.files` maps file fields to the pick ids that
/// `pick_file` returned: each is swapped for the path kept here (a path sent by the webview is
/// never used: an unknown id is refused), and the core encrypts and uploads those files.
/// Secret values pass through to the core, which seals them to the asking connection only.
/// Errors: the core's, plus `unknown_pick`, and `already_answered` / `request_expired` /
/// `request_cancelled` when the request is no longer pending (nothing is posted then).
#[tauri::command]
pub async fn answer(
    state: State<'_, AppState>,
    id: String,
    mut input: AnswerInput,
) -> CmdResult<MessageView> {
    let picks: Vec<String> = input
        .files
        .values()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    for value in input.files.values_mut() {
        *value = state
            .picks
            .path(&value.to_string_lossy())
            .map_err(|e| shell_error(e.code(), e.to_string()))?;
    }
    // Through the gate: a request answered from its notification meanwhile is not posted
    // again (`already_answered`).
    let view = state.answers.answer(&state.core, &id, input).await?;
    state.picks.forget(&picks);
    Ok(view)
}

/// Revokes a connection: its token is refused by the relay from the next request on.
#[tauri::command]
pub async fn revoke_connection(state: State<'_, AppState>, id: String) -> CmdResult<()> {
    state.core.revoke_connection(&id).await.map_err(ui_error)
}

/// The conversation a message belongs to, oldest first.
#[tauri::command]
pub async fn thread(state: State<'_, AppState>, id: String) -> CmdResult<Vec<MessageSummary>> {
    state.core.thread(&id).await.map_err(ui_error)
}

/// Whether a typed recovery key opens this account's backup on the relay.
#[tauri::command]
pub async fn check_recovery_key(state: State<'_, AppState>, typed: String) -> CmdResult<bool> {
    state
        .core
        .check_recovery_key(&typed)
        .await
        .map_err(ui_error)
}

/// Opens a secret offer on this device: posts a one-time key for the sender to encrypt to.
#[tauri::command]
pub async fn open_secret_offer(state: State<'_, AppState>, id: String) -> CmdResult<()> {
    state.core.open_secret_offer(&id).await.map_err(ui_error)
}

/// The offered secret once the sender has sent it (null until then). Handed over once; the
/// text passes through to the webview and is kept nowhere here.
#[tauri::command]
pub async fn reveal_secret_offer(
    state: State<'_, AppState>,
    id: String,
) -> CmdResult<Option<SecretReveal>> {
    state.core.reveal_secret_offer(&id).await.map_err(ui_error)
}

/// The latest `syncState` event (null before sync reported anything), for a webview that
/// subscribed after it was emitted.
#[tauri::command]
pub fn sync_state(state: State<'_, AppState>) -> Option<CoreEvent> {
    state.last_sync.get()
}

/// Opens a link from a message body in the system browser; only http(s) and mailto.
#[tauri::command]
pub fn open_external<R: Runtime>(app: AppHandle<R>, url: String) -> CmdResult<()> {
    if !is_external_link(&url) {
        return Err(shell_error(
            "invalid_link",
            "only http, https and mailto links open",
        ));
    }
    app.opener()
        .open_url(url, None::<&str>)
        .map_err(|e| shell_error("open_failed", e.to_string()))
}

fn is_external_link(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
}

/// Trims and drops a trailing slash; only http(s) URLs are accepted.
pub fn normalize_relay_url(url: &str) -> CmdResult<String> {
    let trimmed = url.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => {
            Ok(trimmed.to_owned())
        }
        _ => Err(shell_error(
            "invalid_relay_url",
            "the relay URL must start with http:// or https://",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relay_urls_are_normalized_and_checked() {
        assert_eq!(
            normalize_relay_url(" https://relay.example.com/ ").ok(),
            Some("https://relay.example.com".to_owned()),
            "trailing slash and spaces are dropped"
        );
        assert!(
            normalize_relay_url("ftp://x").is_err(),
            "only http(s) is a relay"
        );
        assert!(
            normalize_relay_url("https://").is_err(),
            "a host is required"
        );
    }

    #[test]
    fn only_web_and_mail_links_open() {
        assert!(is_external_link("https://example.com"), "https opens");
        assert!(is_external_link("MAILTO:a@b.c"), "mailto opens");
        assert!(!is_external_link("file:///etc/passwd"), "file never opens");
        assert!(
            !is_external_link("javascript:alert(1)"),
            "script never opens"
        );
    }
}
