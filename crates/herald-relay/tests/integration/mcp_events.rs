//! The reply event over real HTTP (docs/mcp.md, "Reply event"): a stateless MCP client lists
//! and subscribes to `notification.replied` on `POST /mcp`; a real local webhook receiver
//! (axum on 127.0.0.1:0) echoes the verification challenge and records deliveries; a device
//! replies; the receiver gets the reply signed per Standard Webhooks, checked here with ring's
//! HMAC and the secret the client supplied. Retries, unsubscribe, revocation, SSRF refusals,
//! session-less clients (-32601) and the request budget.

use crate::agent_common;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use herald_protocol::notify::NotificationPage;
use herald_relay::{AgentLimits, RelayConfig, RunningRelay, WebhookConfig};
use herald_testkit::real::{self, RealAccount};
use herald_testkit::Api;
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::sync::watch;

/// Safety net for waits on the receiver (never a timing assertion: waits end on the event).
const WAIT: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------------------------
// A webhook receiver.

/// What the receiver answers to a verification challenge.
#[derive(Clone, Copy)]
enum Verify {
    Echo,
    WrongChallenge,
    Status(u16),
}

/// One POST the receiver got.
#[derive(Clone, Debug)]
struct Received {
    path: String,
    id: String,
    timestamp: String,
    signature: String,
    subscription: String,
    content_type: String,
    body: Vec<u8>,
}

impl Received {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

struct Inbox {
    verifications: Vec<Received>,
    events: Vec<Received>,
    controls: Vec<Received>,
    /// Statuses for the next event deliveries (then 200).
    script: VecDeque<u16>,
    verify: Verify,
}

#[derive(Clone)]
struct Shared {
    inbox: Arc<Mutex<Inbox>>,
    changed: Arc<watch::Sender<u64>>,
}

struct Receiver {
    url: String,
    shared: Shared,
    server: tokio::task::JoinHandle<()>,
}

fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

async fn receive(
    State(shared): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let got = Received {
        path: uri.path().to_owned(),
        id: header(&headers, "webhook-id"),
        timestamp: header(&headers, "webhook-timestamp"),
        signature: header(&headers, "webhook-signature"),
        subscription: header(&headers, "x-mcp-subscription-id"),
        content_type: header(&headers, "content-type"),
        body: body.to_vec(),
    };
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let response = {
        let mut inbox = shared.inbox.lock().unwrap();
        match parsed.get("type").and_then(Value::as_str) {
            Some("verification") => {
                inbox.verifications.push(got);
                match inbox.verify {
                    Verify::Echo => Json(json!({"challenge": parsed["challenge"]})).into_response(),
                    Verify::WrongChallenge => Json(json!({"challenge": "not it"})).into_response(),
                    Verify::Status(code) => StatusCode::from_u16(code).unwrap().into_response(),
                }
            }
            Some(_) => {
                inbox.controls.push(got);
                StatusCode::NO_CONTENT.into_response()
            }
            None => {
                inbox.events.push(got);
                let code = inbox.script.pop_front().unwrap_or(200);
                StatusCode::from_u16(code).unwrap().into_response()
            }
        }
    };
    shared.changed.send_modify(|n| *n += 1);
    response
}

impl Receiver {
    async fn start(verify: Verify) -> Receiver {
        let shared = Shared {
            inbox: Arc::new(Mutex::new(Inbox {
                verifications: vec![],
                events: vec![],
                controls: vec![],
                script: VecDeque::new(),
                verify,
            })),
            changed: Arc::new(watch::channel(0).0),
        };
        let app = axum::Router::new()
            .fallback(receive)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Receiver {
            url,
            shared,
            server,
        }
    }

    fn script(&self, statuses: &[u16]) {
        self.shared.inbox.lock().unwrap().script.extend(statuses);
    }

    fn inbox<T>(&self, f: impl FnOnce(&Inbox) -> T) -> T {
        f(&self.shared.inbox.lock().unwrap())
    }

