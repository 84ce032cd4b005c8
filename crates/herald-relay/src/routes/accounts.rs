//! `POST /accounts`: the first device creates the account with its statement, first
//! encryption key and own certificate. The relay does not verify signatures (devices do); it
//! checks that the three certificates parse, have the right types, and name one account.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::envelope::{b64_decode, Certificate, CertificateBody};
use herald_protocol::wire::{CreateAccountRequest, CreateAccountResponse, DEVICE_BEARER_PREFIX};
use herald_protocol::AccountId;

use super::JsonBody;
use crate::auth::{new_token, token_hash};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{NewAccount, StoreError};

/// Length of an Ed25519 signature.
const SIGNATURE_LEN: usize = 64;
/// Longest device or connection name accepted.
pub(super) const MAX_NAME_CHARS: usize = 100;

/// Parses a certificate's body (unverified) and checks its signature has the Ed25519 shape.
pub(super) fn certificate_body(
    cert: &Certificate,
    field: &str,
) -> Result<CertificateBody, ApiError> {
    if b64_decode(&cert.signature).map(|s| s.len()) != Some(SIGNATURE_LEN) {
        return Err(ApiError::invalid(
            &format!("{field}.signature"),
            "The signature must be 64 bytes of base64url.",
        ));
    }
    cert.body_unverified().ok_or_else(|| {
        ApiError::invalid(
            &format!("{field}.payload"),
            "The certificate payload must be base64url of a certificate body.",
        )
    })
}

/// Checks a device or connection name under the one rule of titles and names
/// (`herald_protocol::text::check_label`): not blank, 1–100 characters, no control, line-break,
/// bidirectional or zero-width characters.
pub(super) fn check_name(name: &str, field: &str) -> Result<(), ApiError> {
    herald_protocol::text::check_label(name, MAX_NAME_CHARS)
        .map_err(|e| ApiError::invalid(field, format!("The name {e}.")))
}

/// Label of the account fingerprint (docs/protocol.md, "Identifiers"); herald-crypto uses the
/// same one, and the relay's tests create accounts with herald-crypto's derivation.
const ACCOUNT_FINGERPRINT_LABEL: &[u8] = b"herald.v1/account-fingerprint";

/// The account id must be derived from the identity key's fingerprint
/// (`acc_` + base32 of its first 16 bytes), so nobody can claim an id with another key.
fn check_account_id(account_id: &AccountId, identity_key: &str) -> Result<(), ApiError> {
    let key = b64_decode(identity_key)
        .filter(|k| k.len() == 32)
        .ok_or_else(|| {
            ApiError::invalid(
                "statement.identityKey",
                "The identity key must be 32 bytes of base64url.",
            )
        })?;
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    ctx.update(ACCOUNT_FINGERPRINT_LABEL);
    ctx.update(&key);
    let digest = ctx.finish();
    let mut prefix = [0u8; 16];
    prefix.copy_from_slice(&digest.as_ref()[..16]);
    if AccountId::from_random(&prefix) != *account_id {
        return Err(ApiError::invalid(
            "statement.accountId",
            "The account id must be derived from the identity key's fingerprint.",
        ));
    }
    Ok(())
}

pub(super) async fn create(
    State(state): State<AppState>,
    JsonBody { value: req, .. }: JsonBody<CreateAccountRequest>,
) -> Result<(StatusCode, Json<CreateAccountResponse>), ApiError> {
    let device_token = new_token(DEVICE_BEARER_PREFIX)?;
    let new = new_account(req, token_hash(&device_token), state.now())?;
    let (account_id, device_id) = (new.account_id.clone(), new.device_id.clone());
    state
        .store_call(move |s| s.create_account(new))
        .await
        .map_err(|e| match e {
            StoreError::DeviceExists => {
                ApiError::invalid("device.deviceId", "A device with this id exists already.")
            }
            other => ApiError::from(other),
        })?;
    tracing::info!(account = %account_id, device = %device_id, "account created");
    Ok((
        StatusCode::CREATED,
        Json(CreateAccountResponse {
            account_id,
            device_id,
            device_token,
        }),
    ))
}

/// Checks a new account's three certificates (shapes only: the relay does not verify the
/// signatures of an account it has never seen) and builds the row to store. Also used by
/// `POST /keys/reset`.
pub(super) fn new_account(
    req: CreateAccountRequest,
    device_token_hash: crate::store::TokenHash,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<NewAccount, ApiError> {
    let CertificateBody::Account {
        account_id,
        identity_key,
        ..
    } = certificate_body(&req.statement, "statement")?
    else {
        return Err(ApiError::invalid(
            "statement",
            "The statement must be an account certificate.",
        ));
    };
    check_account_id(&account_id, &identity_key)?;
    let CertificateBody::EncryptionKey {
        account_id: key_account,
        epoch,
        ..
    } = certificate_body(&req.encryption_key, "encryptionKey")?
    else {
        return Err(ApiError::invalid(
            "encryptionKey",
            "The encryption key must be an encryption-key certificate.",
        ));
    };
    if key_account != account_id {
        return Err(ApiError::invalid(
            "encryptionKey.accountId",
            "The encryption key belongs to another account.",
        ));
    }
    if epoch != 1 {
        return Err(ApiError::invalid(
            "encryptionKey.epoch",
            "A new account starts at encryption-key epoch 1.",
        ));
    }
    let CertificateBody::Device {
        account_id: device_account,
        device_id,
        name,
        platform,
        ..
    } = certificate_body(&req.device, "device")?
    else {
        return Err(ApiError::invalid(
            "device",
            "The device must be a device certificate.",
        ));
    };
    if device_account != account_id {
        return Err(ApiError::invalid(
            "device.accountId",
            "The device belongs to another account.",
        ));
    }
    check_name(&name, "device.name")?;
    if platform.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::invalid(
            "device.platform",
            "The platform must be at most 100 characters.",
        ));
    }

    Ok(NewAccount {
        account_id,
        statement: req.statement,
        encryption_key: req.encryption_key,
        encryption_key_epoch: epoch,
        device_id,
        device: req.device,
        device_name: name,
        device_platform: platform,
        device_token_hash,
        now,
    })
}
