//! The reply event (docs/mcp.md, "Reply event"): stateless (2026-07-28) MCP clients subscribe
//! through `events/subscribe` (the MCP Events extension, SEP-3415, webhook delivery), and the
//! moment a device posts a reply (`POST /notifications/{id}/reply`) the relay POSTs the reply
//! to each matching subscription's callback URL, signed per Standard Webhooks with the
//! subscriber's `whsec_` secret.
//!
//! Layout, one-way: [`catalog`] is the event type; [`secret`] parses and seals secrets;
//! [`sign`] makes signatures; [`target`] decides which URLs and addresses may be called;
//! [`http`] makes one POST; this module runs subscriptions and deliveries. The JSON-RPC side
//! is `crate::mcp::events`; the rows are in `crate::store::events`.
//!
//! Deliveries run on background tasks and never hold up the reply route. Each event is tried
//! once and retried after each of [`WebhookConfig::retry_delays`] on a non-2xx answer (not
//! after `410` or `413`); pending retries live in memory and end with the process.

pub mod catalog;
pub mod http;
pub mod secret;
pub mod sign;
pub mod target;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use herald_protocol::AccountId;
use reqwest::header::{HeaderName, HeaderValue};
use reqwest::Url;
use serde_json::Value;
use tokio::sync::OnceCell;
use tokio_util::task::TaskTracker;

use crate::clock::format_time;
use crate::state::AppState;
use crate::store::agents::{AgentCredential, NotificationRow};
use crate::store::events::{EventStore, Subscriber, SubscriptionRow, Upsert};
use catalog::{ReplyArguments, REPLY_EVENT};
use secret::{SealError, SealKey, WebhookSecret};
use target::UrlError;

/// How the relay delivers webhooks. `Default` is the production setting.
#[derive(Debug, Clone)]
pub struct WebhookConfig {
    /// Allow callback URLs whose host is a loopback address (127.0.0.0/8, ::1), over `http`
    /// too. For tests and local development only (`--allow-loopback-webhooks`); private and
    /// link-local addresses stay refused either way. Default false.
    pub allow_loopback: bool,
    /// Pauses before each retry of a failed event delivery; their count is the number of
    /// retries. Default 5 s, 30 s, 2 min, 8 min: five attempts within about 11 minutes.
    pub retry_delays: Vec<Duration>,
    /// Connect-and-answer timeout of one request. Default 5 s.
    pub timeout: Duration,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            allow_loopback: false,
            retry_delays: vec![
                Duration::from_secs(5),
                Duration::from_secs(30),
                Duration::from_secs(120),
                Duration::from_secs(480),
            ],
            timeout: Duration::from_secs(5),
        }
    }
}

/// The longest (and default) subscription lifetime granted: 24 hours, the life of a
/// notification. A client asking for no expiry (`ttlMs: null`) gets this too.
pub const MAX_TTL: TimeDelta = TimeDelta::hours(24);
/// The shortest lifetime granted: a smaller `ttlMs` is raised to 60 seconds.
pub const MIN_TTL: TimeDelta = TimeDelta::seconds(60);
/// Live subscriptions one credential may hold.
pub const MAX_SUBSCRIPTIONS_PER_CREDENTIAL: u32 = 25;
/// Verification POSTs per destination host per minute (per relay).
pub const MAX_VERIFICATIONS_PER_HOST_PER_MINUTE: u32 = 10;
/// How long deliveries are signed with both secrets after a refresh changed the secret.
pub const ROTATION_GRACE: TimeDelta = TimeDelta::minutes(5);

/// The requested lifetime (`ttlMs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ttl {
    /// Omitted: the server default.
    Default,
    /// `null`: no expiry asked (the relay grants [`MAX_TTL`]).
    NoExpiry,
    /// Milliseconds.
    Millis(u64),
}

impl Ttl {
    /// The lifetime granted: `Millis` clamped to [`MIN_TTL`]..=[`MAX_TTL`], else [`MAX_TTL`].
    pub fn grant(self) -> TimeDelta {
        match self {
            Ttl::Default | Ttl::NoExpiry => MAX_TTL,
            Ttl::Millis(ms) => {
                let asked = TimeDelta::milliseconds(i64::try_from(ms).unwrap_or(i64::MAX));
                asked.clamp(MIN_TTL, MAX_TTL)
            }
        }
    }
}

