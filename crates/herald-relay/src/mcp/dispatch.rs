//! Decides what one POST /mcp message gets, without side effects: either a tool call to make
//! (which also authenticates the caller) or an answer to give once the caller has passed the
//! status check. The HTTP handler ([`super::http`]) runs the plan.

use axum::http::{HeaderMap, StatusCode};
use serde_json::{json, Map, Value};

use super::events::EventsMethod;
use super::info;
use super::jsonrpc::{self, Incoming, RequestId, RpcError, METHOD_NOT_FOUND};
use super::tools::{self, ToolRequest};
use super::version::{self, ClientKind};

/// What to do with one message.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Forward a tool call; its route's answer becomes the result.
    Tool {
        id: RequestId,
        kind: ClientKind,
        request: ToolRequest,
    },
    /// Answer locally (after the status check).
    Answer(Reply),
    /// An events method of a stateless client: answered after the status check, with the
    /// caller's credential as the subscriber (`super::events`).
    Events {
        id: RequestId,
        method: EventsMethod,
        params: Option<Map<String, Value>>,
    },
}

/// A local answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// 202 Accepted with no body (a notification or a client response).
    Accepted,
    /// One JSON-RPC response with its HTTP status.
    Json { status: StatusCode, body: Value },
}

/// Plans the answer to one POST body with its headers.
pub fn plan(headers: &HeaderMap, body: &[u8]) -> Plan {
    let (id, method, params) = match jsonrpc::classify(body) {
        Incoming::Request { id, method, params } => (id, method, params),
        Incoming::Notification { .. } | Incoming::Response => return Plan::Answer(Reply::Accepted),
        Incoming::Invalid { id, error } => return Plan::Answer(failure(None, &id, &error)),
    };
    let kind = match version::classify_client(headers, &method, params.as_ref()) {
        Ok(kind) => kind,
        Err(error) => return Plan::Answer(failure(None, &id, &error)),
    };
    let params = params.as_ref();
    // The Events extension is offered to stateless clients only; session-less ones get -32601.
    if let (ClientKind::Stateless, Some(events)) = (kind, EventsMethod::from_name(&method)) {
        return Plan::Events {
            id,
            method: events,
            params: params.cloned(),
        };
    }
    let result = match (kind, method.as_str()) {
        (ClientKind::SessionLess, "initialize") => Ok(info::initialize(
            version::negotiate_initialize(params.and_then(|p| p.get("protocolVersion"))),
        )),
        (ClientKind::SessionLess, "ping") => Ok(json!({})),
        (ClientKind::Stateless, "server/discover") => Ok(info::discover()),
        (ClientKind::SessionLess, "tools/list") => Ok(json!({ "tools": tools::list() })),
        // The 2026-07-28 schema requires the cache hints on a tools/list result.
        (ClientKind::Stateless, "tools/list") => Ok(json!({
            "tools": tools::list(),
            "ttlMs": info::CACHE_TTL_MS,
            "cacheScope": info::CACHE_SCOPE,
        })),
        (_, "tools/call") => match tools::request(params) {
            Ok(request) => return Plan::Tool { id, kind, request },
            Err(e) => Err(e),
        },
        _ => Err(RpcError::new(
            METHOD_NOT_FOUND,
            match kind {
                ClientKind::SessionLess => "Method not found for a session-less client.",
                ClientKind::Stateless => "Method not found for a 2026-07-28 client.",
            },
        )),
    };
    Plan::Answer(match result {
        Ok(value) => success(kind, &id, value),
        Err(error) => failure(Some(kind), &id, &error),
    })
}

/// A result reply; a stateless one adds `resultType: "complete"` and the server `_meta`.
pub fn success(kind: ClientKind, id: &RequestId, mut result: Value) -> Reply {
    if kind == ClientKind::Stateless {
        if let Some(object) = result.as_object_mut() {
            object.insert("resultType".into(), json!("complete"));
            object.insert("_meta".into(), info::stateless_meta());
        }
    }
    Reply::Json {
        status: StatusCode::OK,
        body: jsonrpc::result(id, result),
    }
}

/// An error reply with its HTTP status. Transport-level errors (parse, batch, headers,
/// version) are 400 for every client. A stateless client gets the 2026-07-28 statuses for the
/// rest (-32601 → 404, -32602 → 400); a session-less client gets them with 200.
pub fn failure(kind: Option<ClientKind>, id: &RequestId, error: &RpcError) -> Reply {
    let status = match (kind, error.code) {
        (_, jsonrpc::PARSE_ERROR | jsonrpc::INVALID_REQUEST) => StatusCode::BAD_REQUEST,
        (_, jsonrpc::HEADER_MISMATCH | jsonrpc::UNSUPPORTED_PROTOCOL_VERSION) => {
            StatusCode::BAD_REQUEST
        }
        (None, _) => StatusCode::BAD_REQUEST,
        (Some(ClientKind::Stateless), METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        (Some(ClientKind::Stateless), jsonrpc::INVALID_PARAMS) => StatusCode::BAD_REQUEST,
        (Some(ClientKind::Stateless), jsonrpc::INTERNAL_ERROR) => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::OK,
    };
    Reply::Json {
        status,
        body: jsonrpc::error(id, error),
    }
}

/// The result of a tool call from its route's answer: the route's JSON text exactly as sent
/// (`raw`, key order kept) as the text of one content block, the parsed `body` as
/// `structuredContent`, plus `isError: true` when the route refused the call.
pub fn tool_result(answer_ok: bool, body: &Value, raw: &str) -> Value {
    let mut result = Map::new();
    result.insert("content".into(), json!([{ "type": "text", "text": raw }]));
    result.insert("structuredContent".into(), body.clone());
    if !answer_ok {
        result.insert("isError".into(), json!(true));
    }
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(body: &str) -> (StatusCode, Value) {
        match plan(&HeaderMap::new(), body.as_bytes()) {
            Plan::Answer(Reply::Json { status, body }) => (status, body),
            other => panic!("expected a JSON answer, got {other:?}"),
        }
    }

    #[test]
    fn sessionless_methods() {
        let (status, body) = answer(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!(
            (status, body),
            (StatusCode::OK, json!({"jsonrpc":"2.0","id":1,"result":{}}))
        );
        let (_, body) = answer(
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        assert_eq!(body["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(
            body["result"]["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(body["result"]["serverInfo"]["name"], "herald-relay");
        let (status, body) = answer(r#"{"jsonrpc":"2.0","id":3,"method":"server/discover"}"#);
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (StatusCode::OK, json!(-32601))
        );
    }

    #[test]
    fn messages_without_id_or_method_are_accepted() {
        for body in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
        ] {
            assert_eq!(
                plan(&HeaderMap::new(), body.as_bytes()),
                Plan::Answer(Reply::Accepted)
            );
        }
    }

    #[test]
    fn tool_results_mirror_the_route() {
        let ok = tool_result(true, &json!({"online": true}), r#"{"online": true}"#);
        assert_eq!(ok["content"][0]["text"], r#"{"online": true}"#);
        assert_eq!(ok["structuredContent"], json!({"online": true}));
        assert!(ok.get("isError").is_none());
        assert_eq!(
            tool_result(false, &json!({"error": "x"}), r#"{"error":"x"}"#)["isError"],
            true
        );
    }
}
