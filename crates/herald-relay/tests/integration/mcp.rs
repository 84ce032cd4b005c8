//! `POST /mcp` over real HTTP against a real relay (docs/mcp.md): authentication before the
//! protocol, the 401/403 headers, 202s, 405, arrays, versions, session-less and stateless
//! clients, header/body mismatches, -32601, -32022, tool calls forwarded to the agent routes
//! with isError on refusal, and the browser Origin check.

use crate::agent_common;

use agent_common::AgentRelay;
use herald_relay::AgentLimits;
use herald_testkit::real::{self, RealAccount};
use herald_testkit::{Api, Reply, TestRelay};
use reqwest::Method;
use serde_json::{json, Value};

/// The headers of a stateless (2026-07-28) request for `method` (and tool `name`).
fn stateless(method: &str, name: Option<&str>) -> Vec<(&'static str, String)> {
    let mut h = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", method.to_owned()),
    ];
    if let Some(n) = name {
        h.push(("Mcp-Name", n.to_owned()));
    }
    h
}

/// A stateless request body with the `_meta` envelope.
fn stateless_body(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn rpc(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Extra request headers.
type Headers<'a> = Vec<(&'a str, String)>;
/// (why, HTTP method, bearer, headers, body, status, WWW-Authenticate).
type AuthCase<'a> = (
    &'a str,
    Method,
    Option<&'a str>,
    Headers<'a>,
    String,
    u16,
    Option<&'a str>,
);
/// (why, headers, body, HTTP status, JSON-RPC error code or None for a result).
type ProtocolCase<'a> = (&'a str, Headers<'a>, Value, u16, Option<i64>);

/// Sends `body` (raw text, as `application/json`) to `/mcp` with an optional bearer and extra
/// headers, after the JSON content type and the test's User-Agent (a header given twice is
/// sent twice, in that order).
async fn send(
    url: &str,
    method: Method,
    bearer: Option<&str>,
    headers: &[(&str, String)],
    body: &str,
) -> Reply {
    let api = match bearer {
        Some(b) => Api::new(url).bearer(b),
        None => Api::new(url),
    };
    let mut req = api
        .request(method, "/mcp")
        .header("Content-Type", "application/json")
        .header("User-Agent", "Herald-MCP-Test/1.0");
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    Reply::read(req.body(body.to_owned()).send().await).await
}

async fn post(url: &str, bearer: &str, headers: &[(&str, String)], body: &Value) -> Reply {
    send(url, Method::POST, Some(bearer), headers, &body.to_string()).await
}

/// A relay, an account (real keys: notifications are sealed to its key) with a device, and an
/// agent key created by that device.
async fn setup() -> (TestRelay, RealAccount, String) {
    let relay = TestRelay::start().await;
    let account = real::create_account(&relay.url).await;
    let created: Value = relay
        .api()
        .bearer(&account.device_token)
        .post("/agent-keys", &json!({"name": "mcp test"}))
        .await
        .ok(201, "the device creates an agent key");
    let key = created["key"].as_str().expect("key").to_owned();
    assert!(key.starts_with("hrk_"));
    (relay, account, key)
}

