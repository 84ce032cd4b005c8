//! Accounts, connections and keys through the real HTTP API.

use herald_protocol::envelope::{b64_encode, CertificateBody};
use herald_protocol::wire::{ConnectionList, CreateAccountResponse, KeysResponse};
use herald_protocol::ErrorCode;
use herald_testkit::fixtures;
use herald_testkit::TestRelay;
use reqwest::Method;
use serde_json::Value;

#[tokio::test]
async fn create_account_issues_a_device_session() {
    let relay = TestRelay::start().await;
    let (req, account_id, device_id) = fixtures::account_request("Desk");
    let body: CreateAccountResponse = relay
        .api()
        .post("/accounts", &req)
        .await
        .ok(201, "the account is created");
    assert_eq!(body.account_id, account_id, "account id from the statement");
    assert_eq!(
        body.device_id, device_id,
        "device id from the device certificate"
    );
    assert!(
        body.device_token.starts_with("hds_"),
        "device sessions are hds_ tokens"
    );

    relay
        .api()
        .post("/accounts", &req)
        .await
        .error(ErrorCode::AccountExists, "the same account twice");

    let keys: KeysResponse = relay
        .api()
        .bearer(&body.device_token)
        .get("/keys")
        .await
        .ok(200, "the new device reads its keys");
    assert_eq!(keys.account_id, account_id, "keys of the caller's account");
    assert_eq!(keys.statement, req.statement, "the statement as given");
    assert_eq!(keys.encryption_keys, vec![req.encryption_key], "epoch 1");
    assert_eq!(keys.devices, vec![req.device], "the first device");
    assert!(keys.connections.is_empty(), "no connections yet");
    relay.shutdown().await;
}

#[tokio::test]
async fn create_account_checks_certificate_shapes() {
    let relay = TestRelay::start().await;
    let (good, _, _) = fixtures::account_request("Desk");
    let (other, _, _) = fixtures::account_request("Other");
    let cases = [
        (
            "statement is a device cert",
            {
                let mut r = good.clone();
                r.statement = good.device.clone();
                r
            },
            "statement",
        ),
        (
            "encryption key of another account",
            {
                let mut r = good.clone();
                r.encryption_key = other.encryption_key.clone();
                r
            },
            "encryptionKey.accountId",
        ),
        (
            "device of another account",
            {
                let mut r = good.clone();
                r.device = other.device.clone();
                r
            },
            "device.accountId",
        ),
        (
            "payload not base64",
            {
                let mut r = good.clone();
                r.device.payload = "%%".into();
                r
            },
            "device.payload",
        ),
        (
            "signature wrong length",
            {
                let mut r = good.clone();
                r.statement.signature = b64_encode(&[1; 3]);
                r
            },
            "statement.signature",
        ),
        (
            "epoch 2",
            {
                let mut r = good.clone();
                let Some(CertificateBody::EncryptionKey {
                    account_id,
                    key_id,
                    public_key,
                    created_at,
                    ..
                }) = r.encryption_key.body_unverified()
                else {
                    panic!("fixture")
                };
                r.encryption_key =
                    fixtures::placeholder_certificate(&CertificateBody::EncryptionKey {
                        account_id,
                        epoch: 2,
                        key_id,
                        public_key,
                        created_at,
                    });
                r
            },
            "encryptionKey.epoch",
        ),
    ];
    for (why, req, field) in cases {
        let body = relay
            .api()
            .post("/accounts", &req)
            .await
            .error(ErrorCode::InvalidRequest, why);
        assert_eq!(body.fields, vec![field], "{why}: names {field}");
    }
    relay
        .api()
        .post("/accounts", &serde_json::json!({"statement": {}}))
        .await
        .error(ErrorCode::BadRequest, "missing fields");
    relay.shutdown().await;
}

