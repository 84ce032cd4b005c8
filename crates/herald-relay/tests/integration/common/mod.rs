//! Helpers shared by the relay's integration tests: sending messages, feed reads and
//! websocket frames. Everything runs against a real relay on 127.0.0.1:0 (herald-testkit);
//! HTTP goes through herald-testkit's typed client ([`Api`], whose `Reply` checks statuses and
//! error bodies).
#![allow(dead_code)]

use std::time::Duration;

use futures_util::StreamExt;
use herald_protocol::wire::{MessagePage, MessageRecord, SendMessageRequest, ServerFrame};
use herald_protocol::Revision;
use herald_testkit::fixtures::{self, TestAccount};
use herald_testkit::Api;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Upper bound for waiting on a websocket frame; a bound, not a delay.
pub const FRAME_TIMEOUT: Duration = Duration::from_secs(10);

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Sends `req` as a new message from `bearer` (`POST /messages`, a fresh Idempotency-Key);
/// asserts `201` and returns the stored record.
pub async fn send(url: &str, bearer: &str, req: &SendMessageRequest) -> MessageRecord {
    Api::new(url).bearer(bearer).send_message(req).await
}

/// Sends a message (or request) from the account's device.
pub async fn send_from_device(
    url: &str,
    account: &TestAccount,
    expects_answer: bool,
) -> MessageRecord {
    let req = fixtures::message_request(&account.account_id, account.device(), expects_answer);
    send(url, &account.device_token, &req).await
}

/// `GET /messages?after=&limit=` as `bearer`; asserts `200` and returns the page.
pub async fn feed(url: &str, bearer: &str, after: Revision, limit: Option<u32>) -> MessagePage {
    let mut path = format!("/messages?after={after}");
    if let Some(l) = limit {
        path.push_str(&format!("&limit={l}"));
    }
    Api::new(url)
        .bearer(bearer)
        .get(&path)
        .await
        .ok(200, "the feed is readable")
}

/// Reads the whole feed after `after` in pages of `limit`; returns the records and the final
/// cursor.
pub async fn drain_feed(
    url: &str,
    bearer: &str,
    after: Revision,
    limit: u32,
) -> (Vec<MessageRecord>, Revision) {
    let mut cursor = after;
    let mut all = Vec::new();
    loop {
        let page = feed(url, bearer, cursor, Some(limit)).await;
        assert!(
            page.records.len() <= limit as usize,
            "a page never exceeds its limit"
        );
        all.extend(page.records);
        assert!(page.cursor >= cursor, "the cursor never moves back");
        cursor = page.cursor;
        if !page.has_more {
            return (all, cursor);
        }
    }
}

/// Opens `/ws` with a bearer.
pub async fn connect_ws(ws_url: &str, bearer: &str) -> Socket {
    try_connect_ws(ws_url, Some(bearer))
        .await
        .expect("the websocket upgrade succeeds")
}

/// Opens `/ws`; `Err(status)` when the upgrade is refused.
pub async fn try_connect_ws(ws_url: &str, bearer: Option<&str>) -> Result<Socket, u16> {
    let mut req = ws_url.into_client_request().expect("ws request");
    if let Some(b) = bearer {
        req.headers_mut().insert(
            "Authorization",
            format!("Bearer {b}").parse().expect("header value"),
        );
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("websocket connect failed unexpectedly: {e}"),
    }
}

/// The next frame that is not a ping/pong: a sync frame's revision, or `None` when the
/// relay closed the socket.
pub async fn next_frame(socket: &mut Socket) -> Option<ServerFrame> {
    loop {
        let msg = tokio::time::timeout(FRAME_TIMEOUT, socket.next())
            .await
            .expect("a frame arrives in time");
        match msg {
            Some(Ok(Message::Text(text))) => {
                return Some(serde_json::from_str(&text).expect("a ServerFrame"))
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(other)) => panic!("unexpected frame {other:?}"),
        }
    }
}

/// The next sync frame's revision.
pub async fn next_sync(socket: &mut Socket) -> Revision {
    match next_frame(socket).await {
        Some(ServerFrame::Sync { revision }) => revision,
        None => panic!("the socket closed before a sync frame"),
    }
}