#[tokio::test]
async fn authentication_comes_before_every_protocol_check() {
    let (relay, account, key) = setup().await;
    let url = &relay.url;
    let metadata =
        format!("Bearer resource_metadata=\"{url}/.well-known/oauth-protected-resource\"");
    let invalid = format!("{metadata}, error=\"invalid_token\"");
    let ping = rpc(1, "ping", json!({})).to_string();
    let bad_version = vec![("MCP-Protocol-Version", "1900-01-01".to_owned())];
    let call = rpc(
        2,
        "tools/call",
        json!({"name": "herald_status", "arguments": {}}),
    )
    .to_string();
    // (why, HTTP method, bearer, headers, body, status, WWW-Authenticate)
    let cases: Vec<AuthCase> = vec![
        (
            "no credential",
            Method::POST,
            None,
            vec![],
            ping.clone(),
            401,
            Some(&metadata),
        ),
        (
            "unknown agent key",
            Method::POST,
            Some("hrk_nope"),
            vec![],
            ping.clone(),
            401,
            Some(&invalid),
        ),
        (
            "not a bearer we know",
            Method::POST,
            Some("xyz"),
            vec![],
            ping.clone(),
            401,
            Some(&invalid),
        ),
        (
            "bad key and a wrong version header",
            Method::POST,
            Some("hrk_nope"),
            bad_version.clone(),
            ping.clone(),
            401,
            Some(&invalid),
        ),
        (
            "bad key and an array",
            Method::POST,
            Some("hrk_nope"),
            vec![],
            format!("[{ping}]"),
            401,
            Some(&invalid),
        ),
        (
            "bad key and broken JSON",
            Method::POST,
            Some("hrk_nope"),
            vec![],
            "{".to_owned(),
            401,
            Some(&invalid),
        ),
        (
            "bad key and a tool call",
            Method::POST,
            Some("hrk_nope"),
            vec![],
            call.clone(),
            401,
            Some(&invalid),
        ),
        (
            "bad key and a notification",
            Method::POST,
            Some("hrk_nope"),
            vec![],
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
            401,
            Some(&invalid),
        ),
        (
            "no credential on GET",
            Method::GET,
            None,
            vec![],
            String::new(),
            401,
            Some(&metadata),
        ),
        (
            "a device session",
            Method::POST,
            Some(&account.device_token),
            vec![],
            ping.clone(),
            403,
            None,
        ),
        (
            "a device session calling a tool",
            Method::POST,
            Some(&account.device_token),
            vec![],
            call.clone(),
            403,
            None,
        ),
        (
            "a device session with a wrong version header",
            Method::POST,
            Some(&account.device_token),
            bad_version.clone(),
            ping.clone(),
            403,
            None,
        ),
        (
            "the agent key",
            Method::POST,
            Some(&key),
            vec![],
            ping.clone(),
            200,
            None,
        ),
    ];
    for (why, method, bearer, headers, body, status, challenge) in cases {
        let a = send(url, method, bearer, &headers, &body).await;
        assert_eq!(a.status(), status, "{why}: {}", a.text());
        let got = a
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().expect("ascii").to_owned());
        assert_eq!(got.as_deref(), challenge, "{why}: WWW-Authenticate");
        if status != 200 {
            let body = a.json::<Value>();
            assert!(
                body["error"].is_string(),
                "{why}: the catalog error body: {body}"
            );
        }
    }
}

