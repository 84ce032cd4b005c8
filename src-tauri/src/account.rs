//! The account steps around the core that belong to this app, without Tauri: where the relay
//! is (the embedded one started on demand), the `relay-url` file the CLI reads, starting sync
//! once the device has keys, and the demo agent (`HERALD_DEMO=1`). The commands in
//! commands.rs and devices.rs call these in one line each.

use herald_client::device_view::UnlockResult;
use herald_client::view::{OnboardResult, UiErrorCode};
use zeroize::Zeroizing;

use crate::commands::normalize_relay_url;
use crate::ipc::{shell_error, ui_error, CmdResult};
use crate::state::AppState;

impl AppState {
    /// Creates the account on `relay_url`, or on the embedded relay (started here) when it is
    /// `None`, records the relay for the CLI and starts sync; with the demo on, its agent
    /// starts sending. Errors: `invalid_relay_url`, `embedded_relay`, the core's
    /// (`already_set_up`, `network`, …).
    pub async fn create_account(&self, relay_url: Option<String>) -> CmdResult<OnboardResult> {
        let url = match relay_url {
            Some(url) => normalize_relay_url(&url)?,
            None => self
                .relay
                .start()
                .await
                .map_err(|e| shell_error(UiErrorCode::EmbeddedRelay, e.to_string()))?,
        };
        let result = self.core.create_account(&url).await.map_err(ui_error)?;
        self.unsaved_key.hold(&result);
        self.unlocked()?;
        if self.demo {
            let core = self.core.clone();
            tokio::spawn(async move {
                if let Err(error) = herald_client::demo::run_demo(&core).await {
                    tracing::warn!(%error, "demo agent failed");
                }
            });
        }
        Ok(result)
    }

    /// Unlocks this new device with the account's recovery key, then starts sync. This copy
    /// of the key is zeroized when this returns (the IPC layer's own copy of the request is
    /// not ours to wipe) and it is never logged. Errors: `invalid_relay_url`,
    /// `invalid_input` (malformed or mistyped key), `wrong_recovery_key`, `already_set_up`,
    /// `device_limit_reached`, `network`.
    pub async fn unlock_with_recovery_key(
        &self,
        relay_url: &str,
        recovery_key: Zeroizing<String>,
    ) -> CmdResult<UnlockResult> {
        let url = normalize_relay_url(relay_url)?;
        let result = self
            .core
            .unlock_with_recovery_key(&url, &recovery_key, &self.device_name)
            .await
            .map_err(ui_error)?;
        self.unlocked()?;
        Ok(result)
    }

    /// Waits until another device approves this one's pairing request, then starts sync.
    /// Errors: `wrong_pairing_code`, `pairing_expired`, `not_found`, `device_limit_reached`,
    /// `network`.
    pub async fn wait_pairing(&self, pairing_id: &str) -> CmdResult<UnlockResult> {
        let result = self.core.wait_pairing(pairing_id).await.map_err(ui_error)?;
        self.unlocked()?;
        Ok(result)
    }

    /// The device has keys now: start syncing, and record its relay for the CLI. The account
    /// exists at this point, so a relay-url file that cannot be written does not fail the
    /// command (a retry would only meet `already_set_up`): it is logged, and the CLI then
    /// needs `HERALD_URL`.
    fn unlocked(&self) -> CmdResult<()> {
        self.core.start_sync().map_err(ui_error)?;
        if let Some(url) = self.core.setup_state().relay_url {
            if let Err(error) = crate::embedded::write_relay_url(&self.data_dir, &url) {
                tracing::warn!(%error, "could not record the relay URL for the CLI");
            }
        }
        Ok(())
    }
}
