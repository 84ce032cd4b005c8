//! The authorization matrix: every route × {no credential, device, connection, revoked
//! connection, another account's device}, and every route × the agent credentials {agent
//! key, connector token, revoked agent key, revoked connector token} (docs/agents.md). Every error response is also checked for the
//! catalog body `{"error","message","fields"}` and its status.

#[path = "agent_common/mod.rs"]
mod agent_common;
#[path = "authz/agents.rs"]
mod agent_rows;
mod common;
#[path = "authz/devices.rs"]
mod device_rows;
#[path = "authz/files.rs"]
mod file_rows;
#[path = "authz/secrets.rs"]
mod secret_rows;

use common::*;
use herald_protocol::wire::{KeysResponse, MessagePage, MessageRecord};
use herald_protocol::{ErrorCode, MessageId, Revision};
use herald_testkit::fixtures::{self, TestAccount, TestConnection};
use herald_testkit::TestRelay;
use reqwest::Method;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    Nobody,
    Device,
    Connection,
    RevokedConnection,
    OtherAccountDevice,
    AgentKey,
    Connector,
    RevokedAgentKey,
    RevokedConnector,
}

const CALLERS: [Caller; 5] = [
    Caller::Nobody,
    Caller::Device,
    Caller::Connection,
    Caller::RevokedConnection,
    Caller::OtherAccountDevice,
];

/// Agent credentials of account A: they may call only `/v1/*` and `/mcp`.
const AGENT_CALLERS: [Caller; 4] = [
    Caller::AgentKey,
    Caller::Connector,
    Caller::RevokedAgentKey,
    Caller::RevokedConnector,
];

#[derive(Debug, Clone, Copy)]
enum Expect {
    Status(u16),
    Error(ErrorCode),
}
use Expect::{Error as E, Status as S};

#[derive(Debug, Clone, Copy)]
enum Route {
    CreateAccount,
    CreateConnection,
    ListConnections,
    RevokeConnection,
    Keys,
    PutBackup,
    GetBackup,
    SendMessage,
    ListMessages,
    GetMessage,
    Thread,
    Answer,
    Cancel,
    Ws,
    Health,
    /// The device routes (docs/devices.md), rows in `authz/devices.rs`.
    Device(device_rows::DeviceRoute),
    /// The file routes (docs/files.md), rows in `authz/files.rs`.
    File(file_rows::FileRoute),
    /// The secret routes (docs/secrets.md), rows in `authz/secrets.rs`.
    Secret(secret_rows::SecretRoute),
    /// The agent side (docs/agents.md), rows in `authz/agents.rs`.
    Agent(agent_rows::AgentRoute),
}

/// Expected outcome per caller, in the order of [`CALLERS`].
fn expected(route: Route) -> [Expect; 5] {
    use ErrorCode::{Forbidden as F, InvalidRequest as I, NotFound as N, Unauthorized as U};
    match route {
        Route::CreateAccount => [S(201), S(201), S(201), S(201), S(201)],
        Route::CreateConnection => [E(U), S(201), E(F), E(U), E(I)],
        Route::ListConnections => [E(U), S(200), E(F), E(U), S(200)],
        Route::RevokeConnection => [E(U), S(204), E(F), E(U), E(N)],
        Route::Keys => [E(U), S(200), S(200), E(U), S(200)],
        // Runs before GetBackup, so both accounts have one when it is read.
        Route::PutBackup => [E(U), S(204), E(F), E(U), S(204)],
        Route::GetBackup => [E(U), S(200), E(F), E(U), S(200)],
        Route::SendMessage => [E(U), S(201), S(201), E(U), S(201)],
        Route::ListMessages => [E(U), S(200), S(200), E(U), S(200)],
        Route::GetMessage => [E(U), S(200), S(200), E(U), E(N)],
        Route::Thread => [E(U), S(200), S(200), E(U), E(N)],
        Route::Answer => [E(U), S(200), E(F), E(U), E(N)],
        Route::Cancel => [E(U), S(200), S(200), E(U), E(N)],
        Route::Ws => [S(401), S(101), S(101), S(401), S(101)],
        Route::Health => [S(200), S(200), S(200), S(200), S(200)],
        Route::Device(r) => device_rows::expected(r),
        Route::Secret(r) => secret_rows::expected(r),
        Route::File(r) => file_rows::expected(r),
        Route::Agent(r) => agent_rows::expected(r),
    }
}

