//! The core's shared state: the configuration it was opened with, the local key, the cache,
//! the session (keys and directory, once set up), the event channel, the sync task, pending
//! pairings, rendered bodies and the reconnect policy. `Core` (core.rs) is the public handle
//! over it; the layers below `Core` (sync, outbox, devices, notifications) receive it as
//! `&Inner` and never name `Core`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::cache::Cache;
use crate::session::local_key::LoadedKey;
use crate::session::pending_pairings::PendingPairings;
use crate::session::Session;
use crate::view::{CoreEvent, MessageSummary};
use crate::{view::present, Error, Result};

/// How to open the core.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Directory holding the cache database, sealed device state and (fallback) key file.
    pub data_dir: PathBuf,
    /// Name of this device as shown in device lists, e.g. the host name.
    pub device_name: String,
    /// Platform label: "linux", "macos", "windows", "cli".
    pub platform: String,
    /// Try the OS keychain first (the desktop); false uses the 0600 file (CLI, tests).
    pub use_keychain: bool,
}

pub(crate) struct Inner {
    pub(crate) config: CoreConfig,
    pub(crate) local: LoadedKey,
    pub(crate) cache: Arc<Cache>,
    pub(crate) session: RwLock<Option<Arc<Session>>>,
    pub(crate) events: broadcast::Sender<CoreEvent>,
    pub(crate) sync_task: Mutex<Option<JoinHandle<()>>>,
    /// Pairing requests this new device registered and waits on (devices.rs).
    pub(crate) pairings: PendingPairings,
    /// Rendered message bodies by id, and which full renders are running (core/rendered.rs).
    pub(crate) rendered: Mutex<crate::view::render_cache::RenderCache>,
    /// How the sync task waits between reconnects ([`Core::set_reconnect_backoff`]).
    pub(crate) reconnect: Mutex<crate::transport::backoff::ReconnectBackoff>,
}

impl Inner {
    /// Runs blocking cache work off the async runtime.
    pub(crate) async fn cache_call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Cache) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let cache = self.cache.clone();
        tokio::task::spawn_blocking(move || f(&cache))
            .await
            .map_err(|e| Error::Storage(format!("cache task failed: {e}")))?
    }

    /// The reconnect policy the sync task follows now.
    pub(crate) fn reconnect_backoff(&self) -> crate::ReconnectBackoff {
        *self.reconnect.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn session(&self) -> Result<Arc<Session>> {
        self.session
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or(Error::NotSetUp)
    }

    pub(crate) async fn summary_of(&self, id: &str) -> Result<MessageSummary> {
        let id = id.to_owned();
        let row = self.cache_call(move |c| c.get(&id)).await?;
        Ok(present::summary(&self.local.key, &row))
    }
}
