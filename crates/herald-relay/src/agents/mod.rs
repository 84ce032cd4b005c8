//! The agent side of the relay (docs/agents.md): who may call `/v1/*` (agent keys `hrk_…` and
//! connector tokens `hra_…`, [`auth`]), their daily budgets ([`budget`]), which accounts have
//! a device online ([`presence`]), quiet hours ([`quiet`]), and sealing notifications to the
//! account key on arrival ([`seal`]). The routes are in `routes::agents`.

pub mod auth;
pub mod budget;
pub(crate) mod presence;
pub(crate) mod quiet;
pub(crate) mod seal;

use std::sync::Arc;

use crate::state::AppState;
use crate::store::agents::AgentStore;

pub use auth::{authenticate_agent, AgentAuth};
pub use budget::{AgentLimits, BudgetKind};

/// New OAuth device authorizations per minute per client (they need no credential;
/// [`crate::limits`]).
const MAX_DEVICE_AUTHORIZATIONS_PER_MINUTE: u32 = 60;
/// New OAuth device authorizations per minute, all clients together: a hundred clients'
/// worth, so a handful of addresses cannot spend it (docs/protocol.md, "Connection limits").
const MAX_DEVICE_AUTHORIZATIONS_PER_MINUTE_TOTAL: u32 = 6_000;

/// The in-memory part of the agent side, held by the state.
pub(crate) struct Agents {
    pub store: Arc<dyn AgentStore>,
    pub budgets: budget::Budgets,
    pub presence: presence::Presence,
    /// Budget of `POST /oauth/device_authorization`.
    pub device_authorizations: crate::limits::Budget,
}

impl Agents {
    pub fn new(store: Arc<dyn AgentStore>, limits: AgentLimits) -> Agents {
        Agents {
            store,
            budgets: budget::Budgets::new(limits),
            presence: Default::default(),
            device_authorizations: crate::limits::Budget::new(
                MAX_DEVICE_AUTHORIZATIONS_PER_MINUTE,
                MAX_DEVICE_AUTHORIZATIONS_PER_MINUTE_TOTAL,
            ),
        }
    }
}

impl AppState {
    pub(crate) fn agents(&self) -> &Agents {
        &self.inner.agents
    }

    /// Runs a blocking agent-store call on tokio's blocking pool, converting errors to
    /// catalog responses.
    pub(crate) async fn agent_store<T, F>(&self, f: F) -> Result<T, crate::error::ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn AgentStore) -> crate::store::agents::AgentResult<T> + Send + 'static,
    {
        let store = self.inner.agents.store.clone();
        tokio::task::spawn_blocking(move || f(store.as_ref()))
            .await
            .map_err(crate::error::ApiError::internal)?
            .map_err(|e| match e.code() {
                Some(code) => crate::error::ApiError::new(code),
                None => crate::error::ApiError::internal(e),
            })
    }

    /// Deletes notifications older than 24 hours (their receipts and replies with them) and
    /// device grants 10 minutes past their expiry. The sweeper calls this every second.
    pub async fn sweep_agents(&self) -> crate::Result<usize> {
        let now = self.now();
        let notifications_before =
            now - chrono::TimeDelta::seconds(herald_protocol::notify::RECEIPT_RETENTION_SECS);
        let grants_before = now - chrono::TimeDelta::minutes(10);
        self.agent_store(move |s| s.sweep_agents(notifications_before, grants_before))
            .await
            .map_err(|e| crate::Error::Io(std::io::Error::other(e.0.to_string())))
    }
}