#[tokio::test]
async fn sessionless_initialize_ping_and_versions() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    let ping = post(url, &key, &[], &rpc(7, "ping", json!({}))).await;
    assert_eq!(ping.status(), 200);
    assert_eq!(
        ping.json::<Value>(),
        json!({"jsonrpc": "2.0", "id": 7, "result": {}})
    );
    for (asked, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2025-11-25", "2025-06-18"),
        ("2026-07-28", "2025-06-18"),
        ("1900-01-01", "2025-06-18"),
    ] {
        let params = json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        let a = post(url, &key, &[], &rpc(1, "initialize", params)).await;
        assert_eq!(a.status(), 200, "initialize {asked}");
        let result = &a.json::<Value>()["result"];
        assert_eq!(result["protocolVersion"], answered, "initialize {asked}");
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(
            result["serverInfo"],
            json!({"name": "herald-relay", "title": "Herald cloud relay", "version": env!("CARGO_PKG_VERSION")})
        );
        let instructions = result["instructions"].as_str().expect("instructions");
        for needle in [
            "send_notification",
            "get_receipt",
            "wait_for_reply",
            "herald_status",
            "device flow",
            "Reply event",
        ] {
            assert!(
                instructions.contains(needle),
                "instructions mention {needle}"
            );
        }
        assert!(a.headers().get("mcp-session-id").is_none(), "no session id");
    }
    // A session-less request that repeats its negotiated version, or one we do not speak.
    let v = |s: &str| vec![("MCP-Protocol-Version", s.to_owned())];
    let listed = post(
        url,
        &key,
        &v("2025-06-18"),
        &rpc(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(listed.status(), 200);
    assert_eq!(
        listed.json::<Value>()["result"]["tools"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
    for version in ["2025-11-25", "1900-01-01"] {
        let a = post(url, &key, &v(version), &rpc(3, "tools/list", json!({}))).await;
        assert_eq!(a.status(), 400, "{version}");
        let error = &a.json::<Value>()["error"];
        assert_eq!(error["code"], -32022);
        assert_eq!(error["message"], "Unsupported protocol version");
        assert_eq!(error["data"]["requested"], version);
    }
}

#[tokio::test]
async fn tools_list_for_both_kinds() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    let plain = post(url, &key, &[], &rpc(2, "tools/list", json!({})))
        .await
        .json::<Value>();
    let tools = plain["result"]["tools"].as_array().expect("tools").clone();
    let summary: Vec<(String, String, Value)> = tools
        .iter()
        .map(|t| {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            assert_eq!(t["inputSchema"]["additionalProperties"], false, "{t}");
            (
                t["name"].as_str().expect("name").to_owned(),
                t["title"].as_str().expect("title").to_owned(),
                t["annotations"]["readOnlyHint"].clone(),
            )
        })
        .collect();
    let expected = [
        (
            "send_notification",
            "Send a notification to the user's Mac",
            false,
        ),
        ("get_receipt", "Get delivery receipts", true),
        ("wait_for_reply", "Wait for the user's reply", true),
        ("herald_status", "Is the user's Mac reachable", true),
    ];
    for (got, want) in summary.iter().zip(expected) {
        assert_eq!(
            (got.0.as_str(), got.1.as_str(), &got.2),
            (want.0, want.1, &json!(want.2))
        );
    }
    assert_eq!(tools[0]["annotations"]["idempotentHint"], true);
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["title"]));
    assert_eq!(
        tools[1]["inputSchema"]["required"],
        json!(["notificationId"])
    );
    assert!(
        plain["result"].get("resultType").is_none(),
        "session-less replies are plain"
    );

    let a = post(
        url,
        &key,
        &stateless("tools/list", None),
        &stateless_body(3, "tools/list", json!({})),
    )
    .await;
    assert_eq!(a.status(), 200, "{}", a.text());
    let result = a.json::<Value>()["result"].clone();
    assert_eq!(result["tools"], json!(tools), "the same list");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "herald-relay", "title": "Herald cloud relay", "version": env!("CARGO_PKG_VERSION")})
    );
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(0), json!("private")),
        "the 2026-07-28 cache hints"
    );
    assert_eq!(
        result.as_object().map(|o| o.len()),
        Some(5),
        "nothing else: {result}"
    );
}

#[tokio::test]
async fn notifications_responses_get_arrays_and_garbage() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    // (why, HTTP method, body, status, JSON-RPC error code when any)
    let cases: Vec<(&str, Method, String, u16, Option<i64>)> = vec![
        (
            "a notification",
            Method::POST,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            202,
            None,
        ),
        (
            "a stray notification",
            Method::POST,
            json!({"jsonrpc": "2.0", "method": "whatever"}).to_string(),
            202,
            None,
        ),
        (
            "a client response",
            Method::POST,
            json!({"jsonrpc": "2.0", "id": 5, "result": {}}).to_string(),
            202,
            None,
        ),
        (
            "a client error response",
            Method::POST,
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "x"}}).to_string(),
            202,
            None,
        ),
        (
            "an array",
            Method::POST,
            format!("[{}]", rpc(1, "ping", json!({}))),
            400,
            Some(-32600),
        ),
        (
            "an empty array",
            Method::POST,
            "[]".to_owned(),
            400,
            Some(-32600),
        ),
        (
            "broken JSON",
            Method::POST,
            "{\"jsonrpc\":".to_owned(),
            400,
            Some(-32700),
        ),
        (
            "not JSON-RPC 2.0",
            Method::POST,
            json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}).to_string(),
            400,
            Some(-32600),
        ),
        ("GET", Method::GET, String::new(), 405, Some(-32000)),
        ("DELETE", Method::DELETE, String::new(), 405, Some(-32000)),
    ];
    for (why, method, body, status, code) in cases {
        let a = send(url, method, Some(&key), &[], &body).await;
        assert_eq!(a.status(), status, "{why}: {}", a.text());
        match code {
            None => assert!(a.text().is_empty(), "{why}: no body"),
            Some(code) => assert_eq!(a.json::<Value>()["error"]["code"], code, "{why}"),
        }
        if status == 405 {
            assert_eq!(
                a.headers().get("allow").map(|v| v.as_bytes()),
                Some(&b"POST"[..]),
                "{why}"
            );
        }
    }
}

