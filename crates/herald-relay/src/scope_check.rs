//! Which scope a connection bearer needs for each route (docs/authorization.md, "Scopes").
//! [`crate::auth::Auth`] asks [`required_scope`] for every connection request before the
//! route runs.

use axum::http::Method;
use herald_protocol::scopes::Scope;

/// The scope a connection needs to call `method` on the route pattern `path` (axum's matched
/// path, e.g. `/messages/{id}`). `None`: no particular scope — `GET /keys`, which sending and
/// reading both need, and routes a connection may not call at all (their own rule answers
/// 403).
pub fn required_scope(method: &Method, path: &str) -> Option<Scope> {
    // axum answers HEAD with the GET handler (without the body): it needs GET's scope, or a
    // connection would learn the sizes of what it may not read.
    let method = if method == Method::HEAD {
        "GET"
    } else {
        method.as_str()
    };
    let scope = match (method, path) {
        ("GET", "/ws") => Scope::EventsRead,
        ("POST", "/messages")
        | ("POST", "/messages/{id}/cancel")
        | ("POST", "/files")
        | ("PUT", "/files/{id}")
        | ("GET", "/messages/{id}/offer-key")
        | ("PUT", "/messages/{id}/offer-key")
        | ("POST", "/messages/{id}/secret-payload") => Scope::MessagesSend,
        ("GET", "/messages")
        | ("GET", "/messages/{id}")
        | ("GET", "/messages/{id}/thread")
        | ("GET", "/files/{id}")
        | ("POST", "/messages/{id}/secret/collect")
        | ("POST", "/messages/{id}/secret-payload/collect") => Scope::MessagesRead,
        _ => return None,
    };
    Some(scope)
}

/// The refusal's message: names the scope, so the person knows which connection to make.
pub fn missing_scope_message(scope: Scope) -> String {
    format!(
        "This connection does not hold the scope {scope}. Create a connection with it in Herald's \
         Connections screen."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_connection_route_has_its_scope() {
        let cases = [
            (Method::GET, "/ws", Some(Scope::EventsRead)),
            (Method::POST, "/messages", Some(Scope::MessagesSend)),
            (Method::GET, "/messages", Some(Scope::MessagesRead)),
            (Method::GET, "/messages/{id}", Some(Scope::MessagesRead)),
            (Method::PUT, "/files/{id}", Some(Scope::MessagesSend)),
            (Method::GET, "/files/{id}", Some(Scope::MessagesRead)),
            (Method::HEAD, "/messages", Some(Scope::MessagesRead)),
            (
                Method::HEAD,
                "/messages/{id}/thread",
                Some(Scope::MessagesRead),
            ),
            (Method::HEAD, "/files/{id}", Some(Scope::MessagesRead)),
            (Method::GET, "/keys", None),
            (Method::POST, "/connections", None),
        ];
        for (method, path, scope) in cases {
            assert_eq!(required_scope(&method, path), scope, "{method} {path}");
        }
    }

    /// Every operation the OpenAPI document lets a connection call (security `connection`)
    /// needs a scope, but `GET /keys`: a route added without one here would be open to every
    /// connection, whatever its scopes.
    #[test]
    fn no_connection_route_is_left_without_a_scope() {
        let doc = crate::openapi::document_json();
        let paths = doc["paths"].as_object().expect("the document has paths");
        let mut checked = 0;
        for (path, operations) in paths {
            for (method, operation) in operations.as_object().into_iter().flatten() {
                let connection_may_call = operation["security"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|scheme| scheme.get("connection").is_some());
                if !connection_may_call || (method == "get" && path == "/keys") {
                    continue;
                }
                let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
                assert!(
                    required_scope(&method, path).is_some(),
                    "{method} {path} is open to connections but needs no scope"
                );
                checked += 1;
            }
        }
        assert!(
            checked >= 12,
            "the connection routes were found ({checked})"
        );
    }
}
