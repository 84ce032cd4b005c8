//! `jsonrpc`: the relay's `POST /mcp` framing and planning (docs/mcp.md), reached through
//! `herald_relay::mcp_fuzzing` (the pure parts: no relay state, no side effects).
//!
//! Input: the body alone, or header lines (`name: value`, `\n`-separated) then `NUL` then the
//! body. Unusable header names or values are skipped, as an HTTP server would refuse them.
//!
//! Properties:
//! - classifying and planning never panic;
//! - the classification agrees with JSON-RPC 2.0 read independently: invalid JSON is -32700,
//!   a request carries exactly the body's `jsonrpc`, `id`, `method` and `params`, and
//!   rebuilding the message from what was read classifies the same way;
//! - every planned reply is a JSON-RPC 2.0 response to the request's id with exactly one of
//!   `result` and `error`, a known error code, a 200/400/404 status, and its written text
//!   (key order fixed) parses back to the same value;
//! - a planned tool call is a `tools/call` whose route request builds, under `/v1/`, with the
//!   `notificationId` path segment decoding back to the argument.

use herald_relay::mcp_fuzzing::{classify, encode, plan, Incoming, Plan, Reply, ToolRequest};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request};
use serde_json::{json, Map, Value};

use crate::split_nul;

/// JSON-RPC and MCP error codes the relay may answer with.
const CODES: &[i64] = &[
    -32700, -32600, -32601, -32602, -32603, -32000, -32020, -32022, -32023, -32024, -32025, -32026,
    -32027,
];

/// The `jsonrpc` target.
pub fn jsonrpc(data: &[u8]) {
    let (headers, body) = match split_nul(data) {
        (head, Some(body)) => (headers(head), body),
        (body, None) => (HeaderMap::new(), body),
    };
    let incoming = classify(body);
    check_classified(body, &incoming);
    let planned = plan(&headers, body);
    check_plan(&incoming, &planned);
}

fn headers(text: &[u8]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for line in text.split(|b| *b == b'\n') {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let value = line[colon + 1..].trim_ascii();
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(line[..colon].trim_ascii()),
            HeaderValue::from_bytes(value),
        ) {
            map.append(name, value);
        }
    }
    map
}

fn check_classified(body: &[u8], incoming: &Incoming) {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        assert!(
            matches!(incoming, Incoming::Invalid { id: Value::Null, error } if error.code == -32700),
            "a body that is not JSON is a parse error, got {incoming:?}"
        );
        return;
    };
    let object = value.as_object();
    match incoming {
        Incoming::Request { id, method, params } => {
            let o = object.expect("a request is an object");
            assert_eq!(o.get("jsonrpc"), Some(&json!("2.0")));
            assert!(
                id.is_string() || id.is_number(),
                "an id is a string or number"
            );
            assert_eq!(o.get("id"), Some(id));
            assert_eq!(o.get("method"), Some(&json!(method)));
            let given = o.get("params").filter(|p| !p.is_null());
            assert_eq!(given, params.clone().map(Value::Object).as_ref());
            let mut again = json!({"jsonrpc": "2.0", "id": id, "method": method});
            if let Some(p) = params {
                again["params"] = Value::Object(p.clone());
            }
            let text = serde_json::to_vec(&again).expect("serializes");
            assert_eq!(
                &classify(&text),
                incoming,
                "a rebuilt request reads the same"
            );
        }
        Incoming::Notification { method } => {
            let o = object.expect("a notification is an object");
            assert!(!o.contains_key("id"), "a notification has no id");
            assert_eq!(o.get("method"), Some(&json!(method)));
        }
        Incoming::Response => {
            let o = object.expect("a response is an object");
            assert!(!o.contains_key("method"), "a response has no method");
            assert_eq!(o.get("jsonrpc"), Some(&json!("2.0")));
        }
        Incoming::Invalid { id, error } => {
            // -32602: a key repeated under `params` (the strict reader), else -32600.
            assert!(
                matches!(error.code, -32600 | -32602),
                "valid JSON is never a parse error: {}",
                error.code
            );
            assert!(id.is_null() || id.is_string() || id.is_number());
        }
    }
}

fn request_id(incoming: &Incoming) -> Option<&Value> {
    match incoming {
        Incoming::Request { id, .. } | Incoming::Invalid { id, .. } => Some(id),
        _ => None,
    }
}

fn check_plan(incoming: &Incoming, planned: &Plan) {
    match planned {
        Plan::Answer(Reply::Accepted) => assert!(
            matches!(incoming, Incoming::Notification { .. } | Incoming::Response),
            "only notifications and responses are accepted without a reply"
        ),
        Plan::Answer(Reply::Json { status, body }) => {
            let id = request_id(incoming).expect("a reply answers a request");
            check_reply(status.as_u16(), body, id);
        }
        Plan::Tool { id, request, .. } => {
            let Incoming::Request {
                id: asked,
                method,
                params,
            } = incoming
            else {
                panic!("a tool call comes from a request");
            };
            assert_eq!((id, method.as_str()), (asked, "tools/call"));
            check_tool(request, params.as_ref());
        }
        Plan::Events { id, method, .. } => {
            let Incoming::Request {
                id: asked,
                method: name,
                ..
            } = incoming
            else {
                panic!("an events call comes from a request");
            };
            assert_eq!(id, asked);
            assert!(name.starts_with("events/"), "{method:?} from {name:?}");
        }
    }
}

fn check_reply(status: u16, body: &Value, id: &Value) {
    assert!(matches!(status, 200 | 400 | 404), "planned status {status}");
    let o = body.as_object().expect("a reply is an object");
    assert_eq!(o.get("jsonrpc"), Some(&json!("2.0")));
    assert_eq!(o.get("id"), Some(id), "a reply carries the request's id");
    match (o.get("result"), o.get("error")) {
        (Some(result), None) => {
            assert_eq!(status, 200, "a result is 200");
            assert!(result.is_object(), "a result is an object");
        }
        (None, Some(error)) => {
            let code = error["code"].as_i64().expect("an error code");
            assert!(CODES.contains(&code), "unknown error code {code}");
            assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
        }
        _ => panic!("a reply has exactly one of result and error: {body}"),
    }
    let text = encode(body);
    assert!(text.starts_with(r#"{"jsonrpc":"2.0","id":"#), "{text}");
    let back: Value = serde_json::from_str(&text).expect("the written reply is JSON");
    assert_eq!(&back, body, "the written reply reads back the same");
}

fn check_tool(request: &ToolRequest, params: Option<&Map<String, Value>>) {
    let built = Request::builder()
        .method(request.method.clone())
        .uri(&request.uri)
        .body(());
    let built = built.unwrap_or_else(|e| panic!("tool request {:?}: {e}", request.uri));
    let path = built.uri().path();
    assert!(path.starts_with("/v1/"), "{path}");
    assert_eq!(request.body.is_some(), request.method == Method::POST);
    let args = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object);
    let Some(id) = args
        .and_then(|a| a.get("notificationId"))
        .and_then(Value::as_str)
    else {
        return;
    };
    if let Some(segment) = path
        .strip_prefix("/v1/receipts/")
        .or_else(|| path.strip_prefix("/v1/replies/"))
    {
        assert!(!segment.contains('/'), "one path segment: {segment}");
        let decoded = percent_encoding::percent_decode_str(segment).decode_utf8();
        assert_eq!(decoded.as_deref(), Ok(id), "the segment decodes to the id");
    }
}
