//! Connectors through the OAuth 2.0 device authorization grant (RFC 8628) over real HTTP,
//! with the RFC 9728 / RFC 8414 metadata (docs/agents.md): pending → approved on a device →
//! the token once; denied; expired; slow_down; bad requests.

use crate::agent_common;
use crate::common;

use agent_common::*;
use common::*;
use herald_protocol::agents::{TokenResponse, DEVICE_CODE_GRANT_TYPE};
use herald_protocol::ErrorCode;
use herald_relay::AgentLimits;
use herald_testkit::fixtures;
use reqwest::{Method, Response};
use serde_json::{json, Value};

/// Asserts an OAuth error: status 400, `error` = code, `error_description`, `no-store`.
async fn oauth_error(resp: Response, code: ErrorCode, why: &str) {
    assert_eq!(resp.status().as_u16(), 400, "{why}: status");
    assert_eq!(
        resp.headers()
            .get("cache-control")
            .and_then(|v| v.to_str().ok()),
        Some("no-store"),
        "{why}: no-store"
    );
    let body: Value = resp.json().await.expect("JSON");
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
            let pr: Value = call(&relay.url, Method::GET, path, None, None)
                .await
                .json()
                .await
                .unwrap();
            assert_eq!(pr["resource"], json!(format!("{origin}/mcp")), "{path}");
            assert_eq!(pr["authorization_servers"], json!([origin]), "{path}");
            assert_eq!(pr["bearer_methods_supported"], json!(["header"]), "{path}");
        }
        let asm: Value = call(
            &relay.url,
            Method::GET,
            "/.well-known/oauth-authorization-server",
            None,
            None,
        )
        .await
        .json()
        .await
        .unwrap();
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
    )
    .await;
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::SlowDown,
        "polled at once again",
    )
    .await;
    relay.clock.advance(chrono::TimeDelta::seconds(5));
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::SlowDown,
        "the interval grew to 10 s",
    )
    .await;
    // Each slow_down adds 5 s: the interval is 15 s now.
    relay.clock.advance(chrono::TimeDelta::seconds(14));
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::SlowDown,
        "14 s is too soon",
    )
    .await;
    relay.clock.advance(chrono::TimeDelta::seconds(20));
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::AuthorizationPending,
        "20 s later",
    )
    .await;
    // A connection cannot approve; a device can, typing the code in lower case without dash.
    let conn = fixtures::create_connection(url, &account, "Agent").await;
    let typed = code.replace('-', "").to_lowercase();
    let resp = call(
        url,
        Method::POST,
        "/connectors/approve",
        Some(&conn.bearer),
        Some(json!({"userCode": typed})),
    )
    .await;
    expect_error(resp, ErrorCode::Forbidden, "a connection approves").await;
    let resp = call(
        url,
        Method::POST,
        "/connectors/approve",
        Some(&account.device_token),
        Some(json!({"userCode": typed, "name": "Claude"})),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 200, "approved");
    let connector: Value = resp.json().await.unwrap();
    assert_eq!(connector["name"], json!("Claude"));
    assert_eq!(connector["clientId"], json!(CLIENT_ID));
    assert_eq!(connector["tokenIssued"], json!(false));
    let resp = call(
        url,
        Method::POST,
        "/connectors/approve",
        Some(&account.device_token),
        Some(json!({"userCode": typed})),
    )
    .await;
    expect_error(resp, ErrorCode::NotFound, "a code is approved once").await;
    relay.clock.advance(chrono::TimeDelta::seconds(30));
    let resp = poll(url, &flow.device_code).await;
    assert_eq!(resp.status().as_u16(), 200, "the token");
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let raw: Value = resp.json().await.unwrap();
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
    )
    .await;
    // The token works on /v1 only.
    let resp = call(
        url,
        Method::GET,
        "/v1/status",
        Some(&token.access_token),
        None,
    )
    .await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "status with the connector token"
    );
    let r = notify_ok(
        url,
        &token.access_token,
        json!({"title": "from a connector"}),
    )
    .await;
    assert_eq!(r["received"], json!(true));
    expect_error(
        call(
            url,
            Method::GET,
            "/messages",
            Some(&token.access_token),
            None,
        )
        .await,
        ErrorCode::Forbidden,
        "not /messages",
    )
    .await;
    let list: Value = call(
        url,
        Method::GET,
        "/connectors",
        Some(&account.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(list["connectors"][0]["tokenIssued"], json!(true));
    let id = list["connectors"][0]["id"].as_str().unwrap().to_owned();
    let resp = call(
        url,
        Method::DELETE,
        &format!("/connectors/{id}"),
        Some(&account.device_token),
        None,
    )
    .await;
    assert_eq!(resp.status().as_u16(), 204, "revoked");
    expect_error(
        call(
            url,
            Method::GET,
            "/v1/status",
            Some(&token.access_token),
            None,
        )
        .await,
        ErrorCode::Unauthorized,
        "revoked at once",
    )
    .await;
    let again = call(
        url,
        Method::DELETE,
        &format!("/connectors/{id}"),
        Some(&account.device_token),
        None,
    )
    .await;
    expect_error(
        again,
        ErrorCode::AlreadyRevoked,
        "a connector revoked twice",
    )
    .await;
    relay.shutdown().await;
}

#[tokio::test]
async fn denied_expired_and_malformed_flows() {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let url = &relay.url;
    let account = fixtures::create_account(url).await;
    // Denied.
    let flow = start_device_flow(url).await;
    let resp = call(
        url,
        Method::POST,
        "/connectors/deny",
        Some(&account.device_token),
        Some(json!({"userCode": flow.user_code})),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 204, "denied");
    oauth_error(
        poll(url, &flow.device_code).await,
        ErrorCode::AccessDenied,
        "after deny",
    )
    .await;
    // Expired.
    let late = start_device_flow(url).await;
    relay.clock.advance(chrono::TimeDelta::seconds(600));
    oauth_error(
        poll(url, &late.device_code).await,
        ErrorCode::ExpiredToken,
        "after 600 s",
    )
    .await;
    let resp = call(
        url,
        Method::POST,
        "/connectors/approve",
        Some(&account.device_token),
        Some(json!({"userCode": late.user_code})),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::NotFound,
        "an expired code cannot be approved",
    )
    .await;
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
    oauth_error(wrong_client, ErrorCode::InvalidGrant, "another client_id").await;
    oauth_error(
        poll(url, "not-a-device-code").await,
        ErrorCode::InvalidGrant,
        "unknown code",
    )
    .await;
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
    oauth_error(resp, ErrorCode::UnsupportedGrantType, "another grant").await;
    let resp = form(
        url,
        "/oauth/token",
        &[("grant_type", DEVICE_CODE_GRANT_TYPE)],
    )
    .await;
    oauth_error(resp, ErrorCode::InvalidRequest, "no device_code").await;
    let resp = form(url, "/oauth/device_authorization", &[("scope", "notify")]).await;
    oauth_error(resp, ErrorCode::InvalidRequest, "no client_id").await;
    let resp = call(
        url,
        Method::POST,
        "/oauth/token",
        None,
        Some(json!({"grant_type": DEVICE_CODE_GRANT_TYPE})),
    )
    .await;
    oauth_error(resp, ErrorCode::InvalidRequest, "JSON instead of a form").await;
    let resp = call(
        url,
        Method::POST,
        "/connectors/approve",
        Some(&account.device_token),
        Some(json!({"userCode": "ABCD-1234"})),
    )
    .await;
    expect_error(resp, ErrorCode::InvalidRequest, "not a user code").await;
    let page = call(url, Method::GET, "/oauth/device", None, None).await;
    assert_eq!(page.status().as_u16(), 200, "the verification page");
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("herald connector approve"),
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
        oauth_error(resp, ErrorCode::InvalidRequest, why).await;
    }
    let ok = "n".repeat(100);
    let resp = form(
        url,
        "/oauth/device_authorization",
        &[("client_id", CLIENT_ID), ("client_name", &ok)],
    )
    .await;
    assert_eq!(resp.status().as_u16(), 200, "a 100-character name");

    let resp = form(
        url,
        "/oauth/device_authorization",
        &[("client_id", "a"), ("client_id", "b")],
    )
    .await;
    oauth_error(resp, ErrorCode::InvalidRequest, "client_id twice").await;
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
    oauth_error(resp, ErrorCode::InvalidRequest, "grant_type twice").await;
    relay.shutdown().await;
}
