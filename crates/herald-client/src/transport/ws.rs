//! The live-update socket (`GET /ws`, scope events:read). The relay sends
//! `{"type":"sync","revision":N}` on connect and whenever the account changes; readers then
//! fetch `GET /messages?after=<cursor>`. Frames are hints: they may coalesce or repeat, so
//! everything downstream is idempotent.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use herald_protocol::wire::ServerFrame;
use herald_protocol::Revision;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::transport::http::RelayHttp;
use crate::{Error, Result};

/// Longest wait for the websocket handshake (TCP connect included).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest silence on an open socket before it counts as dead: a bit over two of the relay's
/// 20 s pings.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(45);

/// An open live-update socket.
pub struct SyncSocket {
    stream: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The relay's URL as errors name it.
    url: String,
}

impl SyncSocket {
    /// Opens `GET /ws` with the client's bearer in the Authorization header.
    pub async fn connect(http: &RelayHttp) -> Result<SyncSocket> {
        let mut request = http
            .ws_url()
            .into_client_request()
            .map_err(|e| Error::InvalidInput(format!("websocket URL: {e}")))?;
        if let Some(bearer) = http.bearer() {
            let value = HeaderValue::from_str(&format!("Bearer {bearer}"))
                .map_err(|_| Error::InvalidInput("credential has invalid characters".into()))?;
            request.headers_mut().insert("Authorization", value);
        }
        let connecting = tokio::time::timeout(HANDSHAKE_TIMEOUT, async {
            tokio_tungstenite::connect_async(request).await
        });
        let (stream, _) = connecting
            .await
            .map_err(|_| http.unreachable("the websocket handshake timed out"))?
            .map_err(|e| {
                use tokio_tungstenite::tungstenite::Error as WsError;
                match e {
                    WsError::Http(resp) if resp.status() == 401 => Error::Relay {
                        status: 401,
                        body: herald_protocol::ErrorBody::new(
                            herald_protocol::ErrorCode::Unauthorized,
                        ),
                    },
                    other => http.unreachable(other),
                }
            })?;
        Ok(SyncSocket {
            stream,
            url: http.shown_url(),
        })
    }

    /// Waits for the next sync frame; `Ok(None)` when the relay closed the socket. Pings are
    /// answered; unknown frames are skipped (forward compatibility). `Err(Network)` when no
    /// frame at all (the relay pings every 20 s) came for [`IDLE_TIMEOUT`]: the connection is
    /// taken as dead (a peer gone without closing, after sleep or a network change).
    pub async fn next_sync(&mut self) -> Result<Option<Revision>> {
        loop {
            let Ok(next) = tokio::time::timeout(IDLE_TIMEOUT, self.stream.next()).await else {
                return Err(Error::Network(format!(
                    "{}: no frame from the relay in time",
                    self.url
                )));
            };
            let Some(msg) = next else {
                return Ok(None);
            };
            match msg.map_err(|e| Error::Network(format!("{}: {e}", self.url)))? {
                Message::Text(text) => {
                    if let Ok(ServerFrame::Sync { revision }) = serde_json::from_str(&text) {
                        return Ok(Some(revision));
                    }
                }
                Message::Ping(payload) => {
                    let _ = self.stream.send(Message::Pong(payload)).await;
                }
                Message::Close(_) => return Ok(None),
                _ => {}
            }
        }
    }

    /// Closes the socket politely.
    pub async fn close(mut self) {
        let _ = self.stream.close(None).await;
    }
}