/// An `events/subscribe` for the reply event, checked.
#[derive(Debug)]
pub struct SubscribeRequest {
    pub arguments: ReplyArguments,
    /// The callback URL (form already checked by [`target::parse`]).
    pub url: Url,
    pub secret: WebhookSecret,
    pub ttl: Ttl,
}

/// What `events/subscribe` answers.
#[derive(Debug, Clone)]
pub struct Subscribed {
    pub id: String,
    pub refresh_before: DateTime<Utc>,
    /// The subscription existed (a refresh): `deliveryStatus` is reported.
    pub refreshed: bool,
    pub last_delivery_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

/// Why a subscribe or unsubscribe was refused.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    /// The callback URL is not acceptable (`InvalidParams`).
    #[error(transparent)]
    Url(#[from] UrlError),
    /// The credential holds [`MAX_SUBSCRIPTIONS_PER_CREDENTIAL`] live subscriptions, or the
    /// destination host had its verifications for this minute (`ResourceExhausted`).
    #[error("limit reached: {limit}")]
    Exhausted { limit: &'static str, max: u32 },
    /// The endpoint did not confirm (`CallbackEndpointError`, with a category).
    #[error("callback endpoint: {0}")]
    Endpoint(&'static str),
    /// No such subscription (`NotFound`).
    #[error("no such subscription")]
    NotFound,
    /// A relay defect (storage, sealing).
    #[error("internal: {0}")]
    Internal(String),
}

/// The state of the reply event, held by the relay state.
pub(crate) struct Events {
    store: Arc<dyn EventStore>,
    config: WebhookConfig,
    data_dir: PathBuf,
    key: OnceCell<Arc<SealKey>>,
    tasks: TaskTracker,
    /// Verification POSTs per host in the current minute: (minute, host → count).
    verifications: Mutex<(i64, HashMap<String, u32>)>,
}

impl Events {
    pub fn new(store: Arc<dyn EventStore>, config: WebhookConfig, data_dir: PathBuf) -> Events {
        Events {
            store,
            config,
            data_dir,
            key: OnceCell::new(),
            tasks: TaskTracker::new(),
            verifications: Mutex::new((i64::MIN, HashMap::new())),
        }
    }

    /// Spends one verification of `host` this minute; false when its budget is used up.
    fn spend_verification(&self, host: &str, now: DateTime<Utc>) -> bool {
        let minute = now.timestamp().div_euclid(60);
        let mut guard = self.verifications.lock().unwrap_or_else(|e| e.into_inner());
        if guard.0 != minute {
            *guard = (minute, HashMap::new());
        }
        let count = guard.1.entry(host.to_owned()).or_insert(0);
        if *count >= MAX_VERIFICATIONS_PER_HOST_PER_MINUTE {
            return false;
        }
        *count += 1;
        true
    }
}

/// The subscriber of an agent credential.
pub fn subscriber(account: &AccountId, credential: &AgentCredential) -> Subscriber {
    Subscriber {
        account: account.clone(),
        kind: credential.kind().to_owned(),
        id: credential.id().to_owned(),
    }
}

/// The subscription id: `sub_` + the first 16 bytes, hex, of SHA-256 over the canonical key
/// `[account, credential kind, credential id, url, name, canonical arguments]` (JSON).
pub fn subscription_id(who: &Subscriber, url: &Url, arguments: &ReplyArguments) -> String {
    let key = serde_json::json!([
        who.account.as_str(),
        who.kind,
        who.id,
        url.as_str(),
        REPLY_EVENT,
        arguments.canonical(),
    ])
    .to_string();
    let digest = ring::digest::digest(&ring::digest::SHA256, key.as_bytes());
    format!(
        "sub_{}",
        data_encoding::HEXLOWER.encode(&digest.as_ref()[..16])
    )
}

/// `msg_<type>_<24 random hex>`: the `webhook-id` of a control envelope.
fn message_id(kind: &str) -> Result<String, EventError> {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 12];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| EventError::Internal("system randomness failed".into()))?;
    Ok(format!(
        "msg_{kind}_{}",
        data_encoding::HEXLOWER.encode(&bytes)
    ))
}

fn header(name: &'static str, value: &str) -> Result<(HeaderName, HeaderValue), EventError> {
    let value =
        HeaderValue::from_str(value).map_err(|_| EventError::Internal("header value".into()))?;
    Ok((HeaderName::from_static(name), value))
}

/// The Standard Webhooks and MCP headers of one attempt, signed now.
fn signed_headers(
    secrets: &[WebhookSecret],
    subscription: &str,
    webhook_id: &str,
    timestamp: i64,
    body: &[u8],
) -> Result<Vec<(HeaderName, HeaderValue)>, EventError> {
    Ok(vec![
        header(sign::WEBHOOK_ID, webhook_id)?,
        header(sign::WEBHOOK_TIMESTAMP, &timestamp.to_string())?,
        header(
            sign::WEBHOOK_SIGNATURE,
            &sign::header(secrets, webhook_id, timestamp, body),
        )?,
        header(sign::SUBSCRIPTION_ID, subscription)?,
    ])
}

impl AppState {
    pub(crate) fn events(&self) -> &Events {
        &self.inner.events
    }

