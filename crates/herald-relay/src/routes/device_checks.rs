//! Shape checks shared by the device routes, and the one signature the relay verifies itself:
//! a device certificate enrolled without a session (`POST /keys/devices`), where the AIK's
//! signature is the only credential. Elsewhere the relay checks shapes and devices verify.
//! Key ids and the certificate signature are herald-crypto's (docs/protocol.md, "Identifiers"
//! and "Certificates"), so the relay and the devices cannot disagree on them.

use herald_crypto::{key_id_x25519, verify_certificate};
use herald_protocol::devices::{DeviceBundle, MAX_SEALED_BUNDLE_CHARS};
use herald_protocol::envelope::{b64_decode, Certificate, CertificateBody};
use herald_protocol::wire::{RecoveryBackup, MAX_BACKUP_CHARS};
use herald_protocol::{AccountId, DeviceId, ErrorCode};

use super::accounts::{certificate_body, check_name, MAX_NAME_CHARS};
use crate::error::ApiError;
use crate::store::devices::DeviceError;

impl From<DeviceError> for ApiError {
    fn from(e: DeviceError) -> Self {
        match e {
            DeviceError::Refused(code) => ApiError::new(code),
            DeviceError::Store(e) => ApiError::from(e),
        }
    }
}

/// 32 bytes of base64url, or `invalid_request` naming `field`.
pub(super) fn key32(b64: &str, field: &str) -> Result<[u8; 32], ApiError> {
    b64_decode(b64)
        .and_then(|k| <[u8; 32]>::try_from(k).ok())
        .ok_or_else(|| ApiError::invalid(field, "The key must be 32 bytes of base64url."))
}

/// Base64url of at most `max` characters that decodes, or `invalid_request` naming `field`.
pub(super) fn sealed(b64: &str, max: usize, field: &str) -> Result<(), ApiError> {
    if b64.is_empty() || b64.len() > max || b64_decode(b64).is_none() {
        return Err(ApiError::invalid(
            field,
            format!("The value must be base64url of at most {max} characters."),
        ));
    }
    Ok(())
}

/// A recovery backup's shapes: a 32-byte public key whose key id is `recoveryKeyId` (so the
/// id addresses exactly that key) and a sealed bundle of at most 16 KiB encoded.
pub(super) fn check_backup(backup: &RecoveryBackup, prefix: &str) -> Result<(), ApiError> {
    let key = key32(
        &backup.recovery_public_key,
        &format!("{prefix}recoveryPublicKey"),
    )?;
    if backup.recovery_key_id != key_id_x25519(&key) {
        return Err(ApiError::invalid(
            &format!("{prefix}recoveryKeyId"),
            "The recovery key id must be the key id of the recovery public key.",
        ));
    }
    if backup.sealed_bundle.len() > MAX_BACKUP_CHARS || b64_decode(&backup.sealed_bundle).is_none()
    {
        return Err(ApiError::invalid(
            &format!("{prefix}sealedBundle"),
            "The sealed bundle must be base64url of at most 16 KiB.",
        ));
    }
    Ok(())
}

/// A device certificate's fields the relay stores.
pub(super) struct DeviceCert {
    pub account_id: AccountId,
    pub device_id: DeviceId,
    pub name: String,
    pub platform: String,
    pub signing_key: String,
    pub encryption_key: String,
}

/// Parses a device certificate (unverified) and checks its name and platform.
pub(super) fn device_cert(cert: &Certificate, field: &str) -> Result<DeviceCert, ApiError> {
    let CertificateBody::Device {
        account_id,
        device_id,
        name,
        platform,
        signing_key,
        encryption_key,
        ..
    } = certificate_body(cert, field)?
    else {
        return Err(ApiError::invalid(
            field,
            "The certificate must be a device certificate.",
        ));
    };
    check_name(&name, &format!("{field}.name"))?;
    if platform.chars().count() > MAX_NAME_CHARS || platform.chars().any(char::is_control) {
        return Err(ApiError::invalid(
            &format!("{field}.platform"),
            "The platform must be at most 100 characters without control characters.",
        ));
    }
    Ok(DeviceCert {
        account_id,
        device_id,
        name,
        platform,
        signing_key,
        encryption_key,
    })
}

/// Whether `cert` is signed by the identity key of the account `statement`
/// ([`herald_crypto::verify_certificate`]: Ed25519 over `"herald.v1/certificate" || payload`,
/// and a payload that parses as a certificate body).
pub(super) fn signed_by_account(statement: &Certificate, cert: &Certificate) -> bool {
    let Some(CertificateBody::Account { identity_key, .. }) = statement.body_unverified() else {
        return false;
    };
    let Some(key) = b64_decode(&identity_key).and_then(|k| <[u8; 32]>::try_from(k).ok()) else {
        return false;
    };
    verify_certificate(cert, &key).is_ok()
}

/// The epoch of an encryption-key certificate for `account`, after checking its shape.
pub(super) fn encryption_key_epoch(
    cert: &Certificate,
    account: &AccountId,
) -> Result<u32, ApiError> {
    let CertificateBody::EncryptionKey {
        account_id,
        epoch,
        key_id,
        public_key,
        ..
    } = certificate_body(cert, "encryptionKey")?
    else {
        return Err(ApiError::invalid(
            "encryptionKey",
            "The encryption key must be an encryption-key certificate.",
        ));
    };
    if &account_id != account {
        return Err(ApiError::invalid(
            "encryptionKey.accountId",
            "The encryption key belongs to another account.",
        ));
    }
    let key = key32(&public_key, "encryptionKey.publicKey")?;
    if key_id != key_id_x25519(&key) {
        return Err(ApiError::invalid(
            "encryptionKey.keyId",
            "The key id must be the key id of the public key.",
        ));
    }
    Ok(epoch)
}

/// Checks the per-device bundles of a rotation: at most one per device, each a sealed bundle.
pub(super) fn check_bundles(bundles: &[DeviceBundle]) -> Result<(), ApiError> {
    if bundles.len() > herald_protocol::devices::MAX_DEVICES {
        return Err(ApiError::invalid("bundles", "Too many bundles."));
    }
    for (i, b) in bundles.iter().enumerate() {
        sealed(
            &b.sealed_bundle,
            MAX_SEALED_BUNDLE_CHARS,
            &format!("bundles[{i}].sealedBundle"),
        )?;
    }
    Ok(())
}

/// `rate_limited` when the failure budget of the unauthenticated routes is used up.
/// Counted per client ([`crate::limits`]).
pub(super) fn within_budget(
    state: &crate::state::AppState,
    client: crate::limits::ClientIp,
) -> Result<(), ApiError> {
    if state.inner.limits.failures.available(client, state.now()) {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::RateLimited))
    }
}

/// Counts one failed unauthenticated attempt and passes `err` through.
pub(super) fn failed(
    state: &crate::state::AppState,
    client: crate::limits::ClientIp,
    err: ApiError,
) -> ApiError {
    state.inner.limits.failures.spend(client, state.now());
    err
}
