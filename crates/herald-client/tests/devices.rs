//! Device flows of the core against a real relay (real SQLite, real crypto, real HTTP):
//! typed-code pairing (right code, wrong code, substituted keys), unlock with the recovery key,
//! the safety code on every device, revocation with key rotation (the revoked device is
//! refused, later messages are sealed past its bundle, remaining devices and the re-sealed
//! recovery backup read them), and Reset.

mod core_setup;

use herald_client::agent::{AgentClient, SendOptions};
use herald_client::{Core, Error};
use herald_crypto::{ConnectionToken, Directory};
use herald_protocol::content::MessageContent;
use herald_protocol::envelope::b64_decode;
use herald_protocol::wire::{KeysResponse, MessageRecord};
use serde_json::json;

struct Env {
    relay: herald_relay::RunningRelay,
    relay_dir: tempfile::TempDir,
    dirs: Vec<tempfile::TempDir>,
}

impl Env {
    async fn new() -> Env {
        let relay_dir = tempfile::tempdir().unwrap();
        let relay = core_setup::spawn_relay(relay_dir.path()).await;
        Env {
            relay,
            relay_dir,
            dirs: Vec::new(),
        }
    }

    fn url(&self) -> String {
        self.relay.url()
    }

    /// A device core in a fresh data dir.
    fn device(&mut self, name: &str) -> Core {
        let dir = tempfile::tempdir().unwrap();
        let core = core_setup::open_core(dir.path(), name);
        self.dirs.push(dir);
        core
    }
}

fn note(title: &str) -> MessageContent {
    serde_json::from_value(json!({"title": title, "body": "For every device."})).unwrap()
}

/// A connection's agent, as one `herald send` invocation would make it (fresh keys).
async fn send(token: &str, url: &str, title: &str) -> MessageRecord {
    AgentClient::new(url, ConnectionToken::parse(token).unwrap())
        .unwrap()
        .send(&note(title), SendOptions::default())
        .await
        .expect("the agent sends")
}

