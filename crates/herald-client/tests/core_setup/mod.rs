//! Shared set-up of the device-core tests: a real relay (`herald_relay::spawn` on
//! 127.0.0.1:0 over a data dir the test owns), a device core on a temp data dir with its 0600
//! key file (no keychain), and an agent on a connection that core made.
#![allow(dead_code)] // each test file uses its own part

use std::path::Path;

use herald_client::agent::AgentClient;
use herald_client::{Core, CoreConfig};
use herald_crypto::ConnectionToken;

/// A real relay on 127.0.0.1:0 keeping its SQLite files in `data_dir` (the caller keeps the
/// dir alive for as long as the relay runs).
pub async fn spawn_relay(data_dir: &Path) -> herald_relay::RunningRelay {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    herald_relay::spawn(
        herald_relay::RelayConfig {
            data_dir: data_dir.to_path_buf(),
            public_url: None,
            ..Default::default()
        },
        listener,
    )
    .await
    .expect("relay starts")
}

/// Opens the core of device `name` on `dir` with the 0600 key file (no keychain), as a new
/// `herald` process would.
pub fn open_core(dir: &Path, name: &str) -> Core {
    Core::open(CoreConfig {
        data_dir: dir.to_path_buf(),
        device_name: name.into(),
        platform: "linux".into(),
        use_keychain: false,
    })
    .expect("core opens")
}

/// Makes connection `name` on `core` (which has an account) and an agent posting with its
/// token to `relay_url`.
pub async fn connect_agent(core: &Core, relay_url: &str, name: &str) -> AgentClient {
    let created = core
        .create_connection(name, None)
        .await
        .expect("connection");
    AgentClient::new(relay_url, ConnectionToken::parse(&created.token).unwrap())
        .expect("agent client")
}
