//! JSON-RPC 2.0 framing for `POST /mcp`: classifying one incoming message and building the one
//! reply. The relay takes exactly one message per POST; an array (a batch) is refused with
//! [`INVALID_REQUEST`].

use serde_json::{json, Map, Value};

/// Invalid JSON was received (JSON-RPC 2.0).
pub const PARSE_ERROR: i64 = -32700;
/// The message is not a valid request object, or is an array (JSON-RPC 2.0).
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist for this kind of client (JSON-RPC 2.0).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method's params are invalid (JSON-RPC 2.0).
pub const INVALID_PARAMS: i64 = -32602;
/// An internal error of the relay (JSON-RPC 2.0).
pub const INTERNAL_ERROR: i64 = -32603;
/// Implementation-defined server error; used for the 405 answer to a non-POST request.
pub const SERVER_ERROR: i64 = -32000;
/// The HTTP routing headers contradict the body, or are missing (MCP 2026-07-28).
pub const HEADER_MISMATCH: i64 = -32020;
/// The requested protocol version is not supported (MCP 2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A JSON-RPC request id: a string or a number (`null` is not accepted as an id).
pub type RequestId = Value;

/// A JSON-RPC error object: `code`, `message` and optional `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    fn to_value(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), json!(self.code));
        error.insert("message".into(), json!(self.message));
        if let Some(data) = &self.data {
            error.insert("data".into(), data.clone());
        }
        Value::Object(error)
    }
}

/// One incoming JSON-RPC message, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: it has an `id` and a `method`; the reply carries the same id.
    Request {
        id: RequestId,
        method: String,
        params: Option<Map<String, Value>>,
    },
    /// A notification (a `method` without an `id`): answered 202 with no body.
    Notification { method: String },
    /// A response from the client (no `method`): ignored, answered 202.
    Response,
    /// Not one acceptable JSON-RPC message. `id` is the message's id when it could be read.
    Invalid { id: RequestId, error: RpcError },
}

/// Classifies a POST body. Never panics; every defect becomes [`Incoming::Invalid`].
pub fn classify(body: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(PARSE_ERROR, "Parse error: the body is not valid JSON."),
            }
        }
    };
    let object = match value {
        Value::Object(o) => o,
        Value::Array(_) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(
                    INVALID_REQUEST,
                    "Invalid Request: send one JSON-RPC message per POST; arrays are refused.",
                ),
            }
        }
        _ => return invalid(Value::Null, "the message must be a JSON object."),
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        Some(_) => return invalid(Value::Null, "id must be a string or a number."),
    };
    let id_or_null = id.clone().unwrap_or(Value::Null);
    // A key given twice would count as its last value only: refuse it, naming the key
    // (herald-protocol's strict reader, as for every other body).
    if let Err(e) = herald_protocol::json::check(body) {
        let (code, kind) = if e.path.starts_with("params") {
            (INVALID_PARAMS, "Invalid params")
        } else {
            (INVALID_REQUEST, "Invalid Request")
        };
        return Incoming::Invalid {
            id: id_or_null,
            error: RpcError::new(code, format!("{kind}: {e}")),
        };
    }
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid(id_or_null, "jsonrpc must be \"2.0\".");
    }
    let method = match object.get("method") {
        // A message without a method is a response (or an error) from the client.
        None => return Incoming::Response,
        Some(Value::String(m)) => m.clone(),
        Some(_) => return invalid(id_or_null, "method must be a string."),
    };
    let params = match object.get("params") {
        None | Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(p.clone()),
        Some(_) => return invalid(id_or_null, "params must be an object."),
    };
    match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method },
    }
}

fn invalid(id: RequestId, why: &str) -> Incoming {
    Incoming::Invalid {
        id,
        error: RpcError::new(INVALID_REQUEST, format!("Invalid Request: {why}")),
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
pub fn result(id: &RequestId, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// `{"jsonrpc":"2.0","id":…,"error":{code,message,data?}}`.
pub fn error(id: &RequestId, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_value() })
}

/// The text of one reply with the envelope's keys in JSON-RPC order: `jsonrpc`, `id`, then
/// `result` or `error` (whose own keys read `code`, `message`, `data`), then anything else.
/// Values inside `result` are written as they are (a tool's text is the route's JSON string).
pub fn encode(body: &Value) -> String {
    let Some(object) = body.as_object() else {
        return body.to_string();
    };
    ordered(
        object,
        &["jsonrpc", "id", "result", "error"],
        |key, v| match (key, v.as_object()) {
            ("error", Some(e)) => ordered(e, &["code", "message", "data"], |_, v| v.to_string()),
            _ => v.to_string(),
        },
    )
}

/// Writes `object` with `first` keys in that order, then the rest; `value` renders each value.
fn ordered(
    object: &Map<String, Value>,
    first: &[&str],
    value: impl Fn(&str, &Value) -> String,
) -> String {
    let known = first.iter().filter_map(|k| object.get_key_value(*k));
    let rest = object.iter().filter(|(k, _)| !first.contains(&k.as_str()));
    let parts: Vec<String> = known
        .chain(rest)
        .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), value(k, v)))
        .collect();
    format!("{{{}}}", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_every_kind_of_message() {
        let cases: &[(&str, &str)] = &[
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, "request"),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}"#,
                "request",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "notification",
            ),
            (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "response"),
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, "-32600"),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping""#, "-32700"),
            (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, "-32600"),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, "-32600"),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, "-32600"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
                "-32600",
            ),
            (r#""ping""#, "-32600"),
            // A key given twice: refused, under params as invalid params.
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}"#,
                "-32600",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":1,"a":2}}}"#,
                "-32602",
            ),
        ];
        for (body, want) in cases {
            let got = match classify(body.as_bytes()) {
                Incoming::Request { .. } => "request".to_owned(),
                Incoming::Notification { .. } => "notification".to_owned(),
                Incoming::Response => "response".to_owned(),
                Incoming::Invalid { error, .. } => error.code.to_string(),
            };
            assert_eq!(&got, want, "body {body}");
        }
    }

    #[test]
    fn a_duplicate_key_is_named_with_the_message_id() {
        let body =
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","name":"b"}}"#;
        let Incoming::Invalid { id, error } = classify(body) else {
            panic!("refused");
        };
        assert_eq!(id, json!("x"));
        assert!(error.message.contains("params.name"), "{}", error.message);
    }

    #[test]
    fn envelopes_keep_jsonrpc_order() {
        let ok = encode(&result(&json!(1), json!({"b": 1, "a": "x"})));
        assert_eq!(ok, r#"{"jsonrpc":"2.0","id":1,"result":{"a":"x","b":1}}"#);
        let err = error(
            &Value::Null,
            &RpcError::new(PARSE_ERROR, "p").with_data(json!({"z": 0})),
        );
        assert_eq!(
            encode(&err),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p","data":{"z":0}}}"#
        );
    }

    #[test]
    fn error_objects_carry_data_only_when_given() {
        let plain = error(&json!(1), &RpcError::new(METHOD_NOT_FOUND, "nope"));
        assert_eq!(plain["error"], json!({"code": -32601, "message": "nope"}));
        let with = error(
            &json!(1),
            &RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "x").with_data(json!({"a": 1})),
        );
        assert_eq!(with["error"]["data"], json!({"a": 1}));
    }
}