    /// Waits until `done` holds on the inbox (or fails after [`WAIT`]).
    async fn until(&self, why: &str, done: impl Fn(&Inbox) -> bool) {
        let mut changes = self.shared.changed.subscribe();
        let wait = async {
            loop {
                if self.inbox(&done) {
                    return;
                }
                changes.changed().await.expect("the receiver runs");
            }
        };
        tokio::time::timeout(WAIT, wait)
            .await
            .unwrap_or_else(|_| panic!("the receiver never saw: {why}"));
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

// ---------------------------------------------------------------------------------------------
// Signatures, checked with ring.

fn secret(byte: u8) -> String {
    format!("whsec_{}", data_encoding::BASE64.encode(&[byte; 32]))
}

/// Verifies a Standard Webhooks signature header (any of its `v1,` entries) over the raw body.
fn verify_signature(secret: &str, got: &Received) -> bool {
    let key_bytes = data_encoding::BASE64
        .decode(secret.strip_prefix("whsec_").unwrap().as_bytes())
        .unwrap();
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key_bytes);
    let mut message = format!("{}.{}.", got.id, got.timestamp).into_bytes();
    message.extend_from_slice(&got.body);
    got.signature.split(' ').any(|entry| {
        entry
            .strip_prefix("v1,")
            .and_then(|b64| data_encoding::BASE64.decode(b64.as_bytes()).ok())
            .is_some_and(|tag| ring::hmac::verify(&key, &message, &tag).is_ok())
    })
}

// ---------------------------------------------------------------------------------------------
// A relay, an account and MCP calls.

struct Setup {
    relay: Option<RunningRelay>,
    url: String,
    account: RealAccount,
    key: String,
    key_id: String,
    _dir: TempDir,
}

impl Setup {
    async fn start(allow_loopback: bool, limits: AgentLimits) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let config = RelayConfig {
            data_dir: dir.path().to_path_buf(),
            agent_limits: limits,
            webhooks: WebhookConfig {
                allow_loopback,
                retry_delays: vec![Duration::from_millis(50), Duration::from_millis(100)],
                timeout: Duration::from_secs(5),
            },
            ..Default::default()
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = herald_relay::spawn(config, listener).await.unwrap();
        let url = relay.url();
        let account = real::create_account(&url).await;
        let created = agent_common::agent_key(&url, &account.device_token, "events test").await;
        Setup {
            relay: Some(relay),
            url,
            account,
            key: created.key,
            key_id: created.id.to_string(),
            _dir: dir,
        }
    }

    async fn default() -> Setup {
        Setup::start(true, AgentLimits::default()).await
    }

    /// An anonymous caller of the relay.
    fn api(&self) -> Api {
        Api::new(&self.url)
    }

    /// A stateless (2026-07-28) request with the key.
    async fn stateless(&self, key: &str, method: &str, mut params: Value) -> (u16, Value) {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/events": {}}
            }
        });
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let reply = self
            .api()
            .bearer(key)
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .post("/mcp", &body)
            .await;
        (reply.status(), reply.json())
    }

    /// A session-less request.
    async fn sessionless(&self, method: &str, params: Value) -> (u16, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let reply = self.api().bearer(&self.key).post("/mcp", &body).await;
        (reply.status(), reply.json())
    }

    async fn subscribe_with(&self, key: &str, arguments: Value, url: &str, secret: &str) -> Value {
        let (_, body) = self
            .stateless(
                key,
                "events/subscribe",
                json!({
                    "name": "notification.replied",
                    "arguments": arguments,
                    "delivery": {"mode": "webhook", "url": url, "secret": secret},
                    "cursor": null,
                    "ttlMs": 3_600_000
                }),
            )
            .await;
        body
    }

    /// Subscribes with the setup's key; returns the result (panics on an error).
    async fn subscribe(&self, arguments: Value, url: &str, secret: &str) -> Value {
        let body = self.subscribe_with(&self.key, arguments, url, secret).await;
        assert!(body.get("error").is_none(), "subscribed: {body}");
        body["result"].clone()
    }

    /// Sends a notification expecting a reply.
    async fn ask(&self, key: &str, notification_id: &str) {
        agent_common::notify_ok(
            &self.url,
            key,
            json!({"title": "Ship it?", "expectReply": true, "notificationId": notification_id}),
        )
        .await;
    }

    /// The device answers the notification with the agent's id `notification_id`.
    async fn reply(&self, notification_id: &str, text: &str) {
        let device = self.api().bearer(&self.account.device_token);
        let page: NotificationPage = device
            .get("/notifications")
            .await
            .ok(200, "the device reads its notifications");
        let id = page
            .records
            .iter()
            .find(|r| r.receipt.notification_id == notification_id)
            .expect("the device sees the notification")
            .id
            .clone();
        device
            .post(
                &format!("/notifications/{id}/reply"),
                &json!({"text": text}),
            )
            .await
            .expect_status(200, "the device replies");
    }

    async fn shutdown(mut self) {
        if let Some(r) = self.relay.take() {
            r.shutdown().await;
        }
    }
}