    /// Runs a blocking subscription-store call on tokio's blocking pool.
    async fn event_store<T, F>(&self, f: F) -> Result<T, EventError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn EventStore) -> crate::store::events::EventResult<T> + Send + 'static,
    {
        let store = self.events().store.clone();
        tokio::task::spawn_blocking(move || f(store.as_ref()))
            .await
            .map_err(|e| EventError::Internal(e.to_string()))?
            .map_err(|e| EventError::Internal(e.to_string()))
    }

    /// The local sealing key, loaded (or created) on first use.
    async fn seal_key(&self) -> Result<Arc<SealKey>, EventError> {
        let events = self.events();
        events
            .key
            .get_or_try_init(|| async {
                let dir = events.data_dir.clone();
                tokio::task::spawn_blocking(move || SealKey::load_or_create(&dir))
                    .await
                    .map_err(|e| EventError::Internal(e.to_string()))?
                    .map(Arc::new)
                    .map_err(|e: SealError| EventError::Internal(e.to_string()))
            })
            .await
            .cloned()
    }

    /// The secrets a delivery for `row` is signed with at `now`: the current one, plus the
    /// replaced one during its grace period.
    async fn signing_secrets(
        &self,
        row: &SubscriptionRow,
        now: DateTime<Utc>,
    ) -> Result<Vec<WebhookSecret>, EventError> {
        let key = self.seal_key().await?;
        let open = |sealed: &[u8]| {
            key.open(&row.id, sealed)
                .map_err(|e| EventError::Internal(e.to_string()))
        };
        let mut secrets = vec![open(&row.secret_sealed)?];
        if let (Some(previous), Some(until)) = (&row.previous_secret_sealed, row.previous_until) {
            if until > now {
                secrets.push(open(previous)?);
            }
        }
        Ok(secrets)
    }

