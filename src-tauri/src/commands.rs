//! One-line adapters from the webview to the device core (or to account.rs for onboarding).
//! Each returns the core's view types or a `UiError {code, message, fields}` whose code is a
//! [`UiErrorCode`]; the contract (contract/list.rs) types them for the UI.

use herald_client::view::{
    AnswerInput, ConnectionView, CoreEvent, InboxPage, MessageSummary, MessageView, NewConnection,
    OnboardResult, SetupState, UiErrorCode,
};
use herald_client::SecretReveal;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_opener::OpenerExt;

use crate::ipc::{shell_error, ui_error, CmdResult};
use crate::state::AppState;

pub async fn setup_state<R: Runtime>(app: AppHandle<R>) -> CmdResult<SetupState> {
    let state = app.state::<AppState>();
    Ok(state.core.setup_state())
}

/// Creates the account on `relay_url`, or on the embedded relay (started here) when it is null,
/// then starts sync (account.rs).
pub async fn create_account<R: Runtime>(
    app: AppHandle<R>,
    relay_url: Option<String>,
) -> CmdResult<OnboardResult> {
    app.state::<AppState>().create_account(relay_url).await
}

pub async fn list_connections<R: Runtime>(app: AppHandle<R>) -> CmdResult<Vec<ConnectionView>> {
    let state = app.state::<AppState>();
    state.core.list_connections().await.map_err(ui_error)
}

pub async fn create_connection<R: Runtime>(
    app: AppHandle<R>,
    name: String,
    scopes: Option<Vec<String>>,
) -> CmdResult<NewConnection> {
    let state = app.state::<AppState>();
    state
        .core
        .create_connection(&name, scopes.as_deref())
        .await
        .map_err(ui_error)
}

pub async fn inbox<R: Runtime>(app: AppHandle<R>) -> CmdResult<Vec<MessageSummary>> {
    let state = app.state::<AppState>();
    state.core.inbox().await.map_err(ui_error)
}

/// A page of the inbox, newest first: the `limit` (1..=5,000) newest messages, or those
/// older than message `before` (the last id of the previous page). Errors: `not_found` when
/// `before` is no longer cached (reload from the newest), `storage`.
pub async fn inbox_page<R: Runtime>(
    app: AppHandle<R>,
    before: Option<String>,
    limit: u32,
) -> CmdResult<InboxPage> {
    let state = app.state::<AppState>();
    state
        .core
        .inbox_page(before.as_deref(), limit as usize)
        .await
        .map_err(ui_error)
}

pub async fn message<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<MessageView> {
    let state = app.state::<AppState>();
    state.core.message(&id).await.map_err(ui_error)
}

pub async fn mark_read<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state.core.mark_read(&id).await.map_err(ui_error)
}

/// Answers a request. From the webview, `input.files` maps file fields to the pick ids that
/// `pick_file` returned: each is swapped for the path kept here (a path sent by the webview is
/// never used: an unknown id is refused), and the core encrypts and uploads those files.
/// Secret values pass through to the core, which seals them to the asking connection only.
/// Errors: the core's, plus `unknown_pick`, and `already_answered` / `request_expired` /
/// `request_cancelled` when the request is no longer pending (nothing is posted then).
pub async fn answer<R: Runtime>(
    app: AppHandle<R>,
    id: String,
    input: AnswerInput,
) -> CmdResult<MessageView> {
    let state = app.state::<AppState>();
    state
        .answers
        .answer_picked(&state.core, &state.picks, &id, input)
        .await
}

/// Revokes a connection: its token is refused by the relay from the next request on.
pub async fn revoke_connection<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state.core.revoke_connection(&id).await.map_err(ui_error)
}

/// The conversation a message belongs to, oldest first.
pub async fn thread<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<Vec<MessageSummary>> {
    let state = app.state::<AppState>();
    state.core.thread(&id).await.map_err(ui_error)
}

/// Whether a typed recovery key opens this account's backup on the relay.
pub async fn check_recovery_key<R: Runtime>(app: AppHandle<R>, typed: String) -> CmdResult<bool> {
    let typed = zeroize::Zeroizing::new(typed);
    let state = app.state::<AppState>();
    state
        .core
        .check_recovery_key(&typed)
        .await
        .map_err(ui_error)
}

/// Opens a secret offer on this device: posts a one-time key for the sender to encrypt to.
pub async fn open_secret_offer<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state.core.open_secret_offer(&id).await.map_err(ui_error)
}

/// The offered secret once the sender has sent it (null until then). Handed over once; the
/// text passes through to the webview and is kept nowhere here.
pub async fn reveal_secret_offer<R: Runtime>(
    app: AppHandle<R>,
    id: String,
) -> CmdResult<Option<SecretReveal>> {
    let state = app.state::<AppState>();
    state.core.reveal_secret_offer(&id).await.map_err(ui_error)
}

/// The latest `syncState` event (null before sync reported anything), for a webview that
/// subscribed after it was emitted.
pub async fn sync_state<R: Runtime>(app: AppHandle<R>) -> CmdResult<Option<CoreEvent>> {
    let state = app.state::<AppState>();
    Ok(state.last_sync.get())
}

/// Opens a link from a message body in the system browser; only http(s) and mailto.
pub async fn open_external<R: Runtime>(app: AppHandle<R>, url: String) -> CmdResult<()> {
    if !is_external_link(&url) {
        return Err(shell_error(
            UiErrorCode::InvalidLink,
            "only http, https and mailto links open",
        ));
    }
    app.opener()
        .open_url(url, None::<&str>)
        .map_err(|e| shell_error(UiErrorCode::OpenFailed, e.to_string()))
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
            UiErrorCode::InvalidRelayUrl,
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
