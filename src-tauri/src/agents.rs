//! Commands of the agent side and of banners (docs/desktop-notifications.md): notifications
//! from agents (NOT end-to-end encrypted: the relay saw them in transit), their receipts and
//! typed replies, quiet hours, this device's notification settings, what the window shows
//! (`ui_viewing`), speech, and Settings → Agents (agent keys and connectors). One-line
//! adapters over the device core and `notify_plan`, like `commands.rs`.

use herald_client::notification_view::{
    AgentKeyView, ConnectorView, NewAgentKey, NotificationReceiptKind, NotificationSettings,
    NotificationView, QuietHoursSettings,
};
use tauri::{AppHandle, Manager, Runtime};

use crate::ipc::ui_error;
use crate::speech::{Speaker, SpeechStatus};
use crate::state::AppState;
use herald_client::notify_plan::viewing::{OnScreen, Viewing};
use herald_client::view::UiError;

type CmdResult<T> = Result<T, UiError>;

/// Notifications from agents, newest first (each `endToEnd: false`).
pub async fn notifications<R: Runtime>(app: AppHandle<R>) -> CmdResult<Vec<NotificationView>> {
    let state = app.state::<AppState>();
    state.core.notifications().await.map_err(ui_error)
}

/// One notification. Errors: `not_found`.
pub async fn notification<R: Runtime>(
    app: AppHandle<R>,
    id: String,
) -> CmdResult<NotificationView> {
    let state = app.state::<AppState>();
    state.core.notification(&id).await.map_err(ui_error)
}

/// Marks a notification read on this device.
pub async fn mark_notification_read<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state
        .core
        .mark_notification_read(&id)
        .await
        .map_err(ui_error)
}

/// The inbox showed the notification in a visible window: that counts as displayed (the
/// first report sets `displayedAt`; later ones change nothing). Nothing is reported for a
/// notification held back by quiet hours or already displayed.
pub async fn notification_seen<R: Runtime>(
    app: AppHandle<R>,
    id: String,
) -> CmdResult<NotificationView> {
    let state = app.state::<AppState>();
    let current = state.core.notification(&id).await.map_err(ui_error)?;
    if current.displayed_at.is_some() || current.suppressed || current.error.is_some() {
        return Ok(current);
    }
    state
        .core
        .notification_receipt(&id, NotificationReceiptKind::Displayed)
        .await
        .map_err(ui_error)
}

/// Sends the one typed reply (1–4,000 characters). Errors: `invalid_input`,
/// `already_answered`, `not_a_request` (no reply expected), `not_found`.
pub async fn reply_notification<R: Runtime>(
    app: AppHandle<R>,
    id: String,
    text: String,
) -> CmdResult<NotificationView> {
    let state = app.state::<AppState>();
    state
        .core
        .reply_notification(&id, &text)
        .await
        .map_err(ui_error)
}

/// Whether the system's speech service worked the last time it was tried.
pub async fn speech_status<R: Runtime>(app: AppHandle<R>) -> CmdResult<SpeechStatus> {
    let speaker = app.state::<Speaker>();
    Ok(speaker.status())
}

/// The account's quiet hours and whether they hold now.
pub async fn quiet_hours<R: Runtime>(app: AppHandle<R>) -> CmdResult<QuietHoursSettings> {
    let state = app.state::<AppState>();
    state.core.quiet_hours().await.map_err(ui_error)
}

/// Sets the quiet hours. Errors: `invalid_request` naming `start`, `end` or `timezone`.
pub async fn set_quiet_hours<R: Runtime>(
    app: AppHandle<R>,
    settings: QuietHoursSettings,
) -> CmdResult<QuietHoursSettings> {
    let state = app.state::<AppState>();
    state.core.set_quiet_hours(settings).await.map_err(ui_error)
}

/// This device's notification settings (banner mode, muted senders, sound, previews).
pub async fn notification_settings<R: Runtime>(
    app: AppHandle<R>,
) -> CmdResult<NotificationSettings> {
    let state = app.state::<AppState>();
    state.core.notification_settings().await.map_err(ui_error)
}

/// Saves this device's notification settings; returns them as saved. Errors: `invalid_input`
/// naming `muted`, `storage`.
/// The tray is redrawn: with previews off it must stop naming requests by title at once.
pub async fn set_notification_settings<R: Runtime>(
    app: AppHandle<R>,
    settings: NotificationSettings,
) -> CmdResult<NotificationSettings> {
    let state = app.state::<AppState>();
    let saved = state
        .core
        .set_notification_settings(settings)
        .await
        .map_err(ui_error)?;
    crate::tray::redraw_soon(&app);
    Ok(saved)
}

/// What the window shows: the message or notification open in the reading pane (`null` for
/// none) and whether the window has the focus. Its banner is skipped only while both hold.
pub async fn ui_viewing<R: Runtime>(
    app: AppHandle<R>,
    message_id: Option<String>,
    focused: bool,
) -> CmdResult<()> {
    let on_screen = app.state::<OnScreen>();
    on_screen.report(Viewing {
        message_id,
        focused,
    });
    Ok(())
}

/// Agent keys that are not revoked.
pub async fn agent_keys<R: Runtime>(app: AppHandle<R>) -> CmdResult<Vec<AgentKeyView>> {
    let state = app.state::<AppState>();
    state.core.agent_keys().await.map_err(ui_error)
}

/// Creates an agent key; its `key` is in this answer only (shown once, kept nowhere).
pub async fn create_agent_key<R: Runtime>(
    app: AppHandle<R>,
    name: String,
) -> CmdResult<NewAgentKey> {
    let state = app.state::<AppState>();
    state.core.create_agent_key(&name).await.map_err(ui_error)
}

/// Revokes an agent key. Errors: `not_found`.
pub async fn revoke_agent_key<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state.core.revoke_agent_key(&id).await.map_err(ui_error)
}

/// Connectors that are not revoked.
pub async fn connectors<R: Runtime>(app: AppHandle<R>) -> CmdResult<Vec<ConnectorView>> {
    let state = app.state::<AppState>();
    state.core.connectors().await.map_err(ui_error)
}

/// Approves the connector whose OAuth device flow shows `user_code`. Errors:
/// `invalid_request`, `not_found` (no connector waits with that code).
pub async fn approve_connector<R: Runtime>(
    app: AppHandle<R>,
    user_code: String,
    name: Option<String>,
) -> CmdResult<ConnectorView> {
    let state = app.state::<AppState>();
    state
        .core
        .approve_connector(&user_code, name.as_deref())
        .await
        .map_err(ui_error)
}

/// Denies the connector showing `user_code`. Errors: as `approve_connector`.
pub async fn deny_connector<R: Runtime>(app: AppHandle<R>, user_code: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state
        .core
        .deny_connector(&user_code)
        .await
        .map_err(ui_error)
}

/// Revokes a connector. Errors: `not_found`.
pub async fn revoke_connector<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state.core.revoke_connector(&id).await.map_err(ui_error)
}
