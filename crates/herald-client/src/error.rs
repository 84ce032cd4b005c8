//! Typed errors of the device core and agent client. [`Error::code`] is the stable code the UI
//! and the CLI branch on; messages never contain secrets, tokens or message content.

use herald_protocol::ErrorBody;

/// Everything the device core and the agent client can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The device has no account yet (onboarding not done).
    #[error("this device has no account yet")]
    NotSetUp,
    /// The device already has an account.
    #[error("this device already has an account")]
    AlreadySetUp,
    /// Nothing with that id in the cache or on the relay.
    #[error("not found: {0}")]
    NotFound(String),
    /// Input from the person or the agent breaks a rule (the message names the field).
    #[error("{0}")]
    InvalidInput(String),
    /// Content or an answer fails validation against the published limits.
    #[error("validation failed: {}", .0.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("; "))]
    Validation(Vec<herald_protocol::content::Violation>),
    /// The relay answered with an error body.
    #[error("relay refused (HTTP {status}): {body}")]
    Relay { status: u16, body: ErrorBody },
    /// The relay could not be reached. The text starts with the relay's URL (without
    /// credentials or query), then the cause: `http://127.0.0.1:8457: … Connection refused`.
    #[error("cannot reach the relay at {0}")]
    Network(String),
    /// The relay answered something that does not follow the protocol.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// Verification or decryption failed (tampering, wrong keys, pin mismatch).
    #[error("crypto: {0}")]
    Crypto(herald_crypto::Error),
    /// Local storage (cache database, key files, keychain) failed.
    #[error("storage: {0}")]
    Storage(String),
    /// The relay deleted the file (it expired before a message carried it, or its message was
    /// reset): its bytes are gone for good (`file_expired`).
    #[error("this file has expired and was deleted")]
    FileExpired,
    /// A downloaded file is not the one the message describes: wrong key, truncated,
    /// tampered with, or another size or SHA-256 (docs/files.md). Nothing was saved.
    #[error("the file failed its integrity check: {0}")]
    FileIntegrity(String),
    /// Pairing key confirmation failed: the code typed on the approving device is not the one
    /// the new device shows (or a key was changed on the way). The request is used up.
    #[error("the pairing code did not match; start again on the new device")]
    WrongPairingCode,
    /// The pairing request passed its 10 minutes (relay clock) before it completed.
    #[error("the pairing request expired; start again on the new device")]
    PairingExpired,
    /// The pairing request was already answered (one attempt per code).
    #[error("this pairing request was already answered; start again on the new device")]
    PairingClaimed,
    /// The recovery key opens no backup on this relay (mistyped in a way the checksum missed,
    /// another account's, or this relay is not the account's).
    #[error("this recovery key does not unlock an account on this relay")]
    WrongRecoveryKey,
    /// This device was revoked or its account was reset: unlock it again.
    #[error("this device was signed out (revoked, or the account was reset); unlock it again")]
    SignedOut,
    /// The relay is out of reach: the answer is kept on this device and posted once it is
    /// reachable again (or one was kept already for this request).
    #[error("the relay is out of reach: the answer is saved on this device and will be sent when it is back")]
    AnswerQueued,
}

impl Error {
    /// Stable machine code for the UI and CLI.
    pub fn code(&self) -> String {
        use crate::error_code::UiErrorCode as C;
        let code = match self {
            // A relay's code passes through as sent (a newer relay may have codes this build
            // does not know).
            Error::Relay { body, .. } => return body.error.clone(),
            Error::NotSetUp => C::NotSetUp,
            Error::AlreadySetUp => C::AlreadySetUp,
            Error::NotFound(_) => C::NotFound,
            Error::InvalidInput(_) => C::InvalidInput,
            Error::Validation(_) => C::ValidationFailed,
            Error::Network(_) => C::Network,
            Error::Protocol(_) => C::Protocol,
            Error::Crypto(_) => C::Crypto,
            Error::Storage(_) => C::Storage,
            Error::FileExpired => C::FileExpired,
            Error::FileIntegrity(_) => C::FileIntegrity,
            Error::WrongPairingCode => C::WrongPairingCode,
            Error::PairingExpired => C::PairingExpired,
            Error::PairingClaimed => C::PairingClaimed,
            Error::WrongRecoveryKey => C::WrongRecoveryKey,
            Error::SignedOut => C::SignedOut,
            Error::AnswerQueued => C::AnswerQueued,
        };
        code.as_str().into()
    }
}

// Not `#[from]`: that would make the crypto error the `source` too, and error reports that
// print the chain would say everything twice.
impl From<herald_crypto::Error> for Error {
    fn from(e: herald_crypto::Error) -> Self {
        Error::Crypto(e)
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Storage(e.to_string())
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Storage(e.to_string())
    }
}

/// Result alias of the device core.
pub type Result<T> = std::result::Result<T, Error>;
