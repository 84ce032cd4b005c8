//! Rows of the agent side (docs/agents.md, docs/mcp.md): the agent endpoints `/v1/*`, the
//! OAuth metadata and device flow, the device routes for agent keys, connectors,
//! notifications and quiet hours, and `/mcp`.

use reqwest::Method;
use serde_json::{json, Value};

use super::cells::{ok, passed, Cred, Expect, N};
use super::rows::{scenario, Row};
use super::world::{
    agent_key, connector, Reply, World, CLIENT_ID, NOTIFICATION, SHARED_NOTIFICATION_ID,
};

pub fn rows() -> Vec<Row> {
    vec![
        Row::new(
            "POST",
            "/v1/notify",
            "a notification (B: with an id A used)",
            Expect::agent(ok(201), ok(201)),
            scenario!(notify),
        ),
        Row::new(
            "GET",
            "/v1/receipts/{id}",
            "the receipt of A's notification",
            Expect::agent(ok(200), N),
            scenario!(receipt),
        ),
        Row::new(
            "GET",
            "/v1/replies/{id}",
            "the reply to A's notification, wait=0",
            Expect::agent(ok(200), N),
            scenario!(replies),
        ),
        Row::new(
            "GET",
            "/v1/status",
            "the caller's account's status",
            Expect::agent(ok(200), ok(200)),
            scenario!(status),
        ),
        Row::new(
            "GET",
            "/.well-known/oauth-protected-resource",
            "resource metadata",
            Expect::oauth(ok(200)),
            scenario!(protected_resource),
        ),
        Row::new(
            "GET",
            "/.well-known/oauth-protected-resource/mcp",
            "resource metadata, path form",
            Expect::oauth(ok(200)),
            scenario!(protected_resource_mcp),
        ),
        Row::new(
            "GET",
            "/.well-known/oauth-authorization-server",
            "authorization server metadata",
            Expect::oauth(ok(200)),
            scenario!(authorization_server),
        ),
        Row::new(
            "POST",
            "/oauth/device_authorization",
            "a device code",
            Expect::oauth(ok(200)),
            scenario!(device_authorization),
        ),
        Row::new(
            "POST",
            "/oauth/token",
            "a poll with an unknown device code",
            Expect::oauth(passed(400, Some("invalid_grant"))),
            scenario!(token),
        ),
        Row::new(
            "GET",
            "/oauth/device",
            "the verification page",
            Expect::oauth(ok(200)),
            scenario!(device_page),
        ),
        Row::new(
            "POST",
            "/agent-keys",
            "an agent key of the caller's account",
            Expect::device(ok(201), ok(201)),
            scenario!(create_agent_key),
        ),
        Row::new(
            "GET",
            "/agent-keys",
            "the caller's account's agent keys",
            Expect::device(ok(200), ok(200)),
            scenario!(list_agent_keys),
        ),
        Row::new(
            "DELETE",
            "/agent-keys/{id}",
            "a live agent key of A",
            Expect::device(ok(204), N),
            scenario!(revoke_agent_key),
        ),
        Row::new(
            "GET",
            "/connectors",
            "the caller's account's connectors",
            Expect::device(ok(200), ok(200)),
            scenario!(list_connectors),
        ),
        Row::new(
            "POST",
            "/connectors/approve",
            "a waiting user code (it belongs to no account yet)",
            Expect::device(ok(200), ok(200)),
            scenario!(approve),
        ),
        Row::new(
            "POST",
            "/connectors/deny",
            "a waiting user code",
            Expect::device(ok(204), ok(204)),
            scenario!(deny),
        ),
        Row::new(
            "DELETE",
            "/connectors/{id}",
            "a live connector of A",
            Expect::device(ok(204), N),
            scenario!(revoke_connector),
        ),
        Row::new(
            "GET",
            "/notifications",
            "the caller's account's notification feed",
            Expect::device(ok(200), ok(200)),
            scenario!(feed),
        ),
        Row::new(
            "POST",
            "/notifications/{id}/receipt",
            "a receipt of A's notification",
            Expect::device(ok(200), N),
            scenario!(receipt_update),
        ),
        Row::new(
            "POST",
            "/notifications/{id}/reply",
            "a reply to A's notification",
            Expect::device(ok(200), N),
            scenario!(reply),
        ),
        Row::new(
            "GET",
            "/quiet-hours",
            "the caller's account's quiet hours",
            Expect::device(ok(200), ok(200)),
            scenario!(get_quiet_hours),
        ),
        Row::new(
            "PUT",
            "/quiet-hours",
            "the caller's account's quiet hours",
            Expect::device(ok(200), ok(200)),
            scenario!(put_quiet_hours),
        ),
        Row::new(
            "POST",
            "/mcp",
            "ping",
            Expect::mcp(ok(200), ok(200)),
            scenario!(mcp_ping),
        ),
        Row::new(
            "POST",
            "/mcp",
            "tools/call get_receipt of A's notification",
            Expect::mcp(ok(200), N),
            scenario!(mcp_get_receipt),
        ),
        Row::new(
            "*",
            "/mcp",
            "GET (no event stream: 405 once authenticated)",
            Expect::mcp(
                passed(405, Some("method_not_allowed")),
                passed(405, Some("method_not_allowed")),
            ),
            scenario!(mcp_get),
        ),
    ]
}