#[tokio::test]
async fn connections_are_listed_revoked_and_refused_at_once() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &account, "CI runner").await;
    assert!(
        conn.bearer.starts_with("hdr_"),
        "connection bearers are hdr_ tokens"
    );

    let keys: KeysResponse = relay
        .api()
        .connection(&conn)
        .get("/keys")
        .await
        .ok(200, "the connection reads the account's keys");
    assert_eq!(
        keys.connections.len(),
        1,
        "the connection's certificate is published"
    );

    let device = relay.api().device(&account);
    let list: ConnectionList = device
        .get("/connections")
        .await
        .ok(200, "the device lists the connections");
    assert_eq!(list.connections.len(), 1, "one connection");
    assert_eq!(list.connections[0].id, conn.connection_id, "its id");
    assert_eq!(
        list.connections[0].name, "CI runner",
        "its name from the certificate"
    );
    assert!(list.connections[0].revoked_at.is_none(), "not revoked");

    let (dup, _) = fixtures::connection_request(&account.account_id, "dup");
    let mut dup_same_id = dup.clone();
    let Some(CertificateBody::Connection {
        account_id,
        name,
        signing_key_id,
        signing_key,
        encryption_key_id,
        encryption_key,
        created_at,
        ..
    }) = dup.certificate.body_unverified()
    else {
        panic!("fixture")
    };
    dup_same_id.certificate = fixtures::placeholder_certificate(&CertificateBody::Connection {
        account_id,
        connection_id: conn.connection_id.clone(),
        name,
        signing_key_id,
        signing_key,
        encryption_key_id,
        encryption_key,
        created_at,
    });
    device
        .post("/connections", &dup_same_id)
        .await
        .error(ErrorCode::ConnectionExists, "the same connection id twice");

    let path = format!("/connections/{}", conn.connection_id);
    device.delete(&path).await.expect_status(204, "revoked");
    let reply = relay.api().connection(&conn).get("/keys").await;
    reply.error(
        ErrorCode::Unauthorized,
        "a revoked bearer is refused at once",
    );
    assert_eq!(
        reply.header("www-authenticate"),
        Some("Bearer"),
        "401 carries WWW-Authenticate: Bearer"
    );

    let list: ConnectionList = device
        .get("/connections")
        .await
        .ok(200, "the device lists the connections");
    assert!(
        list.connections[0].revoked_at.is_some(),
        "the list shows when it was revoked"
    );
    let keys: KeysResponse = device
        .get("/keys")
        .await
        .ok(200, "the device reads its keys");
    assert!(
        keys.connections.is_empty(),
        "revoked connections leave /keys"
    );
    let body = device.delete(&path).await.error(
        ErrorCode::AlreadyRevoked,
        "revoking twice reports it (409), not a second success",
    );
    assert!(body.message.contains("already revoked"), "{}", body.message);
    relay.shutdown().await;
}

#[tokio::test]
async fn health_unknown_routes_and_methods() {
    let relay = TestRelay::start().await;
    let api = relay.api();
    let body: Value = api
        .get("/health")
        .await
        .ok(200, "health needs no credential");
    assert_eq!(body, serde_json::json!({"ok": true}), "health body");
    api.get("/nope")
        .await
        .error(ErrorCode::NotFound, "unknown route");
    api.send(Method::PUT, "/messages", None::<&()>)
        .await
        .error(ErrorCode::MethodNotAllowed, "wrong method");
    api.post("/accounts", &serde_json::json!({"x": "y".repeat(100_000)}))
        .await
        .error(ErrorCode::PayloadTooLarge, "an account body over 64 KiB");
    relay.shutdown().await;
}

#[tokio::test]
async fn an_account_id_not_derived_from_the_identity_key_is_refused() {
    let relay = TestRelay::start().await;
    let (mut req, _, _) = fixtures::account_request("Desk");
    let Some(CertificateBody::Account {
        identity_key,
        created_at,
        ..
    }) = req.statement.body_unverified()
    else {
        panic!("fixture statement is an account certificate");
    };
    // Claim someone else's account id with this identity key.
    req.statement = fixtures::placeholder_certificate(&CertificateBody::Account {
        account_id: fixtures::new_account_id(),
        identity_key,
        created_at,
    });
    let body = relay
        .api()
        .post("/accounts", &req)
        .await
        .error(ErrorCode::InvalidRequest, "a claimed account id");
    assert_eq!(
        body.fields,
        vec!["statement.accountId".to_string()],
        "names the field"
    );
}

#[tokio::test]
async fn the_recovery_backup_is_stored_per_account_and_replaced() {
    let relay = TestRelay::start().await;
    let a = fixtures::create_account(&relay.url).await;
    let b = fixtures::create_account(&relay.url).await;
    let a_device = relay.api().device(&a);
    a_device
        .get("/keys/backup")
        .await
        .error(ErrorCode::NotFound, "no backup yet");

    let backup = |bundle: &[u8]| {
        serde_json::json!({
            "recoveryKeyId": herald_crypto::key_id_x25519(&[9u8; 32]),
            "recoveryPublicKey": b64_encode(&[9u8; 32]),
            "sealedBundle": b64_encode(bundle),
        })
    };
    for bundle in [b"first".as_slice(), b"second".as_slice()] {
        a_device
            .put("/keys/backup", &backup(bundle))
            .await
            .expect_status(204, "stored");
    }
    let got: Value = a_device
        .get("/keys/backup")
        .await
        .ok(200, "the stored backup is readable");
    assert_eq!(
        got["sealedBundle"],
        b64_encode(b"second"),
        "the latest write wins"
    );
    assert!(got["updatedAt"].is_string(), "the relay stamps the time");
    relay
        .api()
        .device(&b)
        .get("/keys/backup")
        .await
        .error(ErrorCode::NotFound, "B does not see A's backup");

    let mut bad = backup(b"x");
    bad["recoveryPublicKey"] = serde_json::json!("short");
    let body = a_device
        .put("/keys/backup", &bad)
        .await
        .error(ErrorCode::InvalidRequest, "a bad public key");
    assert_eq!(
        body.fields,
        vec!["recoveryPublicKey".to_string()],
        "names the field"
    );
    let mut big = backup(b"x");
    big["sealedBundle"] =
        serde_json::json!("A".repeat(herald_protocol::wire::MAX_BACKUP_CHARS + 1));
    let body = a_device
        .put("/keys/backup", &big)
        .await
        .error(ErrorCode::InvalidRequest, "a bundle past the limit");
    assert_eq!(
        body.fields,
        vec!["sealedBundle".to_string()],
        "names the field"
    );
}
