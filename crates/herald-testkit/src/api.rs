//! A typed client for the relay's HTTP API, for tests: [`Api`] sends, [`Reply`] holds the
//! whole answer and asserts on it. It replaces the raw `call(url, Method, path, token, body)`
//! blocks: a test says who calls (`relay.api().bearer(&conn.bearer)`), what (`.get("/keys")`)
//! and what it expects (`.ok::<KeysResponse>(200, "why")`, `.error(ErrorCode::X, "why")`).
//!
//! Every assertion names the test's reason and prints the body it got. Nothing is retried or
//! mocked: each call is one real request to a real relay.

use herald_protocol::wire::{MessageRecord, SendMessageRequest};
use herald_protocol::{ErrorBody, ErrorCode};
use reqwest::header::HeaderMap;
use reqwest::Method;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::fixtures::{new_idempotency_key, TestAccount, TestConnection};

/// Who calls the relay at `base`: no credential, or one bearer; optional extra headers.
#[derive(Clone, Debug)]
pub struct Api {
    base: String,
    bearer: Option<String>,
    headers: Vec<(String, String)>,
    http: reqwest::Client,
}

impl Api {
    /// An anonymous caller of the relay at `base` (`http://127.0.0.1:PORT`, no trailing `/`).
    pub fn new(base: &str) -> Api {
        Api {
            base: base.trim_end_matches('/').to_owned(),
            bearer: None,
            headers: Vec::new(),
            http: reqwest::Client::new(),
        }
    }

    /// The same caller with `token` as its bearer (`hds_…` device, `hdr_…` connection, …).
    pub fn bearer(&self, token: &str) -> Api {
        Api {
            bearer: Some(token.to_owned()),
            ..self.clone()
        }
    }

    /// The account's first device.
    pub fn device(&self, account: &TestAccount) -> Api {
        self.bearer(&account.device_token)
    }

    /// A connection (an agent).
    pub fn connection(&self, connection: &TestConnection) -> Api {
        self.bearer(&connection.bearer)
    }

    /// The same caller sending one more header on every request.
    pub fn header(&self, name: &str, value: &str) -> Api {
        let mut next = self.clone();
        next.headers.push((name.to_owned(), value.to_owned()));
        next
    }

    /// The relay's base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `GET path` (path starts with `/`, query included).
    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None::<&()>).await
    }

    /// `DELETE path`.
    pub async fn delete(&self, path: &str) -> Reply {
        self.send(Method::DELETE, path, None::<&()>).await
    }

    /// `POST path` with a JSON body.
    pub async fn post(&self, path: &str, body: &impl Serialize) -> Reply {
        self.send(Method::POST, path, Some(body)).await
    }

    /// `POST path` with no body.
    pub async fn post_empty(&self, path: &str) -> Reply {
        self.send(Method::POST, path, None::<&()>).await
    }

    /// `PUT path` with a JSON body.
    pub async fn put(&self, path: &str, body: &impl Serialize) -> Reply {
        self.send(Method::PUT, path, Some(body)).await
    }

    /// `PATCH path` with a JSON body.
    pub async fn patch(&self, path: &str, body: &impl Serialize) -> Reply {
        self.send(Method::PATCH, path, Some(body)).await
    }

    /// `POST path` with an `application/x-www-form-urlencoded` body (the OAuth routes):
    /// name/value pairs in order; a name may repeat.
    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        Reply::read(self.request(Method::POST, path).form(fields).send().await).await
    }

    /// `PUT path` with raw bytes and no Content-Type: a file upload (`PUT /files/{id}`,
    /// docs/files.md), which the relay stores as it comes. Bytes are sent with
    /// Content-Length; a streamed body (`reqwest::Body::wrap_stream`, reqwest's `stream`
    /// feature) is sent chunked, without it.
    pub async fn put_bytes(&self, path: &str, body: impl Into<reqwest::Body>) -> Reply {
        Reply::read(self.request(Method::PUT, path).body(body).send().await).await
    }

    /// Any method, with an optional JSON body.
    pub async fn send(&self, method: Method, path: &str, body: Option<&impl Serialize>) -> Reply {
        let mut request = self.request(method, path);
        if let Some(body) = body {
            request = request.json(body);
        }
        Reply::read(request.send().await).await
    }

    /// Any method with a raw body and its content type (bodies that are not JSON, or JSON
    /// that is broken on purpose).
    pub async fn send_raw(
        &self,
        method: Method,
        path: &str,
        content_type: &str,
        body: impl Into<reqwest::Body>,
    ) -> Reply {
        let request = self
            .request(method, path)
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body);
        Reply::read(request.send().await).await
    }

    /// The request before it is sent, for what the helpers above do not cover (a timeout, a
    /// streamed body); read its answer with [`Reply::read`].
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = &self.bearer {
            request = request.bearer_auth(token);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        request
    }

    /// `POST /messages` with the given Idempotency-Key, whatever the answer (a retry, a
    /// conflict, a refusal); [`Api::send_message`] is the short form for a new message.
    pub async fn post_message(&self, idempotency_key: &str, request: &SendMessageRequest) -> Reply {
        self.header("Idempotency-Key", idempotency_key)
            .post("/messages", request)
            .await
    }

    /// `POST /messages` with a fresh Idempotency-Key; asserts `201` and returns the record.
    pub async fn send_message(&self, request: &SendMessageRequest) -> MessageRecord {
        self.post_message(&new_idempotency_key(), request)
            .await
            .ok(201, "a new message is created")
    }
}

/// A relay answer, read whole: status, headers and body.
#[derive(Debug)]
pub struct Reply {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Reply {
    /// Reads a sent request's answer. Panics when the relay did not answer at all.
    pub async fn read(sent: reqwest::Result<reqwest::Response>) -> Reply {
        let response = sent.expect("the relay answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .bytes()
            .await
            .expect("the answer's body is readable")
            .to_vec();
        Reply {
            status,
            headers,
            body,
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// A header's value, when present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// All headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The body as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.body
    }

    /// The body as `T`, whatever the status. Panics with the body when it does not parse.
    pub fn json<T: DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "the body (HTTP {}) is not the expected JSON ({e}): {}",
                self.status,
                self.text()
            )
        })
    }

    /// Asserts the status, then returns the body as `T`.
    #[track_caller]
    pub fn ok<T: DeserializeOwned>(self, status: u16, why: &str) -> T {
        self.expect_status(status, why);
        self.json()
    }

    /// Asserts the status; returns the reply for more checks.
    #[track_caller]
    pub fn expect_status(&self, status: u16, why: &str) -> &Reply {
        assert_eq!(
            self.status,
            status,
            "{why}: HTTP status (body: {})",
            self.text()
        );
        self
    }

    /// Asserts an error answer: the catalog's status and code for `code`, and the shared body
    /// `{"error", "message", "fields"}`. Returns the body.
    #[track_caller]
    pub fn error(&self, code: ErrorCode, why: &str) -> ErrorBody {
        let text = self.text();
        assert_eq!(self.status, code.status(), "{why}: status (body: {text})");
        let value: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|_| panic!("{why}: error body is JSON: {text}"));
        assert!(
            value["error"].is_string(),
            "{why}: body has an error code: {text}"
        );
        assert!(
            value["message"].is_string(),
            "{why}: body has a message: {text}"
        );
        assert!(value["fields"].is_array(), "{why}: body has fields: {text}");
        let body: ErrorBody = serde_json::from_value(value).expect("ErrorBody");
        assert_eq!(body.error, code.as_str(), "{why}: error code");
        body
    }
}
