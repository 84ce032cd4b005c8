//! Every code a `view::UiError` may carry, as one type: what the device side
//! makes itself (the core, the answer gate, file picks, the desktop shell and its command
//! contract) and what the relay sends (herald-protocol's catalog, passed through as is).
//!
//! Exported to TypeScript as the string union `UiErrorCode`, so the UI's `err.code === "…"`
//! checks are type-checked. The relay's part is listed again here; the test
//! `every_relay_code_is_a_ui_code` fails when the relay's catalog gains a code this list lacks.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! ui_error_codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal,)*) => {
        /// A stable snake_case error code the UI branches on (the relay's: docs/protocol.md).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
        #[ts(export)]
        pub enum UiErrorCode {
            $($(#[$doc])* #[serde(rename = $code)] $variant,)*
        }

        impl UiErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [UiErrorCode] = &[$(UiErrorCode::$variant,)*];

            /// The wire code (`already_answered`).
            pub fn as_str(self) -> &'static str {
                match self { $(UiErrorCode::$variant => $code,)* }
            }

            /// Looks a wire code up; `None` for a code this build does not know (a newer relay).
            pub fn from_code(code: &str) -> Option<UiErrorCode> {
                match code { $($code => Some(UiErrorCode::$variant),)* _ => None }
            }
        }
    };
}

