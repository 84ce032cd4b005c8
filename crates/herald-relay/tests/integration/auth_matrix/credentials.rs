//! Credentials of every kind, made through the relay's own routes: accounts with real keys,
//! connections certified by the account's identity key, enrolled devices, agent keys, and
//! connectors through the whole OAuth device flow.

use std::sync::Mutex;

use herald_crypto::{ConnectionKeys, DeviceKeys};
use herald_protocol::DeviceId;
use herald_testkit::fixtures;
use serde_json::{json, Value};

use super::world::{Conn, Party, Reply, CLIENT_ID, CREATED_AT};

impl Party {
    /// An account with real keys, its recovery backup, a connection, an agent key and a
    /// connector, all made through the relay's routes.
    pub async fn create(url: &str, client: &reqwest::Client) -> Party {
        let real = herald_testkit::real::create_account(url).await;
        let mut party = Party {
            account: real.account_id.clone(),
            keys: Mutex::new(real.keys.clone()),
            recovery: real.recovery.clone(),
            device_id: real.device_id.clone(),
            device_token: real.device_token.clone(),
            connection: Conn {
                id: fixtures::new_connection_id(),
                bearer: String::new(),
            },
            agent_key_id: String::new(),
            agent_key: String::new(),
            connector_id: String::new(),
            connector: String::new(),
        };
        party.connection = connection(url, client, &party, "Agent").await;
        (party.agent_key_id, party.agent_key) =
            agent_key(url, client, &party.device_token, "Build bot").await;
        (party.connector_id, party.connector) = connector(url, client, &party.device_token).await;
        party
    }
}

/// A connection of `party` with real keys from a random seed, certified by its AIK.
pub async fn connection(url: &str, client: &reqwest::Client, party: &Party, name: &str) -> Conn {
    let id = fixtures::new_connection_id();
    let keys = ConnectionKeys::from_seed(&fixtures::random_bytes());
    let cert = party
        .keys
        .lock()
        .expect("keys")
        .certify_connection(&id, name, &keys, CREATED_AT);
    let v = Reply::of(
        client
            .post(format!("{url}/connections"))
            .bearer_auth(&party.device_token)
            .json(&json!({ "certificate": cert })),
    )
    .await
    .expect(201, "create a connection");
    Conn {
        id,
        bearer: v["bearer"].as_str().expect("a bearer").to_owned(),
    }
}

/// A connection certificate of `party` (for a `POST /connections` body).
pub fn connection_certificate(party: &Party) -> Value {
    let id = fixtures::new_connection_id();
    let keys = ConnectionKeys::from_seed(&fixtures::random_bytes());
    let cert =
        party
            .keys
            .lock()
            .expect("keys")
            .certify_connection(&id, "New agent", &keys, CREATED_AT);
    json!({ "certificate": cert })
}

/// An agent key made by `device_token`: `(id, key)`.
pub async fn agent_key(
    url: &str,
    client: &reqwest::Client,
    device_token: &str,
    name: &str,
) -> (String, String) {
    let v = Reply::of(
        client
            .post(format!("{url}/agent-keys"))
            .bearer_auth(device_token)
            .json(&json!({ "name": name })),
    )
    .await
    .expect(201, "create an agent key");
    (
        v["id"].as_str().expect("an id").to_owned(),
        v["key"].as_str().expect("a key").to_owned(),
    )
}

/// A waiting device authorization: `(device_code, user_code)`.
pub async fn device_flow(url: &str, client: &reqwest::Client) -> (String, String) {
    let v = Reply::of(
        client
            .post(format!("{url}/oauth/device_authorization"))
            .form(&[("client_id", CLIENT_ID), ("client_name", "Matrix client")]),
    )
    .await
    .expect(200, "device authorization");
    (
        v["device_code"].as_str().expect("a device code").to_owned(),
        v["user_code"].as_str().expect("a user code").to_owned(),
    )
}

/// A connector through the whole device flow, approved by `device_token`: `(id, token)`.
pub async fn connector(
    url: &str,
    client: &reqwest::Client,
    device_token: &str,
) -> (String, String) {
    let (device_code, user_code) = device_flow(url, client).await;
    let approved = Reply::of(
        client
            .post(format!("{url}/connectors/approve"))
            .bearer_auth(device_token)
            .json(&json!({ "userCode": user_code })),
    )
    .await
    .expect(200, "approve a connector");
    let token = Reply::of(client.post(format!("{url}/oauth/token")).form(&[
        (
            "grant_type",
            herald_protocol::agents::DEVICE_CODE_GRANT_TYPE,
        ),
        ("device_code", device_code.as_str()),
        ("client_id", CLIENT_ID),
    ]))
    .await
    .expect(200, "collect the connector token");
    (
        approved["id"].as_str().expect("an id").to_owned(),
        token["access_token"].as_str().expect("a token").to_owned(),
    )
}

/// Enrols a new device into `party` with a certificate signed by its AIK:
/// `(device id, device token)`.
pub async fn enrol(
    url: &str,
    client: &reqwest::Client,
    party: &Party,
    name: &str,
) -> (DeviceId, String) {
    let (cert, id) = device_certificate(party, name);
    let v = Reply::of(
        client
            .post(format!("{url}/keys/devices"))
            .json(&json!({ "certificate": cert })),
    )
    .await
    .expect(201, "enrol a device");
    (id, v["deviceToken"].as_str().expect("a token").to_owned())
}

/// A device certificate of `party` for new real keys.
pub fn device_certificate(
    party: &Party,
    name: &str,
) -> (herald_protocol::envelope::Certificate, DeviceId) {
    let id = herald_crypto::new_device_id();
    let keys = DeviceKeys::generate();
    let cert = party.keys.lock().expect("keys").certify_device(
        &id,
        name,
        "linux",
        &keys.public(),
        CREATED_AT,
    );
    (cert, id)
}
