//! A websocket client that stops reading (docs/protocol.md, `GET /ws`): once its receive
//! window and the relay's send buffer are full, the relay's next frame cannot be written; past
//! the write deadline (`RelayConfig::ws_write_timeout`) the relay drops the socket and the
//! device goes offline, and relay shutdown never waits on such a socket. Real relay on
//! 127.0.0.1:0, a raw TCP client with a 1 KiB receive buffer and 88-byte segments (a small
//! send buffer on the relay's side), real nudges from `POST /v1/notify`.

use crate::agent_common;
use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use herald_relay::{AgentLimits, RelayConfig, RunningRelay};
use herald_testkit::{fixtures, Api};
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Bound for anything the relay must do "soon" (a bound, not a delay).
const BOUND: Duration = Duration::from_secs(60);
/// Most notifications pushed at one unread socket; the relay's send buffer fills after a few
/// thousand sync frames of ~30 bytes.
const MAX_NOTIFIES: usize = 20_000;
/// Notifications in flight at once.
const PARALLEL: usize = 4;

async fn start(write_timeout: Duration) -> (RunningRelay, TempDir) {
    let started = agent_common::ManualRelay::start(RelayConfig {
        ws_write_timeout: Some(write_timeout),
        agent_limits: AgentLimits {
            requests_per_day: 1_000_000,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    (started.relay, started.dir)
}

/// Opens `GET /ws` over a socket with a tiny receive buffer and segment size, reads the
/// handshake response, and from then on never reads.
async fn stuck_socket(addr: SocketAddr, bearer: &str) -> TcpStream {
    let socket = socket2::Socket::new(
        socket2::Domain::IPV4,
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )
    .unwrap();
    socket.set_recv_buffer_size(1024).unwrap();
    socket.set_tcp_mss(88).unwrap();
    socket.connect(&addr.into()).unwrap();
    socket.set_nonblocking(true).unwrap();
    let mut stream = TcpStream::from_std(socket.into()).unwrap();
    let head = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Authorization: Bearer {bearer}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // Read the response head byte by byte, so no frame after it is consumed.
    let mut seen = Vec::new();
    while !seen.ends_with(b"\r\n\r\n") {
        let byte = tokio::time::timeout(BOUND, stream.read_u8())
            .await
            .expect("the upgrade answers in time")
            .expect("the upgrade response");
        seen.push(byte);
    }
    assert!(seen.starts_with(b"HTTP/1.1 101"), "upgraded: {seen:?}");
    stream
}

/// Whether `GET /v1/status`, as the agent `key`, says a device is online.
async fn online(url: &str, key: &str) -> bool {
    let status: Value = Api::new(url)
        .bearer(key)
        .get("/v1/status")
        .await
        .ok(200, "the agent reads the status");
    status["online"] == json!(true)
}

/// Pushes up to `count` notifications, `PARALLEL` at a time; stops early (returning how many
/// were sent) once `until` says so, checked after every round.
async fn push(url: &str, key: &str, count: usize, until: Option<&str>) -> usize {
    let mut sent = 0;
    while sent < count {
        let round: Vec<_> = (0..PARALLEL)
            .map(|i| {
                let (url, key) = (url.to_string(), key.to_string());
                tokio::spawn(async move {
                    let body = json!({"title": format!("n{}", sent + i), "body": "x"});
                    agent_common::notify_ok(&url, &key, body).await;
                })
            })
            .collect();
        for task in round {
            task.await.unwrap();
        }
        sent += PARALLEL;
        if let Some(key) = until {
            if sent % 200 == 0 && !online(url, key).await {
                return sent;
            }
        }
    }
    sent
}

#[tokio::test]
async fn a_socket_that_stops_reading_is_dropped_and_its_device_offline() {
    let (relay, _dir) = start(Duration::from_millis(300)).await;
    let url = relay.url();
    let account = fixtures::create_account(&url).await;
    let key = agent_common::agent_key(&url, &account.device_token, "notifier").await;
    let _socket = stuck_socket(relay.local_addr(), &account.device_token).await;
    assert!(
        online(&url, &key.key).await,
        "online while the socket is open"
    );
    // The default ping interval (20 s) is far away: only the write deadline can drop it.
    let sent = push(&url, &key.key, MAX_NOTIFIES, Some(&key.key)).await;
    let deadline = tokio::time::Instant::now() + BOUND;
    while online(&url, &key.key).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a socket that stopped reading is dropped (after {sent} notifications)"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The dropped socket's slot is free: the device connects again and is nudged.
    let ws = format!("{}/ws", url.replacen("http", "ws", 1));
    let mut fresh = connect_ws(&ws, &account.device_token).await;
    next_sync(&mut fresh).await;
    assert!(online(&url, &key.key).await, "online again");
    relay.shutdown().await;
}

#[tokio::test]
async fn shutdown_completes_with_a_socket_that_stopped_reading() {
    // A write deadline of an hour: only shutdown itself can end the blocked write.
    let (relay, _dir) = start(Duration::from_secs(3600)).await;
    let url = relay.url();
    let account = fixtures::create_account(&url).await;
    let key = agent_common::agent_key(&url, &account.device_token, "notifier").await;
    let _socket = stuck_socket(relay.local_addr(), &account.device_token).await;
    // Several times what fills the buffers (800–1,000 notifications on Linux 6.x loopback), so
    // the session is blocked in a write when shutdown begins.
    push(&url, &key.key, 6_000, None).await;
    assert!(
        online(&url, &key.key).await,
        "still online: the write waits"
    );
    tokio::time::timeout(BOUND, relay.shutdown())
        .await
        .expect("shutdown completes with a stuck socket");
}
