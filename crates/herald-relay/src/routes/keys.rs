//! `GET /keys` (device or connection): what a sender needs to seal to the account and what a
//! receiver needs to verify senders. Revoked devices and connections are listed apart, with
//! their revocation time.
//! `PUT /keys/backup` and `GET /keys/backup` (devices only): the recovery backup.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::wire::{KeysResponse, RecoveryBackup, RevokedCertificate};

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
        revoked_devices: revoked(keys.revoked_devices),
        revoked_connections: revoked(keys.revoked_connections),
    }))
}

/// Revoked certificates in wire form: readers still verify what they signed before
/// `revokedAt` (the relay only vouches for ordering, which it controls anyway).
fn revoked(
    list: Vec<(
        herald_protocol::envelope::Certificate,
        chrono::DateTime<chrono::Utc>,
    )>,
) -> Vec<RevokedCertificate> {
    list.into_iter()
        .map(|(certificate, at)| RevokedCertificate {
            certificate,
            revoked_at: crate::clock::format_time(at),
        })
        .collect()
}

/// `PUT /keys/backup`: stores (replaces) the bundle sealed to the recovery key. The relay
/// checks shapes: a 32-byte public key whose key id is `recoveryKeyId` (ids are unique across
/// accounts: they address `GET /keys/backup/{recoveryKeyId}`), base64url bundle ≤ 16 KiB.
/// → 204.
pub(super) async fn put_backup(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody { value: backup, .. }: JsonBody<RecoveryBackup>,
) -> Result<StatusCode, ApiError> {
    super::device_checks::check_backup(&backup, "")?;
    let account = auth.account.clone();
    let now = state.now();
    let stored = RecoveryBackup {
        updated_at: None,
        ..backup
    };
    state
        .store_call(move |s| s.put_backup(&account, &stored, now))
        .await
        .map_err(|e| match e {
            // The unique index on recovery key ids: the key is another account's.
            crate::store::StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                ApiError::invalid(
                    "recoveryKeyId",
                    "This recovery key id belongs to another account.",
                )
            }
            other => ApiError::from(other),
        })?;
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
