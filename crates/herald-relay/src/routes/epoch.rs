//! The current-epoch rule: a message or an answer must be sealed to the account's current
//! account encryption key (AEK), so a sender still holding keys from before a rotation is told
//! to reload them (`409 keys_changed`) instead of sealing to a key a revoked device may hold.
//! docs/devices.md, "Revoking a device".

use herald_protocol::envelope::{Certificate, CertificateBody, Envelope};
use herald_protocol::{AccountId, ErrorCode};

use crate::error::ApiError;
use crate::state::AppState;

/// Refuses `envelope` with `409 keys_changed` (field `envelope.recipients`) unless its header
/// names the key id of the account's newest AEK certificate among its recipients. An account
/// without a readable AEK certificate is left to the other checks.
pub(super) async fn require_current_aek(
    state: &AppState,
    account: &AccountId,
    envelope: &Envelope,
) -> Result<(), ApiError> {
    let account = account.clone();
    let current = state
        .store(move |s| s.current_encryption_key(&account))
        .await?;
    check_current_aek(current.as_ref(), envelope)
}

/// [`require_current_aek`] with the account's newest AEK certificate already read
/// (`Store::current_encryption_key`).
pub(super) fn check_current_aek(
    current: Option<&Certificate>,
    envelope: &Envelope,
) -> Result<(), ApiError> {
    let Some(header) = envelope.header_unverified() else {
        return Ok(()); // check_envelope already refused it
    };
    let current = current
        .and_then(|cert| cert.body_unverified())
        .and_then(|body| match body {
            CertificateBody::EncryptionKey { key_id, .. } => Some(key_id),
            _ => None,
        });
    match current {
        Some(key_id) if !header.recipients.contains(&key_id) => Err(ApiError::with_message(
            ErrorCode::KeysChanged,
            "The envelope is not sealed to the account's current encryption key; reload \
             GET /keys and seal again.",
        )
        .fields(["envelope.recipients"])),
        _ => Ok(()),
    }
}