    /// `events/subscribe` for the reply event (docs/mcp.md): verifies a new endpoint with a
    /// signed challenge (unless this credential already delivers to the URL), then stores or
    /// refreshes the subscription.
    pub(crate) async fn subscribe_reply(
        &self,
        who: Subscriber,
        request: SubscribeRequest,
    ) -> Result<Subscribed, EventError> {
        let events = self.events();
        let now = self.now();
        let id = subscription_id(&who, &request.url, &request.arguments);
        let (owned_id, owned_who, url) = (id.clone(), who.clone(), request.url.to_string());
        let (existing, verified) = self
            .event_store(move |s| {
                Ok((
                    s.subscription(&owned_id, now)?,
                    s.url_verified(&owned_who, &url, now)?,
                ))
            })
            .await?;
        if !verified {
            // A POST to a host the relay never delivered to for this credential: consent first.
            target::resolve(&request.url, events.config.allow_loopback)
                .await
                .map_err(|e| match e {
                    target::TargetError::Refused(u) => EventError::Url(u),
                    target::TargetError::Unresolvable => EventError::Endpoint("connection_refused"),
                })?;
            let host = request
                .url
                .host_str()
                .unwrap_or_default()
                .to_ascii_lowercase();
            if !events.spend_verification(&host, now) {
                return Err(EventError::Exhausted {
                    limit: "verifications",
                    max: MAX_VERIFICATIONS_PER_HOST_PER_MINUTE,
                });
            }
            self.verify_endpoint(&id, &request.url, &request.secret, now)
                .await?;
        }
        let key = self.seal_key().await?;
        let seal = |secret: &WebhookSecret| {
            key.seal(&id, secret)
                .map_err(|e| EventError::Internal(e.to_string()))
        };
        let (previous_secret_sealed, previous_until) = match &existing {
            Some(old) => {
                let old_secret = key
                    .open(&old.id, &old.secret_sealed)
                    .map_err(|e| EventError::Internal(e.to_string()))?;
                if old_secret == request.secret {
                    match old.previous_until {
                        Some(until) if until > now => {
                            (old.previous_secret_sealed.clone(), Some(until))
                        }
                        _ => (None, None),
                    }
                } else {
                    (Some(old.secret_sealed.clone()), Some(now + ROTATION_GRACE))
                }
            }
            None => (None, None),
        };
        let row = SubscriptionRow {
            id: id.clone(),
            principal: who,
            name: REPLY_EVENT.to_owned(),
            notification_filter: request.arguments.notification_id.clone(),
            url: request.url.to_string(),
            secret_sealed: seal(&request.secret)?,
            previous_secret_sealed,
            previous_until,
            refresh_before: now + request.ttl.grant(),
            created_at: existing.as_ref().map_or(now, |e| e.created_at),
            updated_at: now,
            last_delivery_at: None,
            last_error: None,
        };
        let stored = row.clone();
        let outcome = self
            .event_store(move |s| {
                s.upsert_subscription(&stored, MAX_SUBSCRIPTIONS_PER_CREDENTIAL, now)
            })
            .await?;
        match outcome {
            Upsert::LimitReached => Err(EventError::Exhausted {
                limit: "subscriptions",
                max: MAX_SUBSCRIPTIONS_PER_CREDENTIAL,
            }),
            Upsert::Created | Upsert::Refreshed => {
                tracing::info!(subscription = %id, refreshed = (outcome == Upsert::Refreshed), "reply event subscribed");
                Ok(Subscribed {
                    id,
                    refresh_before: row.refresh_before,
                    refreshed: outcome == Upsert::Refreshed,
                    last_delivery_at: existing.as_ref().and_then(|e| e.last_delivery_at),
                    last_error: existing.and_then(|e| e.last_error),
                })
            }
        }
    }

