//! The four MCP tools and the HTTP route each forwards to. A tool is a thin layer: its
//! arguments become the route's request and the route's answer becomes the tool result, so the
//! limits, validation and errors are the route's (docs/mcp.md, "Tools").
//!
//! | tool | route |
//! |---|---|
//! | `send_notification` | `POST /v1/notify` with the arguments as the body, untouched |
//! | `get_receipt` | `GET /v1/receipts/{notificationId}` |
//! | `wait_for_reply` | `GET /v1/replies/{notificationId}?wait=min(timeoutSeconds, 55)` |
//! | `herald_status` | `GET /v1/status` |

use axum::http::Method;
use herald_protocol::notify;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::{json, Map, Value};

use super::jsonrpc::{RpcError, INVALID_PARAMS};

/// The longest `wait_for_reply` waits, in seconds: five below the endpoint's limit of 60, so an
/// MCP client's own request timeout is not reached first.
pub const MAX_WAIT_SECONDS: u64 = notify::MAX_REPLY_WAIT_SECS - 5;
/// `wait_for_reply`'s wait when `timeoutSeconds` is not given, in seconds.
pub const DEFAULT_WAIT_SECONDS: u64 = 30;

/// Characters left as they are in a path segment (RFC 3986 unreserved).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The request one tool call makes to the relay's own routes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRequest {
    pub method: Method,
    /// Path and query, e.g. `/v1/replies/build-214?wait=30`.
    pub uri: String,
    /// A JSON body (only `send_notification` has one).
    pub body: Option<Value>,
}

/// The `tools/list` result's `tools` array: name, title, description, inputSchema (every
/// schema sets `additionalProperties: false`) and annotations.
pub fn list() -> Value {
    json!([
        {
            "name": "send_notification",
            "title": "Send a notification to the user's Mac",
            "description": "Queue a notification for the user's Mac: a banner, speech, or both. \
                Text and presentation fields only; buttons, commands, callbacks and scripts are \
                refused. Set expectReply to ask for an answer, then call wait_for_reply. \
                A repeated notificationId is not queued again. Returns the receipt.",
            "inputSchema": notify_schema(),
            "annotations": {
                "readOnlyHint": false,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            }
        },
        {
            "name": "get_receipt",
            "title": "Get delivery receipts",
            "description": "Read what happened to a notification you sent: received, displayed, \
                spoken, replied, or suppressed by quiet hours. Kept for 24 hours.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "notificationId": {"type": "string", "minLength": 1, "description": "The id send_notification returned."}
                },
                "required": ["notificationId"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "wait_for_reply",
            "title": "Wait for the user's reply",
            "description": "Wait for the answer to a notification sent with expectReply. Returns \
                the typed text, or a voice transcript with an audio link; when nothing came in \
                time it returns replied: false and timedOut: true, and you may call it again. \
                Waits at most 55 seconds per call.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "notificationId": {"type": "string", "minLength": 1, "description": "The id send_notification returned."},
                    "timeoutSeconds": {"type": "integer", "minimum": 0, "default": DEFAULT_WAIT_SECONDS, "description": "How long to wait; values above 55 wait 55."}
                },
                "required": ["notificationId"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "herald_status",
            "title": "Is the user's Mac reachable",
            "description": "Whether the user's Herald is online, when it was last seen, and \
                whether quiet hours are on. Nothing else about the device.",
            "inputSchema": {
                "type": "object",
                "properties": {},
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }
    ])
}

/// `send_notification`'s input schema: the `POST /v1/notify` whitelist
/// ([`notify::NOTIFY_FIELDS`]) with its limits; nothing else.
fn notify_schema() -> Value {
    let id_pattern = "^[A-Za-z0-9._:-]{1,128}$";
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": notify::MAX_TITLE_CHARS, "description": "The headline."},
            "subtitle": {"type": "string", "maxLength": notify::MAX_SUBTITLE_CHARS, "description": "A line under the title."},
            "body": {"type": "string", "maxLength": notify::MAX_BODY_CHARS, "description": "The text of the notification."},
            "notificationId": {"type": "string", "pattern": id_pattern, "description": "Your id for it (1-128 of A-Z a-z 0-9 . _ : -); a repeated id is not queued again. The relay makes one when absent."},
            "speak": {"type": "boolean", "default": false, "description": "Also read it aloud."},
            "expectReply": {"type": "boolean", "default": false, "description": "Offer a reply box; the answer comes through wait_for_reply."},
            "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal", "description": "How insistent it is."},
            "sound": {"type": "boolean", "default": true, "description": "Play the system sound with the banner."},
            "group": {"type": "string", "maxLength": notify::MAX_GROUP_CHARS, "description": "Groups related notifications."},
            "threadId": {"type": "string", "maxLength": notify::MAX_GROUP_CHARS, "description": "Threads related notifications."}
        },
        "required": ["title"],
        "additionalProperties": false
    })
}

