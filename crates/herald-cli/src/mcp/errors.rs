//! Refused tool calls: a tool result with `isError: true` whose `structuredContent` (and text)
//! is the error body `{"error", "message", "fields"}` with a code from the catalog
//! (`herald_protocol::ErrorCode`, docs/protocol.md). The relay's own refusals pass through
//! unchanged; the client's are mapped here. Messages never carry tokens, keys or secret
//! values (herald-client's errors are written that way).

use herald_client::Error;
use herald_protocol::{ErrorBody, ErrorCode};
use rmcp::model::CallToolResult;

/// The tool result for a refused call.
pub fn tool_error(body: &ErrorBody) -> CallToolResult {
    let value = serde_json::to_value(body).unwrap_or_else(
        |_| serde_json::json!({"error": "internal", "message": "Internal error.", "fields": []}),
    );
    CallToolResult::structured_error(value)
}

/// The error body for a failure of the agent client.
///
/// | client error | code |
/// |---|---|
/// | the relay refused | the relay's body as is |
/// | content breaks a published limit | `invalid_request`, `fields` = every offending path |
/// | other bad input | `invalid_request` |
/// | not found | `not_found` |
/// | network | `relay_unreachable` |
/// | keys, signatures, envelopes, protocol | `verification_failed` |
/// | anything else (local storage, files) | `internal` with the client's message |
pub fn body_for(error: &Error) -> ErrorBody {
    match error {
        Error::Relay { body, .. } => body.clone(),
        Error::Validation(violations) => ErrorBody::with_message(
            ErrorCode::InvalidRequest,
            violations
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
        .fields(
            violations
                .iter()
                .filter(|v| !v.path.is_empty())
                .map(|v| v.path.clone()),
        ),
        Error::InvalidInput(message) => {
            ErrorBody::with_message(ErrorCode::InvalidRequest, message.clone())
        }
        Error::NotFound(_) => ErrorBody::with_message(ErrorCode::NotFound, error.to_string()),
        Error::Network(_) => {
            ErrorBody::with_message(ErrorCode::RelayUnreachable, error.to_string())
        }
        Error::Crypto(_) | Error::Protocol(_) => {
            ErrorBody::with_message(ErrorCode::VerificationFailed, error.to_string())
        }
        other => ErrorBody::with_message(ErrorCode::Internal, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_protocol::content::MessageContent;

    #[test]
    fn validation_names_every_path_and_results_are_flagged() {
        let violations = MessageContent::default()
            .validate()
            .expect_err("an empty title is refused");
        let body = body_for(&Error::Validation(violations));
        assert_eq!(
            body.error, "invalid_request",
            "validation → invalid_request"
        );
        assert!(
            body.fields.iter().any(|f| f == "title"),
            "the path is named: {:?}",
            body.fields
        );
        let result = tool_error(&body);
        assert_eq!(result.is_error, Some(true), "isError is set");
        let structured = result.structured_content.expect("structured error body");
        assert_eq!(structured["error"], "invalid_request", "body is structured");
        assert!(structured["fields"].is_array(), "fields always present");
    }

    #[test]
    fn relay_bodies_pass_through_and_network_has_its_code() {
        let relay = ErrorBody::new(ErrorCode::AlreadyAnswered);
        assert_eq!(
            body_for(&Error::Relay {
                status: 409,
                body: relay.clone()
            }),
            relay,
            "the relay's body is kept"
        );
        assert_eq!(
            body_for(&Error::Network("connection refused".into())).error,
            "relay_unreachable",
            "network failures are told apart"
        );
    }
}