    /// The SEP-3415 verification handshake: a signed `{"type":"verification","challenge"}`
    /// POST that the endpoint must answer 2xx with `{"challenge": <the same>}`.
    async fn verify_endpoint(
        &self,
        subscription: &str,
        url: &Url,
        secret: &WebhookSecret,
        now: DateTime<Utc>,
    ) -> Result<(), EventError> {
        let challenge = message_id("challenge")?;
        let webhook_id = message_id("verification")?;
        let body = serde_json::json!({"type": "verification", "challenge": challenge})
            .to_string()
            .into_bytes();
        let headers = signed_headers(
            std::slice::from_ref(secret),
            subscription,
            &webhook_id,
            now.timestamp(),
            &body,
        )?;
        let config = &self.events().config;
        let answer = http::post(url, config.allow_loopback, config.timeout, headers, body)
            .await
            .map_err(|f| EventError::Endpoint(f.category()))?;
        let echoed = serde_json::from_slice::<Value>(&answer.body)
            .ok()
            .and_then(|v| {
                v.get("challenge")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        let matches = echoed.is_some_and(|e| {
            use subtle::ConstantTimeEq;
            e.len() == challenge.len() && bool::from(e.as_bytes().ct_eq(challenge.as_bytes()))
        });
        if matches {
            Ok(())
        } else {
            Err(EventError::Endpoint("challenge_failed"))
        }
    }

    /// `events/unsubscribe`: deletes the credential's subscription with this key.
    pub(crate) async fn unsubscribe_reply(
        &self,
        who: Subscriber,
        url: &Url,
        arguments: &ReplyArguments,
    ) -> Result<(), EventError> {
        let id = subscription_id(&who, url, arguments);
        let owned = id.clone();
        let deleted = self
            .event_store(move |s| s.delete_subscription(&who, &owned))
            .await?;
        if deleted {
            tracing::info!(subscription = %id, "reply event unsubscribed");
            Ok(())
        } else {
            Err(EventError::NotFound)
        }
    }

    /// Called by `POST /notifications/{id}/reply` once the reply is stored: delivers `data`
    /// (the `GET /v1/replies` answer) to every matching subscription, on background tasks.
    /// Returns at once.
    pub(crate) fn reply_posted(&self, account: &AccountId, row: &NotificationRow, data: Value) {
        let state = self.clone();
        let account = account.clone();
        let (notification_id, kind, source) = (
            row.notification_id.clone(),
            row.source_kind.clone(),
            row.source_id.clone(),
        );
        let event_id = format!("reply_{}", row.id);
        let timestamp = row.replied_at.map(format_time).unwrap_or_default();
        let body = Arc::new(catalog::occurrence(&event_id, &timestamp, &data));
        let tasks = self.events().tasks.clone();
        tasks.spawn(async move {
            let now = state.now();
            let found = state
                .event_store(move |s| {
                    s.subscriptions_for_reply(&account, &notification_id, &kind, &source, now)
                })
                .await;
            let rows = match found {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::error!(error = %e, "finding reply subscriptions failed");
                    return;
                }
            };
            for row in rows {
                let (state, event_id, body) = (state.clone(), event_id.clone(), body.clone());
                state
                    .events()
                    .tasks
                    .clone()
                    .spawn(deliver_event(state, row.id, event_id, body));
            }
        });
    }

    /// Called when an agent key or connector is revoked: deletes its subscriptions (so no
    /// delivery starts after the revocation answers) and tells each endpoint with a signed
    /// `terminated` envelope, in the background. Failures are logged, not returned: the
    /// revocation itself stands.
    pub(crate) async fn credential_revoked(
        &self,
        account: &AccountId,
        credential: &AgentCredential,
    ) {
        let who = subscriber(account, credential);
        let rows = match self
            .event_store(move |s| s.delete_subscriptions_of(&who))
            .await
        {
            Ok(rows) => rows,
            Err(e) => {
                tracing::error!(error = %e, "deleting a revoked credential's subscriptions failed");
                return;
            }
        };
        for row in rows {
            let state = self.clone();
            self.events().tasks.spawn(async move {
                if let Err(e) = send_terminated(&state, &row).await {
                    tracing::warn!(subscription = %row.id, error = %e, "terminated envelope not sent");
                }
            });
        }
    }

    /// Deletes subscriptions past their `refreshBefore`. The sweeper calls this.
    pub async fn sweep_events(&self) -> crate::Result<usize> {
        let now = self.now();
        self.event_store(move |s| s.sweep_subscriptions(now))
            .await
            .map_err(|e| crate::Error::Io(std::io::Error::other(e.to_string())))
    }
}

/// Sleeps `delay`, or returns false when the relay shuts down first.
async fn pause(state: &AppState, delay: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(delay) => true,
        _ = state.shutdown_token().cancelled() => false,
    }
}

/// One event to one subscription: the first attempt now, a retry after each configured
/// delay while the answer is not a 2xx (none after 410 or 413). Every attempt re-reads the
/// subscription (an unsubscribe, revocation or expiry stops the retries; a rotated secret is
/// used), re-checks the address, and signs with a fresh timestamp.
async fn deliver_event(
    state: AppState,
    subscription: String,
    event_id: String,
    body: Arc<Vec<u8>>,
) {
    let config = state.events().config.clone();
    for attempt in 0..=config.retry_delays.len() {
        if attempt > 0 && !pause(&state, config.retry_delays[attempt - 1]).await {
            return;
        }
        let now = state.now();
        let owned = subscription.clone();
        let row = match state
            .event_store(move |s| s.subscription(&owned, now))
            .await
        {
            Ok(Some(row)) => row,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(subscription = %subscription, error = %e, "reading a subscription failed");
                continue;
            }
        };
        let outcome = attempt_once(&state, &row, &event_id, &body, now).await;
        let category = match &outcome {
            Ok(()) => None,
            Err(Attempt::Failed(f)) => Some(f.category()),
            Err(Attempt::Broken(e)) => {
                tracing::error!(subscription = %subscription, error = %e, "a reply delivery cannot be made");
                return;
            }
        };
        let (owned, at) = (subscription.clone(), state.now());
        if let Err(e) = state
            .event_store(move |s| s.record_delivery(&owned, at, category))
            .await
        {
            tracing::error!(subscription = %subscription, error = %e, "recording a delivery failed");
        }
        match outcome {
            Ok(()) => {
                tracing::info!(subscription = %subscription, event = %event_id, attempt, "reply event delivered");
                return;
            }
            Err(Attempt::Failed(f)) => {
                tracing::warn!(subscription = %subscription, event = %event_id, attempt, reason = f.category(), "reply event delivery failed");
                if f.is_final() {
                    return;
                }
            }
            Err(Attempt::Broken(_)) => return,
        }
    }
}

