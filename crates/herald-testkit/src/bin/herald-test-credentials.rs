//! `herald-test-credentials`: makes one credential of every kind on a running relay and writes
//! each to its own 0600 file, for black-box tests of the relay's HTTP API from outside Rust
//! (tests/openapi/run.sh runs schemathesis with them). Never prints a credential.
//!
//! Environment: `HERALD_RELAY_URL` (e.g. `http://127.0.0.1:8457`) and `HERALD_CREDENTIALS_DIR`
//! (an existing directory). Writes there:
//! - `device-session`: `hds_…` of a new account made with real keys (herald-crypto) and a
//!   recovery backup, as the desktop app makes it (`herald device init` keeps its session
//!   sealed and never shows it, so it cannot serve here);
//! - `connection`: `hdr_…`, the bearer of a connection of that account;
//! - `agent-key`: `hrk_…` from `POST /agent-keys`;
//! - `connector`: `hra_…` from the OAuth device flow, approved by the device;
//! - `pairing-poll`: `hdp_…` of a pairing request of a would-be new device.
//!
//!
//! So that reads have something to return, it also leaves a request from the connection
//! (placeholder envelope, addressed to the account key) and a notification from the agent key.
//!
//! Exits non-zero with a message naming the step that failed.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use herald_protocol::envelope::{b64_encode, CertificateBody};
use herald_protocol::PairingId;
use herald_testkit::fixtures::{
    create_connection, message_request, new_idempotency_key, post_message, random_bytes, readdress,
    TestAccount,
};
use serde_json::{json, Value};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let url = std::env::var("HERALD_RELAY_URL").expect("HERALD_RELAY_URL is set");
    let dir = std::env::var("HERALD_CREDENTIALS_DIR").expect("HERALD_CREDENTIALS_DIR is set");
    let dir = Path::new(&dir);
    let http = reqwest::Client::new();

    let account = herald_testkit::real::create_account(&url).await;
    write_secret(dir, "device-session", &account.device_token);

    let view = TestAccount {
        account_id: account.account_id.clone(),
        device_id: account.device_id.clone(),
        device_token: account.device_token.clone(),
        device_name: "First device".into(),
    };
    let connection = create_connection(&url, &view, "schemathesis").await;
    write_secret(dir, "connection", &connection.bearer);

    let mut request = message_request(&account.account_id, connection.principal(), true);
    readdress(&mut request.envelope, &current_key_id(&account));
    let sent = post_message(&url, &connection.bearer, &new_idempotency_key(), &request).await;
    assert_eq!(
        sent.status().as_u16(),
        201,
        "POST /messages from the connection"
    );

    let key = ok_json(
        http.post(format!("{url}/agent-keys"))
            .bearer_auth(&account.device_token)
            .json(&json!({"name": "schemathesis"})),
        "POST /agent-keys",
    )
    .await;
    write_secret(dir, "agent-key", field(&key, "key"));

    ok_json(
        http.post(format!("{url}/v1/notify"))
            .bearer_auth(field(&key, "key"))
            .json(&json!({"title": "Build finished"})),
        "POST /v1/notify",
    )
    .await;

    let client_id = "herald-test-credentials";
    let grant = ok_json(
        http.post(format!("{url}/oauth/device_authorization"))
            .form(&[("client_id", client_id)]),
        "POST /oauth/device_authorization",
    )
    .await;
    ok_json(
        http.post(format!("{url}/connectors/approve"))
            .bearer_auth(&account.device_token)
            .json(&json!({"userCode": field(&grant, "user_code"), "name": "schemathesis"})),
        "POST /connectors/approve",
    )
    .await;
    let token = ok_json(
        http.post(format!("{url}/oauth/token")).form(&[
            (
                "grant_type",
                herald_protocol::agents::DEVICE_CODE_GRANT_TYPE,
            ),
            ("device_code", field(&grant, "device_code")),
            ("client_id", client_id),
        ]),
        "POST /oauth/token",
    )
    .await;
    write_secret(dir, "connector", field(&token, "access_token"));

    let pairing = ok_json(
        http.post(format!("{url}/keys/pairings")).json(&json!({
            "id": PairingId::from_random(&random_bytes()),
            "name": "Would-be device",
            "platform": "linux",
            "signingKey": b64_encode(&random_bytes::<32>()),
            "encryptionKey": b64_encode(&random_bytes::<32>()),
            "spakeMessage": b64_encode(&random_bytes::<33>()),
        })),
        "POST /keys/pairings",
    )
    .await;
    write_secret(dir, "pairing-poll", field(&pairing, "pollToken"));
}

/// The key id of the account's current (epoch 1) encryption key.
fn current_key_id(account: &herald_testkit::real::RealAccount) -> String {
    let certificate = account
        .keys
        .encryption_key_certificate(1, herald_testkit::real::CREATED_AT)
        .expect("epoch 1 exists");
    match certificate.body_unverified() {
        Some(CertificateBody::EncryptionKey { key_id, .. }) => key_id,
        _ => panic!("the epoch 1 certificate is an encryption-key certificate"),
    }
}

/// Sends `request`, requires a 2xx answer, and parses its JSON body.
async fn ok_json(request: reqwest::RequestBuilder, step: &str) -> Value {
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("{step}: the relay could not be reached: {e}"));
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    assert!(status.is_success(), "{step} answered {status}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{step}: unexpected body: {e}"))
}

/// The string member `name` of a JSON object.
fn field<'a>(value: &'a Value, name: &str) -> &'a str {
    value[name]
        .as_str()
        .unwrap_or_else(|| panic!("the answer has no string `{name}`"))
}

/// Writes `secret` to `dir/name`, created new with mode 0600.
fn write_secret(dir: &Path, name: &str, secret: &str) {
    let path = dir.join(name);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .unwrap_or_else(|e| panic!("creating {}: {e}", path.display()));
    file.write_all(secret.as_bytes())
        .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}
