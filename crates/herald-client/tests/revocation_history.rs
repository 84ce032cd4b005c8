//! History across revocations and key rotations, against a real relay (real SQLite, real
//! crypto, real HTTP): what a connection or device signed before it was revoked stays readable
//! on every device and for the agent (docs/protocol.md, "Key directory"); an answer sealed to
//! an account key newer than the one a device held when it cached the request opens there,
//! on the answering device too; and rows that did not open are read again once the keys
//! change (docs/devices.md, "Revoking a device").

mod core_setup;

use std::path::{Path, PathBuf};
use std::time::Duration;

use herald_client::agent::{AgentClient, SendOptions, WaitOutcome};
use herald_client::view::AnswerInput;
use herald_client::Core;
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use herald_protocol::MessageId;
use serde_json::json;

struct Env {
    relay: herald_relay::RunningRelay,
    _relay_dir: tempfile::TempDir,
    dirs: Vec<tempfile::TempDir>,
}

impl Env {
    async fn new() -> Env {
        let relay_dir = tempfile::tempdir().unwrap();
        let relay = core_setup::spawn_relay(relay_dir.path()).await;
        Env {
            relay,
            _relay_dir: relay_dir,
            dirs: Vec::new(),
        }
    }

    fn url(&self) -> String {
        self.relay.url()
    }

    /// A fresh data dir for a device.
    fn dir(&mut self) -> PathBuf {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        self.dirs.push(dir);
        path
    }

    /// A device core in a fresh data dir.
    fn device(&mut self, name: &str) -> Core {
        let dir = self.dir();
        open(&dir, name)
    }
}

/// The core of the device in `dir` (as a new `herald` process would open it).
fn open(dir: &Path, name: &str) -> Core {
    core_setup::open_core(dir, name)
}