#[tokio::test]
async fn stateless_requests_are_checked_against_their_headers() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    let call = stateless_body(
        4,
        "tools/call",
        json!({"name": "herald_status", "arguments": {}}),
    );
    let mut old = call.clone();
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let old_headers = vec![
        ("MCP-Protocol-Version", "1900-01-01".to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", "herald_status".to_owned()),
    ];
    let mut no_caps = call.clone();
    no_caps["params"]["_meta"]
        .as_object_mut()
        .expect("meta")
        .remove("io.modelcontextprotocol/clientCapabilities");
    let full = stateless("tools/call", Some("herald_status"));
    // (why, headers, body, HTTP status, JSON-RPC error code or None for a result)
    let cases: Vec<ProtocolCase> = vec![
        ("all headers agree", full.clone(), call.clone(), 200, None),
        (
            "Mcp-Method contradicts the body",
            stateless("tools/list", Some("herald_status")),
            call.clone(),
            400,
            Some(-32020),
        ),
        (
            "Mcp-Name contradicts the body",
            stateless("tools/call", Some("get_receipt")),
            call.clone(),
            400,
            Some(-32020),
        ),
        (
            "Mcp-Name missing",
            stateless("tools/call", None),
            call.clone(),
            400,
            Some(-32020),
        ),
        (
            "Mcp-Method missing",
            vec![full[0].clone(), full[2].clone()],
            call.clone(),
            400,
            Some(-32020),
        ),
        (
            "MCP-Protocol-Version missing",
            full[1..].to_vec(),
            call.clone(),
            400,
            Some(-32020),
        ),
        (
            "MCP-Protocol-Version contradicts _meta",
            {
                let mut h = full.clone();
                h[0].1 = "2025-06-18".to_owned();
                h
            },
            call.clone(),
            400,
            Some(-32020),
        ),
        (
            "an unsupported version",
            old_headers,
            old,
            400,
            Some(-32022),
        ),
        (
            "no clientCapabilities",
            full.clone(),
            no_caps,
            400,
            Some(-32602),
        ),
        (
            "a session-less header that contradicts the body",
            vec![("Mcp-Method", "ping".to_owned())],
            rpc(1, "tools/list", json!({})),
            400,
            Some(-32020),
        ),
    ];
    for (why, headers, body, status, code) in cases {
        let a = post(url, &key, &headers, &body).await;
        assert_eq!(a.status(), status, "{why}: {}", a.text());
        let v = a.json::<Value>();
        match code {
            None => assert_eq!(v["result"]["resultType"], "complete", "{why}: {v}"),
            Some(code) => assert_eq!(v["error"]["code"], code, "{why}: {v}"),
        }
        if code == Some(-32022) {
            assert_eq!(
                v["error"],
                json!({
                    "code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {
                        "supported": ["2026-07-28", "2025-06-18", "2025-03-26", "2024-11-05"],
                        "requested": "1900-01-01"
                    }
                }),
                "{why}"
            );
        }
    }
}