/// Turns a `tools/call`'s params into the route request. Errors (JSON-RPC, -32602): no tool
/// name, an unknown tool, arguments that are not an object, a missing or empty
/// `notificationId`, an argument the tool does not take, a `timeoutSeconds` that is not a
/// non-negative integer. `send_notification`'s arguments are not checked here: the route
/// checks them and answers `forbidden_fields` for anything outside its whitelist.
pub fn request(params: Option<&Map<String, Value>>) -> Result<ToolRequest, RpcError> {
    let name = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("tools/call needs params.name, the tool's name.", None))?;
    let empty = Map::new();
    let args = match params.and_then(|p| p.get("arguments")) {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(a)) => a,
        Some(_) => return Err(invalid("arguments must be an object.", None)),
    };
    match name {
        "send_notification" => Ok(ToolRequest {
            method: Method::POST,
            uri: "/v1/notify".to_owned(),
            body: Some(Value::Object(args.clone())),
        }),
        "get_receipt" => {
            only(args, &["notificationId"])?;
            Ok(ToolRequest {
                method: Method::GET,
                uri: format!("/v1/receipts/{}", notification_id(args)?),
                body: None,
            })
        }
        "wait_for_reply" => {
            only(args, &["notificationId", "timeoutSeconds"])?;
            let id = notification_id(args)?;
            let wait = match args.get("timeoutSeconds") {
                None | Some(Value::Null) => DEFAULT_WAIT_SECONDS,
                Some(v) => seconds(v).ok_or_else(|| {
                    invalid(
                        "timeoutSeconds must be a non-negative integer.",
                        Some("timeoutSeconds"),
                    )
                })?,
            };
            Ok(ToolRequest {
                method: Method::GET,
                uri: format!("/v1/replies/{id}?wait={}", wait.min(MAX_WAIT_SECONDS)),
                body: None,
            })
        }
        "herald_status" => {
            only(args, &[])?;
            Ok(ToolRequest {
                method: Method::GET,
                uri: "/v1/status".to_owned(),
                body: None,
            })
        }
        _ => Err(invalid("Unknown tool.", None).with_data(json!({ "name": name }))),
    }
}

fn invalid(why: &str, field: Option<&str>) -> RpcError {
    let error = RpcError::new(INVALID_PARAMS, format!("Invalid params: {why}"));
    match field {
        Some(f) => error.with_data(json!({ "fields": [f] })),
        None => error,
    }
}

/// Refuses arguments outside `allowed`, naming them.
fn only(args: &Map<String, Value>, allowed: &[&str]) -> Result<(), RpcError> {
    let mut extra: Vec<&str> = args
        .keys()
        .map(String::as_str)
        .filter(|k| !allowed.contains(k))
        .collect();
    if extra.is_empty() {
        return Ok(());
    }
    extra.sort_unstable();
    Err(RpcError::new(
        INVALID_PARAMS,
        "Invalid params: this tool does not take these arguments.",
    )
    .with_data(json!({ "fields": extra })))
}

