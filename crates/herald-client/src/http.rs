//! HTTP client for the relay's inbox API (docs/protocol.md, "Inbox API"). One instance per
//! credential: a device session (`hds_…`) or a connection bearer (`hdr_…`). Errors from the
//! relay come back as [`Error::Relay`] carrying the catalog body, so callers branch on codes.

use std::time::Duration;

use herald_protocol::wire::{
    AnswerRequest, ConnectionList, CreateAccountRequest, CreateAccountResponse,
    CreateConnectionRequest, CreateConnectionResponse, KeysResponse, MessagePage, MessageRecord,
    RecoveryBackup, SendMessageRequest,
};
use herald_protocol::{ErrorBody, ErrorCode, MessageId, Revision};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;
use zeroize::Zeroizing;

use crate::{Error, Result};

/// A relay base URL plus, optionally, a bearer credential.
#[derive(Clone)]
pub struct RelayHttp {
    base: String,
    bearer: Option<Zeroizing<String>>,
    http: reqwest::Client,
}

impl std::fmt::Debug for RelayHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayHttp")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl RelayHttp {
    /// A client for `base_url` (e.g. `http://127.0.0.1:8457`), without a credential.
    pub fn new(base_url: &str) -> Result<RelayHttp> {
        let parsed = url::Url::parse(base_url)
            .map_err(|e| Error::InvalidInput(format!("relay URL {base_url:?}: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::InvalidInput(format!(
                "relay URL {base_url:?} must start with http:// or https://"
            )));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(120))
            .user_agent(concat!("herald/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::Network(e.to_string()))?;
        Ok(RelayHttp {
            base: base_url.trim_end_matches('/').to_owned(),
            bearer: None,
            http,
        })
    }

    /// The same relay with a bearer credential.
    pub fn with_bearer(&self, bearer: &str) -> RelayHttp {
        RelayHttp {
            bearer: Some(Zeroizing::new(bearer.to_owned())),
            ..self.clone()
        }
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// The bearer, for the websocket handshake.
    pub(crate) fn bearer(&self) -> Option<&str> {
        self.bearer.as_ref().map(|b| b.as_str())
    }

    pub(crate) fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let req = self.http.request(method, format!("{}{}", self.base, path));
        match &self.bearer {
            Some(b) => req.bearer_auth(b.as_str()),
            None => req,
        }
    }

    pub(crate) async fn send<T: DeserializeOwned>(&self, req: RequestBuilder) -> Result<T> {
        let resp = req.send().await.map_err(network)?;
        let status = resp.status();
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| Error::Network(e.to_string()))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes)
                .map_err(|e| Error::Protocol(format!("unexpected relay response: {e}")));
        }
        let body = serde_json::from_slice::<ErrorBody>(&bytes).unwrap_or_else(|_| {
            ErrorBody::with_message(ErrorCode::Internal, format!("relay answered HTTP {status}"))
        });
        Err(Error::Relay {
            status: status.as_u16(),
            body,
        })
    }

    /// Sends a request whose success has no body (204).
    pub(crate) async fn send_empty(&self, req: RequestBuilder) -> Result<()> {
        let resp = req.send().await.map_err(network)?;
        if resp.status().is_success() {
            return Ok(());
        }
        let status = resp.status().as_u16();
        let body = resp
            .json::<ErrorBody>()
            .await
            .unwrap_or_else(|_| ErrorBody::new(ErrorCode::Internal));
        Err(Error::Relay { status, body })
    }

    /// `POST /accounts`.
    pub async fn create_account(
        &self,
        req: &CreateAccountRequest,
    ) -> Result<CreateAccountResponse> {
        self.send(self.request(Method::POST, "/accounts").json(req))
            .await
    }

    /// `POST /connections` (device).
    pub async fn create_connection(
        &self,
        req: &CreateConnectionRequest,
    ) -> Result<CreateConnectionResponse> {
        self.send(self.request(Method::POST, "/connections").json(req))
            .await
    }

    /// `GET /connections` (device).
    pub async fn list_connections(&self) -> Result<ConnectionList> {
        self.send(self.request(Method::GET, "/connections")).await
    }

    /// `DELETE /connections/:id` (device).
    pub async fn revoke_connection(&self, id: &herald_protocol::ConnectionId) -> Result<()> {
        self.send_empty(self.request(Method::DELETE, &format!("/connections/{id}")))
            .await
    }

    /// `GET /keys`.
    pub async fn keys(&self) -> Result<KeysResponse> {
        self.send(self.request(Method::GET, "/keys")).await
    }

    /// `PUT /keys/backup` (device): stores the bundle sealed to the recovery key.
    pub async fn put_backup(&self, backup: &RecoveryBackup) -> Result<()> {
        self.send_empty(self.request(Method::PUT, "/keys/backup").json(backup))
            .await
    }

    /// `GET /keys/backup` (device).
    pub async fn backup(&self) -> Result<RecoveryBackup> {
        self.send(self.request(Method::GET, "/keys/backup")).await
    }

    /// `POST /messages` with an Idempotency-Key. A retry with the same key and body returns
    /// the original record.
    pub async fn send_message(
        &self,
        idempotency_key: &str,
        req: &SendMessageRequest,
    ) -> Result<MessageRecord> {
        let body = serde_json::to_vec(req).map_err(|e| Error::Protocol(e.to_string()))?;
        let builder = self
            .request(Method::POST, "/messages")
            .header("Idempotency-Key", idempotency_key)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        self.send(builder).await
    }

    /// `GET /messages?after=<cursor>&limit=<limit>`.
    pub async fn messages(&self, after: Revision, limit: u32) -> Result<MessagePage> {
        let path = format!("/messages?after={}&limit={limit}", after.0);
        self.send(self.request(Method::GET, &path)).await
    }

    /// `GET /messages/:id`.
    pub async fn message(&self, id: &MessageId) -> Result<MessageRecord> {
        self.send(self.request(Method::GET, &format!("/messages/{id}")))
            .await
    }

    /// `POST /messages/:id/answer` (device).
    pub async fn answer(&self, id: &MessageId, req: &AnswerRequest) -> Result<MessageRecord> {
        self.send(
            self.request(Method::POST, &format!("/messages/{id}/answer"))
                .json(req),
        )
        .await
    }

    /// `POST /messages/:id/cancel`.
    pub async fn cancel(&self, id: &MessageId) -> Result<MessageRecord> {
        self.send(self.request(Method::POST, &format!("/messages/{id}/cancel")))
            .await
    }

    /// The websocket URL for `GET /ws`.
    pub(crate) fn ws_url(&self) -> String {
        let rest = self
            .base
            .strip_prefix("https://")
            .map(|r| format!("wss://{r}"))
            .or_else(|| {
                self.base
                    .strip_prefix("http://")
                    .map(|r| format!("ws://{r}"))
            })
            .unwrap_or_else(|| self.base.clone());
        format!("{rest}/ws")
    }
}

/// A transport error with its causes ("connection refused", "invalid peer certificate"…),
/// without the URL's query or credentials.
pub(crate) fn network(e: reqwest::Error) -> Error {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    Error::Network(text)
}

/// Whether a relay error is the given catalog code.
pub fn is_code(err: &Error, code: ErrorCode) -> bool {
    matches!(err, Error::Relay { body, .. } if body.error == code.as_str())
}

/// Whether an HTTP status means "retry later" (network trouble or a 5xx).
pub(crate) fn is_transient(err: &Error) -> bool {
    match err {
        Error::Network(_) => true,
        Error::Relay { status, .. } => StatusCode::from_u16(*status)
            .map(|s| s.is_server_error())
            .unwrap_or(false),
        _ => false,
    }
}