#[tokio::test]
async fn each_kind_has_its_own_methods() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    let init_params = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    // (why, headers, body, HTTP status, JSON-RPC error code or None)
    let cases: Vec<ProtocolCase> = vec![
        (
            "stateless initialize",
            stateless("initialize", None),
            stateless_body(1, "initialize", init_params.clone()),
            404,
            Some(-32601),
        ),
        (
            "stateless ping",
            stateless("ping", None),
            stateless_body(2, "ping", json!({})),
            404,
            Some(-32601),
        ),
        (
            "stateless unknown method",
            stateless("resources/list", None),
            stateless_body(3, "resources/list", json!({})),
            404,
            Some(-32601),
        ),
        (
            "stateless discover",
            stateless("server/discover", None),
            stateless_body(4, "server/discover", json!({})),
            200,
            None,
        ),
        (
            "session-less discover",
            vec![],
            rpc(5, "server/discover", json!({})),
            200,
            Some(-32601),
        ),
        (
            "session-less unknown method",
            vec![],
            rpc(6, "prompts/list", json!({})),
            200,
            Some(-32601),
        ),
        (
            "session-less initialize",
            vec![],
            rpc(7, "initialize", init_params),
            200,
            None,
        ),
    ];
    for (why, headers, body, status, code) in cases {
        let a = post(url, &key, &headers, &body).await;
        assert_eq!(a.status(), status, "{why}: {}", a.text());
        let v = a.json::<Value>();
        assert_eq!(v["id"], body["id"], "{why}: the id is echoed");
        match code {
            None => assert!(v["result"].is_object(), "{why}: {v}"),
            Some(code) => assert_eq!(v["error"]["code"], code, "{why}: {v}"),
        }
    }
    let discover = post(
        url,
        &key,
        &stateless("server/discover", None),
        &stateless_body(8, "server/discover", json!({})),
    )
    .await
    .json::<Value>();
    let result = &discover["result"];
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-06-18", "2025-03-26", "2024-11-05"])
    );
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": false})
    );
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "herald-relay"
    );
}

/// Calls a tool as a session-less client and returns (HTTP status, result or error).
async fn tool(url: &str, key: &str, name: &str, arguments: Value) -> (u16, Value) {
    let a = post(
        url,
        key,
        &[],
        &rpc(
            9,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        ),
    )
    .await;
    let v = a.json::<Value>();
    (
        a.status(),
        if v.get("result").is_some() {
            v["result"].clone()
        } else {
            v["error"].clone()
        },
    )
}

/// The route's own answer, for comparison.
async fn route(
    url: &str,
    key: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let reply = Api::new(url)
        .bearer(key)
        .send(method, path, body.as_ref())
        .await;
    (reply.status(), reply.json::<Value>())
}

/// The text content parses to the structured content, and isError is as expected.
fn check_envelope(result: &Value, is_error: bool) -> Value {
    let text = result["content"][0]["text"].as_str().expect("text content");
    assert_eq!(result["content"][0]["type"], "text");
    let parsed: Value = serde_json::from_str(text).expect("the text is the endpoint's JSON");
    assert_eq!(
        parsed, result["structuredContent"],
        "text and structuredContent agree"
    );
    assert_eq!(
        result.get("isError").cloned().unwrap_or(json!(false)),
        json!(is_error),
        "{result}"
    );
    parsed
}