/// Expected outcome per agent caller, in the order of [`AGENT_CALLERS`]: outside `/v1/*`
/// (and the public OAuth routes) a live agent credential gets 403, a revoked one 401.
fn expected_agents(route: Route) -> [Expect; 4] {
    use ErrorCode::{Forbidden as F, Unauthorized as U};
    match route {
        Route::Agent(r) => agent_rows::expected_agents(r),
        Route::Ws => [S(403), S(403), S(401), S(401)],
        _ => [E(F), E(F), E(U), E(U)],
    }
}

struct World {
    relay: TestRelay,
    a: TestAccount,
    conn: TestConnection,
    revoked: TestConnection,
    b: TestAccount,
    /// Account A's agent credentials (`hrk_`, `hra_`) and revoked ones.
    agent_key: String,
    connector: String,
    revoked_agent_key: String,
    revoked_connector: String,
    /// Relay id of A's notification [`agent_rows::NOTIFICATION`].
    notification: herald_protocol::NotificationId,
}

impl World {
    async fn new() -> World {
        let relay = TestRelay::start().await;
        let a = fixtures::create_account(&relay.url).await;
        let b = fixtures::create_account(&relay.url).await;
        let conn = fixtures::create_connection(&relay.url, &a, "Agent").await;
        let revoked = fixtures::create_connection(&relay.url, &a, "Old agent").await;
        let resp = call(
            &relay.url,
            Method::DELETE,
            &format!("/connections/{}", revoked.connection_id),
            Some(&a.device_token),
            None,
        )
        .await;
        assert_eq!(
            resp.status().as_u16(),
            204,
            "set-up: revoke the old connection"
        );
        let url = &relay.url;
        let agent_key = agent_common::agent_key(url, &a.device_token, "Agent key")
            .await
            .key;
        let connector = agent_common::connector_token(url, &a.device_token).await;
        let old_key = agent_common::agent_key(url, &a.device_token, "Old key").await;
        let revoked_connector = agent_common::connector_token(url, &a.device_token).await;
        let path = format!("/agent-keys/{}", old_key.id);
        let resp = call(url, Method::DELETE, &path, Some(&a.device_token), None).await;
        assert_eq!(resp.status().as_u16(), 204, "set-up: revoke the old key");
        let list: serde_json::Value =
            call(url, Method::GET, "/connectors", Some(&a.device_token), None)
                .await
                .json()
                .await
                .expect("set-up: connectors");
        let old_connector = list["connectors"][1]["id"]
            .as_str()
            .expect("set-up: connector")
            .to_owned();
        let resp = call(
            url,
            Method::DELETE,
            &format!("/connectors/{old_connector}"),
            Some(&a.device_token),
            None,
        )
        .await;
        assert_eq!(
            resp.status().as_u16(),
            204,
            "set-up: revoke the old connector"
        );
        let resp = call(
            url,
            Method::POST,
            "/v1/notify",
            Some(&agent_key),
            Some(serde_json::json!({"title": "t", "notificationId": agent_rows::NOTIFICATION})),
        )
        .await;
        assert_eq!(resp.status().as_u16(), 201, "set-up: a notification");
        let mut world = World {
            relay,
            a,
            conn,
            revoked,
            b,
            agent_key,
            connector,
            revoked_agent_key: old_key.key,
            revoked_connector,
            notification: herald_protocol::NotificationId::from_random(&[0; 16]),
        };
        world.notification = world.notification_of_a(agent_rows::NOTIFICATION).await;
        world
    }

    fn bearer(&self, caller: Caller) -> Option<&str> {
        match caller {
            Caller::Nobody => None,
            Caller::Device => Some(&self.a.device_token),
            Caller::Connection => Some(&self.conn.bearer),
            Caller::RevokedConnection => Some(&self.revoked.bearer),
            Caller::OtherAccountDevice => Some(&self.b.device_token),
            Caller::AgentKey => Some(&self.agent_key),
            Caller::Connector => Some(&self.connector),
            Caller::RevokedAgentKey => Some(&self.revoked_agent_key),
            Caller::RevokedConnector => Some(&self.revoked_connector),
        }
    }

    /// The caller's account and envelope principal (A's device for callers without one).
    fn identity(
        &self,
        caller: Caller,
    ) -> (
        herald_protocol::AccountId,
        herald_protocol::envelope::Principal,
    ) {
        match caller {
            Caller::Connection => (self.a.account_id.clone(), self.conn.principal()),
            Caller::RevokedConnection => (self.a.account_id.clone(), self.revoked.principal()),
            Caller::OtherAccountDevice => (self.b.account_id.clone(), self.b.device()),
            Caller::Nobody
            | Caller::Device
            | Caller::AgentKey
            | Caller::Connector
            | Caller::RevokedAgentKey
            | Caller::RevokedConnector => (self.a.account_id.clone(), self.a.device()),
        }
    }

