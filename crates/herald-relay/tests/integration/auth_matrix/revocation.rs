//! What a credential holds open when it is revoked: its websockets close (1008, policy) and a
//! `GET /v1/replies` it is waiting in ends with 401, never handing over a reply. The matrix
//! checks each new request; these check the ones already running.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::Method;
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::inbox::{account_body, backup};
use super::world::{agent_key, connection, enrol, Reply, World};

type Socket = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// A bound on waiting for a frame, not a delay.
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);

async fn open(w: &World, bearer: &str) -> Socket {
    let mut req = w.relay.ws_url().into_client_request().expect("a request");
    req.headers_mut().insert(
        "Authorization",
        format!("Bearer {bearer}").parse().expect("a header value"),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(req)
        .await
        .expect("the upgrade is accepted");
    // The first frame is the current revision.
    match next(&mut socket).await {
        Frame::Text => socket,
        other => panic!("expected the first sync frame, got {other:?}"),
    }
}

#[derive(Debug)]
enum Frame {
    Text,
    Close(Option<CloseCode>),
}

/// The next text or close frame (pings skipped); a socket that ends without a Close frame
/// counts as closed without a code.
async fn next(socket: &mut Socket) -> Frame {
    loop {
        let msg = tokio::time::timeout(FRAME_TIMEOUT, socket.next())
            .await
            .expect("a frame within the bound");
        match msg {
            Some(Ok(Message::Text(_))) => return Frame::Text,
            Some(Ok(Message::Close(frame))) => return Frame::Close(frame.map(|f| f.code)),
            Some(Ok(_)) => continue,
            None | Some(Err(_)) => return Frame::Close(None),
        }
    }
}

/// Reads frames until the socket closes; sync frames before it are allowed.
async fn closed_with(socket: &mut Socket) -> Option<CloseCode> {
    loop {
        if let Frame::Close(code) = next(socket).await {
            return code;
        }
    }
}

pub async fn sockets_close_when_their_credential_is_revoked() {
    let w = World::new().await;
    let url = w.relay.url.clone();
    let (device_id, device_token) = enrol(&url, &w.client, &w.a, "Soon revoked").await;
    let conn = connection(&url, &w.client, &w.a, "Soon revoked").await;
    let mut device_socket = open(&w, &device_token).await;
    let mut conn_socket = open(&w, &conn.bearer).await;
    let mut first_device = open(&w, &w.a.device_token).await;

    w.revoke_device(&w.a, &device_id).await;
    assert_eq!(
        closed_with(&mut device_socket).await,
        Some(CloseCode::Policy),
        "a revoked device's socket closes with 1008"
    );
    let path = format!("/connections/{}", conn.id);
    w.send(Method::DELETE, &path, Some(&w.a.device_token))
        .await
        .expect(204, "revoke the connection");
    assert_eq!(
        closed_with(&mut conn_socket).await,
        Some(CloseCode::Policy),
        "a revoked connection's socket closes with 1008"
    );
    // The other device's socket stays open and is nudged for the next change.
    w.fresh_request().await;
    if let Frame::Close(code) = next(&mut first_device).await {
        panic!("a live device's socket closed ({code:?})");
    }
    w.relay.shutdown().await;
}

pub async fn reset_closes_every_socket_of_the_old_account() {
    let w = World::new().await;
    let mut device_socket = open(&w, &w.b.device_token).await;
    let mut conn_socket = open(&w, &w.b.connection.bearer).await;
    w.notify(&w.b.agent_key, "wait-b", true).await;
    let waiting = wait_for_reply(&w, &w.b.agent_key, "wait-b");
    // Give the call time to start waiting (if it had not, it is refused all the same).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (req, keys) = account_body();
    let mut body = serde_json::to_value(req).expect("a body");
    body["backup"] = backup(&herald_crypto::RecoveryKey::generate(), &keys);
    w.send_json(Method::POST, "/keys/reset", Some(&w.b.device_token), body)
        .await
        .expect(201, "B resets its account");
    for (socket, who) in [
        (&mut device_socket, "the device"),
        (&mut conn_socket, "the connection"),
    ] {
        assert_eq!(
            closed_with(socket).await,
            Some(CloseCode::Policy),
            "{who}'s socket of the reset account closes with 1008"
        );
    }
    let reply = tokio::time::timeout(Duration::from_secs(40), waiting)
        .await
        .expect("the waiting call ends")
        .expect("the task");
    assert_eq!(
        reply.status, 401,
        "a waiting call of the reset account: {}",
        reply.text
    );
    w.relay.shutdown().await;
}

pub async fn a_waiting_reply_call_ends_when_its_key_is_revoked() {
    let w = World::new().await;
    let url = w.relay.url.clone();
    let (key_id, key) = agent_key(&url, &w.client, &w.a.device_token, "Soon revoked").await;
    w.notify(&key, "wait-1", true).await;
    let notification = w.notification_of_a("wait-1").await;
    let waiting = wait_for_reply(&w, &key, "wait-1");
    // Give the call time to start waiting (if it had not, it is refused all the same).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let path = format!("/agent-keys/{key_id}");
    w.send(Method::DELETE, &path, Some(&w.a.device_token))
        .await
        .expect(204, "revoke the waiting key");
    let path = format!("/notifications/{notification}/reply");
    w.send_json(
        Method::POST,
        &path,
        Some(&w.a.device_token),
        json!({"text": "the secret plan"}),
    )
    .await
    .expect(200, "A's device replies");
    let reply = tokio::time::timeout(Duration::from_secs(40), waiting)
        .await
        .expect("the waiting call ends")
        .expect("the task");
    assert!(
        !reply.text.contains("the secret plan"),
        "a revoked key is never handed the reply: {}",
        reply.text
    );
    assert_eq!(
        reply.status, 401,
        "the waiting call ends 401: {}",
        reply.text
    );
    assert_eq!(reply.json()["error"], "unauthorized");
    w.relay.shutdown().await;
}

/// `GET /v1/replies/{id}?wait=30` with `key`, running on its own task.
fn wait_for_reply(w: &World, key: &str, id: &str) -> tokio::task::JoinHandle<Reply> {
    let req = w
        .request(Method::GET, &format!("/v1/replies/{id}?wait=30"), Some(key))
        .send();
    tokio::spawn(async move {
        let resp = req.await.expect("the relay answers");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("a body");
        Reply {
            status,
            headers,
            text,
        }
    })
}
