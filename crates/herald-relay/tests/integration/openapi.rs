//! `GET /openapi.json` (docs/openapi.md): the document lists exactly the routes the router
//! has, read from the relay's own source, and is a valid OpenAPI 3.1 document whose
//! references resolve. Plus the relay defects schemathesis-style probing of it turned up.
//!
//! The route list is extracted from every `.route("<path>", <method>(…).<method>(…))` call
//! under `src/`, so adding a route without documenting it (or documenting one that does not
//! exist) fails `document_lists_exactly_the_routes_of_the_router`.

use crate::route_source;

use std::collections::BTreeSet;

use herald_testkit::TestRelay;
use serde_json::Value;

/// HTTP methods an axum method router can name.
const METHODS: &[&str] = &[
    "get", "post", "put", "delete", "patch", "head", "options", "trace",
];

/// `(METHOD, /path/{}/…)`: path parameters renamed `{}`, since the router and the document
/// may name them differently (`{recovery_key_id}` / `{recoveryKeyId}`).
type Route = (String, String);

fn normalize(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_param = false;
    for c in path.chars() {
        match (c, in_param) {
            ('{', _) => {
                in_param = true;
                out.push_str("{}");
            }
            ('}', _) => in_param = false,
            (_, true) => {}
            (c, false) => out.push(c),
        }
    }
    out
}

/// Every route of the relay's router, read from its source by the reader the authorization
/// matrix uses too; a method router's fallback (`*`) is not an operation.
fn router_routes() -> BTreeSet<Route> {
    route_source::served()
        .into_iter()
        .filter(|(method, _)| method != "*")
        .map(|(method, path)| (method, normalize(&path)))
        .collect()
}

/// Every operation of the document.
fn document_routes(doc: &Value) -> BTreeSet<Route> {
    let mut routes = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            if METHODS.contains(&method.as_str()) {
                routes.insert((method.to_uppercase(), normalize(path)));
            }
        }
    }
    routes
}

async fn fetch_document(relay: &TestRelay) -> (String, Value) {
    let reply = relay.api().get("/openapi.json").await;
    reply.expect_status(200, "served without a credential");
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "served as JSON"
    );
    let text = reply.text();
    let json = serde_json::from_str(&text).expect("the document is JSON");
    (text, json)
}

#[tokio::test]
async fn document_lists_exactly_the_routes_of_the_router() {
    let relay = TestRelay::start().await;
    let (_, doc) = fetch_document(&relay).await;
    let routed = router_routes();
    assert!(
        routed.len() > 50,
        "the source scan found the router ({} routes)",
        routed.len()
    );
    let documented = document_routes(&doc);
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty(),
        "routes missing from the OpenAPI document (add a #[utoipa::path] in \
         crates/herald-relay/src/openapi/): {undocumented:?}"
    );
    assert!(
        unrouted.is_empty(),
        "the OpenAPI document names routes the router does not have: {unrouted:?}"
    );
}

#[test]
fn path_parameters_are_compared_by_position() {
    assert_eq!(
        normalize("/keys/backup/{recovery_key_id}"),
        "/keys/backup/{}"
    );
}

/// Every `$ref` in `value`, as JSON pointers into the document.
fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("$ref", Value::String(r)) => out.push(r.clone()),
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// The response object at `response`, following one `$ref`.
fn resolve<'a>(doc: &'a Value, response: &'a Value) -> &'a Value {
    match response["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .expect("a resolvable reference"),
        None => response,
    }
}

#[tokio::test]
async fn document_is_valid_openapi_3_1() {
    let relay = TestRelay::start().await;
    let (text, doc) = fetch_document(&relay).await;

    assert_eq!(doc["openapi"], "3.1.0", "OpenAPI 3.1");
    let spec = oas3::from_json(&text).expect("oas3 parses the document as OpenAPI 3.1");
    assert_eq!(
        spec.paths.as_ref().map(|p| p.len()),
        doc["paths"].as_object().map(|p| p.len()),
        "oas3 sees every path"
    );

    let mut all = Vec::new();
    refs(&doc, &mut all);
    for r in &all {
        let pointer = r
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{r} is a local reference"));
        assert!(doc.pointer(pointer).is_some(), "{r} resolves");
    }

    let schemes = doc["components"]["securitySchemes"]
        .as_object()
        .expect("security schemes");
    for kind in [
        "deviceSession",
        "connection",
        "pairingPoll",
        "agentKey",
        "connector",
    ] {
        assert_eq!(
            schemes[kind]["scheme"], "bearer",
            "{kind} is a bearer scheme"
        );
    }

    let mut operation_ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let template: BTreeSet<&str> = path
            .split('{')
            .skip(1)
            .filter_map(|p| p.split('}').next())
            .collect();
        for (method, op) in item.as_object().expect("a path item") {
            let at = format!("{} {path}", method.to_uppercase());
            assert!(
                operation_ids.insert(op["operationId"].as_str().expect("an operationId")),
                "{at}: operationId is unique"
            );
            let declared: BTreeSet<&str> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .map(|p| {
                    assert_eq!(p["required"], true, "{at}: path parameters are required");
                    p["name"].as_str().expect("a name")
                })
                .collect();
            assert_eq!(
                declared, template,
                "{at}: path parameters match the template"
            );
            for requirement in op["security"].as_array().into_iter().flatten() {
                for name in requirement.as_object().expect("a requirement").keys() {
                    assert!(schemes.contains_key(name), "{at}: scheme {name} exists");
                }
            }
            let responses = op["responses"].as_object().expect("responses");
            assert!(
                responses.keys().any(|s| s.starts_with('2') || s == "101"),
                "{at}: documents its success"
            );
            assert!(
                responses.contains_key("500"),
                "{at}: documents 500 internal"
            );
            if op.get("security").is_some() {
                assert!(responses.contains_key("401"), "{at}: documents 401");
            }
            for (status, response) in responses {
                if !status.starts_with('4') && !status.starts_with('5') {
                    continue;
                }
                let schema =
                    &resolve(&doc, response)["content"]["application/json"]["schema"]["$ref"];
                let schema = schema.as_str().unwrap_or_default();
                assert!(
                    [
                        "#/components/schemas/ErrorBody",
                        "#/components/schemas/OAuthError",
                        "#/components/schemas/JsonRpcResponse",
                    ]
                    .contains(&schema),
                    "{at} {status}: an error body ({schema:?})"
                );
            }
        }
    }
}