/// The percent-encoded `notificationId` path segment.
fn notification_id(args: &Map<String, Value>) -> Result<String, RpcError> {
    match args.get("notificationId").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => Ok(utf8_percent_encode(id, SEGMENT).to_string()),
        _ => Err(invalid(
            "notificationId is required: a non-empty string.",
            Some("notificationId"),
        )),
    }
}

/// A non-negative whole number of seconds (`30` or `30.0`).
fn seconds(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    (f >= 0.0 && f.fract() == 0.0 && f <= u64::MAX as f64).then_some(f as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(v: Value) -> Result<ToolRequest, i64> {
        request(v.as_object()).map_err(|e| e.code)
    }

    #[test]
    fn every_schema_is_closed_and_named() {
        let tools = list();
        let names: Vec<&str> = tools
            .as_array()
            .expect("array")
            .iter()
            .map(|t| {
                assert_eq!(t["inputSchema"]["type"], "object");
                assert_eq!(t["inputSchema"]["additionalProperties"], false);
                assert!(t["title"].is_string() && t["annotations"].is_object());
                t["name"].as_str().expect("name")
            })
            .collect();
        assert_eq!(
            names,
            [
                "send_notification",
                "get_receipt",
                "wait_for_reply",
                "herald_status"
            ]
        );
    }

    #[test]
    fn the_notify_schema_is_the_whitelist() {
        let schema = notify_schema();
        let mut names: Vec<&str> = schema["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .map(String::as_str)
            .collect();
        let mut whitelist = notify::NOTIFY_FIELDS.to_vec();
        names.sort_unstable();
        whitelist.sort_unstable();
        assert_eq!(names, whitelist);
        assert_eq!(MAX_WAIT_SECONDS, 55);
    }

    #[test]
    fn maps_calls_to_routes() {
        let ok = |v: Value| call(v).expect("a route");
        assert_eq!(ok(json!({"name": "herald_status"})).uri, "/v1/status");
        assert_eq!(
            ok(json!({"name": "get_receipt", "arguments": {"notificationId": "a b/c"}})).uri,
            "/v1/receipts/a%20b%2Fc"
        );
        assert_eq!(
            ok(json!({"name": "wait_for_reply", "arguments": {"notificationId": "x", "timeoutSeconds": 90}})).uri,
            "/v1/replies/x?wait=55"
        );
        assert_eq!(
            ok(json!({"name": "wait_for_reply", "arguments": {"notificationId": "x"}})).uri,
            "/v1/replies/x?wait=30"
        );
        let notify =
            ok(json!({"name": "send_notification", "arguments": {"title": "t", "command": "rm"}}));
        assert_eq!(
            (notify.method, notify.uri.as_str()),
            (Method::POST, "/v1/notify")
        );
        assert_eq!(notify.body, Some(json!({"title": "t", "command": "rm"})));
    }

    #[test]
    fn refuses_calls_that_cannot_reach_a_route() {
        for bad in [
            json!({}),
            json!({"name": "rm_rf"}),
            json!({"name": "get_receipt"}),
            json!({"name": "get_receipt", "arguments": {"notificationId": ""}}),
            json!({"name": "get_receipt", "arguments": {"notificationId": "x", "extra": 1}}),
            json!({"name": "wait_for_reply", "arguments": {"notificationId": "x", "timeoutSeconds": -1}}),
            json!({"name": "wait_for_reply", "arguments": {"notificationId": "x", "timeoutSeconds": "5"}}),
            json!({"name": "herald_status", "arguments": {"x": 1}}),
            json!({"name": "herald_status", "arguments": [1]}),
        ] {
            assert_eq!(call(bad.clone()), Err(INVALID_PARAMS), "{bad}");
        }
    }
}
