//! Secret delivery end to end (docs/secrets.md): a device core and agents on a real relay
//! (127.0.0.1:0, real SQLite, a settable relay clock), real crypto. Secret answers reach the
//! asking connection only and once; the device's cache never holds the secret; secret offers
//! are handed over once; a relay that substitutes the offer key is refused by the sender.

mod core_setup;

use std::sync::Arc;
use std::time::Duration;

use herald_client::agent::{AgentClient, OfferOutcome, SendOptions, WaitOutcome};
use herald_client::view::{AnswerInput, MessageKind};
use herald_client::Core;
use herald_crypto::{AccountKeys, ConnectionToken, OneTimeKey};
use herald_protocol::content::MessageContent;
use herald_protocol::envelope::{CertificateBody, Envelope};
use herald_protocol::ErrorCode;
use herald_relay::{AppState, Clock, ManualClock, RelayConfig, RunningRelay};
use serde_json::json;

const SECRET: &str = "sk-live-7d1f0c2a9b8e4f63a5d2c1b0e9f8a7d6";

struct Env {
    relay: RunningRelay,
    clock: Arc<ManualClock>,
    relay_dir: tempfile::TempDir,
    device_dir: tempfile::TempDir,
    core: Core,
}

async fn env() -> Env {
    let relay_dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let state = AppState::open_with_clock(
        RelayConfig {
            data_dir: relay_dir.path().to_path_buf(),
            public_url: None,
            ..Default::default()
        },
        clock.clone() as Arc<dyn Clock>,
    )
    .expect("relay state opens");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let relay = herald_relay::spawn_with_state(state, listener).expect("relay starts");
    let device_dir = tempfile::tempdir().unwrap();
    let core = core_setup::open_core(device_dir.path(), "Test laptop");
    core.create_account(&relay.url()).await.expect("account");
    Env {
        relay,
        clock,
        relay_dir,
        device_dir,
        core,
    }
}

impl Env {
    async fn agent(&self, name: &str) -> (AgentClient, ConnectionToken) {
        let created = self
            .core
            .create_connection(name, None)
            .await
            .expect("connection");
        let token = ConnectionToken::parse(&created.token).unwrap();
        let agent = AgentClient::new(
            &created.relay_url,
            ConnectionToken::parse(&created.token).unwrap(),
        )
        .unwrap();
        (agent, token)
    }

    fn relay_db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.relay_dir.path().join("relay.db")).expect("relay.db")
    }
}