#[tokio::test]
async fn tool_calls_go_through_the_agent_routes() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;

    let (status, result) = tool(url, &key, "herald_status", json!({})).await;
    assert_eq!(status, 200);
    let via_mcp = check_envelope(&result, false);
    let (_, direct) = route(url, &key, Method::GET, "/v1/status", None).await;
    assert_eq!(via_mcp, direct, "herald_status is GET /v1/status");

    let (_, result) = tool(url, &key, "send_notification", json!({"title": "Build finished", "body": "All tests passed.", "expectReply": true, "notificationId": "build-214"})).await;
    let receipt = check_envelope(&result, false);
    assert_eq!(
        (
            receipt["notificationId"].clone(),
            receipt["duplicate"].clone(),
            receipt["expectReply"].clone()
        ),
        (json!("build-214"), json!(false), json!(true))
    );
    let (_, again) = tool(
        url,
        &key,
        "send_notification",
        json!({"title": "Build finished", "notificationId": "build-214"}),
    )
    .await;
    assert_eq!(
        check_envelope(&again, false)["duplicate"],
        true,
        "a repeated id is not queued again"
    );

    let (_, result) = tool(
        url,
        &key,
        "get_receipt",
        json!({"notificationId": "build-214"}),
    )
    .await;
    let via_mcp = check_envelope(&result, false);
    let (_, direct) = route(url, &key, Method::GET, "/v1/receipts/build-214", None).await;
    assert_eq!(via_mcp, direct, "get_receipt is GET /v1/receipts/{{id}}");

    let (_, result) = tool(
        url,
        &key,
        "wait_for_reply",
        json!({"notificationId": "build-214", "timeoutSeconds": 0}),
    )
    .await;
    let reply = check_envelope(&result, false);
    assert_eq!(
        (reply["replied"].clone(), reply["timedOut"].clone()),
        (json!(false), json!(true))
    );

    // Refusals by the route: isError with the route's own error body.
    let (status, result) = tool(
        url,
        &key,
        "send_notification",
        json!({"title": "x", "command": "rm -rf /"}),
    )
    .await;
    assert_eq!(status, 200, "a refused call is still a result");
    let refusal = check_envelope(&result, true);
    assert_eq!(refusal["error"], "forbidden_fields");
    assert_eq!(refusal["fields"], json!(["command"]));
    let (_, direct) = route(
        url,
        &key,
        Method::POST,
        "/v1/notify",
        Some(json!({"title": "x", "command": "rm -rf /"})),
    )
    .await;
    assert_eq!(refusal, direct, "the endpoint's error body");
    let (_, result) = tool(
        url,
        &key,
        "get_receipt",
        json!({"notificationId": "never-sent"}),
    )
    .await;
    assert_eq!(check_envelope(&result, true)["error"], "not_found");
    let (_, result) = tool(url, &key, "send_notification", json!({})).await;
    check_envelope(&result, true);

    // Calls that cannot reach a route: JSON-RPC errors.
    for (name, arguments) in [
        ("rm_rf", json!({})),
        ("get_receipt", json!({})),
        ("wait_for_reply", json!({"timeoutSeconds": 5})),
        (
            "wait_for_reply",
            json!({"notificationId": "build-214", "timeoutSeconds": -1}),
        ),
        ("herald_status", json!({"verbose": true})),
    ] {
        let (status, error) = tool(url, &key, name, arguments.clone()).await;
        assert_eq!(
            (status, error["code"].clone()),
            (200, json!(-32602)),
            "{name} {arguments}"
        );
    }

    // A stateless tool call gets the stateless additions.
    let a = post(
        url,
        &key,
        &stateless("tools/call", Some("get_receipt")),
        &stateless_body(
            10,
            "tools/call",
            json!({"name": "get_receipt", "arguments": {"notificationId": "build-214"}}),
        ),
    )
    .await;
    let result = a.json::<Value>()["result"].clone();
    check_envelope(&result, false);
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["title"],
        "Herald cloud relay"
    );
}

#[tokio::test]
async fn browser_origins_other_than_the_relays_are_refused() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    let send_it = |id: &str| {
        rpc(
            1,
            "tools/call",
            json!({"name": "send_notification", "arguments": {"title": "from a page", "notificationId": id}}),
        )
    };
    // (why, Origin, body, status)
    let cases: Vec<(&str, Option<String>, Value, u16)> = vec![
        (
            "no Origin (not a browser)",
            None,
            rpc(1, "ping", json!({})),
            200,
        ),
        (
            "the relay's own origin",
            Some(url.clone()),
            rpc(1, "ping", json!({})),
            200,
        ),
        (
            "the relay's own origin calling a tool",
            Some(url.clone()),
            send_it("own-origin"),
            200,
        ),
        (
            "a foreign origin",
            Some("https://evil.example".to_owned()),
            rpc(1, "ping", json!({})),
            403,
        ),
        (
            "a null origin",
            Some("null".to_owned()),
            rpc(1, "ping", json!({})),
            403,
        ),
        (
            "a foreign origin calling a tool",
            Some("https://evil.example".to_owned()),
            send_it("foreign-origin"),
            403,
        ),
    ];
    for (why, origin, body, status) in cases {
        let headers: Vec<(&str, String)> = origin.into_iter().map(|o| ("Origin", o)).collect();
        let a = post(url, &key, &headers, &body).await;
        assert_eq!(a.status(), status, "{why}: {}", a.text());
        if status == 403 {
            assert!(
                a.headers().get("www-authenticate").is_none(),
                "{why}: a 403 has no challenge"
            );
            assert_eq!(a.json::<Value>()["error"], "forbidden", "{why}");
        }
    }
    let (status, _) = route(url, &key, Method::GET, "/v1/receipts/foreign-origin", None).await;
    assert_eq!(
        status, 404,
        "the foreign page's notification was never queued"
    );
    let (status, _) = route(url, &key, Method::GET, "/v1/receipts/own-origin", None).await;
    assert_eq!(status, 200, "the relay's own page may send");
}

