//! Helpers for the agent-side tests (docs/agents.md): a relay with chosen budgets and a
//! settable clock, agent keys, connectors through the real OAuth device flow, notify calls.
//! HTTP goes through herald-testkit's [`Api`]; the calls that a test checks return its
//! [`Reply`].
#![allow(dead_code)]

use std::sync::Arc;

use chrono::{DurationRound, TimeDelta, Utc};
use herald_protocol::agents::{AgentKeyCreated, DeviceAuthorizationResponse, TokenResponse};
use herald_relay::{
    spawn_with_state, AgentLimits, AppState, Clock, ManualClock, RelayConfig, RunningRelay,
};
use herald_testkit::{Api, Reply};
use serde_json::{json, Value};
use tempfile::TempDir;

/// A relay on 127.0.0.1:0 with a manual clock and the given budgets.
pub struct AgentRelay {
    pub url: String,
    pub state: AppState,
    pub clock: Arc<ManualClock>,
    pub dir: TempDir,
    relay: Option<RunningRelay>,
}

impl AgentRelay {
    pub async fn start(limits: AgentLimits) -> AgentRelay {
        Self::start_with(limits, None).await
    }

    pub async fn start_with(limits: AgentLimits, public_url: Option<String>) -> AgentRelay {
        let started = ManualRelay::start(RelayConfig {
            public_url,
            agent_limits: limits,
            ..Default::default()
        })
        .await;
        AgentRelay {
            url: started.relay.url(),
            state: started.state,
            clock: started.clock,
            dir: started.dir,
            relay: Some(started.relay),
        }
    }

    /// An anonymous caller of this relay; `.bearer(…)` or `.device(…)` give it a credential.
    pub fn api(&self) -> Api {
        Api::new(&self.url)
    }

    pub fn ws_url(&self) -> String {
        format!("{}/ws", self.url.replacen("http://", "ws://", 1))
    }

    pub async fn shutdown(mut self) {
        if let Some(r) = self.relay.take() {
            r.shutdown().await;
        }
    }
}

/// A relay on 127.0.0.1:0 over a new temp data dir, on a manual clock frozen at now (whole
/// milliseconds).
pub struct ManualRelay {
    pub relay: RunningRelay,
    pub state: AppState,
    pub clock: Arc<ManualClock>,
    pub dir: TempDir,
}

impl ManualRelay {
    /// Starts the relay with `config`, its `data_dir` replaced by the temp dir.
    pub async fn start(config: RelayConfig) -> ManualRelay {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = Utc::now()
            .duration_trunc(TimeDelta::milliseconds(1))
            .expect("truncating now");
        let clock = Arc::new(ManualClock::new(now));
        let state = AppState::open_with_clock(
            RelayConfig {
                data_dir: dir.path().to_path_buf(),
                ..config
            },
            clock.clone() as Arc<dyn Clock>,
        )
        .expect("opening the relay");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding 127.0.0.1:0");
        let relay = spawn_with_state(state.clone(), listener).expect("starting the relay");
        ManualRelay {
            relay,
            state,
            clock,
            dir,
        }
    }
}

/// Creates an agent key from a device; returns the created body (with the key).
pub async fn agent_key(url: &str, device_token: &str, name: &str) -> AgentKeyCreated {
    Api::new(url)
        .bearer(device_token)
        .post("/agent-keys", &json!({"name": name}))
        .await
        .ok(201, "set-up: create an agent key")
}

/// A form POST (OAuth routes), anonymous.
pub async fn form(url: &str, path: &str, fields: &[(&str, &str)]) -> Reply {
    Api::new(url).post_form(path, fields).await
}

pub const CLIENT_ID: &str = "test-connector";

/// Starts a device authorization for [`CLIENT_ID`].
pub async fn start_device_flow(url: &str) -> DeviceAuthorizationResponse {
    form(
        url,
        "/oauth/device_authorization",
        &[("client_id", CLIENT_ID), ("client_name", "Test MCP client")],
    )
    .await
    .ok(200, "set-up: device authorization")
}

/// One token poll.
pub async fn poll(url: &str, device_code: &str) -> Reply {
    form(
        url,
        "/oauth/token",
        &[
            (
                "grant_type",
                herald_protocol::agents::DEVICE_CODE_GRANT_TYPE,
            ),
            ("device_code", device_code),
            ("client_id", CLIENT_ID),
        ],
    )
    .await
}

/// A connector token through the whole device flow, approved by `device_token`.
pub async fn connector_token(url: &str, device_token: &str) -> String {
    let flow = start_device_flow(url).await;
    Api::new(url)
        .bearer(device_token)
        .post("/connectors/approve", &json!({"userCode": flow.user_code}))
        .await
        .expect_status(200, "set-up: approve the connector");
    let token: TokenResponse = poll(url, &flow.device_code)
        .await
        .ok(200, "set-up: collect the token");
    token.access_token
}

/// `POST /v1/notify` with a bearer.
pub async fn notify(url: &str, bearer: &str, body: Value) -> Reply {
    Api::new(url).bearer(bearer).post("/v1/notify", &body).await
}

/// `POST /v1/notify` expecting 201; returns the receipt.
pub async fn notify_ok(url: &str, bearer: &str, body: Value) -> Value {
    notify(url, bearer, body)
        .await
        .ok(201, "a new notification is stored")
}
