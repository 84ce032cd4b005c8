//! Device commands: unlock this new device (recovery key, or a pairing code approved on another
//! device), approve new devices, list and revoke devices, the safety code, and reset. One-line
//! adapters over `herald_client::Core` (docs/devices.md); unlocking goes through account.rs,
//! which also records the `relay-url` file for the CLI and starts sync.

use herald_client::device_view::{DeviceView, PairingRequestView, PairingStarted, UnlockResult};
use herald_client::view::OnboardResult;
use tauri::{AppHandle, Manager, Runtime};
use zeroize::Zeroizing;

use crate::commands::normalize_relay_url;
use crate::ipc::{ui_error, CmdResult};
use crate::state::AppState;

/// Unlocks this new device with the account's recovery key, typed (case and separators do
/// not matter), then starts sync (account.rs). The key is zeroized when this returns.
pub async fn unlock_with_recovery_key<R: Runtime>(
    app: AppHandle<R>,
    relay_url: String,
    recovery_key: String,
) -> CmdResult<UnlockResult> {
    let recovery_key = Zeroizing::new(recovery_key);
    app.state::<AppState>()
        .unlock_with_recovery_key(&relay_url, recovery_key)
        .await
}

/// Registers this new device's pairing request on `relay_url`; the UI shows the code.
pub async fn start_pairing<R: Runtime>(
    app: AppHandle<R>,
    relay_url: String,
) -> CmdResult<PairingStarted> {
    let state = app.state::<AppState>();
    let url = normalize_relay_url(&relay_url)?;
    state
        .core
        .start_pairing(&url, &state.device_name)
        .await
        .map_err(ui_error)
}

/// Waits until another device approves the request, then starts sync (account.rs).
pub async fn wait_pairing<R: Runtime>(
    app: AppHandle<R>,
    pairing_id: String,
) -> CmdResult<UnlockResult> {
    app.state::<AppState>().wait_pairing(&pairing_id).await
}

/// New devices waiting for approval from this one.
pub async fn pairing_requests<R: Runtime>(app: AppHandle<R>) -> CmdResult<Vec<PairingRequestView>> {
    let state = app.state::<AppState>();
    state.core.pairing_requests().await.map_err(ui_error)
}

/// Approves a new device with the code it shows (one attempt). Errors: `invalid_input`,
/// `wrong_pairing_code`, `pairing_expired`, `pairing_claimed`, `not_found`, `network`.
pub async fn approve_pairing<R: Runtime>(
    app: AppHandle<R>,
    pairing_id: String,
    code: String,
) -> CmdResult<DeviceView> {
    let state = app.state::<AppState>();
    let code = Zeroizing::new(code);
    state
        .core
        .approve_pairing(&pairing_id, &code)
        .await
        .map_err(ui_error)
}

/// The account's devices, revoked ones included, this one `current`.
pub async fn devices<R: Runtime>(app: AppHandle<R>) -> CmdResult<Vec<DeviceView>> {
    let state = app.state::<AppState>();
    state.core.devices().await.map_err(ui_error)
}

/// Revokes another device and rotates the account encryption key.
pub async fn revoke_device<R: Runtime>(app: AppHandle<R>, id: String) -> CmdResult<()> {
    let state = app.state::<AppState>();
    state.core.revoke_device(&id).await.map_err(ui_error)
}

/// Resets the account (new keys; the relay deletes all activity, files, connections and other
/// devices). Returns the new recovery key, shown once.
pub async fn reset_account<R: Runtime>(app: AppHandle<R>) -> CmdResult<OnboardResult> {
    let state = app.state::<AppState>();
    let result = state.core.reset_account().await.map_err(ui_error)?;
    state.unsaved_key.hold(&result);
    Ok(result)
}

/// The recovery key the person has not confirmed saving, to show again; null when none
/// (unsaved_key.rs).
pub async fn unsaved_recovery_key<R: Runtime>(
    app: AppHandle<R>,
) -> CmdResult<Option<OnboardResult>> {
    Ok(app.state::<AppState>().unsaved_key.get())
}

/// The person confirmed saving the recovery key: the core forgets it.
pub async fn recovery_key_saved<R: Runtime>(app: AppHandle<R>) -> CmdResult<()> {
    app.state::<AppState>().unsaved_key.saved();
    Ok(())
}

/// This account's safety code (30 digits in 6 groups of 5).
pub async fn safety_code<R: Runtime>(app: AppHandle<R>) -> CmdResult<String> {
    let state = app.state::<AppState>();
    state.core.safety_code().map_err(ui_error)
}