fn error_code(body: &Value) -> Option<i64> {
    body["error"]["code"].as_i64()
}

// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn discover_lists_the_reply_event_and_only_stateless_clients_have_it() {
    let s = Setup::default().await;
    let (status, discover) = s.stateless(&s.key, "server/discover", json!({})).await;
    assert_eq!(status, 200);
    let caps = &discover["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/events"],
        json!({"listChanged": false}),
        "the Events extension is advertised: {caps}"
    );
    assert_eq!(caps["tools"], json!({"listChanged": false}));
    let text = discover["result"]["instructions"].as_str().unwrap();
    assert!(
        text.contains("notification.replied"),
        "the instructions name the event"
    );

    let (status, listed) = s.stateless(&s.key, "events/list", json!({})).await;
    assert_eq!(status, 200);
    let result = &listed["result"];
    assert_eq!(result["resultType"], json!("complete"));
    let events = result["events"].as_array().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["name"], json!("notification.replied"));
    assert_eq!(events[0]["delivery"], json!(["webhook"]));
    assert_eq!(
        events[0]["inputSchema"]["additionalProperties"],
        json!(false)
    );
    assert!(events[0]["payloadSchema"]["properties"]["text"].is_object());

    // Session-less clients: no events capability, and the methods do not exist (-32601).
    let (_, init) = s
        .sessionless(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(
        init["result"]["capabilities"],
        json!({"tools": {"listChanged": false}})
    );
    for method in ["events/list", "events/subscribe", "events/unsubscribe"] {
        let (status, body) = s.sessionless(method, json!({})).await;
        assert_eq!((status, error_code(&body)), (200, Some(-32601)), "{method}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn a_reply_is_delivered_once_signed_with_the_subscribers_secret() {
    let s = Setup::default().await;
    let hooks = Receiver::start(Verify::Echo).await;
    let (one_url, all_url) = (format!("{}/one", hooks.url), format!("{}/all", hooks.url));
    let (one_secret, all_secret) = (secret(1), secret(2));

    let one = s
        .subscribe(
            json!({"notificationId": "build-214"}),
            &one_url,
            &one_secret,
        )
        .await;
    let id = one["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("sub_"), "{one}");
    assert_eq!(one["cursor"], Value::Null);
    assert_eq!(one["truncated"], json!(false));
    assert!(one["refreshBefore"].is_string());
    assert!(
        one.get("deliveryStatus").is_none(),
        "a new subscription has no status yet"
    );
    // The endpoint was asked first, with a signed challenge naming the subscription.
    let challenge = hooks.inbox(|i| i.verifications.clone());
    assert_eq!(challenge.len(), 1, "one verification");
    assert!(
        verify_signature(&one_secret, &challenge[0]),
        "the challenge is signed"
    );
    assert_eq!(challenge[0].subscription, id);
    assert!(challenge[0].id.starts_with("msg_verification_"));
    let all = s.subscribe(json!({}), &all_url, &all_secret).await;
    let all_id = all["id"].as_str().unwrap().to_owned();

    s.ask(&s.key, "build-214").await;
    s.reply("build-214", "Ship it").await;
    hooks
        .until("the reply at both subscriptions", |i| i.events.len() >= 2)
        .await;

    let delivered = hooks.inbox(|i| i.events.clone());
    for (path, sub, key) in [("/one", &id, &one_secret), ("/all", &all_id, &all_secret)] {
        let got = delivered.iter().find(|d| d.path == path).expect(path);
        assert!(verify_signature(key, got), "signed with {path}'s secret");
        assert!(!verify_signature(&secret(9), got), "and not with another");
        assert_eq!(&got.subscription, sub);
        assert_eq!(got.content_type, "application/json");
        let age = chrono::Utc::now().timestamp() - got.timestamp.parse::<i64>().unwrap();
        assert!(age.abs() < 300, "a current timestamp");
        let body = got.json();
        assert_eq!(
            body["eventId"].as_str(),
            Some(got.id.as_str()),
            "webhook-id is the eventId"
        );
        assert_eq!(body["name"], json!("notification.replied"));
        assert_eq!(body["cursor"], Value::Null);
        let data = &body["data"];
        assert_eq!(data["notificationId"], json!("build-214"));
        assert_eq!(data["replied"], json!(true));
        assert_eq!(data["text"], json!("Ship it"));
        assert_eq!(data["suppressed"], json!(false));
        assert_eq!(body["timestamp"], data["repliedAt"]);
        // The same JSON an agent reads from GET /v1/replies.
        let polled: Value = s
            .api()
            .bearer(&s.key)
            .get("/v1/replies/build-214")
            .await
            .ok(200, "the agent polls the reply");
        assert_eq!(data, &polled);
    }

    // A second reply, to another notification, reaches only the unfiltered subscription;
    // once it has arrived, the filtered one still holds exactly one delivery.
    s.ask(&s.key, "other").await;
    s.reply("other", "Later").await;
    hooks
        .until("the second reply", |i| {
            i.events.iter().filter(|d| d.path == "/all").count() == 2
        })
        .await;
    hooks.inbox(|i| {
        assert_eq!(
            i.events.iter().filter(|d| d.path == "/one").count(),
            1,
            "exactly one"
        );
        assert_eq!(i.events.len(), 3);
    });

    // A refresh: same id, no new challenge, the delivery status reported.
    let again = s
        .subscribe(
            json!({"notificationId": "build-214"}),
            &one_url,
            &one_secret,
        )
        .await;
    assert_eq!(again["id"], json!(id));
    assert_eq!(again["deliveryStatus"]["active"], json!(true));
    assert!(
        again["deliveryStatus"]["lastDeliveryAt"].is_string(),
        "{again}"
    );
    assert_eq!(again["deliveryStatus"]["lastError"], Value::Null);
    assert_eq!(
        hooks.inbox(|i| i.verifications.len()),
        2,
        "one per URL, not per call"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_failed_delivery_is_retried_with_a_fresh_signature() {
    let s = Setup::default().await;
    let hooks = Receiver::start(Verify::Echo).await;
    let key = secret(3);
    let sub = s
        .subscribe(
            json!({"notificationId": "n1"}),
            &format!("{}/h", hooks.url),
            &key,
        )
        .await;
    hooks.script(&[500]);
    s.ask(&s.key, "n1").await;
    s.reply("n1", "Yes").await;
    hooks
        .until("a retry after the 500", |i| i.events.len() == 2)
        .await;
    let got = hooks.inbox(|i| i.events.clone());
    assert_eq!(got[0].id, got[1].id, "the same event");
    assert_eq!(got[0].body, got[1].body, "the same body");
    assert!(
        got.iter().all(|g| verify_signature(&key, g)),
        "each attempt signed"
    );
    // The relay records the success of the retry once the receiver's 200 reaches it, which
    // may be a moment after the receiver saw the request: refresh until it shows (bounded).
    let mut again = Value::Null;
    for _ in 0..100 {
        again = s
            .subscribe(
                json!({"notificationId": "n1"}),
                &format!("{}/h", hooks.url),
                &key,
            )
            .await;
        if again["deliveryStatus"]["lastError"].is_null() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(again["id"], sub["id"]);
    assert_eq!(again["deliveryStatus"]["lastError"], Value::Null, "{again}");
    assert!(again["deliveryStatus"]["lastDeliveryAt"].is_string());

    s.shutdown().await;
}

#[tokio::test]
async fn unsubscribe_stops_deliveries() {
    let s = Setup::default().await;
    let hooks = Receiver::start(Verify::Echo).await;
    let (a, b) = (format!("{}/a", hooks.url), format!("{}/b", hooks.url));
    s.subscribe(json!({"notificationId": "n1"}), &a, &secret(4))
        .await;
    s.subscribe(json!({}), &b, &secret(5)).await;
    let unsubscribe = |url: String| {
        let s = &s;
        async move {
            s.stateless(
                &s.key,
                "events/unsubscribe",
                json!({"name": "notification.replied", "arguments": {"notificationId": "n1"}, "delivery": {"url": url}}),
            )
            .await
        }
    };
    let (status, done) = unsubscribe(a.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(done["result"]["resultType"], json!("complete"), "{done}");
    let (_, again) = unsubscribe(a.clone()).await;
    assert_eq!(error_code(&again), Some(-32023), "gone already: {again}");
    assert_eq!(again["error"]["data"]["kind"], json!("subscription"));

    s.ask(&s.key, "n1").await;
    s.reply("n1", "Yes").await;
    hooks
        .until("the remaining subscription", |i| !i.events.is_empty())
        .await;
    hooks.inbox(|i| {
        assert!(i.events.iter().all(|d| d.path == "/b"), "nothing to /a");
        assert_eq!(i.events.len(), 1);
    });
    s.shutdown().await;
}

#[tokio::test]
async fn revoking_the_key_removes_its_subscriptions() {
    let s = Setup::default().await;
    let hooks = Receiver::start(Verify::Echo).await;
    let key_secret = secret(6);
    s.subscribe(
        json!({"notificationId": "n1"}),
        &format!("{}/revoked", hooks.url),
        &key_secret,
    )
    .await;
    // Another key of the account watches the same notification (the fence below).
    let other = agent_common::agent_key(&s.url, &s.account.device_token, "other").await;
    let body = s
        .subscribe_with(
            &other.key,
            json!({"notificationId": "n1"}),
            &format!("{}/other", hooks.url),
            &secret(7),
        )
        .await;
    assert!(body["result"]["id"].is_string(), "{body}");

    s.api()
        .bearer(&s.account.device_token)
        .delete(&format!("/agent-keys/{}", s.key_id))
        .await
        .expect_status(204, "the device revokes the agent key");
    hooks
        .until("a terminated envelope", |i| !i.controls.is_empty())
        .await;
    let terminated = hooks.inbox(|i| i.controls[0].clone());
    assert!(verify_signature(&key_secret, &terminated));
    assert_eq!(terminated.path, "/revoked");
    let body = terminated.json();
    assert_eq!(body["type"], json!("terminated"));
    assert_eq!(body["error"]["code"], json!(-32024));
    assert!(terminated.id.starts_with("msg_terminated_"));

    s.ask(&other.key, "n1").await;
    s.reply("n1", "Yes").await;
    hooks
        .until("the other key's delivery", |i| !i.events.is_empty())
        .await;
    hooks.inbox(|i| {
        assert!(
            i.events.iter().all(|d| d.path == "/other"),
            "nothing for the revoked key"
        );
    });
    s.shutdown().await;
}

#[tokio::test]
async fn subscriptions_are_refused_with_the_extension_codes() {
    let s = Setup::default().await;
    let echo = Receiver::start(Verify::Echo).await;
    let wrong = Receiver::start(Verify::WrongChallenge).await;
    let failing = Receiver::start(Verify::Status(500)).await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/gone", l.local_addr().unwrap())
    };
    let ok_url = format!("{}/h", echo.url);
    let delivery = |url: &str, secret: &str| json!({"url": url, "secret": secret});
    let base = |d: Value| json!({"name": "notification.replied", "arguments": {}, "delivery": d});
    // (why, params, code, data)
    let cases: Vec<(&str, Value, i64, Option<Value>)> = vec![
        (
            "private address",
            base(delivery("https://10.0.0.1/h", &secret(1))),
            -32602,
            None,
        ),
        (
            "link-local metadata",
            base(delivery("https://169.254.169.254/latest", &secret(1))),
            -32602,
            None,
        ),
        (
            "IPv6 unique-local",
            base(delivery("https://[fd00::1]/h", &secret(1))),
            -32602,
            None,
        ),
        (
            "plain http to a public host",
            base(delivery("http://93.184.216.34/h", &secret(1))),
            -32602,
            None,
        ),
        (
            "not a URL",
            base(delivery("hooks", &secret(1))),
            -32602,
            None,
        ),
        (
            "a short secret",
            base(delivery(
                &ok_url,
                &format!("whsec_{}", data_encoding::BASE64.encode(&[1; 8])),
            )),
            -32602,
            None,
        ),
        (
            "no whsec_ prefix",
            base(delivery(&ok_url, "hunter2hunter2hunter2hunter2hunter2")),
            -32602,
            None,
        ),
        (
            "an unknown argument",
            json!({"name": "notification.replied", "arguments": {"x": 1}, "delivery": delivery(&ok_url, &secret(1))}),
            -32602,
            None,
        ),
        (
            "an unknown event",
            json!({"name": "email.received", "arguments": {}, "delivery": delivery(&ok_url, &secret(1))}),
            -32023,
            Some(json!({"kind": "event"})),
        ),
        (
            "push mode",
            json!({"name": "notification.replied", "delivery": {"mode": "push", "url": ok_url, "secret": secret(1)}}),
            -32026,
            Some(json!({"feature": "deliveryMode", "value": "push"})),
        ),
        (
            "no echo of the challenge",
            base(delivery(&format!("{}/h", wrong.url), &secret(1))),
            -32027,
            Some(json!({"reason": "challenge_failed"})),
        ),
        (
            "a 500 to the challenge",
            base(delivery(&format!("{}/h", failing.url), &secret(1))),
            -32027,
            Some(json!({"reason": "http_5xx"})),
        ),
        (
            "nobody listening",
            base(delivery(&closed, &secret(1))),
            -32027,
            Some(json!({"reason": "connection_refused"})),
        ),
    ];
    for (why, params, code, data) in cases {
        let (status, body) = s.stateless(&s.key, "events/subscribe", params).await;
        assert_eq!(error_code(&body), Some(code), "{why}: {body}");
        assert_eq!(status, if code == -32602 { 400 } else { 200 }, "{why}");
        if let Some(data) = data {
            assert_eq!(body["error"]["data"], data, "{why}");
        }
    }
    assert!(
        echo.inbox(|i| i.verifications.is_empty()),
        "refused before any POST"
    );

    // Without --allow-loopback-webhooks, loopback is refused like any private address.
    let strict = Setup::start(false, AgentLimits::default()).await;
    for url in [ok_url.clone(), ok_url.replacen("http://", "https://", 1)] {
        let body = strict
            .subscribe_with(&strict.key, json!({}), &url, &secret(1))
            .await;
        assert_eq!(error_code(&body), Some(-32602), "{url}: {body}");
    }
    assert!(echo.inbox(|i| i.verifications.is_empty()));
    strict.shutdown().await;
    s.shutdown().await;
}

#[tokio::test]
async fn every_events_call_costs_one_request() {
    let s = Setup::start(
        true,
        AgentLimits {
            requests_per_day: 3,
            ..AgentLimits::default()
        },
    )
    .await;
    // `agent_key` made no agent request; three events calls use the day's budget.
    let hooks = Receiver::start(Verify::Echo).await;
    s.stateless(&s.key, "events/list", json!({})).await;
    s.subscribe(json!({}), &format!("{}/h", hooks.url), &secret(8))
        .await;
    s.stateless(&s.key, "events/list", json!({})).await;
    s.api()
        .bearer(&s.key)
        .get("/v1/status")
        .await
        .expect_status(429, "the budget is spent");
    s.shutdown().await;
}
