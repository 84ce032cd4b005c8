//! Connectors through the OAuth 2.0 device authorization grant (RFC 8628) over real HTTP,
//! with the RFC 9728 / RFC 8414 metadata (docs/agents.md): pending → approved on a device →
//! the token once; denied; expired; slow_down; bad requests.

use crate::agent_common;

use agent_common::*;
use herald_protocol::agents::{TokenResponse, DEVICE_CODE_GRANT_TYPE};
use herald_protocol::ErrorCode;
use herald_relay::AgentLimits;
use herald_testkit::fixtures;
use herald_testkit::Reply;
use serde_json::{json, Value};

/// Asserts an OAuth error: status 400, `error` = code, `error_description`, `no-store`.
#[track_caller]
fn oauth_error(reply: Reply, code: ErrorCode, why: &str) {
    reply.expect_status(400, &format!("{why}: status"));
    assert_eq!(
        reply.header("cache-control"),
        Some("no-store"),
        "{why}: no-store"
    );
    let body: Value = reply.json();
    assert_eq!(body["error"], json!(code.as_str()), "{why}: {body}");
    assert!(
        body["error_description"].is_string(),
        "{why}: error_description"
    );
    assert!(
        body["message"].is_string() && body["fields"].is_array(),
        "{why}: catalog shape"
    );
}

#[tokio::test]
async fn metadata_names_the_public_origin() {
    for (public_url, host_based) in [
        (None, true),
        (Some("https://relay.example.org/".to_owned()), false),
    ] {
        let relay = AgentRelay::start_with(AgentLimits::default(), public_url).await;
        let origin = if host_based {
            relay.url.clone()
        } else {
            "https://relay.example.org".to_owned()
        };
        for path in [
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
        ] {
            let pr: Value = relay
                .api()
                .get(path)
                .await
                .ok(200, "the resource metadata is public");
            assert_eq!(pr["resource"], json!(format!("{origin}/mcp")), "{path}");
            assert_eq!(pr["authorization_servers"], json!([origin]), "{path}");
            assert_eq!(pr["bearer_methods_supported"], json!(["header"]), "{path}");
        }
        let asm: Value = relay
            .api()
            .get("/.well-known/oauth-authorization-server")
            .await
            .ok(200, "the authorization server metadata is public");
        assert_eq!(asm["issuer"], json!(origin));
        assert_eq!(
            asm["device_authorization_endpoint"],
            json!(format!("{origin}/oauth/device_authorization"))
        );
        assert_eq!(
            asm["token_endpoint"],
            json!(format!("{origin}/oauth/token"))
        );
        assert_eq!(
            asm["grant_types_supported"],
            json!([DEVICE_CODE_GRANT_TYPE])
        );
        assert_eq!(
            asm["token_endpoint_auth_methods_supported"],
            json!(["none"])
        );
        let flow = start_device_flow(&relay.url).await;
        assert_eq!(flow.verification_uri, format!("{origin}/oauth/device"));
        relay.shutdown().await;
    }
}

#[tokio::test]
async fn device_flow_end_to_end() {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let url = &relay.url;
    let account = fixtures::create_account(url).await;
    let flow = start_device_flow(url).await;
    assert_eq!(flow.expires_in, 600);
    assert_eq!(flow.interval, 5);
    let code = &flow.user_code;
    assert_eq!(code.len(), 9, "XXXX-XXXX");
    assert_eq!(&code[4..5], "-");
    assert!(
        code.chars()
            .filter(|c| *c != '-')
            .all(|c| "BCDFGHJKLMNPQRSTVWXZ".contains(c)),
        "unambiguous letters: {code}"
    );
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::AuthorizationPending,
        "first poll",
    );
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::SlowDown,
        "polled at once again",
    );
    relay.clock.advance(chrono::TimeDelta::seconds(5));
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::SlowDown,
        "the interval grew to 10 s",
    );
    // Each slow_down adds 5 s: the interval is 15 s now.
    relay.clock.advance(chrono::TimeDelta::seconds(14));
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::SlowDown,
        "14 s is too soon",
    );
    relay.clock.advance(chrono::TimeDelta::seconds(20));
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::AuthorizationPending,
        "20 s later",
    );
    // A connection cannot approve; a device can, typing the code in lower case without dash.
    let conn = fixtures::create_connection(url, &account, "Agent").await;
    let typed = code.replace('-', "").to_lowercase();
    relay
        .api()
        .connection(&conn)
        .post("/connectors/approve", &json!({"userCode": typed}))
        .await
        .error(ErrorCode::Forbidden, "a connection approves");
    let device = relay.api().device(&account);
    let connector: Value = device
        .post(
            "/connectors/approve",
            &json!({"userCode": typed, "name": "Claude"}),
        )
        .await
        .ok(200, "approved");
    assert_eq!(connector["name"], json!("Claude"));
    assert_eq!(connector["clientId"], json!(CLIENT_ID));
    assert_eq!(connector["tokenIssued"], json!(false));
    device
        .post("/connectors/approve", &json!({"userCode": typed}))
        .await
        .error(ErrorCode::NotFound, "a code is approved once");
    relay.clock.advance(chrono::TimeDelta::seconds(30));
    let reply = poll(url, &flow.device_code).await;
    reply.expect_status(200, "the token");
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let raw: Value = reply.json();
    assert!(raw.get("expires_in").is_none(), "never expires");
    assert!(raw.get("refresh_token").is_none(), "never rotated");
    let token: TokenResponse = serde_json::from_value(raw).unwrap();
    assert!(token.access_token.starts_with("hra_"));
    assert_eq!(token.token_type, "Bearer");
    relay.clock.advance(chrono::TimeDelta::seconds(30));
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::InvalidGrant,
        "handed out once",
    );
    // The token works on /v1 only.
    let connector = relay.api().bearer(&token.access_token);
    connector
        .get("/v1/status")
        .await
        .expect_status(200, "status with the connector token");
    let r = notify_ok(
        url,
        &token.access_token,
        json!({"title": "from a connector"}),
    )
    .await;
    assert_eq!(r["received"], json!(true));
    connector
        .get("/messages")
        .await
        .error(ErrorCode::Forbidden, "not /messages");
    let list: Value = device
        .get("/connectors")
        .await
        .ok(200, "the device lists its connectors");
    assert_eq!(list["connectors"][0]["tokenIssued"], json!(true));
    let id = list["connectors"][0]["id"].as_str().unwrap().to_owned();
    let path = format!("/connectors/{id}");
    device.delete(&path).await.expect_status(204, "revoked");
    connector
        .get("/v1/status")
        .await
        .error(ErrorCode::Unauthorized, "revoked at once");
    device
        .delete(&path)
        .await
        .error(ErrorCode::AlreadyRevoked, "a connector revoked twice");
    relay.shutdown().await;
}

