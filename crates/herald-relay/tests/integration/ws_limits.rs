//! Socket limits of `GET /ws` (docs/protocol.md, "Socket limits"), against a real relay:
//! one socket past a credential's limit closes that credential's oldest socket (Close code
//! 4000) and leaves the others working; past the account's limit, a credential holding no
//! socket is refused with `429 too_many_sockets`, while one holding a socket replaces its own.

use crate::common;

use common::*;
use futures_util::StreamExt;
use herald_protocol::ErrorCode;
use herald_relay::ws_limits::{SocketLimits, REPLACED_CLOSE_CODE};
use herald_relay::{AppState, RelayConfig};
use herald_testkit::fixtures;
use herald_testkit::{Api, TestRelay};
use tokio_tungstenite::tungstenite::Message;

/// Reads frames until the relay closes the socket; returns the Close code.
async fn close_code(socket: &mut Socket) -> Option<u16> {
    loop {
        let msg = tokio::time::timeout(FRAME_TIMEOUT, socket.next())
            .await
            .expect("the close arrives in time");
        match msg {
            Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            None | Some(Err(_)) => return None,
        }
    }
}

/// Opens a socket and reads its first sync frame (the relay has registered it by then).
async fn open(ws_url: &str, bearer: &str) -> Socket {
    let mut socket = connect_ws(ws_url, bearer).await;
    next_sync(&mut socket).await;
    socket
}

#[tokio::test]
async fn a_credential_past_its_limit_replaces_its_oldest_socket() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let per_credential = SocketLimits::default().per_credential;
    let ws = relay.ws_url();
    let mut sockets = Vec::new();
    for _ in 0..per_credential {
        sockets.push(open(&ws, &account.device_token).await);
    }
    // The reconnect after a network change: the oldest socket may be half dead.
    let mut newest = open(&ws, &account.device_token).await;
    assert_eq!(
        close_code(&mut sockets[0]).await,
        Some(REPLACED_CLOSE_CODE),
        "the oldest socket of the device is closed with 4000"
    );
    let record = send_from_device(&relay.url, &account, false).await;
    for socket in sockets
        .iter_mut()
        .skip(1)
        .chain(std::iter::once(&mut newest))
    {
        assert_eq!(
            next_sync(socket).await,
            record.revision,
            "the remaining sockets still get nudges"
        );
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn a_full_account_refuses_new_credentials_but_not_a_reconnecting_one() {
    let dir = tempfile::tempdir().unwrap();
    let config = RelayConfig {
        data_dir: dir.path().to_path_buf(),
        socket_limits: SocketLimits {
            per_credential: 2,
            per_account: 3,
        },
        ..Default::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let state = AppState::open(config).unwrap();
    let relay = herald_relay::spawn_with_state(state, listener).unwrap();
    let url = relay.url();
    let ws = format!("{}/ws", url.replacen("http", "ws", 1));
    let account = fixtures::create_account(&url).await;
    let first = fixtures::create_connection(&url, &account, "agent one").await;
    let second = fixtures::create_connection(&url, &account, "agent two").await;
    let other_account = fixtures::create_account(&url).await;

    let mut device_a = open(&ws, &account.device_token).await;
    let device_b = open(&ws, &account.device_token).await;
    let mut agent = open(&ws, &first.bearer).await;
    assert_eq!(
        try_connect_ws(&ws, Some(&second.bearer)).await.err(),
        Some(ErrorCode::TooManySockets.status()),
        "a credential with no socket is refused on a full account"
    );
    let body = Api::new(&url)
        .connection(&second)
        .header("Connection", "Upgrade")
        .header("Upgrade", "websocket")
        .header("Sec-WebSocket-Version", "13")
        .header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
        .get("/ws")
        .await
        .error(ErrorCode::TooManySockets, "the refusal's body");
    assert!(body.message.contains("close some"), "{}", body.message);

    // The agent reconnects (its old socket half dead): it replaces its own, not refused.
    let _agent_again = open(&ws, &first.bearer).await;
    assert_eq!(close_code(&mut agent).await, Some(REPLACED_CLOSE_CODE));
    let _device_c = open(&ws, &account.device_token).await;
    assert_eq!(
        close_code(&mut device_a).await,
        Some(REPLACED_CLOSE_CODE),
        "the device's oldest is replaced"
    );
    // Other accounts have their own limit.
    let _elsewhere = open(&ws, &other_account.device_token).await;
    // A closed socket frees its place.
    drop(device_b);
    let mut freed = None;
    // Bounded polling: the relay frees the place when its session task ends.
    for _ in 0..600 {
        match try_connect_ws(&ws, Some(&second.bearer)).await {
            Ok(socket) => {
                freed = Some(socket);
                break;
            }
            Err(status) => {
                assert_eq!(status, 429, "refused only for the limit");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
    assert!(
        freed.is_some(),
        "the place of a closed socket is given to the next one"
    );
    relay.shutdown().await;
}