#[tokio::test]
async fn shared_error_headers_are_required() {
    let relay = TestRelay::start().await;
    let (_, doc) = fetch_document(&relay).await;
    assert_eq!(
        doc.pointer("/components/responses/Unauthorized/headers/WWW-Authenticate/required"),
        Some(&Value::Bool(true)),
        "every 401 carries WWW-Authenticate"
    );
    assert_eq!(
        doc.pointer("/components/responses/BudgetExceeded/headers/Retry-After/required"),
        Some(&Value::Bool(true)),
        "every budget 429 carries Retry-After"
    );
    assert_eq!(
        doc.pointer("/components/responses/RateLimited/headers/Retry-After/required"),
        Some(&Value::Bool(true)),
        "every rate_limited 429 carries Retry-After"
    );
}

/// Found probing the document's path parameters: an id that is not UTF-8 once
/// percent-decoded got axum's `400 text/plain`, not the catalog's body.
#[tokio::test]
async fn a_non_utf8_id_is_not_found_with_the_error_body() {
    let relay = TestRelay::start().await;
    let account = herald_testkit::fixtures::create_account(&relay.url).await;
    let device = relay.api().device(&account);
    for (method, path) in [
        (reqwest::Method::GET, "/messages/%FF"),
        (reqwest::Method::GET, "/messages/%C3%28/thread"),
        (reqwest::Method::DELETE, "/connections/%FF"),
        (reqwest::Method::GET, "/files/%FF"),
    ] {
        let body: herald_protocol::ErrorBody = device
            .send(method.clone(), path, None::<&()>)
            .await
            .ok(404, &format!("{method} {path}"));
        assert_eq!(body.error, "not_found", "{method} {path}");
    }
}

/// Found probing `after`: the notification feed cast a cursor past `i64::MAX` to a negative
/// number and served every notification again; the message feed saturated, and schemathesis's
/// negative_data_rejection check then found a cursor past the documented `int64` accepted.
/// The largest revision reads nothing; a cursor past it is refused on both feeds.
#[tokio::test]
async fn a_cursor_past_every_revision_reads_nothing() {
    let relay = TestRelay::start().await;
    let account = herald_testkit::fixtures::create_account(&relay.url).await;
    let device = relay.api().device(&account);
    let key: Value = device
        .post("/agent-keys", &serde_json::json!({"name": "probe"}))
        .await
        .ok(201, "the device creates an agent key");
    relay
        .api()
        .bearer(key["key"].as_str().expect("a key"))
        .post(
            "/v1/notify",
            &serde_json::json!({"title": "Build finished"}),
        )
        .await
        .expect_status(201, "a notification is stored");
    for feed in ["notifications", "messages"] {
        let page: Value = device
            .get(&format!("/{feed}?after={}", i64::MAX))
            .await
            .ok(200, &format!("/{feed}: the largest cursor is a valid one"));
        assert_eq!(
            page["records"].as_array().map(Vec::len),
            Some(0),
            "/{feed}: nothing lies past the largest cursor"
        );
        for past in [i64::MAX as u64 + 1, u64::MAX] {
            let body: herald_protocol::ErrorBody = device
                .get(&format!("/{feed}?after={past}"))
                .await
                .ok(400, &format!("/{feed}?after={past}"));
            assert_eq!(body.error, "invalid_request", "/{feed}?after={past}");
            assert_eq!(
                body.fields,
                vec!["after"],
                "/{feed}?after={past} names the field"
            );
        }
    }
}
