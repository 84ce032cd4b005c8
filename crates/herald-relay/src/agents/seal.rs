//! Sealing a notification on arrival (docs/agents.md, "Storage"): the whitelisted fields are
//! serialized to JSON and sealed with HPKE base mode to the account's current encryption key
//! (herald-crypto `seal_notification`); the plaintext buffer is wiped, and only the sealed
//! form is stored. The relay holds no key that opens it.

use herald_crypto::{seal_notification, Recipient};
use herald_protocol::envelope::{b64_decode, CertificateBody};
use herald_protocol::notify::{NotificationContent, SealedNotification};
use herald_protocol::{AccountId, NotificationId};
use zeroize::Zeroizing;

use crate::error::ApiError;
use crate::state::AppState;

/// The account's current encryption key, from the last epoch's certificate.
async fn current_key(state: &AppState, account: &AccountId) -> Result<Recipient, ApiError> {
    let owned = account.clone();
    let keys = state.store(move |s| s.account_keys(&owned)).await?;
    let cert = keys
        .encryption_keys
        .last()
        .ok_or_else(|| ApiError::internal("account has no encryption key"))?;
    let Some(CertificateBody::EncryptionKey { public_key, .. }) = cert.body_unverified() else {
        return Err(ApiError::internal(
            "stored encryption key certificate unreadable",
        ));
    };
    let public: [u8; 32] = b64_decode(&public_key)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| ApiError::internal("stored encryption key is not 32 bytes"))?;
    // The key id is computed from the key (devices verified the certificate that names it).
    Ok(Recipient::from_public_key(public))
}

/// Seals `content` to the account's current encryption key, bound to the account and the
/// relay's notification id. The plaintext is consumed and wiped.
pub(crate) async fn seal(
    state: &AppState,
    account: &AccountId,
    id: &NotificationId,
    content: NotificationContent,
) -> Result<SealedNotification, ApiError> {
    let recipient = current_key(state, account).await?;
    let plaintext = Zeroizing::new(serde_json::to_vec(&content).map_err(ApiError::internal)?);
    drop(content);
    seal_notification(&recipient, account, id, &plaintext).map_err(ApiError::internal)
}
