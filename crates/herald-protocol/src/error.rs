//! The shared error body and the catalog of stable error codes.
//!
//! Every error any Herald HTTP route returns has the body
//! `{"error": "<code>", "message": "<human text>", "fields": ["<path>", ...]}`. Clients branch
//! on `error`, never on `message`. `fields` names the offending input fields (JSON paths such as
//! `title` or `fields[2].options`), empty when the error is not about one field.

use serde::{Deserialize, Serialize};

/// The JSON error body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// Stable code from [`ErrorCode`].
    #[cfg_attr(feature = "openapi", schema(value_type = ErrorCode))]
    pub error: String,
    /// Human-readable explanation; never contains secrets or internal causes.
    pub message: String,
    /// Offending input fields, if any.
    #[serde(default)]
    pub fields: Vec<String>,
    /// For the budget codes only: when the budget refills (RFC 3339 UTC, midnight).
    #[serde(rename = "resetsAt", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub resets_at: Option<String>,
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
    /// The pairing request is past its 10-minute expiry (relay clock).
    PairingExpired = ("pairing_expired", 410, "This pairing request has expired; start again on the new device."),
    /// The pairing request already has its one response (one attempt per code).
    PairingClaimed = ("pairing_claimed", 409, "This pairing request was already answered; start again on the new device."),
    /// The pairing failed key confirmation (a wrong code) and is burned.
    PairingFailed = ("pairing_failed", 409, "The pairing code did not match; start again on the new device."),
    /// The pairing step came out of order (e.g. completing before the new device confirmed).
    PairingNotReady = ("pairing_not_ready", 409, "The pairing request is not ready for this step."),
    /// A pairing request with this id exists already.
    PairingIdTaken = ("pairing_id_taken", 409, "A pairing request with this id already exists."),
    /// The certificate is not signed by the account identity key.
    BadSignature = ("bad_signature", 400, "The certificate is not signed by the account identity key."),
    /// The account holds `devices::MAX_DEVICES` (100) live devices already: enrolment and
    /// pairing are refused until one is revoked (docs/devices.md, "How many devices").
    DeviceLimitReached = ("device_limit_reached", 409, "This account already has 100 devices, the most it may hold; revoke a device you no longer use, then try again."),
    /// `DELETE` of a connection, agent key or connector that is revoked already: nothing
    /// changed (it stays revoked, with its first revocation time).
    AlreadyRevoked = ("already_revoked", 409, "This credential was already revoked."),
    /// A device cannot revoke itself.
    CannotRevokeSelf = ("cannot_revoke_self", 409, "A device cannot revoke itself; revoke it from another device."),
    /// The account's keys changed since the request was prepared (a concurrent rotation).
    KeysChanged = ("keys_changed", 409, "The account keys changed meanwhile; reload them and try again."),
    /// `GET /ws` past the account's limit of open live-update sockets (1,200 by default), from
    /// a credential holding none of them (one that does replaces its oldest instead).
    TooManySockets = ("too_many_sockets", 429, "This account has the most live-update sockets open that it may; close some (other apps or processes using this account), then try again."),
    /// Too many failed attempts at an unauthenticated route; try again later.
    RateLimited = ("rate_limited", 429, "Too many attempts; try again in a minute."),
    /// A secret (answer or offer) was handed over already; it is handed over once.
    SecretCollected = ("secret_collected", 410, "This secret was already collected; it is handed over once."),
    /// A secret was not collected in time and the relay deleted it.
    SecretExpired = ("secret_expired", 410, "This secret expired before it was collected and was deleted."),
    /// The secret-offer routes were called on a message that is not a secret offer.
    NotASecretOffer = ("not_a_secret_offer", 409, "This message is not a secret offer."),
    /// A device already posted the one-time key of this secret offer.
    OfferKeyExists = ("offer_key_exists", 409, "This secret offer was already opened on a device."),
    /// The secret was posted before any device opened the offer.
    OfferNotOpened = ("offer_not_opened", 409, "This secret offer has not been opened on a device yet."),
    /// The sender already posted the secret of this offer.
    SecretPayloadExists = ("secret_payload_exists", 409, "The secret of this offer was already sent."),
    /// A device asked for the secret before the sender posted it.
    SecretNotSent = ("secret_not_sent", 409, "The sender has not sent the secret yet."),
    /// `PUT /files/:id` ended before the reserved size.
    FileTooShort = ("file_too_short", 400, "The upload ended before the reserved size; upload the whole file again."),
    /// `PUT /files/:id` sent more bytes than reserved.
    FileTooLong = ("file_too_long", 413, "The upload is longer than the reserved size."),
    /// `PUT /files/:id` for a file that is uploaded already (or being uploaded).
    FileAlreadyUploaded = ("file_already_uploaded", 409, "This file was already uploaded; reserve a new one."),
    /// `PUT /files/:id` after the reservation's 15 minutes (relay clock).
    FileReservationExpired = ("file_reservation_expired", 410, "This upload reservation has expired; reserve a new one."),
    /// The file was deleted (expired unattached, or its message reset); its bytes are gone.
    FileExpired = ("file_expired", 410, "This file has expired and was deleted."),
    /// An attachment names a file already attached to another message.
    FileAlreadyAttached = ("file_already_attached", 409, "This file is already attached to another message."),
    /// `POST /v1/notify` carried fields outside the whitelist (buttons, commands, callbacks,
    /// scripts, anything unknown); `fields` lists them (docs/agents.md).
    ForbiddenFields = ("forbidden_fields", 400, "The request carries fields that are not allowed."),
    /// The account's daily request budget for agent credentials is used up; `resetsAt` says
    /// when it refills (midnight UTC), as does `Retry-After`.
    BudgetExceeded = ("budget_exceeded", 429, "The daily request budget is used up; it resets at midnight UTC."),
    /// The account's daily seconds of waiting in `GET /v1/replies` are used up; `resetsAt`
    /// says when they refill (midnight UTC), as does `Retry-After`.
    PollBudgetExceeded = ("poll_budget_exceeded", 429, "The daily budget of seconds spent waiting for replies is used up; it resets at midnight UTC."),
    /// OAuth device flow (RFC 8628): the person has not approved or denied the code yet.
    AuthorizationPending = ("authorization_pending", 400, "The person has not approved this connector yet."),
    /// OAuth device flow: polled faster than `interval`; wait 5 seconds longer between polls.
    SlowDown = ("slow_down", 400, "Polling too fast; wait longer between polls."),
    /// OAuth device flow: the person denied the connector.
    AccessDenied = ("access_denied", 400, "The person denied this connector."),
    /// OAuth device flow: the device code expired before it was approved.
    ExpiredToken = ("expired_token", 400, "The device code has expired; start again."),
    /// OAuth: the device code is unknown, belongs to another client, or its token was handed
    /// out already (it is handed out once).
    InvalidGrant = ("invalid_grant", 400, "The device code is not valid."),
    /// OAuth: a `grant_type` other than the device code grant.
    UnsupportedGrantType = ("unsupported_grant_type", 400, "Only the device code grant is supported."),
    /// Client side only (`herald mcp` tool results), never sent by the relay: the relay could
    /// not be reached (refused connection, DNS, timeout).
    RelayUnreachable = ("relay_unreachable", 502, "The relay could not be reached; try again."),
    /// Client side only (`herald mcp` tool results), never sent by the relay: what the relay
    /// returned failed verification (account keys not matching the token's pinned fingerprint,
    /// a bad signature, an envelope that does not open).
    VerificationFailed = ("verification_failed", 502, "What the relay returned failed verification."),
    /// The body exceeds the route's size limit.
    PayloadTooLarge = ("payload_too_large", 413, "The request body is too large."),
    /// The request head is over 65,536 bytes or 100 header lines (docs/protocol.md,
    /// "Connection limits"); the connection is closed.
    RequestHeadTooLarge = ("request_head_too_large", 431, "The request head is too large."),
    /// The request target is over 65,534 bytes; the connection is closed.
    UriTooLong = ("uri_too_long", 414, "The request target is too long."),
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
            resets_at: None,
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