    /// A fresh pending request of account A, sent by A's connection.
    async fn fresh_request(&self) -> MessageId {
        let req = fixtures::message_request(&self.a.account_id, self.conn.principal(), true);
        send(&self.relay.url, &self.conn.bearer, &req).await.id
    }

    async fn run(&self, route: Route, caller: Caller) -> (u16, Option<reqwest::Response>) {
        let url = &self.relay.url;
        let bearer = self.bearer(caller);
        let resp = match route {
            Route::CreateAccount => {
                let (req, _, _) = fixtures::account_request("New");
                call(
                    url,
                    Method::POST,
                    "/accounts",
                    bearer,
                    Some(serde_json::to_value(&req).unwrap()),
                )
                .await
            }
            Route::CreateConnection => {
                let (req, _) = fixtures::connection_request(&self.a.account_id, "New agent");
                call(
                    url,
                    Method::POST,
                    "/connections",
                    bearer,
                    Some(serde_json::to_value(&req).unwrap()),
                )
                .await
            }
            Route::ListConnections => call(url, Method::GET, "/connections", bearer, None).await,
            Route::RevokeConnection => {
                let target = fixtures::create_connection(url, &self.a, "Doomed").await;
                call(
                    url,
                    Method::DELETE,
                    &format!("/connections/{}", target.connection_id),
                    bearer,
                    None,
                )
                .await
            }
            Route::Keys => call(url, Method::GET, "/keys", bearer, None).await,
            Route::PutBackup => {
                // A key of its own per call: recovery key ids are unique across accounts.
                let key = fixtures::random_bytes::<32>();
                let body = serde_json::json!({
                    "recoveryKeyId": herald_crypto::key_id_x25519(&key),
                    "recoveryPublicKey": herald_protocol::envelope::b64_encode(&key),
                    "sealedBundle": herald_protocol::envelope::b64_encode(b"opaque"),
                });
                call(url, Method::PUT, "/keys/backup", bearer, Some(body)).await
            }
            Route::GetBackup => call(url, Method::GET, "/keys/backup", bearer, None).await,
            Route::SendMessage => {
                let (account, principal) = self.identity(caller);
                let req = fixtures::message_request(&account, principal, false);
                let mut r = client()
                    .post(format!("{url}/messages"))
                    .header("Idempotency-Key", fixtures::new_idempotency_key())
                    .json(&req);
                if let Some(b) = bearer {
                    r = r.bearer_auth(b);
                }
                r.send().await.unwrap()
            }
            Route::ListMessages => call(url, Method::GET, "/messages?after=0", bearer, None).await,
            Route::GetMessage => {
                let id = self.fresh_request().await;
                call(url, Method::GET, &format!("/messages/{id}"), bearer, None).await
            }
            Route::Thread => {
                let id = self.fresh_request().await;
                call(
                    url,
                    Method::GET,
                    &format!("/messages/{id}/thread"),
                    bearer,
                    None,
                )
                .await
            }
            Route::Answer => {
                let id = self.fresh_request().await;
                let answering = if caller == Caller::OtherAccountDevice {
                    &self.b
                } else {
                    &self.a
                };
                let body = fixtures::answer_request(answering, &id);
                call(
                    url,
                    Method::POST,
                    &format!("/messages/{id}/answer"),
                    bearer,
                    Some(serde_json::to_value(&body).unwrap()),
                )
                .await
            }
            Route::Cancel => {
                let id = self.fresh_request().await;
                call(
                    url,
                    Method::POST,
                    &format!("/messages/{id}/cancel"),
                    bearer,
                    None,
                )
                .await
            }
            Route::Ws => {
                return match try_connect_ws(&self.relay.ws_url(), bearer).await {
                    Ok(_socket) => (101, None),
                    Err(status) => (status, None),
                };
            }
            Route::Health => call(url, Method::GET, "/health", bearer, None).await,
            Route::Device(r) => return self.run_device(r, caller).await,
            Route::Secret(r) => return self.run_secret(r, caller).await,
            Route::File(r) => return self.run_file(r, caller).await,
            Route::Agent(r) => return self.run_agent(r, caller).await,
        };
        (resp.status().as_u16(), Some(resp))
    }
}

