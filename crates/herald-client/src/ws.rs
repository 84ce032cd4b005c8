//! The live-update socket (`GET /ws`, scope events:read). The relay sends
//! `{"type":"sync","revision":N}` on connect and whenever the account changes; readers then
//! fetch `GET /messages?after=<cursor>`. Frames are hints: they may coalesce or repeat, so
//! everything downstream is idempotent.

use futures_util::{SinkExt, StreamExt};
use herald_protocol::wire::ServerFrame;
use herald_protocol::Revision;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::http::RelayHttp;
use crate::{Error, Result};

/// An open live-update socket.
pub struct SyncSocket {
    stream: WebSocketStream<MaybeTlsStream<TcpStream>>,
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
        let (stream, _) = tokio_tungstenite::connect_async(request)
            .await
            .map_err(|e| {
                use tokio_tungstenite::tungstenite::Error as WsError;
                match e {
                    WsError::Http(resp) if resp.status() == 401 => Error::Relay {
                        status: 401,
                        body: herald_protocol::ErrorBody::new(
                            herald_protocol::ErrorCode::Unauthorized,
                        ),
                    },
                    other => Error::Network(other.to_string()),
                }
            })?;
        Ok(SyncSocket { stream })
    }

    /// Waits for the next sync frame; `Ok(None)` when the relay closed the socket. Pings are
    /// answered; unknown frames are skipped (forward compatibility).
    pub async fn next_sync(&mut self) -> Result<Option<Revision>> {
        while let Some(msg) = self.stream.next().await {
            match msg.map_err(|e| Error::Network(e.to_string()))? {
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
        Ok(None)
    }

    /// Closes the socket politely.
    pub async fn close(mut self) {
        let _ = self.stream.close(None).await;
    }
}
