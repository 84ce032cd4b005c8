//! Protocol versions and the two kinds of client on one URL.
//!
//! A *session-less* client speaks a handshake-era version (2024-11-05 to 2025-06-18): it may
//! send `initialize` first, and may repeat the negotiated version in `MCP-Protocol-Version`.
//! A *stateless* client speaks 2026-07-28: every request carries `MCP-Protocol-Version`,
//! `Mcp-Method` (and `Mcp-Name` for `tools/call`) and `params._meta` with
//! `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities`.
//! The checks follow the order of the MCP 2026-07-28 request ladder: envelope present, headers
//! agree with the body (-32020, HTTP 400), version supported (-32022, HTTP 400).

use axum::http::HeaderMap;
use serde_json::{json, Map, Value};

use super::jsonrpc::{RpcError, HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION};

/// Every version the relay speaks, newest first (the `data.supported` of a -32022 error and
/// the `supportedVersions` of `server/discover`).
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2026-07-28", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The one stateless (per-request envelope) version.
pub const STATELESS_VERSION: &str = "2026-07-28";
/// What `initialize` answers when the client's version is not a session-less one the relay
/// speaks (including a client that asks for 2026-07-28 there).
pub const DEFAULT_SESSIONLESS_VERSION: &str = "2025-06-18";
/// Session-less versions the relay speaks.
const SESSIONLESS_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];
/// Handshake-era versions MCP defines; a header naming one of these marks a session-less client
/// even when the relay does not speak that version.
const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// `params._meta` key: the request's protocol version (2026-07-28).
pub const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// `params._meta` key: the client's capabilities for this request (2026-07-28).
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";
/// Result `_meta` key naming the server (2026-07-28).
pub const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// Which kind of client sent a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    /// Handshake era (2025-06-18 and before): `initialize` optional, tools only.
    SessionLess,
    /// 2026-07-28: every request states its own version and capabilities.
    Stateless,
}

/// The answer to `initialize`: the client's version when the relay speaks it as a session-less
/// version, else [`DEFAULT_SESSIONLESS_VERSION`].
pub fn negotiate_initialize(requested: Option<&Value>) -> &'static str {
    requested
        .and_then(Value::as_str)
        .and_then(|r| SESSIONLESS_VERSIONS.iter().find(|v| **v == r))
        .copied()
        .unwrap_or(DEFAULT_SESSIONLESS_VERSION)
}

/// The -32022 error for `requested`.
pub fn unsupported(requested: &Value) -> RpcError {
    let requested = match requested {
        Value::String(s) => Value::String(s.clone()),
        other => Value::String(other.to_string()),
    };
    RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": SUPPORTED_VERSIONS, "requested": requested }))
}

/// One routing header: absent, one readable value, or unusable (repeated or not visible ASCII).
enum Header {
    Absent,
    Value(String),
    Unusable,
}

fn header(headers: &HeaderMap, name: &str) -> Header {
    let mut values = headers.get_all(name).iter();
    match (values.next(), values.next()) {
        (None, _) => Header::Absent,
        (Some(v), None) => match v.to_str() {
            Ok(s) => Header::Value(s.trim().to_owned()),
            Err(_) => Header::Unusable,
        },
        (Some(_), Some(_)) => Header::Unusable,
    }
}

fn mismatch(what: &str) -> RpcError {
    RpcError::new(
        HEADER_MISMATCH,
        format!("Header mismatch: the {what} header does not match the request body."),
    )
}

/// Decodes an `Mcp-Name` value: verbatim, or the UTF-8 text inside `=?base64?…?=`.
fn decode_name(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        None => Some(value.to_owned()),
        Some(payload) => data_encoding::BASE64
            .decode(payload.as_bytes())
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
    }
}

/// Checks `Mcp-Method` and, for `tools/call`, `Mcp-Name` against the body. `required` makes
/// an absent header a mismatch (stateless requests).
fn check_method_headers(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Map<String, Value>>,
    required: bool,
) -> Result<(), RpcError> {
    match header(headers, METHOD_HEADER) {
        Header::Value(v) if v == method => {}
        Header::Absent if !required => {}
        _ => return Err(mismatch("Mcp-Method")),
    }
    if method == "tools/call" {
        let body_name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
        match (header(headers, NAME_HEADER), body_name) {
            (Header::Absent, None) => {}
            (Header::Absent, Some(_)) if !required => {}
            (Header::Value(v), Some(name)) if decode_name(&v).as_deref() == Some(name) => {}
            _ => return Err(mismatch("Mcp-Name")),
        }
    }
    Ok(())
}

