//! `GET /keys` (device or connection): what a sender needs to seal to the account and what a
//! receiver needs to verify senders. Revoked connections are left out.
//! `PUT /keys/backup` and `GET /keys/backup` (devices only): the recovery backup.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::envelope::b64_decode;
use herald_protocol::wire::{KeysResponse, RecoveryBackup, MAX_BACKUP_CHARS};

use super::JsonBody;

use crate::auth::{Auth, DeviceAuth};
use crate::error::ApiError;
use crate::state::AppState;

pub(super) async fn get(
    State(state): State<AppState>,
    auth: Auth,
) -> Result<Json<KeysResponse>, ApiError> {
    let account = auth.account().clone();
    let acc = account.clone();
    let keys = state.store(move |s| s.account_keys(&acc)).await?;
    Ok(Json(KeysResponse {
        account_id: account,
        statement: keys.statement,
        encryption_keys: keys.encryption_keys,
        devices: keys.devices,
        connections: keys.connections,
    }))
}

/// `PUT /keys/backup`: stores (replaces) the bundle sealed to the recovery key. The relay
/// checks only shapes: 32-byte public key, base64url bundle ≤ 16 KiB. → 204.
pub(super) async fn put_backup(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody { value: backup, .. }: JsonBody<RecoveryBackup>,
) -> Result<StatusCode, ApiError> {
    if b64_decode(&backup.recovery_public_key).map(|k| k.len()) != Some(32) {
        return Err(ApiError::invalid(
            "recoveryPublicKey",
            "The recovery public key must be 32 bytes of base64url.",
        ));
    }
    if backup.recovery_key_id.is_empty() || backup.recovery_key_id.len() > 64 {
        return Err(ApiError::invalid(
            "recoveryKeyId",
            "The recovery key id must be 1 to 64 characters.",
        ));
    }
    if backup.sealed_bundle.len() > MAX_BACKUP_CHARS || b64_decode(&backup.sealed_bundle).is_none()
    {
        return Err(ApiError::invalid(
            "sealedBundle",
            "The sealed bundle must be base64url of at most 16 KiB.",
        ));
    }
    let account = auth.account.clone();
    let now = state.now();
    let stored = RecoveryBackup {
        updated_at: None,
        ..backup
    };
    state
        .store(move |s| s.put_backup(&account, &stored, now))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /keys/backup`: the stored recovery backup, or 404 `not_found`.
pub(super) async fn get_backup(
    State(state): State<AppState>,
    auth: DeviceAuth,
) -> Result<Json<RecoveryBackup>, ApiError> {
    let account = auth.account.clone();
    Ok(Json(state.store(move |s| s.backup(&account)).await?))
}