/// A's agents send fresh ids; each of B's agents sends an id A used already.
async fn notify(w: &World, c: Cred) -> Reply {
    let mut body = json!({"title": "Deploy finished"});
    match c {
        Cred::OtherAgentKey => body["notificationId"] = json!(SHARED_NOTIFICATION_ID),
        Cred::OtherConnector => {
            body["notificationId"] = json!(format!("{SHARED_NOTIFICATION_ID}-2"))
        }
        _ => {}
    }
    w.send_json(Method::POST, "/v1/notify", w.bearer(c), body)
        .await
}

async fn receipt(w: &World, c: Cred) -> Reply {
    let path = format!("/v1/receipts/{NOTIFICATION}");
    w.send(Method::GET, &path, w.bearer(c)).await
}

async fn replies(w: &World, c: Cred) -> Reply {
    let path = format!("/v1/replies/{NOTIFICATION}?wait=0");
    w.send(Method::GET, &path, w.bearer(c)).await
}

async fn status(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/v1/status", w.bearer(c)).await
}

async fn protected_resource(w: &World, c: Cred) -> Reply {
    let path = "/.well-known/oauth-protected-resource";
    w.send(Method::GET, path, w.bearer(c)).await
}

async fn protected_resource_mcp(w: &World, c: Cred) -> Reply {
    let path = "/.well-known/oauth-protected-resource/mcp";
    w.send(Method::GET, path, w.bearer(c)).await
}

async fn authorization_server(w: &World, c: Cred) -> Reply {
    let path = "/.well-known/oauth-authorization-server";
    w.send(Method::GET, path, w.bearer(c)).await
}

async fn device_authorization(w: &World, c: Cred) -> Reply {
    let req = w
        .request(Method::POST, "/oauth/device_authorization", w.bearer(c))
        .form(&[("client_id", CLIENT_ID)]);
    Reply::of(req).await
}

async fn token(w: &World, c: Cred) -> Reply {
    let req = w.request(Method::POST, "/oauth/token", w.bearer(c)).form(&[
        (
            "grant_type",
            herald_protocol::agents::DEVICE_CODE_GRANT_TYPE,
        ),
        ("device_code", "unknown-device-code"),
        ("client_id", CLIENT_ID),
    ]);
    Reply::of(req).await
}

async fn device_page(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/oauth/device", w.bearer(c)).await
}

async fn create_agent_key(w: &World, c: Cred) -> Reply {
    w.send_json(
        Method::POST,
        "/agent-keys",
        w.bearer(c),
        json!({"name": "New key"}),
    )
    .await
}

async fn list_agent_keys(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/agent-keys", w.bearer(c)).await
}

async fn revoke_agent_key(w: &World, c: Cred) -> Reply {
    let (id, _) = agent_key(&w.relay.url, &w.client, &w.a.device_token, "Doomed").await;
    let path = format!("/agent-keys/{id}");
    w.send(Method::DELETE, &path, w.bearer(c)).await
}

async fn list_connectors(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/connectors", w.bearer(c)).await
}

/// Devices answer a fresh code each; the others share one waiting code.
async fn user_code(w: &World, c: Cred) -> String {
    if matches!(c, Cred::Device | Cred::OtherDevice) {
        w.device_flow().await.1
    } else {
        w.shared
            .flow
            .get_or_init(|| w.device_flow())
            .await
            .1
            .clone()
    }
}

