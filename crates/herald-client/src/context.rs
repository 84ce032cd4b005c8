//! The core's state, in two parts.
//!
//! - [`Store`]: what the layers below `Core` work with — where this device keeps its files,
//!   the local key, the cache and the event channel. Sync, the outbox, key rotation and
//!   notification catch-up each receive a `&Store` (and the session and settings they need as
//!   arguments), nothing more.
//! - [`Inner`]: what only `Core` (core.rs, core/) holds besides — the configuration, the
//!   session slot, the sync task, pending pairings, rendered bodies and the reconnect policy.

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

/// What the layers below `Core` share: this device's files, its local key, the cache the key
/// seals, and the channel core events go out on (1,024 buffered; a slow listener misses the
/// oldest).
pub(crate) struct Store {
    /// The data dir (`CoreConfig::data_dir`): the cache, the sealed device state, key files.
    pub(crate) data_dir: PathBuf,
    pub(crate) local: LoadedKey,
    pub(crate) cache: Arc<Cache>,
    pub(crate) events: broadcast::Sender<CoreEvent>,
}

/// `Core`'s own state: the [`Store`] it lends the layers below, and what only it touches.
pub(crate) struct Inner {
    pub(crate) config: CoreConfig,
    pub(crate) store: Arc<Store>,
    pub(crate) session: RwLock<Option<Arc<Session>>>,
    pub(crate) sync_task: Mutex<Option<JoinHandle<()>>>,
    /// Pairing requests this new device registered and waits on (devices.rs).
    pub(crate) pairings: PendingPairings,
    /// Rendered message bodies by id, and which full renders are running (core/rendered.rs).
    pub(crate) rendered: Mutex<crate::view::render_cache::RenderCache>,
    /// How the sync task waits between reconnects ([`Core::set_reconnect_backoff`]).
    pub(crate) reconnect: Mutex<crate::transport::backoff::ReconnectBackoff>,
}

impl Store {
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

    pub(crate) async fn summary_of(&self, id: &str) -> Result<MessageSummary> {
        let id = id.to_owned();
        let row = self.cache_call(move |c| c.get(&id)).await?;
        Ok(present::summary(&self.local.key, &row))
    }
}

impl Inner {
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
}
