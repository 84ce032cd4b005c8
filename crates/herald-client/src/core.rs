//! The device core's public API (STUB: signatures are the contract; bodies land next).

use std::path::PathBuf;

use crate::view::*;
use crate::{Error, Result};

/// How to open the core.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Directory holding the cache database, sealed keys and (fallback) key file.
    pub data_dir: PathBuf,
    /// Name of this device as shown in device lists, e.g. the host name.
    pub device_name: String,
    /// Platform label: "linux", "macos", "windows", "cli".
    pub platform: String,
    /// Try the OS keychain first (true for the desktop; the CLI and tests pass false to use the
    /// 0600 file).
    pub use_keychain: bool,
}

/// Handle to the device core; cheap to clone, shareable across tasks.
#[derive(Clone)]
pub struct Core {
    _config: std::sync::Arc<CoreConfig>,
}

impl Core {
    /// Opens (creating if needed) the data dir and cache. Does not touch the network.
    pub fn open(config: CoreConfig) -> Result<Core> {
        Ok(Core {
            _config: std::sync::Arc::new(config),
        })
    }

    /// What the first screen should be.
    pub fn setup_state(&self) -> SetupState {
        SetupState {
            status: SetupStatus::NeedsSetup,
            account_id: None,
            device_id: None,
            device_name: None,
            relay_url: None,
            safety_code: None,
            secret_storage: SecretStorageKind::File,
            secret_storage_path: None,
        }
    }

    /// Creates a new account on `relay_url` with this device as its first device.
    pub async fn create_account(&self, _relay_url: &str) -> Result<OnboardResult> {
        Err(Error::Other("not implemented yet".into()))
    }

    /// Starts the background sync task (websocket + catch-up fetches). Idempotent.
    pub fn start_sync(&self) -> Result<()> {
        Err(Error::NotSetUp)
    }

    /// Subscribes to events for the UI.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<CoreEvent> {
        tokio::sync::broadcast::channel(1).1
    }

    /// Creates a connection for an agent; the token is returned once.
    pub async fn create_connection(&self, _name: &str) -> Result<NewConnection> {
        Err(Error::NotSetUp)
    }

    /// Lists this account's connections.
    pub async fn list_connections(&self) -> Result<Vec<ConnectionView>> {
        Err(Error::NotSetUp)
    }

    /// The inbox, newest first, from the local cache.
    pub async fn inbox(&self) -> Result<Vec<MessageSummary>> {
        Ok(vec![])
    }

    /// One message, decrypted and rendered, from the local cache.
    pub async fn message(&self, id: &str) -> Result<MessageView> {
        Err(Error::NotFound(id.into()))
    }

    /// Marks a message read on this device.
    pub async fn mark_read(&self, _id: &str) -> Result<()> {
        Ok(())
    }

    /// Validates, seals and posts an answer; returns the updated message.
    pub async fn answer(&self, id: &str, _input: AnswerInput) -> Result<MessageView> {
        Err(Error::NotFound(id.into()))
    }
}