#[tokio::test]
async fn every_route_by_every_caller() {
    let world = World::new().await;
    let routes = [
        Route::CreateAccount,
        Route::CreateConnection,
        Route::ListConnections,
        Route::RevokeConnection,
        Route::Keys,
        Route::PutBackup,
        Route::GetBackup,
        Route::SendMessage,
        Route::ListMessages,
        Route::GetMessage,
        Route::Thread,
        Route::Answer,
        Route::Cancel,
        Route::Ws,
        Route::Health,
    ];
    // The device routes run last: their Reset row resets account B.
    let device_routes = device_rows::ALL.map(Route::Device);
    let file_routes = file_rows::ALL.map(Route::File);
    let secret_routes = secret_rows::ALL.map(Route::Secret);
    let agent_routes = agent_rows::ALL.map(Route::Agent);
    for route in routes
        .into_iter()
        .chain(file_routes)
        .chain(secret_routes)
        .chain(agent_routes)
        .chain(device_routes)
    {
        let standard = CALLERS.into_iter().zip(expected(route));
        let agents = AGENT_CALLERS.into_iter().zip(expected_agents(route));
        for (caller, expect) in standard.chain(agents) {
            let why = format!("{route:?} by {caller:?}");
            let (status, resp) = world.run(route, caller).await;
            match expect {
                S(want) => assert_eq!(status, want, "{why}"),
                E(code) => {
                    let resp = resp.unwrap_or_else(|| panic!("{why}: an HTTP error response"));
                    let www = resp.headers().get("www-authenticate").cloned();
                    expect_error(resp, code, &why).await;
                    if code == ErrorCode::Unauthorized {
                        assert_eq!(
                            www.as_ref().and_then(|v| v.to_str().ok()),
                            Some("Bearer"),
                            "{why}: WWW-Authenticate"
                        );
                    }
                }
            }
        }
    }
    world.relay.shutdown().await;
}

#[tokio::test]
async fn another_account_sees_nothing_of_this_one() {
    let world = World::new().await;
    let url = &world.relay.url;
    let id = world.fresh_request().await;
    let page: MessagePage = call(
        url,
        Method::GET,
        "/messages",
        Some(&world.b.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(
        page.records.iter().all(|r| r.id != id),
        "B's feed holds none of A's messages"
    );
    let keys: KeysResponse = call(url, Method::GET, "/keys", Some(&world.b.device_token), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(keys.account_id, world.b.account_id, "B reads its own keys");
    assert!(keys.connections.is_empty(), "none of A's connections");
    let list: serde_json::Value = call(
        url,
        Method::GET,
        "/connections",
        Some(&world.b.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(
        list,
        serde_json::json!({"connections": []}),
        "B lists none of A's connections"
    );
    let resp = call(
        url,
        Method::POST,
        &format!("/messages/{id}/cancel"),
        Some(&world.b.device_token),
        None,
    )
    .await;
    expect_error(resp, ErrorCode::NotFound, "B cannot cancel A's request").await;
    let rec: MessageRecord = call(
        url,
        Method::GET,
        &format!("/messages/{id}"),
        Some(&world.a.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(
        rec.status,
        herald_protocol::wire::MessageStatus::Pending,
        "A's request is untouched"
    );
    let feed_a = feed(url, &world.a.device_token, Revision(0), None).await;
    assert!(feed_a.records.iter().any(|r| r.id == id), "A still sees it");
    world.relay.shutdown().await;
}

#[tokio::test]
async fn malformed_credentials_are_unauthorized() {
    let world = World::new().await;
    let url = &world.relay.url;
    for (header, why) in [
        ("Bearer".to_owned(), "no token"),
        ("Basic abc".to_owned(), "another scheme"),
        ("Bearer hds_unknown".to_owned(), "unknown device token"),
        (
            format!("Bearer {}.seed.fingerprint", world.conn.bearer),
            "the full connection token instead of its hdr_ part",
        ),
        (
            format!(
                "Bearer {}",
                world.a.device_token.replacen("hds_", "hdr_", 1)
            ),
            "a device token under the connection prefix",
        ),
    ] {
        let resp = client()
            .get(format!("{url}/keys"))
            .header("Authorization", header)
            .send()
            .await
            .unwrap();
        expect_error(resp, ErrorCode::Unauthorized, why).await;
    }
    world.relay.shutdown().await;
}
