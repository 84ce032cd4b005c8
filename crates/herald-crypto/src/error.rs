//! The crate's one error type. Variants say what failed, never with which key: messages are
//! static text (and at most an epoch number), so an error can be logged or shown as it is.

/// Everything that can go wrong in herald-crypto.
///
/// Callers branch on the variant (or on [`Error::code`]), never on the message text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Input text or bytes could not be parsed: wrong length, encoding, shape or version byte
    /// (connection token, recovery key, serialized key bundle, sealed bundle).
    #[error("malformed {0}")]
    Malformed(&'static str),
    /// The caller passed an argument the operation cannot use (empty or duplicate recipient
    /// list, a key id that does not match its public key, a pin of the wrong length).
    #[error("invalid input: {0}")]
    InvalidInput(&'static str),
    /// An envelope or sealed object names a version or suite this build does not implement.
    #[error("unsupported {0}")]
    Unsupported(&'static str),
    /// A signature, certificate or envelope failed verification (bad signature, tampered or
    /// inconsistent signed data, a certificate of the wrong kind or account).
    #[error("verification failed: {0}")]
    Verification(&'static str),
    /// The account fingerprint does not start with the pinned fingerprint: the keys served are
    /// not the account's (a relay substituting keys is caught here).
    #[error("the account fingerprint does not match the pinned fingerprint")]
    PinMismatch,
    /// The envelope's sender/signing key is not certified in the verified directory. The
    /// sender may be new: refresh `GET /keys` and retry once before treating it as forged.
    #[error("the sender's signing key is not certified by the account")]
    UnknownSender,
    /// The envelope's sender was revoked, and the record carrying it was stored by the relay
    /// after the revocation: only what a revoked key signed before it still verifies.
    #[error("the sender's signing key was revoked before this was stored")]
    RevokedSender,
    /// None of the given secrets belongs to a recipient of the envelope.
    #[error("not a recipient of this envelope")]
    NotRecipient,
    /// A recipient key matched but the content key or the body did not decrypt (tampered
    /// ciphertext, wrong key, wrong recovery key, tampered local file).
    #[error("decryption failed: {0}")]
    Decryption(&'static str),
    /// A typed recovery key's checksum does not match: a character is mistyped.
    #[error("recovery key checksum does not match: a character is mistyped")]
    Checksum,
    /// The account key bundle holds no encryption key of this epoch.
    #[error("unknown encryption key epoch {0}")]
    UnknownEpoch(u32),
    /// Pairing key confirmation failed: the typed code differs from the one the new device
    /// shows, or someone in between changed a key or message.
    #[error("the pairing code does not match")]
    PairingMismatch,
}

impl Error {
    /// A stable, machine-readable code for the variant (for `{code, message}` error bodies).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Malformed(_) => "malformed",
            Error::InvalidInput(_) => "invalid_input",
            Error::Unsupported(_) => "unsupported",
            Error::Verification(_) => "verification_failed",
            Error::PinMismatch => "pin_mismatch",
            Error::UnknownSender => "unknown_sender",
            Error::RevokedSender => "revoked_sender",
            Error::NotRecipient => "not_recipient",
            Error::Decryption(_) => "decryption_failed",
            Error::Checksum => "checksum_mismatch",
            Error::UnknownEpoch(_) => "unknown_epoch",
            Error::PairingMismatch => "pairing_mismatch",
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
