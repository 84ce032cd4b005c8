//! Secret-file fields end to end (docs/secrets.md): a device core answers with a file that
//! is encrypted and uploaded, whose attachment (and key) travels only in the secret envelope
//! sealed to the asking connection. That connection downloads and verifies it; another
//! connection cannot; another device of the account sees only the marker; the relay deletes
//! the upload 15 minutes after the answer (relay clock moved by the test). Real relay on
//! 127.0.0.1:0, real SQLite, real crypto.

mod core_setup;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use core_setup::open_core;
use herald_client::agent::{AgentClient, AnswerOutput, SendOptions, WaitOutcome};
use herald_client::view::AnswerInput;
use herald_client::Core;
use herald_protocol::content::MessageContent;
use herald_protocol::secrets::is_secret_marker;
use herald_relay::{AppState, Clock, ManualClock, RelayConfig, RunningRelay};
use serde_json::json;

const KUBECONFIG: &str = "apiVersion: v1\nclusters:\n- cluster:\n    server: https://staging.example:6443\n  name: staging\nusers:\n- name: deployer\n  user:\n    token: eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LWZpbGUtdG9rZW4\n";

struct Env {
    relay: RunningRelay,
    clock: Arc<ManualClock>,
    relay_dir: tempfile::TempDir,
    device_dir: tempfile::TempDir,
    work: tempfile::TempDir,
    core: Core,
    recovery_key: String,
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
    let core = open_core(device_dir.path(), "Desk");
    let onboard = core.create_account(&relay.url()).await.expect("account");
    Env {
        relay,
        clock,
        relay_dir,
        device_dir,
        work: tempfile::tempdir().unwrap(),
        core,
        recovery_key: onboard.recovery_key,
    }
}

impl Env {
    async fn agent(&self, name: &str) -> AgentClient {
        let created = self
            .core
            .create_connection(name, None)
            .await
            .expect("connection");
        AgentClient::new(
            &created.relay_url,
            herald_crypto::ConnectionToken::parse(&created.token).unwrap(),
        )
        .unwrap()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.work.path().join(name)
    }

    /// Sends a request with one secret-file field written as `field` and answers it on the
    /// device with the kubeconfig file; returns the agent's opened answer.
    async fn ask_and_answer(&self, agent: &AgentClient, field: serde_json::Value) -> AnswerOutput {
        let content: MessageContent = serde_json::from_value(json!({
            "title": "Staging kubeconfig",
            "fields": [field]
        }))
        .expect("content");
        let sent = agent
            .send(&content, SendOptions::default())
            .await
            .expect("sent");
        let source = self.path("kubeconfig.yaml");
        std::fs::write(&source, KUBECONFIG).unwrap();
        self.core.sync_once().await.expect("sync");
        self.core
            .answer(
                sent.id.as_str(),
                AnswerInput {
                    action_id: None,
                    values_json: None,
                    files: BTreeMap::from([("kubeconfig".to_owned(), source)]),
                },
            )
            .await
            .expect("answered with the file");
        match agent.wait(&sent.id, None).await.expect("wait") {
            WaitOutcome::Answered(answer) => answer,
            other => panic!("expected an answer, got {other:?}"),
        }
    }
}

fn bytes_under(dir: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(bytes_under(&path));
        } else {
            out.extend(std::fs::read(path).unwrap_or_default());
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_file_reaches_the_asking_connection_only_then_expires() {
    let mut env = env().await;
    // Only this test's explicit sweep calls may delete (their counts are asserted).
    env.relay.stop_sweeper().await;
    let agent = env.agent("deploy-bot").await;
    let other = env.agent("other-bot").await;
    let answer = env
        .ask_and_answer(
            &agent,
            json!({"id": "kubeconfig", "label": "Kubeconfig", "type": "secret-file", "required": true}),
        )
        .await;

    assert!(
        is_secret_marker(&answer.values["kubeconfig"]),
        "the ordinary answer holds the marker only: {:?}",
        answer.values
    );
    assert!(answer.files.is_empty(), "no ordinary file is listed");
    let secrets = answer.secrets.as_ref().expect("secrets collected");
    let [file] = secrets.files() else {
        panic!("one secret file, got {secrets:?}");
    };
    assert_eq!(file.field_id, "kubeconfig", "for its field");
    let key = file.attachment().key.clone();
    assert!(
        !format!("{secrets:?}{file:?}").contains(&key),
        "Debug never shows the key"
    );
    assert!(
        !serde_json::to_string(&answer).unwrap().contains(&key),
        "nor does the printed answer"
    );
    assert!(
        !contains(&bytes_under(env.device_dir.path()), &key),
        "the answering device kept no key"
    );
    assert!(
        !contains(&bytes_under(env.relay_dir.path()), &key),
        "the relay never saw it"
    );

    let saved = env.path("saved");
    agent
        .download_secret_file(file, &saved)
        .await
        .expect("the asking connection downloads it");
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        KUBECONFIG,
        "decrypted and verified"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "owner-only");
    }
    let err = other
        .download_secret_file(file, &env.path("stolen"))
        .await
        .expect_err("another connection cannot");
    assert_eq!(err.code(), "not_found", "it cannot even see the file");
    assert!(!env.path("stolen").exists(), "and nothing is written");

    env.clock.advance(chrono::Duration::minutes(15));
    assert!(
        env.relay.state().sweep_secrets().await.expect("sweep") >= 1,
        "the sweeper deletes it"
    );
    let err = agent
        .download_secret_file(file, &env.path("late"))
        .await
        .expect_err("15 minutes after the answer");
    assert_eq!(err.code(), "file_expired", "shown as expired");
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_device_of_the_account_sees_only_the_marker() {
    let env = env().await;
    let agent = env.agent("deploy-bot").await;
    let answer = env
        .ask_and_answer(
            &agent,
            json!({"id": "kubeconfig", "label": "Kubeconfig", "type": "file", "secret": true}),
        )
        .await;
    let secrets = answer.secrets.as_ref().expect("secrets collected");
    let [file] = secrets.files() else {
        panic!("`file` with secret: true is a secret file too: {secrets:?}");
    };
    let file_id = file.attachment().id.clone();

    let phone_dir = tempfile::tempdir().unwrap();
    let phone = open_core(phone_dir.path(), "Phone");
    phone
        .unlock_with_recovery_key(&env.relay.url(), &env.recovery_key, "Phone")
        .await
        .expect("a second device unlocks");
    phone.sync_once().await.expect("phone syncs");
    for (name, core) in [
        ("the answering device", &env.core),
        ("another device", &phone),
    ] {
        let view = core
            .message(answer.id.as_str())
            .await
            .expect("the request is there");
        let shown = view.answer.expect("answered");
        assert!(
            shown.values_json.contains("\"secret\": true") && !shown.values_json.contains(&file_id),
            "{name} shows the marker only: {}",
            shown.values_json
        );
        assert!(shown.attachments.is_empty(), "{name} lists no attachment");
        let err = core
            .save_attachment(answer.id.as_str(), &file_id, &env.path("phone-copy"))
            .await
            .expect_err("no device can save it");
        assert_eq!(err.code(), "not_found", "{name}: no such attachment");
    }
    env.relay.shutdown().await;
}