async fn approve(w: &World, c: Cred) -> Reply {
    let body = json!({"userCode": user_code(w, c).await, "name": "Claude"});
    w.send_json(Method::POST, "/connectors/approve", w.bearer(c), body)
        .await
}

async fn deny(w: &World, c: Cred) -> Reply {
    let body = json!({"userCode": user_code(w, c).await});
    w.send_json(Method::POST, "/connectors/deny", w.bearer(c), body)
        .await
}

async fn revoke_connector(w: &World, c: Cred) -> Reply {
    let id = if c == Cred::Device {
        connector(&w.relay.url, &w.client, &w.a.device_token)
            .await
            .0
    } else {
        w.shared
            .connector
            .get_or_init(|| async {
                connector(&w.relay.url, &w.client, &w.a.device_token)
                    .await
                    .0
            })
            .await
            .clone()
    };
    let path = format!("/connectors/{id}");
    w.send(Method::DELETE, &path, w.bearer(c)).await
}

async fn feed(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/notifications?after=0", w.bearer(c))
        .await
}

async fn receipt_update(w: &World, c: Cred) -> Reply {
    let path = format!("/notifications/{}/receipt", w.notification);
    w.send_json(Method::POST, &path, w.bearer(c), json!({"displayed": true}))
        .await
}

async fn reply(w: &World, c: Cred) -> Reply {
    let id = if matches!(c, Cred::Device | Cred::OtherDevice) {
        w.fresh_notification().await
    } else {
        w.notification.clone()
    };
    let path = format!("/notifications/{id}/reply");
    w.send_json(Method::POST, &path, w.bearer(c), json!({"text": "Ship it"}))
        .await
}

async fn get_quiet_hours(w: &World, c: Cred) -> Reply {
    w.send(Method::GET, "/quiet-hours", w.bearer(c)).await
}

async fn put_quiet_hours(w: &World, c: Cred) -> Reply {
    let body =
        json!({"enabled": true, "start": "22:00", "end": "07:00", "timezone": "Europe/Paris"});
    w.send_json(Method::PUT, "/quiet-hours", w.bearer(c), body)
        .await
}

async fn mcp(w: &World, c: Cred, message: Value) -> Reply {
    w.send_json(Method::POST, "/mcp", w.bearer(c), message)
        .await
}

async fn mcp_ping(w: &World, c: Cred) -> Reply {
    let reply = mcp(w, c, json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).await;
    if reply.status == 200 {
        assert_eq!(reply.json()["result"], json!({}), "ping answers {{}}");
    }
    reply
}

/// A tool result with `isError` stands for the route's error: its body is the route's.
async fn mcp_get_receipt(w: &World, c: Cred) -> Reply {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_receipt", "arguments": {"notificationId": NOTIFICATION}}});
    let reply = mcp(w, c, call).await;
    if reply.status != 200 {
        return reply;
    }
    let result = reply.json()["result"].clone();
    if result["isError"] != json!(true) {
        assert_eq!(
            result["structuredContent"]["notificationId"],
            json!(NOTIFICATION),
            "the receipt of A's notification"
        );
        return reply;
    }
    let body = result["structuredContent"].clone();
    let status = body["error"]
        .as_str()
        .and_then(herald_protocol::ErrorCode::from_code)
        .map(|c| c.status())
        .unwrap_or(500);
    Reply {
        status,
        headers: reply.headers,
        text: body.to_string(),
    }
}

/// `/mcp`'s JSON-RPC -32000 answer to a GET stands for `method_not_allowed`.
async fn mcp_get(w: &World, c: Cred) -> Reply {
    let reply = w.send(Method::GET, "/mcp", w.bearer(c)).await;
    if reply.status != 405 {
        return reply;
    }
    let body = reply.json();
    assert_eq!(body["error"]["code"], json!(-32000), "GET /mcp: -32000");
    assert_eq!(
        reply.headers.get("allow").and_then(|v| v.to_str().ok()),
        Some("POST"),
        "GET /mcp: Allow: POST"
    );
    Reply {
        status: 405,
        headers: reply.headers,
        text: json!({"error": "method_not_allowed", "message": "JSON-RPC -32000", "fields": []})
            .to_string(),
    }
}