#[tokio::test]
async fn a_tool_call_costs_one_request_and_every_other_method_one_status_check() {
    let relay = AgentRelay::start(AgentLimits {
        requests_per_day: 4,
        ..AgentLimits::default()
    })
    .await;
    let url = &relay.url;
    let account = real::create_account(url).await;
    let key = agent_common::agent_key(url, &account.device_token, "budget")
        .await
        .key;
    // Four units: ping, tools/list, an unknown tool (fails before the mailbox), a tool call.
    let spent = [
        rpc(1, "ping", json!({})),
        rpc(2, "tools/list", json!({})),
        rpc(
            3,
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {}}),
        ),
        rpc(
            4,
            "tools/call",
            json!({"name": "herald_status", "arguments": {}}),
        ),
    ];
    for body in &spent {
        let a = post(url, &key, &[], body).await;
        assert_eq!(a.status(), 200, "{body}: {}", a.text());
    }
    let (status, body) = route(url, &key, Method::GET, "/v1/status", None).await;
    assert_eq!(
        (status, body["error"].clone()),
        (429, json!("budget_exceeded")),
        "the four calls spent the day: {body}"
    );
    // Over budget: only a 401 or 403 from the status check stops a request, so ping answers...
    let a = post(url, &key, &[], &rpc(5, "ping", json!({}))).await;
    assert_eq!(a.status(), 200, "{}", a.text());
    // ...and a tool call is refused by its route, as a tool error with the route's body.
    let (status, result) = tool(url, &key, "herald_status", json!({})).await;
    assert_eq!(status, 200);
    let refusal = check_envelope(&result, true);
    assert_eq!(refusal["error"], "budget_exceeded", "{refusal}");
    assert!(refusal["resetsAt"].is_string(), "{refusal}");
    relay.shutdown().await;
}

