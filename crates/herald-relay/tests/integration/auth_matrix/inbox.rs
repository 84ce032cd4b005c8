//! Rows of the inbox API (docs/protocol.md): accounts, connections, keys and backups,
//! messages, files, the websocket and health.

use herald_crypto::{AccountKeys, DeviceKeys};
use herald_protocol::envelope::b64_encode;
use herald_protocol::wire::CreateAccountRequest;
use reqwest::Method;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::cells::{ok, Cred, Expect, I, N};
use super::rows::{scenario, Row};
use super::world::{connection, connection_certificate, Party, Reply, World, CREATED_AT};

pub fn rows() -> Vec<Row> {
    vec![
        Row::new(
            "POST",
            "/accounts",
            "a new account with real keys",
            Expect::public(ok(201)),
            scenario!(create_account),
        ),
        Row::new(
            "GET",
            "/health",
            "health",
            Expect::public(ok(200)),
            scenario!(health),
        ),
        Row::new(
            "GET",
            "/openapi.json",
            "the OpenAPI document",
            Expect::public(ok(200)),
            scenario!(openapi),
        )
        .public_data(),
        Row::new(
            "POST",
            "/connections",
            "a connection certificate signed by A's identity key",
            Expect::device(ok(201), I),
            scenario!(create_connection),
        ),
        Row::new(
            "GET",
            "/connections",
            "the caller's account's connections",
            Expect::device(ok(200), ok(200)),
            scenario!(list_connections),
        ),
        Row::new(
            "DELETE",
            "/connections/{id}",
            "a live connection of A",
            Expect::device(ok(204), N),
            scenario!(revoke_connection),
        ),
        Row::new(
            "GET",
            "/keys",
            "the caller's account's key directory",
            Expect::inbox(ok(200), ok(200), ok(200), ok(200)),
            scenario!(keys),
        ),
        Row::new(
            "PUT",
            "/keys/backup",
            "A's recovery backup (B: under A's recovery key id)",
            Expect::device(ok(204), I),
            scenario!(put_backup),
        ),
        Row::new(
            "GET",
            "/keys/backup",
            "the caller's account's backup",
            Expect::device(ok(200), ok(200)),
            scenario!(get_backup),
        ),
        Row::new(
            "POST",
            "/messages",
            "a message into A's account",
            Expect::inbox(ok(201), ok(201), ok(201), I),
            scenario!(send_message),
        ),
        Row::new(
            "POST",
            "/messages",
            "a message of the caller's account attaching an upload of A's connection",
            Expect::inbox(I, ok(201), I, I),
            scenario!(send_with_foreign_file),
        ),
        Row::new(
            "POST",
            "/messages",
            "a message of the caller's account replying to A's request",
            Expect::inbox(ok(201), ok(201), I, I),
            scenario!(send_reply_to_foreign),
        ),
        Row::new(
            "GET",
            "/messages",
            "the feed (a connection's holds only its own messages)",
            Expect::inbox(ok(200), ok(200), ok(200), ok(200)),
            scenario!(list_messages),
        ),
        Row::new(
            "GET",
            "/messages/{id}",
            "A's request sent by A's connection",
            Expect::inbox(ok(200), ok(200), N, N),
            scenario!(get_message),
        ),
        Row::new(
            "GET",
            "/messages/{id}/thread",
            "the thread of A's request",
            Expect::inbox(ok(200), ok(200), N, N),
            scenario!(thread),
        ),
        Row::new(
            "POST",
            "/messages/{id}/answer",
            "an answer to A's pending request",
            Expect::device(ok(200), N),
            scenario!(answer),
        ),
        Row::new(
            "POST",
            "/messages/{id}/answer",
            "an answer attaching an upload of A's connection",
            Expect::device(I, N),
            scenario!(answer_with_foreign_file),
        ),
        Row::new(
            "POST",
            "/messages/{id}/cancel",
            "A's pending request",
            Expect::inbox(ok(200), ok(200), N, N),
            scenario!(cancel),
        ),
        Row::new(
            "POST",
            "/files",
            "a reservation in the caller's account",
            Expect::inbox(ok(201), ok(201), ok(201), ok(201)),
            scenario!(reserve),
        ),
        Row::new(
            "PUT",
            "/files/{id}",
            "the bytes of a reservation of A's connection",
            Expect::inbox(N, ok(200), N, N),
            scenario!(upload),
        ),
        Row::new(
            "GET",
            "/files/{id}",
            "a file attached to A's connection's message",
            Expect::inbox(ok(200), ok(200), N, N),
            scenario!(download),
        ),
        Row::new(
            "GET",
            "/ws",
            "a websocket upgrade",
            Expect::inbox(ok(101), ok(101), ok(101), ok(101)),
            scenario!(websocket),
        ),
    ]
}

