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

/// Longest wait for a TCP connection to the relay.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest silence while waiting for (or reading) a response: past it the connection is taken
/// for dead (a pooled connection whose peer vanished without FIN or RST, after a network
/// change) and the request fails, or is retried once on a fresh connection where that is
/// safe (see [`RelayHttp`]). No relay route keeps a request silent this long; uploads use a
/// client without it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest any request may take (uploads set their own).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// Pooled connections idle longer than this are closed rather than reused. Kept below the
/// relay's 10 s idle close (docs/protocol.md, "Connection limits") so a request is never sent
/// on a connection the relay is closing at that moment.
pub const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(8);
/// TCP keepalive: first probe after this much idle time, then every 5 s, 3 probes; and
/// unacknowledged data for 20 s (`TCP_USER_TIMEOUT`, Linux) ends the connection.
const TCP_KEEPALIVE: Duration = Duration::from_secs(15);

/// A relay base URL plus, optionally, a bearer credential.
///
/// Transport: connections are pooled (idle ≤ [`POOL_IDLE_TIMEOUT`], TCP keepalive), a
/// response silent for [`READ_TIMEOUT`] fails the request, and a request that failed on the
/// transport (timeout, reset) is sent once more on a fresh connection when it is safe to repeat:
/// `GET` and `PUT`, and any request carrying an `Idempotency-Key` (not `DELETE`: a repeated
/// revocation would report `already_revoked` for one that happened). Refused
/// connections are not retried here (the relay is down: callers back off).
#[derive(Clone)]
pub struct RelayHttp {
    base: String,
    bearer: Option<Zeroizing<String>>,
    http: reqwest::Client,
    /// The same settings without [`READ_TIMEOUT`], for uploads (the relay answers once the
    /// whole body arrived, which may take long on a slow link).
    transfer: reqwest::Client,
    clock: crate::transport::relay_clock::RelayClock,
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
        let builder = || {
            let b = reqwest::Client::builder()
                .connect_timeout(CONNECT_TIMEOUT)
                .pool_idle_timeout(POOL_IDLE_TIMEOUT)
                .tcp_keepalive(TCP_KEEPALIVE)
                .tcp_keepalive_interval(Duration::from_secs(5))
                .tcp_keepalive_retries(3)
                .user_agent(concat!("herald/", env!("CARGO_PKG_VERSION")));
            #[cfg(target_os = "linux")]
            let b = b.tcp_user_timeout(Duration::from_secs(20));
            b
        };
        let http = builder()
            .timeout(REQUEST_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .build()
            .map_err(|e| {
                Error::Network(format!("{}: cannot set up HTTP: {e}", shown_url(base_url)))
            })?;
        let transfer = builder().build().map_err(|e| {
            Error::Network(format!("{}: cannot set up HTTP: {e}", shown_url(base_url)))
        })?;
        Ok(RelayHttp {
            base: base_url.trim_end_matches('/').to_owned(),
            bearer: None,
            http,
            transfer,
            clock: Default::default(),
        })
    }

    /// The relay's current time, from the `Date` headers of its responses (the local clock
    /// until one was seen). Deadlines and expiry are judged by it (docs/faults.md).
    pub fn relay_now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// A request on the client without [`READ_TIMEOUT`] (uploads; set a total timeout).
    pub(crate) fn transfer_request(&self, method: Method, path: &str) -> RequestBuilder {
        let req = self
            .transfer
            .request(method, format!("{}{}", self.base, path));
        match &self.bearer {
            Some(b) => req.bearer_auth(b.as_str()),
            None => req,
        }
    }

    /// Sends `req`; once more on a fresh connection when the transport failed and the request
    /// is safe to repeat (see [`RelayHttp`]). Records the relay's clock from the response.
    async fn execute(&self, req: RequestBuilder) -> Result<reqwest::Response> {
        let (client, request) = req.build_split();
        let request = request.map_err(|e| self.network(e))?;
        let again = if repeatable(&request) {
            request.try_clone()
        } else {
            None
        };
        let resp = match (client.execute(request).await, again) {
            (Ok(resp), _) => resp,
            (Err(e), Some(again)) if (e.is_timeout() || e.is_request()) && !e.is_connect() => {
                tracing::debug!(
                    error = %self.network(e),
                    "relay request failed on its connection; retrying once on a fresh one"
                );
                client.execute(again).await.map_err(|e| self.network(e))?
            }
            (Err(e), _) => return Err(self.network(e)),
        };
        self.clock.observe(resp.headers(), chrono::Utc::now());
        Ok(resp)
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

    /// The base URL as errors show it: without user name, password, query or fragment.
    pub fn shown_url(&self) -> String {
        shown_url(&self.base)
    }

    /// [`Error::Network`] for this relay: its URL ([`RelayHttp::shown_url`]), then `cause`.
    pub(crate) fn unreachable(&self, cause: impl std::fmt::Display) -> Error {
        Error::Network(format!("{}: {cause}", self.shown_url()))
    }

    /// [`Error::Network`] for a transport error of a request to this relay, with its causes
    /// ("connection refused", "invalid peer certificate"…).
    pub(crate) fn network(&self, e: reqwest::Error) -> Error {
        self.unreachable(transport_causes(e))
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
        let resp = self.execute(req).await?;
        let status = resp.status();
        let bytes = resp.bytes().await.map_err(|e| self.network(e))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| {
                Error::Protocol(format!(
                    "{} answered HTTP {status} with a body that is not the expected JSON ({e}): it does not look like a Herald relay; check --relay or HERALD_URL",
                    self.shown_url()
                ))
            });
        }
        let body =
            serde_json::from_slice::<ErrorBody>(&bytes).unwrap_or_else(|_| self.not_herald(status));
        Err(Error::Relay {
            status: status.as_u16(),
            body,
        })
    }

    /// Sends a request whose success has no body (204).
    pub(crate) async fn send_empty(&self, req: RequestBuilder) -> Result<()> {
        let resp = self.execute(req).await?;
        if resp.status().is_success() {
            return Ok(());
        }
        let status = resp.status();
        let body = resp
            .json::<ErrorBody>()
            .await
            .unwrap_or_else(|_| self.not_herald(status));
        Err(Error::Relay {
            status: status.as_u16(),
            body,
        })
    }

    /// The body of an error answer that carries no Herald error body: names the URL and
    /// says it does not look like a Herald relay.
    fn not_herald(&self, status: reqwest::StatusCode) -> ErrorBody {
        ErrorBody::with_message(
            ErrorCode::Internal,
            format!(
                "{} answered HTTP {status} without a Herald error body: it does not look like a Herald relay; check --relay or HERALD_URL",
                self.shown_url()
            ),
        )
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

    /// `GET /health`: whether the relay answers at all (any success).
    pub async fn health(&self) -> Result<()> {
        self.send::<serde_json::Value>(self.request(Method::GET, "/health"))
            .await
            .map(drop)
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
/// without the URL (the caller names the relay without its query or credentials).
fn transport_causes(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `url` without user name, password, query or fragment (for error messages); as given when
/// it does not parse.
pub fn shown_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.as_str().trim_end_matches('/').to_owned()
        }
        Err(_) => url.to_owned(),
    }
}

/// Whether repeating `request` cannot do anything twice: an idempotent method, or a request
/// carrying an `Idempotency-Key` (the relay answers a repeat with the original record).
fn repeatable(request: &reqwest::Request) -> bool {
    matches!(*request.method(), Method::GET | Method::HEAD | Method::PUT)
        || request.headers().contains_key("idempotency-key")
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