fn content(v: serde_json::Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

fn token_request() -> MessageContent {
    content(json!({"title": "API token", "fields": [
        {"id": "token", "label": "API token", "type": "secret", "required": true},
        {"id": "note", "label": "Note", "type": "text"}]}))
}

/// Every byte of every file in `dir` (the cache and its WAL included).
fn all_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in walk(dir) {
        out.extend(std::fs::read(entry).unwrap_or_default());
    }
    out
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

async fn answer_secret(env: &Env, id: &str) {
    env.core.sync_once().await.expect("sync");
    let values = json!({"token": SECRET, "note": "rotate monthly"}).to_string();
    env.core
        .answer(
            id,
            AnswerInput {
                action_id: None,
                values_json: Some(values),
                files: Default::default(),
            },
        )
        .await
        .expect("answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_answer_reaches_the_asking_connection_only_and_once() {
    let env = env().await;
    let (agent, token) = env.agent("deploy-bot").await;
    let (other, _) = env.agent("other-bot").await;
    let sent = agent
        .send(&token_request(), SendOptions::default())
        .await
        .expect("sent");
    answer_secret(&env, sent.id.as_str()).await;

    // The device shows (and caches) only the marker.
    let view = env.core.message(sent.id.as_str()).await.unwrap();
    assert_eq!(
        view.kind,
        MessageKind::Message,
        "a request is an ordinary message"
    );
    let shown = view.answer.expect("answer shown").values_json;
    assert!(
        !shown.contains(SECRET),
        "the device's view has no secret: {shown}"
    );
    assert!(
        shown.contains("\"secret\": true"),
        "it shows the marker: {shown}"
    );
    assert!(
        !contains(&all_bytes(env.device_dir.path()), SECRET),
        "no file of the device (cache, WAL, keys) holds the secret"
    );

    // The secret envelope on the relay: the asking connection is its only recipient.
    let stored: String = env
        .relay_db()
        .query_row(
            "SELECT envelope FROM secret_answers WHERE message_id = ?1",
            [sent.id.as_str()],
            |r| r.get(0),
        )
        .expect("the relay holds a secret envelope");
    let envelope: Envelope = serde_json::from_str(&stored).unwrap();
    let keys = herald_client::http::RelayHttp::new(&env.relay.url())
        .unwrap()
        .with_bearer(&token.bearer)
        .keys()
        .await
        .unwrap();
    let directory = herald_crypto::Directory::verify(&keys, &token.fingerprint_prefix).unwrap();
    let recipients: Vec<&str> = envelope
        .recipients
        .iter()
        .map(|r| r.key_id.as_str())
        .collect();
    assert_eq!(
        recipients,
        vec![token.keys().encryption_key_id()],
        "sealed to the asking connection only"
    );
    assert_ne!(
        recipients[0],
        directory.current_account_recipient().key_id,
        "the account key is not a recipient"
    );

    let err = other.check(&sent.id).await.expect_err("another connection");
    assert_eq!(
        err.code(),
        ErrorCode::NotFound.as_str(),
        "cannot even see the request"
    );

    match agent.check(&sent.id).await.expect("checked") {
        Some(WaitOutcome::Answered(answer)) => {
            let secrets = answer.secrets.as_ref().expect("secret values collected");
            assert_eq!(
                secrets.get("token"),
                Some(&json!(SECRET)),
                "the secret value"
            );
            assert_eq!(
                answer.values["note"],
                json!("rotate monthly"),
                "ordinary values"
            );
            assert_eq!(
                answer.values["token"],
                json!({"secret": true}),
                "marker in values"
            );
            assert_eq!(
                answer.merged_values().get("token"),
                Some(&json!(SECRET)),
                "merged"
            );
            let printed = format!("{answer:?} {}", serde_json::to_string(&answer).unwrap());
            assert!(
                !printed.contains(SECRET),
                "Debug and JSON never show it: {printed}"
            );
        }
        other => panic!("expected an answer, got {other:?}"),
    }
    let again = agent.check(&sent.id).await.expect_err("collected once");
    assert_eq!(
        again.code(),
        ErrorCode::SecretCollected.as_str(),
        "second collect"
    );
    let left: Option<String> = env
        .relay_db()
        .query_row(
            "SELECT envelope FROM secret_answers WHERE message_id = ?1",
            [sent.id.as_str()],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        left.is_none(),
        "the relay deleted the envelope when it handed it over"
    );
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncollected_secret_answer_expires_after_15_minutes() {
    let env = env().await;
    let (agent, _) = env.agent("slow-bot").await;
    let sent = agent
        .send(&token_request(), SendOptions::default())
        .await
        .expect("sent");
    answer_secret(&env, sent.id.as_str()).await;
    env.clock.advance(chrono::Duration::minutes(15));
    env.relay.state().sweep_secrets().await.expect("sweep");
    let err = agent.check(&sent.id).await.expect_err("expired");
    assert_eq!(
        err.code(),
        ErrorCode::SecretExpired.as_str(),
        "secret_expired"
    );
    assert!(
        !err.to_string().contains(SECRET),
        "errors never carry the secret"
    );
    env.relay.shutdown().await;
}

async fn offer(env: &Env, agent: &AgentClient) -> herald_protocol::MessageId {
    let offered = agent
        .send_secret_offer(
            &content(json!({"title": "Staging password", "body": "For the deploy."})),
            SECRET.as_bytes(),
            SendOptions::default(),
        )
        .await
        .expect("offer sent");
    env.core.sync_once().await.expect("sync");
    offered.id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_offer_is_revealed_once() {
    let env = env().await;
    let (agent, _) = env.agent("vault-bot").await;
    let id = offer(&env, &agent).await;
    let view = env.core.message(id.as_str()).await.expect("cached");
    assert_eq!(
        view.kind,
        MessageKind::Secret,
        "the view says it is an offer"
    );
    assert_eq!(
        view.summary.kind,
        MessageKind::Secret,
        "so does the inbox row"
    );
    let err = env
        .core
        .reveal_secret_offer(id.as_str())
        .await
        .expect_err("not opened");
    assert_eq!(err.code(), "invalid_input", "reveal needs an open first");

    env.core
        .open_secret_offer(id.as_str())
        .await
        .expect("opened");
    env.core
        .open_secret_offer(id.as_str())
        .await
        .expect("opening twice on the same device is harmless");
    assert!(
        env.core
            .reveal_secret_offer(id.as_str())
            .await
            .unwrap()
            .is_none(),
        "nothing to reveal before the sender sends"
    );
    let outcome = tokio::spawn({
        let id = id.clone();
        async move {
            agent
                .deliver_secret(&id, SECRET.as_bytes(), Some(Duration::from_secs(30)))
                .await
        }
    });
    let revealed = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Some(r) = env
                .core
                .reveal_secret_offer(id.as_str())
                .await
                .expect("reveal")
            {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("revealed in time");
    assert_eq!(revealed.text, SECRET, "the offered secret");
    assert!(
        !format!("{revealed:?}").contains(SECRET),
        "Debug is redacted"
    );
    match outcome.await.unwrap().expect("delivered") {
        OfferOutcome::Delivered(state) => assert!(state.closed_at.is_some(), "with its time"),
        other => panic!("expected delivery, got {other:?}"),
    }
    let again = env
        .core
        .reveal_secret_offer(id.as_str())
        .await
        .expect_err("once");
    assert_eq!(again.code(), "invalid_input", "the one-time key is gone");
    assert!(
        !contains(&all_bytes(env.device_dir.path()), SECRET),
        "the device stored nothing of the secret"
    );
    assert!(
        walk(&env.device_dir.path().join("offer-keys")).is_empty(),
        "the one-time key file is deleted"
    );
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sender_refuses_a_substituted_offer_key() {
    let env = env().await;
    let (agent, _) = env.agent("vault-bot").await;
    let id = offer(&env, &agent).await;
    env.core
        .open_secret_offer(id.as_str())
        .await
        .expect("opened");

    // The relay swaps in a key it holds, certified by a key that is not the account's.
    let db = env.relay_db();
    let (cert_json, device): (String, String) = db
        .query_row(
            "SELECT offer_key, device_id FROM secret_offers WHERE message_id = ?1",
            [id.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let cert: herald_protocol::envelope::Certificate = serde_json::from_str(&cert_json).unwrap();
    let Some(CertificateBody::OfferKey { account_id, .. }) = cert.body_unverified() else {
        panic!("an offer key certificate")
    };
    assert!(account_id.as_str().starts_with("acc_"), "names the account");
    let impostor = AccountKeys::generate();
    let relay_key = OneTimeKey::generate().recipient();
    let forged = impostor.certify_offer_key(
        &id,
        &herald_protocol::DeviceId::parse(&device).unwrap(),
        &relay_key,
        "2026-01-01T00:00:00.000Z",
        "2999-01-01T00:00:00.000Z",
    );
    db.execute(
        "UPDATE secret_offers SET offer_key = ?2, key_id = ?3 WHERE message_id = ?1",
        rusqlite::params![
            id.as_str(),
            serde_json::to_string(&forged).unwrap(),
            relay_key.key_id
        ],
    )
    .unwrap();

    let err = agent
        .deliver_secret(&id, SECRET.as_bytes(), Some(Duration::from_secs(30)))
        .await
        .expect_err("the sender refuses");
    assert_eq!(err.code(), "crypto", "a bad signature: {err}");
    assert!(
        !err.to_string().contains(SECRET),
        "the error does not carry the secret"
    );
    let state = agent.offer_state(&id).await.unwrap();
    assert_eq!(
        state.status,
        herald_protocol::secrets::SecretOfferStatus::Opened,
        "nothing was sent"
    );
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offer_resent_under_its_key_must_carry_the_same_secret() {
    let env = env().await;
    let (agent, _) = env.agent("vault-bot").await;
    let offer_content = content(json!({"title": "Deploy key", "body": "Rotate it."}));
    let options = || SendOptions {
        idempotency_key: Some("idk_resume-test-key".into()),
        ..SendOptions::default()
    };
    let first = agent
        .send_secret_offer(&offer_content, SECRET.as_bytes(), options())
        .await
        .expect("offer sent");
    let again = agent
        .send_secret_offer(&offer_content, SECRET.as_bytes(), options())
        .await
        .expect("the same offer resent");
    assert_eq!(again.id, first.id, "the same secret resumes the one offer");
    let err = agent
        .send_secret_offer(&offer_content, b"another-secret-entirely", options())
        .await
        .expect_err("another secret under the key is refused");
    assert_eq!(err.code(), ErrorCode::IdempotencyConflict.as_str(), "{err}");
    assert!(!err.to_string().contains("another-secret"), "{err}");
    env.relay.shutdown().await;
}