#[tokio::test]
async fn a_connector_token_from_the_device_flow_works_and_a_revoked_key_gets_401() {
    let (relay, account, key) = setup().await;
    let url = &relay.url;
    let connector = agent_common::connector_token(url, &account.device_token).await;
    assert!(connector.starts_with("hra_"));
    let (status, result) = tool(url, &connector, "herald_status", json!({})).await;
    assert_eq!(status, 200);
    check_envelope(&result, false);

    let device = Api::new(url).bearer(&account.device_token);
    let listed: Value = device
        .get("/agent-keys")
        .await
        .ok(200, "the device lists its agent keys");
    let id = listed["agentKeys"][0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let revoked = device.delete(&format!("/agent-keys/{id}")).await;
    assert!(
        (200..300).contains(&revoked.status()),
        "revoked: {}",
        revoked.status()
    );
    for body in [
        rpc(1, "ping", json!({})),
        rpc(2, "tools/call", json!({"name": "herald_status"})),
    ] {
        let a = post(url, &key, &[], &body).await;
        assert_eq!(a.status(), 401, "a revoked key: {}", a.text());
        let challenge = a
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(
            challenge.ends_with("error=\"invalid_token\""),
            "{challenge}"
        );
    }
}

/// Key order is kept: the envelope reads jsonrpc, id, result|error; a tool's text is the
/// route's JSON byte for byte; /mcp's own 401 body is the route's `{error, message, fields}`.
#[tokio::test]
async fn json_key_order_is_the_routes_and_the_envelopes() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    let call = rpc(
        9,
        "tools/call",
        json!({"name": "herald_status", "arguments": {}}),
    );
    let a = post(url, &key, &[], &call).await;
    assert!(
        a.text().starts_with(r#"{"jsonrpc":"2.0","id":9,"result":"#),
        "{}",
        a.text()
    );
    let direct = Api::new(url).bearer(&key).get("/v1/status").await.text();
    assert!(direct.starts_with(r#"{"online":"#), "{direct}");
    assert_eq!(
        a.json::<Value>()["result"]["content"][0]["text"],
        json!(direct)
    );

    let bad = rpc(10, "tools/call", json!({"name": "nope", "arguments": {}}));
    let a = post(url, &key, &[], &bad).await;
    assert!(
        a.text()
            .starts_with(r#"{"jsonrpc":"2.0","id":10,"error":{"code":"#),
        "{}",
        a.text()
    );

    let a = post(url, "hrk_not_a_real_key", &[], &call).await;
    assert_eq!(a.status(), 401);
    assert!(a.text().starts_with(r#"{"error":"#), "{}", a.text());
    let message = a.text().find(r#""message":"#).expect("message");
    let fields = a.text().find(r#""fields":"#).expect("fields");
    assert!(message < fields, "{}", a.text());
}

/// `WWW-Authenticate` of /mcp's 401 from the Host header or the public URL.
async fn challenge(url: &str, host: Option<&str>) -> String {
    let call = rpc(1, "ping", json!({}));
    let mut headers = vec![];
    if let Some(h) = host {
        headers.push(("Host", h.to_owned()));
    }
    let a = post(url, "hrk_not_a_real_key", &headers, &call).await;
    assert_eq!(a.status(), 401);
    a.headers()["www-authenticate"]
        .to_str()
        .expect("ASCII")
        .to_owned()
}

/// The metadata's `resource` for a request with this Host header.
async fn metadata_resource(url: &str, host: Option<&str>) -> String {
    let mut req = Api::new(url).request(Method::GET, "/.well-known/oauth-protected-resource");
    if let Some(h) = host {
        req = req.header("Host", h);
    }
    let v: Value = Reply::read(req.send().await)
        .await
        .ok(200, "the resource metadata is public");
    v["resource"].as_str().expect("resource").to_owned()
}

/// An invalid Host never reaches `WWW-Authenticate`; the 401 and the metadata name the same
/// base (the documented `http://localhost` fallback, or the normalized public URL with its
/// path prefix).
#[tokio::test]
async fn the_challenge_and_the_metadata_share_one_base() {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let url = &relay.url;
    let bad = r#"a", error="x"#;
    let header = challenge(url, Some(bad)).await;
    assert_eq!(
        header,
        r#"Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource", error="invalid_token""#
    );
    assert_eq!(
        metadata_resource(url, Some(bad)).await,
        "http://localhost/mcp"
    );
    let good = "Relay.Example:8080";
    assert!(challenge(url, Some(good)).await.starts_with(
        r#"Bearer resource_metadata="http://relay.example:8080/.well-known/oauth-protected-resource""#
    ));
    assert_eq!(
        metadata_resource(url, Some(good)).await,
        "http://relay.example:8080/mcp"
    );
    relay.shutdown().await;

    let public = "https://Relay.Example:443/herald/".to_owned();
    let relay = AgentRelay::start_with(AgentLimits::default(), Some(public)).await;
    assert!(challenge(&relay.url, None).await.starts_with(
        r#"Bearer resource_metadata="https://relay.example/herald/.well-known/oauth-protected-resource""#
    ));
    assert_eq!(
        metadata_resource(&relay.url, None).await,
        "https://relay.example/herald/mcp"
    );
    relay.shutdown().await;
}

/// No token sent (an empty `Bearer`, another scheme) gets no `error="invalid_token"`.
#[tokio::test]
async fn invalid_token_only_when_a_token_was_sent() {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let body = rpc(1, "ping", json!({})).to_string();
    for (authorization, rejected) in [
        ("Bearer", false),
        ("Basic dXNlcjpwYXNz", false),
        ("Bearer hrk_unknown", true),
    ] {
        let headers = [("Authorization", authorization.to_owned())];
        let a = send(&relay.url, Method::POST, None, &headers, &body).await;
        assert_eq!(a.status(), 401, "{authorization}");
        let challenge = a.headers()["www-authenticate"].to_str().expect("ASCII");
        assert_eq!(
            challenge.contains(r#"error="invalid_token""#),
            rejected,
            "{authorization}: {challenge}"
        );
    }
    relay.shutdown().await;
}