/// Tells the kind of client from the headers and the body, and runs the protocol checks of
/// that kind. Errors: -32020 (a header contradicts the body or a stateless header is missing),
/// -32602 (a stateless `_meta` lacks its envelope keys), -32022 (an unsupported version).
pub fn classify_client(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Result<ClientKind, RpcError> {
    let version_header = header(headers, PROTOCOL_VERSION_HEADER);
    let meta = params.and_then(|p| p.get("_meta"));
    let meta_version = meta.and_then(|m| m.get(PROTOCOL_VERSION_META));
    let header_is_handshake =
        matches!(&version_header, Header::Value(v) if HANDSHAKE_VERSIONS.contains(&v.as_str()));
    let stateless = meta_version.is_some()
        || matches!(&version_header, Header::Value(_) | Header::Unusable) && !header_is_handshake;

    if !stateless {
        check_method_headers(headers, method, params, false)?;
        if let Header::Value(v) = &version_header {
            // initialize negotiates in its body; elsewhere the header must be one we speak.
            if method != "initialize" && !SESSIONLESS_VERSIONS.contains(&v.as_str()) {
                return Err(unsupported(&Value::String(v.clone())));
            }
        }
        return Ok(ClientKind::SessionLess);
    }

    let Some(meta_version) = meta_version else {
        // A version header of the new era without the body envelope.
        return match version_header {
            Header::Value(v) if v != STATELESS_VERSION => Err(unsupported(&Value::String(v))),
            Header::Unusable => Err(mismatch("MCP-Protocol-Version")),
            _ => Err(missing_envelope()),
        };
    };
    if meta.and_then(|m| m.get(CLIENT_CAPABILITIES_META)).is_none() {
        return Err(missing_envelope());
    }
    match &version_header {
        Header::Value(v) if Some(v.as_str()) == meta_version.as_str() => {}
        _ => return Err(mismatch("MCP-Protocol-Version")),
    }
    check_method_headers(headers, method, params, true)?;
    if meta_version.as_str() != Some(STATELESS_VERSION) {
        return Err(unsupported(meta_version));
    }
    Ok(ClientKind::Stateless)
}

fn missing_envelope() -> RpcError {
    RpcError::new(
        INVALID_PARAMS,
        format!(
            "Invalid params: a 2026-07-28 request carries params._meta with \
             {PROTOCOL_VERSION_META} and {CLIENT_CAPABILITIES_META}."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).expect("header"));
        }
        h
    }

    fn meta(version: &str) -> Map<String, Value> {
        json!({"_meta": {PROTOCOL_VERSION_META: version, CLIENT_CAPABILITIES_META: {}}, "name": "herald_status"})
            .as_object()
            .cloned()
            .expect("object")
    }

    #[test]
    fn initialize_echoes_supported_versions_only() {
        for (asked, answered) in [
            (json!("2025-06-18"), "2025-06-18"),
            (json!("2025-03-26"), "2025-03-26"),
            (json!("2024-11-05"), "2024-11-05"),
            (json!("2025-11-25"), "2025-06-18"),
            (json!("2026-07-28"), "2025-06-18"),
            (json!(7), "2025-06-18"),
        ] {
            assert_eq!(
                negotiate_initialize(Some(&asked)),
                answered,
                "asked {asked}"
            );
        }
        assert_eq!(negotiate_initialize(None), "2025-06-18");
    }

    /// Headers, params, and the kind or the JSON-RPC error code expected.
    type Case<'a> = (
        HeaderMap,
        Option<&'a Map<String, Value>>,
        Result<ClientKind, i64>,
    );

    #[test]
    fn tells_the_kinds_apart_and_checks_headers() {
        let stateless = meta("2026-07-28");
        let old = meta("1900-01-01");
        let full = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "herald_status"),
        ];
        let cases: Vec<Case> = vec![
            (headers(&[]), None, Ok(ClientKind::SessionLess)),
            (
                headers(&[("mcp-protocol-version", "2025-06-18")]),
                None,
                Ok(ClientKind::SessionLess),
            ),
            (
                headers(&[("mcp-protocol-version", "2025-11-25")]),
                None,
                Err(-32022),
            ),
            (
                headers(&[("mcp-protocol-version", "1900-01-01")]),
                None,
                Err(-32022),
            ),
            (
                headers(&[("mcp-protocol-version", "2026-07-28")]),
                None,
                Err(-32602),
            ),
            (headers(&[("mcp-method", "tools/list")]), None, Err(-32020)),
            (headers(&full), Some(&stateless), Ok(ClientKind::Stateless)),
            (headers(&full[..2]), Some(&stateless), Err(-32020)),
            (headers(&full[1..]), Some(&stateless), Err(-32020)),
            (
                headers(&[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "=?base64?aGVyYWxkX3N0YXR1cw==?="),
                ]),
                Some(&stateless),
                Ok(ClientKind::Stateless),
            ),
            (
                headers(&[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "get_receipt"),
                ]),
                Some(&stateless),
                Err(-32020),
            ),
            (
                headers(&[
                    ("mcp-protocol-version", "1900-01-01"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "herald_status"),
                ]),
                Some(&old),
                Err(-32022),
            ),
            (
                headers(&[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-protocol-version", "2026-07-28"),
                ]),
                Some(&stateless),
                Err(-32020),
            ),
        ];
        for (i, (h, params, want)) in cases.into_iter().enumerate() {
            let got = classify_client(&h, "tools/call", params).map_err(|e| e.code);
            assert_eq!(got, want, "case {i}");
        }
    }

    #[test]
    fn unsupported_names_versions_and_request() {
        let e = unsupported(&json!("1900-01-01"));
        assert_eq!(e.code, -32022);
        assert_eq!(e.message, "Unsupported protocol version");
        assert_eq!(
            e.data,
            Some(json!({
                "supported": ["2026-07-28", "2025-06-18", "2025-03-26", "2024-11-05"],
                "requested": "1900-01-01"
            }))
        );
    }
}
