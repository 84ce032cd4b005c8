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
//! So that reads have something to return and operations on one resource reach it, it also
//! makes resources and writes their ids (not secrets) to files of the same directory:
//! - `secret-answer-id`: a request of the connection (placeholder envelope, addressed to the
//!   account key) the device answered with a secret, not collected yet (a second, unanswered
//!   request is left in the feed too);
//! - `offer-id`: a secret offer (`kind: "secret"`) the connection sent, not opened;
//! - `file-id`: a file the connection uploaded and attached to a message;
//! - `reservation-id`: a file reservation of the device, not uploaded;
//! - `notification-id`: the relay id of a notification from the agent key, asking for a reply;
//! - `pairing-id`: the pairing request behind `pairing-poll`.
//!
//! Takes no arguments (`--help` prints the usage). Exits 2 with the usage on a bad argument or
//! a missing variable, 1 with a message naming the step that failed (no backtrace).

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::ExitCode;

use herald_protocol::envelope::{b64_encode, CertificateBody, EnvelopeKind};
use herald_protocol::{FileId, PairingId};
use herald_testkit::fixtures::{
    answer_request, create_connection, message_request, placeholder_envelope, random_bytes,
    readdress, TestAccount,
};
use herald_testkit::Api;
use serde_json::{json, Value};

const USAGE: &str = "\
Usage: HERALD_RELAY_URL=<url> HERALD_CREDENTIALS_DIR=<dir> herald-test-credentials

Makes one credential of every kind (device session, connection, agent key, connector, pairing
poll token) on a running Herald relay, plus resources for black-box API tests, and writes each
to its own 0600 file in <dir> (an existing directory). Prints no credential.

Environment:
  HERALD_RELAY_URL        the relay, e.g. http://127.0.0.1:8457
  HERALD_CREDENTIALS_DIR  where the files go

Options:
  -h, --help              print this help
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {}
        Some("-h" | "--help") if args.len() == 1 => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            eprintln!("herald-test-credentials: unexpected argument {other:?}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let (Some(url), Some(dir)) = (var("HERALD_RELAY_URL"), var("HERALD_CREDENTIALS_DIR")) else {
        eprintln!(
            "herald-test-credentials: HERALD_RELAY_URL and HERALD_CREDENTIALS_DIR must be set\n\n{USAGE}"
        );
        return ExitCode::from(2);
    };
    if !Path::new(&dir).is_dir() {
        eprintln!("herald-test-credentials: {dir} is not a directory");
        return ExitCode::from(2);
    }
    // A failed step panics with a message naming it: print that message alone, no backtrace.
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("a step failed");
        eprintln!("herald-test-credentials: {message}");
    }));
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("herald-test-credentials: starting the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime.block_on(run(url, Path::new(&dir)))
    }));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// A set, non-empty environment variable.
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

async fn run(url: String, dir: &Path) {
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
    let connection_api = Api::new(&url).bearer(&connection.bearer);

    let mut request = message_request(&account.account_id, connection.principal(), true);
    readdress(&mut request.envelope, &current_key_id(&account));
    connection_api.send_message(&request).await;

    // A second request, answered by the device with a secret for the connection to collect.
    let mut asked = message_request(&account.account_id, connection.principal(), true);
    readdress(&mut asked.envelope, &current_key_id(&account));
    connection_api.send_message(&asked).await;
    let mut answer = answer_request(&view, &asked.id);
    readdress(&mut answer.envelope, &current_key_id(&account));
    let mut secret = placeholder_envelope(
        EnvelopeKind::SecretAnswer,
        &account.account_id,
        &asked.id,
        view.device(),
        b"secret",
    );
    readdress(&mut secret, "k_connection");
    answer.secret_envelope = Some(secret);
    ok_json(
        http.post(format!("{url}/messages/{}/answer", asked.id))
            .bearer_auth(&account.device_token)
            .json(&answer),
        "POST /messages/{id}/answer (with a secret)",
    )
    .await;
    write_id(dir, "secret-answer-id", asked.id.as_str());

    let mut offer = message_request(&account.account_id, connection.principal(), false);
    offer.kind = "secret".into();
    readdress(&mut offer.envelope, &current_key_id(&account));
    connection_api.send_message(&offer).await;
    write_id(dir, "offer-id", offer.id.as_str());

    let file = reserve_file(&http, &url, &connection.bearer).await;
    let uploaded = http
        .put(format!("{url}/files/{file}"))
        .bearer_auth(&connection.bearer)
        .header("Content-Type", "application/octet-stream")
        .body(FILE_BYTES)
        .send()
        .await
        .expect("PUT /files/{id} reaches the relay");
    assert_eq!(uploaded.status().as_u16(), 200, "PUT /files/{{id}}");
    let mut carrier = message_request(&account.account_id, connection.principal(), false);
    carrier.attachments = vec![FileId::parse(&file).expect("the relay answers a file id")];
    readdress(&mut carrier.envelope, &current_key_id(&account));
    connection_api.send_message(&carrier).await;
    write_id(dir, "file-id", &file);
    // Reserved by the device: schemathesis calls `PUT /files/{id}` with the device session
    // (the first scheme it lists), and a reservation is its reserver's alone.
    let reservation = reserve_file(&http, &url, &account.device_token).await;
    write_id(dir, "reservation-id", &reservation);

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
            .json(&json!({"title": "Build finished", "expectReply": true})),
        "POST /v1/notify",
    )
    .await;
    let feed = ok_json(
        http.get(format!("{url}/notifications?after=0"))
            .bearer_auth(&account.device_token),
        "GET /notifications",
    )
    .await;
    let notification = feed["records"][0]["id"]
        .as_str()
        .expect("the notification is in the device's feed");
    write_id(dir, "notification-id", notification);

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

    let pairing_id = PairingId::from_random(&random_bytes());
    let pairing = ok_json(
        http.post(format!("{url}/keys/pairings")).json(&json!({
            "id": pairing_id,
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
    write_id(dir, "pairing-id", pairing_id.as_str());
}

/// What the test file holds (opaque to the relay, as age ciphertext is).
const FILE_BYTES: &[u8] = b"ciphertext";

/// `POST /files`: a reservation of [`FILE_BYTES`]'s size by `bearer`; its id.
async fn reserve_file(http: &reqwest::Client, url: &str, bearer: &str) -> String {
    let reservation = ok_json(
        http.post(format!("{url}/files")).bearer_auth(bearer).json(
            &json!({"name": "encrypted", "type": "application/octet-stream",
                          "size": FILE_BYTES.len()}),
        ),
        "POST /files",
    )
    .await;
    field(&reservation, "id").to_owned()
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

/// Writes the id `id` to `dir/name` (created new).
fn write_id(dir: &Path, name: &str, id: &str) {
    let path = dir.join(name);
    std::fs::write(&path, id).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
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