ui_error_codes! {
    // ── Made on the device: the core (`Error::code`) ──
    /// No account on this device yet.
    NotSetUp = "not_set_up",
    /// This device has an account already.
    AlreadySetUp = "already_set_up",
    /// Nothing with that id (cache, relay, command name, attachment).
    NotFound = "not_found",
    /// An input breaks a rule; the message says which.
    InvalidInput = "invalid_input",
    /// Content or an answer fails validation; `fields` lists each violation.
    ValidationFailed = "validation_failed",
    /// The relay could not be reached.
    Network = "network",
    /// The relay answered outside the protocol.
    Protocol = "protocol",
    /// Verification or decryption failed.
    Crypto = "crypto",
    /// Local storage (cache, key files, keychain, settings files) failed.
    Storage = "storage",
    /// The file expired on the relay; its bytes are gone.
    FileExpired = "file_expired",
    /// A downloaded file is not the one its message describes.
    FileIntegrity = "file_integrity",
    /// The pairing code typed does not match the new device's.
    WrongPairingCode = "wrong_pairing_code",
    /// The pairing request passed its 10 minutes.
    PairingExpired = "pairing_expired",
    /// The pairing request already had its one answer.
    PairingClaimed = "pairing_claimed",
    /// The recovery key opens no backup on this relay.
    WrongRecoveryKey = "wrong_recovery_key",
    /// This device was revoked or its account reset.
    SignedOut = "signed_out",
    /// The relay is out of reach; the answer is kept and sent later.
    AnswerQueued = "answer_queued",
    // ── The answer gate and file picks (`answers/`) ──
    /// The request was answered already (here, from a banner, or on another device).
    AlreadyAnswered = "already_answered",
    /// The request expired before it was answered.
    RequestExpired = "request_expired",
    /// The sender withdrew the request.
    RequestCancelled = "request_cancelled",
    /// A picked path is not a regular file.
    NotAFile = "not_a_file",
    /// A picked file is larger than 100 MB.
    FileTooLarge = "file_too_large",
    /// A pick id this process did not hand out (or already used).
    UnknownPick = "unknown_pick",
    /// Reading or writing a local file failed, or a dialog gave no answer.
    Io = "io",
    // ── The desktop shell and its command contract (src-tauri) ──
    /// The embedded relay could not start.
    EmbeddedRelay = "embedded_relay",
    /// The system could not open a link.
    OpenFailed = "open_failed",
    /// Only http, https and mailto links open.
    InvalidLink = "invalid_link",
    /// A relay URL that is not http:// or https://.
    InvalidRelayUrl = "invalid_relay_url",
    /// A feature this platform or build does not have.
    Unavailable = "unavailable",
    /// Another program holds the global shortcut.
    ShortcutTaken = "shortcut_taken",
    /// A command's arguments are missing, unknown or of the wrong type.
    InvalidArgs = "invalid_args",
    /// A fault of Herald itself (a reply that did not serialize).
    Internal = "internal",
    /// Made by the UI, never sent by the backend: the call itself failed (no host, or the
    /// host rejected it with something that is not a `UiError`).
    Ipc = "ipc",
    /// No update endpoint or public key in this build.
    UpdateNotConfigured = "update_not_configured",
    /// This platform or package cannot update itself.
    UpdateUnsupported = "update_unsupported",
    /// The update server could not be reached.
    UpdateUnreachable = "update_unreachable",
    /// The update manifest is malformed.
    UpdateBadManifest = "update_bad_manifest",
    /// The manifest has no build for this platform.
    UpdateNoBuild = "update_no_build",
    /// The download's signature does not verify against the built-in key.
    UpdateBadSignature = "update_bad_signature",
    /// The signed package is not the version the manifest named.
    UpdateVersionMismatch = "update_version_mismatch",
    /// Install was asked before a check found an update.
    UpdateNotChecked = "update_not_checked",
    /// This installation cannot be replaced in place.
    UpdateNotInstallable = "update_not_installable",
    /// Installing needs rights this user does not have.
    UpdatePermissionDenied = "update_permission_denied",
    /// Installing failed part way.
    UpdateInstallFailed = "update_install_failed",
    // ── Passed through from the relay (herald-protocol `ErrorCode`; those above not repeated) ──
    /// The request body is malformed.
    BadRequest = "bad_request",
    /// A field breaks a rule; `fields` names it.
    InvalidRequest = "invalid_request",
    /// `POST /messages` without an Idempotency-Key.
    IdempotencyKeyRequired = "idempotency_key_required",
    /// An Idempotency-Key reused with another body.
    IdempotencyConflict = "idempotency_conflict",
    /// No valid credential.
    Unauthorized = "unauthorized",
    /// The credential may not do this.
    Forbidden = "forbidden",
    /// The route exists, not with that method.
    MethodNotAllowed = "method_not_allowed",
    /// The message does not ask for an answer.
    NotARequest = "not_a_request",
    /// A message with this id exists already.
    MessageIdTaken = "message_id_taken",
    /// An account with this id exists already.
    AccountExists = "account_exists",
    /// A connection with this id exists already.
    ConnectionExists = "connection_exists",
    /// The pairing failed key confirmation and is burned.
    PairingFailed = "pairing_failed",
    /// A pairing step came out of order.
    PairingNotReady = "pairing_not_ready",
    /// A pairing request with this id exists already.
    PairingIdTaken = "pairing_id_taken",
    /// A certificate not signed by the account identity key.
    BadSignature = "bad_signature",
    /// The account holds 100 live devices already.
    DeviceLimitReached = "device_limit_reached",
    /// The credential was revoked already.
    AlreadyRevoked = "already_revoked",
    /// A device cannot revoke itself.
    CannotRevokeSelf = "cannot_revoke_self",
    /// The account's keys changed meanwhile.
    KeysChanged = "keys_changed",
    /// Too many websockets for this credential.
    TooManySockets = "too_many_sockets",
    /// Too many requests; try again later.
    RateLimited = "rate_limited",
    /// The secret was collected already.
    SecretCollected = "secret_collected",
    /// The secret offer expired.
    SecretExpired = "secret_expired",
    /// The message is not a secret offer.
    NotASecretOffer = "not_a_secret_offer",
    /// The offer's key was set already.
    OfferKeyExists = "offer_key_exists",
    /// The offer was not opened on a device yet.
    OfferNotOpened = "offer_not_opened",
    /// The secret was sent already.
    SecretPayloadExists = "secret_payload_exists",
    /// The secret was not sent yet.
    SecretNotSent = "secret_not_sent",
    /// An upload shorter than reserved.
    FileTooShort = "file_too_short",
    /// An upload longer than reserved.
    FileTooLong = "file_too_long",
    /// The file's bytes were uploaded already.
    FileAlreadyUploaded = "file_already_uploaded",
    /// The file's reservation expired before its upload.
    FileReservationExpired = "file_reservation_expired",
    /// The file is carried by another message already.
    FileAlreadyAttached = "file_already_attached",
    /// Fields this credential may not set.
    ForbiddenFields = "forbidden_fields",
    /// The sender's budget is spent.
    BudgetExceeded = "budget_exceeded",
    /// The polling budget is spent.
    PollBudgetExceeded = "poll_budget_exceeded",
    /// A device grant not approved yet.
    AuthorizationPending = "authorization_pending",
    /// A device grant polled too fast.
    SlowDown = "slow_down",
    /// The person denied the grant.
    AccessDenied = "access_denied",
    /// The device code expired.
    ExpiredToken = "expired_token",
    /// The grant is invalid.
    InvalidGrant = "invalid_grant",
    /// The grant type is not supported.
    UnsupportedGrantType = "unsupported_grant_type",
    /// The relay could not reach another relay.
    RelayUnreachable = "relay_unreachable",
    /// A verification step failed.
    VerificationFailed = "verification_failed",
    /// The body is larger than allowed.
    PayloadTooLarge = "payload_too_large",
    /// The request head is larger than allowed.
    RequestHeadTooLarge = "request_head_too_large",
    /// The URI is longer than allowed.
    UriTooLong = "uri_too_long",
}

impl std::fmt::Display for UiErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_relay_code_is_a_ui_code() {
        let missing: Vec<&str> = herald_protocol::error::ErrorCode::ALL
            .iter()
            .map(|c| c.as_str())
            .filter(|code| UiErrorCode::from_code(code).is_none())
            .collect();
        assert!(
            missing.is_empty(),
            "relay codes missing from UiErrorCode: {missing:?}: add each as a variant in \
             crates/herald-client/src/error_code.rs"
        );
    }

    #[test]
    fn codes_are_unique_and_serialize_as_their_wire_code() {
        let mut seen = HashSet::new();
        for code in UiErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} listed twice");
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::json!(code.as_str())
            );
            assert_eq!(UiErrorCode::from_code(code.as_str()), Some(*code));
        }
    }
}
