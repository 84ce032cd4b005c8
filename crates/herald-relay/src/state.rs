//! Shared state of a running relay: the store, the clock, the live-update hub and the
//! shutdown signal. Cheap to clone (everything behind `Arc`).

use std::sync::Arc;

use herald_protocol::wire::MessageRecord;
use herald_protocol::{AccountId, ConnectionId};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::clock::{Clock, SystemClock};
use crate::error::{ApiError, Result};
use crate::hub::{Change, Hub};
use crate::store::agents::AgentStore;
use crate::store::events::EventStore;
use crate::store::files::FileStore;
use crate::store::secrets::SecretStore;
use crate::store::sqlite::SqliteStore;
use crate::store::{Store, StoreError, StoreResult};
use crate::RelayConfig;

#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub store: Arc<dyn Store>,
    /// Secret answers and offers (docs/secrets.md); the same database as `store`.
    pub secrets: Arc<dyn SecretStore>,
    /// Encrypted files' metadata (docs/files.md); the same database as `store`.
    pub files: Arc<dyn FileStore>,
    /// Encrypted files' bytes under `<data_dir>/files`.
    pub blobs: crate::blobs::Blobs,
    pub clock: Arc<dyn Clock>,
    pub hub: Hub,
    pub config: RelayConfig,
    /// Cancelled when the relay shuts down: sockets close, the sweeper stops.
    pub shutdown: CancellationToken,
    /// Open websocket tasks, awaited on shutdown.
    pub sockets: TaskTracker,
    /// Open websockets per account and credential, within `config.socket_limits`.
    pub socket_slots: crate::ws_limits::SocketRegistry,
    /// Budgets of the unauthenticated device routes (docs/devices.md).
    pub limits: crate::limits::Limits,
    /// Agent credentials, notifications, budgets and presence (docs/agents.md).
    pub agents: crate::agents::Agents,
    /// Reply-event subscriptions and webhook deliveries (docs/mcp.md, "Reply event").
    pub events: crate::events::Events,
}

impl AppState {
    /// Opens the SQLite store at `data_dir/relay.db` with the wall clock.
    pub fn open(config: RelayConfig) -> Result<AppState> {
        Self::open_with_clock(config, Arc::new(SystemClock))
    }

    /// Opens the SQLite store with a given clock (tests pass a settable one).
    pub fn open_with_clock(config: RelayConfig, clock: Arc<dyn Clock>) -> Result<AppState> {
        if let Some(public) = &config.public_url {
            crate::public_url::parse_public_url(public)?;
        }
        std::fs::create_dir_all(&config.data_dir)?;
        // Ciphertext and metadata only, but still nobody else's business: owner-only.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&config.data_dir, std::fs::Permissions::from_mode(0o700))?;
        }
        let store = SqliteStore::open(config.data_dir.join("relay.db"))?;
        crate::blobs::prepare(&config.data_dir)?;
        Ok(Self::with_store(config, Arc::new(store), clock))
    }

    /// State over any store implementation.
    pub fn with_store<S: Store + SecretStore + FileStore + AgentStore + EventStore>(
        config: RelayConfig,
        store: Arc<S>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        AppState {
            inner: Arc::new(Inner {
                agents: crate::agents::Agents::new(store.clone(), config.agent_limits),
                events: crate::events::Events::new(
                    store.clone(),
                    config.webhooks.clone(),
                    config.data_dir.clone(),
                ),
                secrets: store.clone(),
                files: store.clone(),
                blobs: crate::blobs::Blobs::new(&config.data_dir),
                store,
                clock,
                hub: Hub::default(),
                config,
                shutdown: CancellationToken::new(),
                sockets: TaskTracker::new(),
                socket_slots: Default::default(),
                limits: Default::default(),
            }),
        }
    }

    pub fn config(&self) -> &RelayConfig {
        &self.inner.config
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    pub(crate) fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.inner.clock.now()
    }

    pub(crate) fn hub(&self) -> &Hub {
        &self.inner.hub
    }

    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.shutdown
    }

    /// Runs a blocking store call on tokio's blocking pool.
    pub(crate) async fn store_call<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> StoreResult<T> + Send + 'static,
    {
        let store = self.inner.store.clone();
        tokio::task::spawn_blocking(move || f(store.as_ref()))
            .await
            .map_err(|e| StoreError::Task(e.to_string()))?
    }

    /// Like [`Self::store_call`], converting errors to catalog responses.
    pub(crate) async fn store<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> StoreResult<T> + Send + 'static,
    {
        self.store_call(f).await.map_err(ApiError::from)
    }

    /// Nudges the sockets of the record's account.
    pub(crate) fn notify(&self, account: &AccountId, record: &MessageRecord) {
        let sender_connection = if record.sender.kind == "connection" {
            ConnectionId::parse(&record.sender.id)
        } else {
            None
        };
        self.inner.hub.publish(
            account,
            Change::Message {
                revision: record.revision,
                sender_connection,
            },
        );
    }

    /// Closes the sockets of a revoked connection.
    pub(crate) fn notify_revoked(&self, account: &AccountId, connection: &ConnectionId) {
        self.inner
            .hub
            .publish(account, Change::ConnectionRevoked(connection.clone()));
    }

    /// Expires every pending request whose deadline has passed by the relay's clock, giving
    /// each a new revision and nudging its sockets. The sweeper calls this periodically; tests
    /// may call it directly. Returns how many requests expired.
    pub async fn sweep_expired(&self) -> Result<usize> {
        let now = self.now();
        let mut total = 0;
        loop {
            let changed = self.store_call(move |s| s.expire_due(now)).await?;
            if changed.is_empty() {
                return Ok(total);
            }
            total += changed.len();
            for c in &changed {
                self.notify(&c.account_id, &c.record);
            }
        }
    }
}