/// A `POST /accounts` body with fresh real keys, and the keys.
pub fn account_body() -> (CreateAccountRequest, AccountKeys) {
    let keys = AccountKeys::generate();
    let device = DeviceKeys::generate();
    let device_id = herald_crypto::new_device_id();
    let req = CreateAccountRequest {
        statement: keys.statement(CREATED_AT),
        encryption_key: keys
            .encryption_key_certificate(1, CREATED_AT)
            .expect("epoch 1"),
        device: keys.certify_device(&device_id, "Laptop", "linux", &device.public(), CREATED_AT),
    };
    (req, keys)
}

async fn create_account(w: &World, c: Cred) -> Reply {
    let body = serde_json::to_value(account_body().0).expect("a body");
    w.send_json(Method::POST, "/accounts", w.bearer(c), body)
        .await
}

async fn health(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/health", w.bearer(c)).await
}

async fn openapi(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/openapi.json", w.bearer(c)).await
}

/// B's device sends A's certificate: a connection in A's account.
async fn create_connection(w: &World, c: Cred) -> Reply {
    let body = connection_certificate(&w.a);
    w.send_json(Method::POST, "/connections", w.bearer(c), body)
        .await
}

async fn list_connections(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/connections", w.bearer(c)).await
}

async fn revoke_connection(w: &World, c: Cred) -> Reply {
    let target = connection(&w.relay.url, &w.client, &w.a, "Doomed").await;
    let path = format!("/connections/{}", target.id);
    w.send(Method::DELETE, &path, w.bearer(c)).await
}

async fn keys(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/keys", w.bearer(c)).await
}

/// A's real backup. B sends A's recovery key id and public key with a bundle of its own:
/// taking over the address of A's backup.
async fn put_backup(w: &World, c: Cred) -> Reply {
    let body = backup_of(&w.a, w.party(c));
    w.send_json(Method::PUT, "/keys/backup", w.bearer(c), body)
        .await
}

/// The bundle of `bundle_of` sealed to `recovery_of`'s recovery key.
pub fn backup_of(recovery_of: &Party, bundle_of: &Party) -> Value {
    let keys = bundle_of.keys.lock().expect("keys").clone();
    backup(&recovery_of.recovery, &keys)
}

/// A `PUT /keys/backup` body: `keys` sealed to `recovery`.
pub fn backup(recovery: &herald_crypto::RecoveryKey, keys: &AccountKeys) -> Value {
    let recipient = recovery.recipient();
    let sealed = herald_crypto::seal_bundle_to_recovery(keys, &recipient).expect("sealing");
    json!({
        "recoveryKeyId": recipient.key_id,
        "recoveryPublicKey": b64_encode(&recipient.public_key),
        "sealedBundle": b64_encode(&sealed),
    })
}

async fn get_backup(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/keys/backup", w.bearer(c)).await
}

/// A message of A's account from the caller (B's credentials: naming A's account).
async fn send_message(w: &World, c: Cred) -> Reply {
    let req = w.message(&w.a, w.principal(c), false);
    w.post_message(w.bearer(c), &req).await
}

/// The caller's own account's message, naming a fresh upload of A's connection.
async fn send_with_foreign_file(w: &World, c: Cred) -> Reply {
    let file = connection_upload(w).await;
    let mut req = w.message(w.party(c), w.principal(c), false);
    req.attachments = vec![file];
    w.post_message(w.bearer(c), &req).await
}

