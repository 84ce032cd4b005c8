//! The state every command shares (Tauri-managed): the device core, the embedded relay, the
//! last sync state, file picks and the answer gate. Below the commands and the wiring in
//! shell.rs, which creates it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use herald_client::answers::picks::PickedFiles;
use herald_client::gate::AnswerGate;
use herald_client::view::CoreEvent;
use herald_client::Core;

use crate::embedded::EmbeddedRelay;

/// Everything the commands share. The core is cheap to clone; the relay has its own lock.
pub struct AppState {
    pub core: Core,
    pub data_dir: PathBuf,
    pub relay: Arc<EmbeddedRelay>,
    pub last_sync: LastSyncState,
    /// Send the demo agent's messages after onboarding (`HERALD_DEMO=1`, the README's run).
    pub demo: bool,
    /// Files picked for file fields, by opaque id.
    pub picks: PickedFiles,
    /// This computer's name in the account's device list (the host name).
    pub device_name: String,
    /// One answer per request, whether from the window or a notification.
    pub answers: AnswerGate,
    /// A new recovery key until the person confirms saving it (unsaved_key.rs).
    pub unsaved_key: crate::unsaved_key::UnsavedRecoveryKey,
}

/// The latest `SyncState` event, kept so a webview that loads (or subscribes) after sync
/// started still learns whether it is connected.
#[derive(Clone, Default)]
pub struct LastSyncState(Arc<Mutex<Option<CoreEvent>>>);

impl LastSyncState {
    pub fn get(&self) -> Option<CoreEvent> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn record(&self, event: &CoreEvent) {
        if matches!(event, CoreEvent::SyncState { .. }) {
            *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(event.clone());
        }
    }
}
