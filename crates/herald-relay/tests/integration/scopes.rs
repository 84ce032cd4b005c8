//! Connection scopes (docs/authorization.md, "Scopes"), against a real relay: a connection
//! created with fewer scopes is refused, with 403 naming the scope, on exactly the routes that
//! need the others; the default holds all three; bad `scopes` are 400; devices list them.

use crate::common;

use common::*;
use herald_protocol::scopes::Scope;
use herald_protocol::wire::{ConnectionList, CreateConnectionResponse};
use herald_protocol::ErrorCode;
use herald_testkit::fixtures::{self, TestAccount, TestConnection};
use herald_testkit::TestRelay;

async fn connection_with(
    relay: &TestRelay,
    account: &TestAccount,
    name: &str,
    scopes: Option<Vec<Scope>>,
) -> (TestConnection, Vec<Scope>) {
    let (mut request, connection_id) = fixtures::connection_request(&account.account_id, name);
    request.scopes = scopes;
    let created: CreateConnectionResponse = relay
        .api()
        .device(account)
        .post("/connections", &request)
        .await
        .ok(201, "the connection is created");
    assert_eq!(created.connection_id, connection_id, "its id");
    let connection = TestConnection {
        account_id: account.account_id.clone(),
        connection_id,
        bearer: created.bearer,
        name: name.into(),
    };
    (connection, created.scopes)
}

fn assert_names(body: &herald_protocol::ErrorBody, scope: Scope, why: &str) {
    let message = &body.message;
    assert!(
        message.contains(scope.as_str()),
        "{why}: names {scope}: {message}"
    );
}

#[tokio::test]
async fn a_send_only_connection_sends_but_reads_and_listens_to_nothing() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let (sender, scopes) = connection_with(
        &relay,
        &account,
        "Notifier",
        Some(vec![Scope::MessagesSend]),
    )
    .await;
    assert_eq!(
        scopes,
        vec![Scope::MessagesSend],
        "it holds what it asked for"
    );
    let api = relay.api().connection(&sender);

    let record = send(
        &relay.url,
        &sender.bearer,
        &fixtures::message_request(&account.account_id, sender.principal(), false),
    )
    .await;
    api.get("/keys")
        .await
        .expect_status(200, "keys are needed to seal");
    // A request expects an answer it could never read: refused before anything is stored.
    let request = fixtures::message_request(&account.account_id, sender.principal(), true);
    let body = api
        .post_message("scope-request", &request)
        .await
        .error(ErrorCode::Forbidden, "a request needs messages:read too");
    assert_names(
        &body,
        Scope::MessagesRead,
        "POST /messages expecting an answer",
    );
    let all = feed(
        &relay.url,
        &account.device_token,
        herald_protocol::Revision(0),
        None,
    )
    .await;
    let ids: Vec<_> = all.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(
        ids,
        vec![record.id.clone()],
        "only the plain message reached the inbox"
    );

    for path in [
        "/messages".to_owned(),
        format!("/messages/{}", record.id),
        format!("/messages/{}/thread", record.id),
    ] {
        let body = api.get(&path).await.error(ErrorCode::Forbidden, &path);
        assert_names(&body, Scope::MessagesRead, &path);
    }
    assert_eq!(
        try_connect_ws(&relay.ws_url(), Some(&sender.bearer))
            .await
            .err(),
        Some(403),
        "no live updates without events:read"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn a_read_only_connection_cannot_send() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let (reader, _) = connection_with(
        &relay,
        &account,
        "Reader",
        Some(vec![Scope::EventsRead, Scope::MessagesRead]),
    )
    .await;
    let request = fixtures::message_request(&account.account_id, reader.principal(), false);
    let body = relay
        .api()
        .connection(&reader)
        .post_message("scope-1", &request)
        .await
        .error(ErrorCode::Forbidden, "sending needs messages:send");
    assert_names(&body, Scope::MessagesSend, "POST /messages");
    let page = feed(
        &relay.url,
        &reader.bearer,
        herald_protocol::Revision(0),
        None,
    )
    .await;
    assert!(page.records.is_empty(), "it may read (its own, none yet)");
    let socket = try_connect_ws(&relay.ws_url(), Some(&reader.bearer)).await;
    assert!(socket.is_ok(), "events:read opens the socket");
    relay.shutdown().await;
}

#[tokio::test]
async fn the_default_holds_every_scope_and_devices_see_them() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let (_, scopes) = connection_with(&relay, &account, "Full", None).await;
    assert_eq!(scopes, Scope::ALL.to_vec(), "no scopes named: all three");
    let (_, scopes) = connection_with(
        &relay,
        &account,
        "Unordered",
        Some(vec![Scope::EventsRead, Scope::MessagesSend]),
    )
    .await;
    assert_eq!(
        scopes,
        vec![Scope::MessagesSend, Scope::EventsRead],
        "returned in the published order"
    );
    let list: ConnectionList = relay
        .api()
        .device(&account)
        .get("/connections")
        .await
        .ok(200, "the device lists its connections");
    let listed: Vec<_> = list
        .connections
        .iter()
        .map(|c| (c.name.as_str(), c.scopes.clone()))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("Full", Scope::ALL.to_vec()),
            ("Unordered", vec![Scope::MessagesSend, Scope::EventsRead])
        ],
        "each connection with its scopes"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn bad_scopes_are_refused_naming_the_field() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let (request, _) = fixtures::connection_request(&account.account_id, "Bad");
    let mut body = serde_json::to_value(&request).expect("serializes");
    // A wrong shape (an unknown name, not a list) is the parser's `bad_request`; a list that
    // parses but says nothing usable is `invalid_request`. Both name the field.
    for (scopes, code, why) in [
        (serde_json::json!([]), ErrorCode::InvalidRequest, "no scope"),
        (
            serde_json::json!(["messages:send", "messages:send"]),
            ErrorCode::InvalidRequest,
            "a repeated scope",
        ),
        (
            serde_json::json!(["messages:write"]),
            ErrorCode::BadRequest,
            "an unknown scope",
        ),
        (
            serde_json::json!("messages:send"),
            ErrorCode::BadRequest,
            "not a list",
        ),
    ] {
        body["scopes"] = scopes;
        let error = relay
            .api()
            .device(&account)
            .post("/connections", &body)
            .await
            .error(code, why);
        assert!(
            error.fields.iter().any(|f| f.starts_with("scopes")),
            "{why}: names scopes: {:?}",
            error.fields
        );
    }
    relay.shutdown().await;
}