/// A completed upload of A's connection, not attached yet.
async fn connection_upload(w: &World) -> herald_protocol::FileId {
    let file = w.reservation(&w.a.connection.bearer).await;
    w.upload(&file, Some(&w.a.connection.bearer))
        .await
        .expect(200, "A's connection uploads");
    file
}

/// The caller's own account's message with `replyTo` A's request.
async fn send_reply_to_foreign(w: &World, c: Cred) -> Reply {
    let mut req = w.message(w.party(c), w.principal(c), false);
    req.reply_to = Some(w.request.clone());
    w.post_message(w.bearer(c), &req).await
}

async fn answer_with_foreign_file(w: &World, c: Cred) -> Reply {
    let id = w.fresh_request().await;
    let file = connection_upload(w).await;
    let mut body = w.answer(w.party(c), &id);
    body["attachments"] = json!([file]);
    let path = format!("/messages/{id}/answer");
    w.send_json(Method::POST, &path, w.bearer(c), body).await
}

async fn list_messages(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/messages?after=0&limit=500", w.bearer(c))
        .await
}

async fn get_message(w: &World, c: Cred) -> Reply {
    let path = format!("/messages/{}", w.request);
    w.send(Method::GET, &path, w.bearer(c)).await
}

async fn thread(w: &World, c: Cred) -> Reply {
    let path = format!("/messages/{}/thread", w.request);
    w.send(Method::GET, &path, w.bearer(c)).await
}

/// A fresh pending request of A, answered by the caller's party's device envelope.
async fn answer(w: &World, c: Cred) -> Reply {
    let id = w.fresh_request().await;
    let body = w.answer(w.party(c), &id);
    let path = format!("/messages/{id}/answer");
    w.send_json(Method::POST, &path, w.bearer(c), body).await
}

async fn cancel(w: &World, c: Cred) -> Reply {
    let id = w.fresh_request().await;
    let path = format!("/messages/{id}/cancel");
    w.send(Method::POST, &path, w.bearer(c)).await
}

async fn reserve(w: &World, c: Cred) -> Reply {
    let body = json!({"name": "encrypted", "type": "application/octet-stream", "size": 10});
    w.send_json(Method::POST, "/files", w.bearer(c), body).await
}

async fn upload(w: &World, c: Cred) -> Reply {
    let id = w.reservation(&w.a.connection.bearer).await;
    w.upload(&id, w.bearer(c)).await
}

async fn download(w: &World, c: Cred) -> Reply {
    let path = format!("/files/{}", w.file);
    w.send(Method::GET, &path, w.bearer(c)).await
}

/// A real websocket upgrade: 101 when accepted (the socket is closed again), else the
/// refusal's status, headers and body.
pub async fn websocket(w: &World, c: Cred) -> Reply {
    let mut req = w
        .relay
        .ws_url()
        .into_client_request()
        .expect("a websocket request");
    if let Some(b) = w.bearer(c) {
        req.headers_mut().insert(
            "Authorization",
            format!("Bearer {b}").parse().expect("a header value"),
        );
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((mut socket, response)) => {
            let _ = socket.close(None).await;
            Reply {
                status: response.status().as_u16(),
                headers: headers(response.headers()),
                text: String::new(),
            }
        }
        Err(tungstenite::Error::Http(response)) => Reply {
            status: response.status().as_u16(),
            headers: headers(response.headers()),
            text: response
                .body()
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default(),
        },
        Err(e) => panic!("the websocket handshake failed unexpectedly: {e}"),
    }
}

fn headers(from: &tungstenite::http::HeaderMap) -> reqwest::header::HeaderMap {
    let mut out = reqwest::header::HeaderMap::new();
    for (name, value) in from {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(name.as_str().as_bytes()),
            reqwest::header::HeaderValue::from_bytes(value.as_bytes()),
        ) {
            out.append(name, value);
        }
    }
    out
}