#[tokio::test]
async fn denied_expired_and_malformed_flows() {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let url = &relay.url;
    let account = fixtures::create_account(url).await;
    // Denied.
    let device = relay.api().device(&account);
    let flow = start_device_flow(url).await;
    device
        .post("/connectors/deny", &json!({"userCode": flow.user_code}))
        .await
        .expect_status(204, "denied");
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::AccessDenied,
        "after deny",
    );
    // Expired.
    let late = start_device_flow(url).await;
    relay.clock.advance(chrono::TimeDelta::seconds(600));
    oauth_error(
        poll(url, &late.device_code).await,
        ErrorCode::ExpiredToken,
        "after 600 s",
    );
    device
        .post("/connectors/approve", &json!({"userCode": late.user_code}))
        .await
        .error(ErrorCode::NotFound, "an expired code cannot be approved");
    // Another client's code, an unknown one, a wrong grant type, missing fields.
    let flow = start_device_flow(url).await;
    let wrong_client = form(
        url,
        "/oauth/token",
        &[
            ("grant_type", DEVICE_CODE_GRANT_TYPE),
            ("device_code", &flow.device_code),
            ("client_id", "someone-else"),
        ],
    )
    .await;
    oauth_error(wrong_client, ErrorCode::InvalidGrant, "another client_id");
    oauth_error(
        poll(url, "not-a-device-code").await,
        ErrorCode::InvalidGrant,
        "unknown code",
    );
    let resp = form(
        url,
        "/oauth/token",
        &[
            ("grant_type", "authorization_code"),
            ("code", "x"),
            ("client_id", CLIENT_ID),
        ],
    )
    .await;
    oauth_error(resp, ErrorCode::UnsupportedGrantType, "another grant");
    let resp = form(
        url,
        "/oauth/token",
        &[("grant_type", DEVICE_CODE_GRANT_TYPE)],
    )
    .await;
    oauth_error(resp, ErrorCode::InvalidRequest, "no device_code");
    let resp = form(url, "/oauth/device_authorization", &[("scope", "notify")]).await;
    oauth_error(resp, ErrorCode::InvalidRequest, "no client_id");
    let resp = relay
        .api()
        .post(
            "/oauth/token",
            &json!({"grant_type": DEVICE_CODE_GRANT_TYPE}),
        )
        .await;
    oauth_error(resp, ErrorCode::InvalidRequest, "JSON instead of a form");
    device
        .post("/connectors/approve", &json!({"userCode": "ABCD-1234"}))
        .await
        .error(ErrorCode::InvalidRequest, "not a user code");
    let page = relay.api().get("/oauth/device").await;
    page.expect_status(200, "the verification page");
    assert!(
        page.text().contains("herald connector approve"),
        "it says where to approve"
    );
    relay.shutdown().await;
}

/// `client_name` over 100 characters or with control / bidi characters, and any repeated
/// parameter, are `invalid_request` (RFC 6749 §3.1); a 100-character name is accepted.
#[tokio::test]
async fn client_names_and_repeated_parameters_are_checked() {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let url = &relay.url;
    let long = "n".repeat(101);
    for (name, why) in [
        (long.as_str(), "101 characters"),
        ("evil\u{202E}txt.exe", "U+202E"),
        ("bell\u{7}", "a control character"),
    ] {
        let resp = form(
            url,
            "/oauth/device_authorization",
            &[("client_id", CLIENT_ID), ("client_name", name)],
        )
        .await;
        oauth_error(resp, ErrorCode::InvalidRequest, why);
    }
    let ok = "n".repeat(100);
    form(
        url,
        "/oauth/device_authorization",
        &[("client_id", CLIENT_ID), ("client_name", &ok)],
    )
    .await
    .expect_status(200, "a 100-character name");

    let resp = form(
        url,
        "/oauth/device_authorization",
        &[("client_id", "a"), ("client_id", "b")],
    )
    .await;
    oauth_error(resp, ErrorCode::InvalidRequest, "client_id twice");
    let flow = start_device_flow(url).await;
    let resp = form(
        url,
        "/oauth/token",
        &[
            ("grant_type", DEVICE_CODE_GRANT_TYPE),
            ("grant_type", DEVICE_CODE_GRANT_TYPE),
            ("device_code", &flow.device_code),
            ("client_id", CLIENT_ID),
        ],
    )
    .await;
    oauth_error(resp, ErrorCode::InvalidRequest, "grant_type twice");
    relay.shutdown().await;
}