/// Why one attempt did not deliver.
enum Attempt {
    /// The endpoint did not take it (retryable unless final).
    Failed(http::Failure),
    /// The relay cannot make it (a stored URL or secret no longer usable).
    Broken(EventError),
}

async fn attempt_once(
    state: &AppState,
    row: &SubscriptionRow,
    webhook_id: &str,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<(), Attempt> {
    let config = &state.events().config;
    let url = target::parse(&row.url, config.allow_loopback)
        .map_err(|e| Attempt::Broken(EventError::Url(e)))?;
    let secrets = state
        .signing_secrets(row, now)
        .await
        .map_err(Attempt::Broken)?;
    let headers = signed_headers(&secrets, &row.id, webhook_id, now.timestamp(), body)
        .map_err(Attempt::Broken)?;
    http::post(
        &url,
        config.allow_loopback,
        config.timeout,
        headers,
        body.to_vec(),
    )
    .await
    .map(|_| ())
    .map_err(Attempt::Failed)
}

/// The `terminated` envelope to a deleted subscription of a revoked credential: one attempt
/// plus the configured retries, signed with the secrets it had.
async fn send_terminated(state: &AppState, row: &SubscriptionRow) -> Result<(), EventError> {
    let body = serde_json::json!({
        "type": "terminated",
        "error": {"code": -32024, "message": "Forbidden", "data": {"reason": "Access revoked"}},
    })
    .to_string()
    .into_bytes();
    let webhook_id = message_id("terminated")?;
    let config = state.events().config.clone();
    for attempt in 0..=config.retry_delays.len() {
        if attempt > 0 && !pause(state, config.retry_delays[attempt - 1]).await {
            return Ok(());
        }
        match attempt_once(state, row, &webhook_id, &body, state.now()).await {
            Ok(()) => return Ok(()),
            Err(Attempt::Broken(e)) => return Err(e),
            Err(Attempt::Failed(f)) if f.is_final() => return Ok(()),
            Err(Attempt::Failed(_)) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_grants() {
        assert_eq!(Ttl::Default.grant(), MAX_TTL);
        assert_eq!(Ttl::NoExpiry.grant(), MAX_TTL);
        assert_eq!(Ttl::Millis(1).grant(), MIN_TTL);
        assert_eq!(Ttl::Millis(3_600_000).grant(), TimeDelta::hours(1));
        assert_eq!(Ttl::Millis(u64::MAX).grant(), MAX_TTL);
    }

    #[test]
    fn subscription_ids_are_stable_and_keyed() {
        let who = Subscriber {
            account: AccountId::from_random(&[1; 16]),
            kind: "agentKey".into(),
            id: "agk_1".into(),
        };
        let url = Url::parse("https://hooks.example.com/x").unwrap();
        let all = ReplyArguments {
            notification_id: None,
        };
        let one = ReplyArguments {
            notification_id: Some("n1".into()),
        };
        let id = subscription_id(&who, &url, &all);
        assert!(id.starts_with("sub_") && id.len() == 36, "{id}");
        assert_eq!(id, subscription_id(&who, &url, &all));
        assert_ne!(id, subscription_id(&who, &url, &one));
        let other = Subscriber {
            id: "agk_2".into(),
            ..who.clone()
        };
        assert_ne!(id, subscription_id(&other, &url, &all));
    }
}