async fn titles(core: &Core) -> Vec<String> {
    core.sync_once().await.expect("sync");
    core.inbox()
        .await
        .unwrap()
        .into_iter()
        .filter(|m| m.error.is_none())
        .map(|m| m.title)
        .collect()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_device_pairs_by_typed_code_and_reads_the_whole_history() {
    let mut env = Env::new().await;
    let desk = env.device("Desk");
    let (_, token) = account(&env, &desk).await;
    send(&token, &env.url(), "Before pairing").await;

    let laptop = env.device("Laptop");
    let started = laptop
        .start_pairing(&env.url(), "Laptop")
        .await
        .expect("pairing starts");
    assert_eq!(started.code.len(), 9, "8 digits shown as two groups");
    let waiting = tokio::spawn({
        let laptop = laptop.clone();
        let id = started.pairing_id.clone();
        async move { laptop.wait_pairing(&id).await }
    });
    let requests = desk.pairing_requests().await.unwrap();
    assert!(
        requests
            .iter()
            .any(|r| r.id == started.pairing_id && r.name == "Laptop"),
        "the unlocked device lists the request: {requests:?}"
    );
    let added = desk
        .approve_pairing(&started.pairing_id, &started.code)
        .await
        .expect("the right code approves");
    assert_eq!(added.name, "Laptop", "the new device as listed");
    assert!(!added.current, "not the approving device");
    let unlocked = waiting.await.unwrap().expect("the new device unlocks");
    assert_eq!(
        unlocked.safety_code,
        desk.safety_code().unwrap(),
        "the same safety code on both devices"
    );
    assert_eq!(
        laptop.setup_state().safety_code.as_deref(),
        Some(unlocked.safety_code.as_str()),
        "and in the setup state"
    );
    assert_eq!(
        titles(&laptop).await,
        vec!["Before pairing".to_string()],
        "the paired device reads the history"
    );
    let devices = laptop.devices().await.unwrap();
    assert_eq!(devices.len(), 2, "two devices");
    assert!(
        devices.iter().any(|d| d.current && d.name == "Laptop"),
        "the laptop is marked current on itself"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_code_is_reported_on_both_screens_and_burns_the_request() {
    let mut env = Env::new().await;
    let desk = env.device("Desk");
    account(&env, &desk).await;
    let laptop = env.device("Laptop");
    let started = laptop.start_pairing(&env.url(), "Laptop").await.unwrap();
    let waiting = tokio::spawn({
        let laptop = laptop.clone();
        let id = started.pairing_id.clone();
        async move { laptop.wait_pairing(&id).await }
    });
    let wrong = if started.code.starts_with('0') {
        format!("1{}", &started.code[1..])
    } else {
        format!("0{}", &started.code[1..])
    };
    let approver = desk.approve_pairing(&started.pairing_id, &wrong).await;
    assert!(
        matches!(approver, Err(Error::WrongPairingCode)),
        "the approving device reports the wrong code: {approver:?}"
    );
    let new_device = waiting.await.unwrap();
    assert!(
        matches!(new_device, Err(Error::WrongPairingCode)),
        "the new device reports it too: {new_device:?}"
    );
    assert_eq!(
        new_device.err().map(|e| e.code()),
        Some("wrong_pairing_code".to_string()),
        "with its own code for the UI"
    );
    let again = desk
        .approve_pairing(&started.pairing_id, &started.code)
        .await;
    assert!(again.is_err(), "the burned request takes no second attempt");
    assert!(
        desk.pairing_requests()
            .await
            .unwrap()
            .iter()
            .all(|r| r.id != started.pairing_id),
        "and is no longer listed"
    );
    assert_eq!(
        desk.devices().await.unwrap().len(),
        1,
        "no device was added"
    );
    assert!(laptop.safety_code().is_err(), "the laptop stays locked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_that_substitutes_the_new_devices_key_is_caught_by_confirmation() {
    let mut env = Env::new().await;
    let desk = env.device("Desk");
    account(&env, &desk).await;
    let laptop = env.device("Laptop");
    let started = laptop.start_pairing(&env.url(), "Laptop").await.unwrap();
    // The relay (here: its database) swaps in keys it holds, hoping to get the bundle.
    let attacker = herald_crypto::DeviceKeys::generate().public();
    let db = rusqlite::Connection::open(env.relay_dir.path().join("relay.db")).unwrap();
    db.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    let changed = db
        .execute(
            "UPDATE pairings SET encryption_key = ?1, signing_key = ?2 WHERE id = ?3",
            rusqlite::params![
                herald_protocol::envelope::b64_encode(&attacker.encryption_key),
                herald_protocol::envelope::b64_encode(&attacker.signing_key),
                started.pairing_id
            ],
        )
        .unwrap();
    assert_eq!(changed, 1, "set-up: the request's keys are substituted");
    let waiting = tokio::spawn({
        let laptop = laptop.clone();
        let id = started.pairing_id.clone();
        async move { laptop.wait_pairing(&id).await }
    });
    let approver = desk
        .approve_pairing(&started.pairing_id, &started.code)
        .await;
    assert!(
        matches!(approver, Err(Error::WrongPairingCode)),
        "the approver never seals the bundle to substituted keys: {approver:?}"
    );
    assert!(
        matches!(waiting.await.unwrap(), Err(Error::WrongPairingCode)),
        "the new device detects it as a failed confirmation"
    );
    assert_eq!(
        desk.devices().await.unwrap().len(),
        1,
        "no device was added"
    );
}

/// The bundle the recovery backup on the relay holds now.
async fn recovery_bundle(url: &str, recovery: &str) -> herald_crypto::AccountKeys {
    let key = herald_crypto::RecoveryKey::parse(recovery).unwrap();
    let found: serde_json::Value =
        reqwest::get(format!("{url}/keys/backup/{}", key.recipient().key_id))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let sealed = b64_decode(found["sealedBundle"].as_str().unwrap()).unwrap();
    herald_crypto::open_bundle_with_recovery(&sealed, &key).unwrap()
}

async fn keys(url: &str, token: &str) -> KeysResponse {
    reqwest::Client::new()
        .get(format!("{url}/keys"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recovery_unlock_then_revocation_rotates_the_key_past_the_revoked_device() {
    let mut env = Env::new().await;
    let url = env.url();
    let desk = env.device("Desk");
    let (recovery, token) = account(&env, &desk).await;
    send(&token, &url, "Before").await;

    let phone = env.device("Phone");
    let bad = phone
        .unlock_with_recovery_key(
            &url,
            &recovery.replace('-', "").to_lowercase()[..27],
            "Phone",
        )
        .await;
    assert_eq!(
        bad.err().map(|e| e.code()),
        Some("invalid_input".to_string()),
        "a short recovery key is refused locally"
    );
    let other = herald_crypto::RecoveryKey::generate().display().to_string();
    let unknown = phone.unlock_with_recovery_key(&url, &other, "Phone").await;
    assert!(
        matches!(unknown, Err(Error::WrongRecoveryKey)),
        "another key opens nothing: {unknown:?}"
    );
    let unlocked = phone
        .unlock_with_recovery_key(&url, &recovery, "Phone")
        .await
        .expect("the recovery key unlocks");
    assert_eq!(
        unlocked.safety_code,
        desk.safety_code().unwrap(),
        "same safety code"
    );
    assert_eq!(
        titles(&phone).await,
        vec!["Before".to_string()],
        "the whole history"
    );
    let tablet = env.device("Tablet");
    tablet
        .unlock_with_recovery_key(&url, &recovery, "Tablet")
        .await
        .unwrap();

    // The bundle the phone holds now: epoch 1 only (what the recovery backup held).
    let backup_before = recovery_bundle(&url, &recovery).await;

    // An agent that keeps one client across the rotation (its keys loaded before it).
    let long_lived = AgentClient::new(&url, ConnectionToken::parse(&token).unwrap()).unwrap();
    long_lived
        .send(&note("Early"), SendOptions::default())
        .await
        .expect("sent before the rotation");

    let phone_id = phone.setup_state().device_id.unwrap();
    assert!(
        desk.revoke_device(&desk.setup_state().device_id.unwrap())
            .await
            .is_err(),
        "not itself"
    );
    desk.revoke_device(&phone_id).await.expect("revoked");
    let refused = phone.sync_once().await;
    assert_eq!(
        refused.err().map(|e| e.code()),
        Some("unauthorized".to_string()),
        "the revoked device's session is refused at once"
    );
    let listed = desk.devices().await.unwrap();
    assert!(
        listed
            .iter()
            .any(|d| d.id == phone_id && d.revoked_at.is_some()),
        "listed as revoked"
    );

    let after = send(&token, &url, "After").await;
    // The relay serves the same keys to every credential; read them as the agent does.
    let k = keys(&url, token.split('.').next().unwrap()).await;
    assert_eq!(k.encryption_keys.len(), 2, "epoch 2 is certified");
    let fingerprint = herald_crypto::account_fingerprint(
        &b64_decode(
            match k.statement.body_unverified().unwrap() {
                herald_protocol::envelope::CertificateBody::Account { identity_key, .. } => {
                    identity_key
                }
                _ => unreachable!("the statement is an account certificate"),
            }
            .as_str(),
        )
        .unwrap()
        .try_into()
        .unwrap(),
    );
    let directory = Directory::verify(&k, &fingerprint).unwrap();
    let old_secrets = backup_before.encryption_secrets();
    let refs: Vec<_> = old_secrets.iter().collect();
    assert_eq!(
        herald_crypto::open(&after.envelope, &directory, &refs).err(),
        Some(herald_crypto::Error::NotRecipient),
        "the revoked device's bundle cannot open a message sent after the rotation"
    );
    assert!(
        titles(&desk).await.contains(&"After".to_string()),
        "the revoking device reads it"
    );
    // The long-lived client sealed to epoch 1 is told keys_changed, reloads and reseals.
    let late = long_lived
        .send(&note("Late"), SendOptions::default())
        .await
        .expect("a client holding pre-rotation keys reloads them and sends");
    assert_eq!(
        herald_crypto::open(&late.envelope, &directory, &refs).err(),
        Some(herald_crypto::Error::NotRecipient),
        "the long-lived client sealed to the new epoch, not the one the revoked device holds"
    );
    assert!(
        titles(&desk).await.contains(&"Late".to_string()),
        "the remaining devices read it"
    );
    assert!(
        titles(&tablet).await.contains(&"After".to_string()),
        "a remaining device fetches its rotated bundle and reads it"
    );
    let fresh = env.device("Replacement");
    fresh
        .unlock_with_recovery_key(&url, &recovery, "Replacement")
        .await
        .expect("the recovery key still unlocks");
    let read = titles(&fresh).await;
    assert!(
        read.contains(&"Before".to_string()) && read.contains(&"After".to_string()),
        "the re-sealed recovery backup holds every epoch: {read:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_makes_a_new_account_and_other_devices_unlock_again() {
    let mut env = Env::new().await;
    let url = env.url();
    let desk = env.device("Desk");
    let (recovery, token) = account(&env, &desk).await;
    send(&token, &url, "Old news").await;
    let phone = env.device("Phone");
    phone
        .unlock_with_recovery_key(&url, &recovery, "Phone")
        .await
        .unwrap();
    let old_account = desk.setup_state().account_id.unwrap();
    let old_code = desk.safety_code().unwrap();

    let reset = desk.reset_account().await.expect("reset");
    assert_ne!(reset.account_id, old_account, "a new account id");
    assert_ne!(reset.safety_code, old_code, "a new safety code");
    assert_ne!(reset.recovery_key, recovery, "a new recovery key");
    assert!(titles(&desk).await.is_empty(), "all activity is gone");
    assert_eq!(
        phone.sync_once().await.err().map(|e| e.code()),
        Some("unauthorized".to_string()),
        "the other device is signed out"
    );
    let agent = AgentClient::new(&url, ConnectionToken::parse(&token).unwrap()).unwrap();
    assert!(
        agent
            .send(&note("Still there?"), SendOptions::default())
            .await
            .is_err(),
        "the old connection is revoked"
    );
    let old = phone
        .unlock_with_recovery_key(&url, &recovery, "Phone")
        .await;
    assert!(
        matches!(old, Err(Error::WrongRecoveryKey)),
        "the old recovery key opens nothing: {old:?}"
    );
    let again = phone
        .unlock_with_recovery_key(&url, &reset.recovery_key, "Phone")
        .await
        .expect("the other device unlocks again with the new key");
    assert_eq!(
        again.safety_code, reset.safety_code,
        "and shows the new safety code"
    );
    assert!(
        titles(&phone).await.is_empty(),
        "nothing of the old account is left in its cache"
    );
}