fn content(v: serde_json::Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

fn request(title: &str) -> MessageContent {
    content(json!({"title": title, "body": "Ship it?", "actions": [
        {"id": "approve", "label": "Approve", "values": {}},
        {"id": "reject", "label": "Reject", "values": {}}]}))
}

fn agent(url: &str, token: &str) -> AgentClient {
    AgentClient::new(url, ConnectionToken::parse(token).unwrap()).unwrap()
}

/// An account on `first` with one connection; returns (recovery key, connection token).
async fn account(env: &Env, first: &Core) -> (String, String) {
    let onboard = first.create_account(&env.url()).await.expect("account");
    let connection = first
        .create_connection("ci-bot", None)
        .await
        .expect("connection");
    (onboard.recovery_key, connection.token)
}

async fn unlock(env: &mut Env, recovery: &str, name: &str) -> Core {
    let core = env.device(name);
    core.unlock_with_recovery_key(&env.url(), recovery, name)
        .await
        .expect("the recovery key unlocks");
    core
}

/// Syncs, then the cached view of message `id`: (error, answer's action id).
async fn read(core: &Core, id: &str) -> (Option<String>, Option<Option<String>>) {
    core.sync_once().await.expect("sync");
    let view = core.message(id).await.expect("cached");
    (
        view.summary.error.clone(),
        view.answer.as_ref().map(|a| a.action_id.clone()),
    )
}

fn approve() -> AnswerInput {
    AnswerInput {
        action_id: Some("approve".into()),
        ..Default::default()
    }
}

/// Runs `sql` on the device's cache file, as a row an older build stored would look.
fn edit_cache(dir: &Path, sql: &str, id: &str) {
    let c = rusqlite::Connection::open(dir.join("cache.db")).unwrap();
    c.busy_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(c.execute(sql, [id]).unwrap(), 1, "one row changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_from_a_connection_revoked_later_stays_readable_everywhere() {
    let mut env = Env::new().await;
    let url = env.url();
    let desk_dir = env.dir();
    let desk = open(&desk_dir, "Desk");
    let (recovery, token) = account(&env, &desk).await;
    let bot = agent(&url, &token);
    let sent = bot
        .send(
            &content(json!({"title": "Nightly build green", "body": "All 412 tests."})),
            SendOptions::default(),
        )
        .await
        .unwrap();
    let id = sent.id.to_string();

    let connection = desk.list_connections().await.unwrap().remove(0);
    desk.revoke_connection(&connection.id)
        .await
        .expect("revoked");
    let refused = bot
        .send(
            &content(json!({"title": "After revocation"})),
            SendOptions::default(),
        )
        .await;
    assert_eq!(
        refused.err().map(|e| e.code()),
        Some("unauthorized".to_string()),
        "the relay refuses the revoked connection at once"
    );

    // A device that had not synced yet, and one unlocked afterwards by the recovery key.
    assert_eq!(
        read(&desk, &id).await,
        (None, None),
        "the old device reads it"
    );
    let phone = unlock(&mut env, &recovery, "Phone").await;
    assert_eq!(read(&phone, &id).await, (None, None), "the new device too");
    let view = phone.message(&id).await.unwrap();
    assert_eq!(view.summary.title, "Nightly build green");
    assert_eq!(
        view.summary.sender_name, "ci-bot",
        "the revoked connection's certified name"
    );

    // A row an older build stored as unreadable is read again when a session starts.
    edit_cache(
        &desk_dir,
        "UPDATE messages SET sealed_title = NULL, sealed_content = NULL,
             error = 'This message could not be verified or decrypted.' WHERE id = ?1",
        &id,
    );
    drop(desk);
    let desk = open(&desk_dir, "Desk");
    assert_eq!(
        read(&desk, &id).await,
        (None, None),
        "the next session reads the unopened row again"
    );
    assert_eq!(
        desk.message(&id).await.unwrap().summary.title,
        "Nightly build green"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_by_a_device_revoked_later_is_readable_by_the_agent_and_new_devices() {
    let mut env = Env::new().await;
    let url = env.url();
    let desk = env.device("Desk");
    let (recovery, token) = account(&env, &desk).await;
    let phone = unlock(&mut env, &recovery, "Phone").await;
    let asked = agent(&url, &token)
        .send(&request("Deploy 1.4?"), SendOptions::default())
        .await
        .unwrap();
    let id = asked.id.to_string();
    phone.sync_once().await.unwrap();
    let answered = phone.answer(&id, approve()).await.expect("answered");
    assert!(answered.answer.is_some(), "the answering device reads it");

    desk.revoke_device(&phone.setup_state().device_id.unwrap())
        .await
        .expect("revoked");

    // The agent, as a fresh `herald wait` after the revocation (keys loaded after it).
    let outcome = agent(&url, &token)
        .wait(
            &MessageId::parse(&id).unwrap(),
            Some(Duration::from_secs(30)),
        )
        .await
        .expect("an answer given before the revocation verifies");
    let WaitOutcome::Answered(answer) = outcome else {
        panic!("answered, got {outcome:?}");
    };
    assert_eq!(answer.action_id.as_deref(), Some("approve"));
    assert_eq!(answer.answered_by, "Phone", "the revoked device's name");
    assert!(
        agent(&url, &token)
            .check(&MessageId::parse(&id).unwrap())
            .await
            .expect("check verifies it too")
            .is_some(),
        "check reports the answer"
    );

    let approved = Some(Some("approve".to_string()));
    assert_eq!(
        read(&desk, &id).await,
        (None, approved.clone()),
        "the revoking device, which had not synced the answer"
    );
    let tablet = unlock(&mut env, &recovery, "Tablet").await;
    assert_eq!(
        read(&tablet, &id).await,
        (None, approved),
        "a device unlocked afterwards reads the whole history"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_sealed_to_a_newer_account_key_opens_where_the_request_was_cached() {
    let mut env = Env::new().await;
    let url = env.url();
    let a_dir = env.dir();
    let a = open(&a_dir, "A");
    let (recovery, token) = account(&env, &a).await;
    let b = unlock(&mut env, &recovery, "B").await;
    let c = unlock(&mut env, &recovery, "C").await;
    let g = unlock(&mut env, &recovery, "G").await;
    let asked = agent(&url, &token)
        .send(&request("Rotate the certificates?"), SendOptions::default())
        .await
        .unwrap();
    let id = asked.id.to_string();
    assert_eq!(read(&a, &id).await, (None, None), "A cached the request");
    assert_eq!(read(&b, &id).await, (None, None), "B cached the request");

    // C revokes G: the account key rotates to epoch 2, which A and B have not learned yet.
    c.revoke_device(&g.setup_state().device_id.unwrap())
        .await
        .expect("revoked");

    let answered = b
        .answer(&id, approve())
        .await
        .expect("B answers, sealed to epoch 2");
    assert_eq!(
        answered.answer.map(|a| a.action_id),
        Some(Some("approve".to_string())),
        "B opens what it just sealed"
    );
    let approved = Some(Some("approve".to_string()));
    assert_eq!(read(&b, &id).await, (None, approved.clone()), "B, later");
    assert_eq!(
        read(&a, &id).await,
        (None, approved.clone()),
        "A learns epoch 2 from the answer envelope"
    );
    let WaitOutcome::Answered(out) = agent(&url, &token)
        .wait(
            &MessageId::parse(&id).unwrap(),
            Some(Duration::from_secs(30)),
        )
        .await
        .unwrap()
    else {
        panic!("answered");
    };
    assert_eq!(out.answered_by, "B");

    // An answer row that did not open (as an older build left it) is read again when the
    // account keys change, without a restart.
    edit_cache(
        &a_dir,
        "UPDATE messages SET sealed_answer = NULL WHERE id = ?1",
        &id,
    );
    c.revoke_device(&b.setup_state().device_id.unwrap())
        .await
        .expect("revoked");
    agent(&url, &token)
        .send(
            &content(json!({"title": "Sealed to epoch 3"})),
            SendOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        read(&a, &id).await,
        (None, approved),
        "A learned epoch 3 and read the unopened answer again"
    );
}
