//! The shared error body and the catalog of stable error codes.
//!
//! Every error any Herald HTTP route returns has the body
//! `{"error": "<code>", "message": "<human text>", "fields": ["<path>", ...]}`. Clients branch
//! on `error`, never on `message`. `fields` names the offending input fields (JSON paths such as
//! `title` or `fields[2].options`), empty when the error is not about one field.

use serde::{Deserialize, Serialize};

/// The JSON error body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// Stable code from [`ErrorCode`].
    pub error: String,
    /// Human-readable explanation; never contains secrets or internal causes.
    pub message: String,
    /// Offending input fields, if any.
    #[serde(default)]
    pub fields: Vec<String>,
}

macro_rules! catalog {
    ($($(#[$doc:meta])* $variant:ident = ($code:literal, $status:literal, $msg:literal),)*) => {
        /// The catalog: every error code, with its HTTP status and default message.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, for documentation and tests.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The stable wire code.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// The HTTP status this code is sent with.
            pub fn status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)* }
            }

            /// The default human message.
            pub fn default_message(self) -> &'static str {
                match self { $(ErrorCode::$variant => $msg,)* }
            }

            /// Looks a wire code up.
            pub fn from_code(code: &str) -> Option<ErrorCode> {
                match code { $($code => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

catalog! {
    /// The body is not valid JSON or does not have the expected shape.
    BadRequest = ("bad_request", 400, "The request body is malformed."),
    /// The body parsed but a field breaks a rule; `fields` names it.
    InvalidRequest = ("invalid_request", 400, "The request is invalid."),
    /// `POST /messages` without an `Idempotency-Key` header.
    IdempotencyKeyRequired = ("idempotency_key_required", 400, "An Idempotency-Key header of 1 to 255 characters is required."),
    /// The Idempotency-Key was used before with a different body.
    IdempotencyConflict = ("idempotency_conflict", 409, "This Idempotency-Key was already used with a different request body."),
    /// No credential, or one the relay does not know (or revoked).
    Unauthorized = ("unauthorized", 401, "A valid credential is required."),
    /// The credential is valid but may not do this.
    Forbidden = ("forbidden", 403, "This credential may not perform this action."),
    /// Nothing with that id is visible to this credential.
    NotFound = ("not_found", 404, "Not found."),
    /// The route exists but not with that HTTP method.
    MethodNotAllowed = ("method_not_allowed", 405, "Method not allowed."),
    /// The request was already answered; answers are accepted exactly once.
    AlreadyAnswered = ("already_answered", 409, "This request was already answered."),
    /// The request expired before the answer arrived.
    RequestExpired = ("request_expired", 409, "This request has expired."),
    /// The sender cancelled the request.
    RequestCancelled = ("request_cancelled", 409, "This request was cancelled."),
    /// The message does not ask for an answer.
    NotARequest = ("not_a_request", 409, "This message does not ask for an answer."),
    /// A message with this id exists already (under another Idempotency-Key).
    MessageIdTaken = ("message_id_taken", 409, "A message with this id already exists."),
    /// An account with this id exists already.
    AccountExists = ("account_exists", 409, "This account already exists."),
    /// A connection with this id exists already.
    ConnectionExists = ("connection_exists", 409, "This connection already exists."),
    /// The body exceeds the route's size limit.
    PayloadTooLarge = ("payload_too_large", 413, "The request body is too large."),
    /// Something failed inside the relay; the cause is logged, not returned.
    Internal = ("internal", 500, "Internal error."),
}

impl ErrorBody {
    /// A body with the code's default message and no fields.
    pub fn new(code: ErrorCode) -> Self {
        Self::with_message(code, code.default_message())
    }

    /// A body with a specific message.
    pub fn with_message(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorBody {
            error: code.as_str().to_owned(),
            message: message.into(),
            fields: Vec::new(),
        }
    }

    /// Adds the offending field paths.
    pub fn fields(mut self, fields: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.fields = fields.into_iter().map(Into::into).collect();
        self
    }

    /// The catalog entry, when the code is known.
    pub fn code(&self) -> Option<ErrorCode> {
        ErrorCode::from_code(&self.error)
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error, self.message)?;
        if !self.fields.is_empty() {
            write!(f, " (fields: {})", self.fields.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_codes_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(
                seen.insert(code.as_str()),
                "duplicate code {}",
                code.as_str()
            );
            assert_eq!(
                ErrorCode::from_code(code.as_str()),
                Some(*code),
                "round trip"
            );
            assert!(
                (400..600).contains(&code.status()),
                "error status for {code:?}"
            );
        }
    }

    #[test]
    fn body_shape_is_stable() {
        let body = ErrorBody::new(ErrorCode::InvalidRequest).fields(["title"]);
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"error": "invalid_request", "message": "The request is invalid.", "fields": ["title"]}),
            "snapshot of the error body"
        );
    }
}
