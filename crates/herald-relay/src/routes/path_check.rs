//! Paths whose percent-decoded form is not UTF-8 (e.g. `/messages/%FF`) are answered
//! `404 not_found` with the catalog body before routing.
//!
//! Every path parameter of the relay is an id extracted as `Path<String>`; axum refuses a
//! non-UTF-8 one with its own `400 text/plain` rejection, which is neither the error body
//! nor a status the document lists. Such an id cannot name anything, so it is "not found",
//! the answer every malformed id gets (schemathesis against /openapi.json, docs/openapi.md).

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Middleware: `404 not_found` for a path that does not percent-decode to UTF-8. Decoding
/// the whole path is equivalent to decoding each segment: segments split at `/`, an ASCII
/// byte that never falls inside a multi-byte character.
pub(super) async fn utf8_path(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .is_err()
    {
        return ApiError::not_found().into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn decoding_tells_utf8_paths() {
        for (path, ok) in [
            ("/messages/msg_aaaaaaaaaaaaaaaaaaaaaaaaaa", true),
            ("/messages/%C3%A9", true),
            ("/messages/%FF", false),
            ("/files/%C3%28", false),
            ("/files/%C3/%A9", false),
        ] {
            assert_eq!(
                percent_encoding::percent_decode_str(path)
                    .decode_utf8()
                    .is_ok(),
                ok,
                "{path}"
            );
        }
    }
}
