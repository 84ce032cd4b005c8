//! Devices beyond the first (docs/devices.md):
//!
//! - `GET /keys/backup/{recoveryKeyId}` (no credential) → the sealed recovery bundle;
//! - `POST /keys/devices` (no credential) → enrol a device certified by the account's AIK;
//! - `GET /keys/devices` (device) → the account's devices;
//! - `DELETE /keys/devices/{id}` (device) → revoke it and rotate the account encryption key;
//! - `GET /keys/bundle` (device) → the latest bundle sealed to the calling device;
//! - `POST /keys/reset` (device) → replace the account with a new one.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::devices::{
    DeviceBundleResponse, DeviceList, DeviceRecord, EnrolDeviceRequest, EnrolDeviceResponse,
    RecoveryBundle, ResetAccountRequest, RevokeDeviceRequest,
};
use herald_protocol::wire::{CreateAccountRequest, CreateAccountResponse, DEVICE_BEARER_PREFIX};
use herald_protocol::{DeviceId, ErrorCode};

use super::device_checks::{
    check_backup, check_bundles, device_cert, encryption_key_epoch, failed, signed_by_account,
    within_budget,
};
use super::JsonBody;
use crate::auth::{new_token, token_hash, DeviceAuth};
use crate::clock::format_time;
use crate::error::ApiError;
use crate::limits::ClientIp;
use crate::state::AppState;
use crate::store::devices::{DeviceError, DeviceResult, DeviceStore, NewDevice, Rotation};

/// Runs a blocking [`DeviceStore`] call on tokio's blocking pool.
pub(super) async fn device_store<T, F>(state: &AppState, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&dyn DeviceStore) -> DeviceResult<T> + Send + 'static,
{
    let store = state.inner.store.clone();
    tokio::task::spawn_blocking(move || f(store.devices()))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::from)
}

/// `GET /keys/backup/{recoveryKeyId}`: the bundle sealed to that recovery key, or 404.
pub(super) async fn backup_by_key_id(
    State(state): State<AppState>,
    client: ClientIp,
    Path(key_id): Path<String>,
) -> Result<Json<RecoveryBundle>, ApiError> {
    within_budget(&state, client)?;
    let id = key_id.clone();
    match device_store(&state, move |s| s.backup_by_key_id(&id)).await? {
        Some((_, backup)) => Ok(Json(RecoveryBundle {
            recovery_key_id: backup.recovery_key_id,
            sealed_bundle: backup.sealed_bundle,
        })),
        None => Err(failed(&state, client, ApiError::not_found())),
    }
}

/// `POST /keys/devices`: enrols a device whose certificate the account's AIK signed.
pub(super) async fn enrol(
    State(state): State<AppState>,
    client: ClientIp,
    JsonBody { value: req, .. }: JsonBody<EnrolDeviceRequest>,
) -> Result<(StatusCode, Json<EnrolDeviceResponse>), ApiError> {
    within_budget(&state, client)?;
    let cert = device_cert(&req.certificate, "certificate")?;
    let account = cert.account_id.clone();
    let statement = device_store(&state, move |s| s.statement(&account))
        .await?
        .ok_or_else(|| failed(&state, client, ApiError::not_found()))?;
    if !signed_by_account(&statement, &req.certificate) {
        return Err(failed(
            &state,
            client,
            ApiError::new(ErrorCode::BadSignature).fields(["certificate.signature"]),
        ));
    }
    let device_token = new_token(DEVICE_BEARER_PREFIX)?;
    let new = NewDevice {
        account_id: cert.account_id.clone(),
        device_id: cert.device_id.clone(),
        certificate: req.certificate,
        name: cert.name,
        platform: cert.platform,
        token_hash: token_hash(&device_token),
        now: state.now(),
    };
    device_store(&state, move |s| s.enrol_device(new))
        .await
        .map_err(|e| match e.code() {
            Some(ErrorCode::InvalidRequest) => ApiError::invalid(
                "certificate.deviceId",
                "A device with this id exists already.",
            ),
            _ => e,
        })?;
    tracing::info!(account = %cert.account_id, device = %cert.device_id, "device enrolled");
    Ok((
        StatusCode::CREATED,
        Json(EnrolDeviceResponse {
            account_id: cert.account_id,
            device_id: cert.device_id,
            device_token,
        }),
    ))
}

/// `GET /keys/devices`.
pub(super) async fn list(
    State(state): State<AppState>,
    auth: DeviceAuth,
) -> Result<Json<DeviceList>, ApiError> {
    let account = auth.account.clone();
    let rows = device_store(&state, move |s| s.list_devices(&account)).await?;
    Ok(Json(DeviceList {
        devices: rows
            .into_iter()
            .map(|r| DeviceRecord {
                id: r.id,
                name: r.name,
                platform: r.platform,
                created_at: format_time(r.created_at),
                last_seen_at: format_time(r.last_seen),
                revoked_at: r.revoked_at.map(format_time),
            })
            .collect(),
    }))
}

/// `DELETE /keys/devices/{id}`: revoke and rotate in one transaction.
pub(super) async fn revoke(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<RevokeDeviceRequest>,
) -> Result<StatusCode, ApiError> {
    let target = DeviceId::parse(&id).ok_or_else(ApiError::not_found)?;
    if target == auth.device_id {
        return Err(ApiError::new(ErrorCode::CannotRevokeSelf));
    }
    let epoch = encryption_key_epoch(&req.encryption_key, &auth.account)?;
    check_bundles(&req.bundles)?;
    if let Some(backup) = &req.backup {
        check_backup(backup, "backup.")?;
    }
    let rotation = Rotation {
        account_id: auth.account.clone(),
        target: target.clone(),
        epoch,
        encryption_key: req.encryption_key,
        bundles: req
            .bundles
            .into_iter()
            .map(|b| (b.device_id, b.sealed_bundle))
            .collect(),
        backup: req.backup,
        now: state.now(),
    };
    device_store(&state, move |s| s.revoke_device(rotation))
        .await
        .map_err(|e| match e.code() {
            Some(ErrorCode::InvalidRequest) => ApiError::invalid(
                "backup.recoveryKeyId",
                "This recovery key id belongs to another account.",
            ),
            _ => e,
        })?;
    tracing::info!(account = %auth.account, device = %auth.device_id, revoked = %target, epoch, "device revoked, key rotated");
    // Its session is refused from now on; its open sockets close too.
    state
        .hub()
        .publish(&auth.account, crate::hub::Change::DeviceRevoked(target));
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /keys/bundle`: the latest bundle sealed to the calling device, or 404.
pub(super) async fn bundle(
    State(state): State<AppState>,
    auth: DeviceAuth,
) -> Result<Json<DeviceBundleResponse>, ApiError> {
    let device = auth.device_id.clone();
    let row = device_store(&state, move |s| s.device_bundle(&device))
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(DeviceBundleResponse {
        epoch: row.epoch,
        sealed_bundle: row.sealed_bundle,
        created_at: format_time(row.created_at),
    }))
}

/// `POST /keys/reset`: delete the account and create a new one (new AIK, so a new id).
pub(super) async fn reset(
    State(state): State<AppState>,
    auth: DeviceAuth,
    JsonBody { value: req, .. }: JsonBody<ResetAccountRequest>,
) -> Result<(StatusCode, Json<CreateAccountResponse>), ApiError> {
    check_backup(&req.backup, "backup.")?;
    let device_token = new_token(DEVICE_BEARER_PREFIX)?;
    let new = super::accounts::new_account(
        CreateAccountRequest {
            statement: req.statement,
            encryption_key: req.encryption_key,
            device: req.device,
        },
        token_hash(&device_token),
        state.now(),
    )?;
    if new.account_id == auth.account {
        return Err(ApiError::invalid(
            "statement.identityKey",
            "A reset needs a new identity key.",
        ));
    }
    let (old, account_id, device_id) = (
        auth.account.clone(),
        new.account_id.clone(),
        new.device_id.clone(),
    );
    let backup = req.backup;
    let files = device_store(&state, move |s| s.reset_account(&old, new, &backup))
        .await
        .map_err(|e| match e.code() {
            Some(ErrorCode::InvalidRequest) => ApiError::invalid(
                "backup.recoveryKeyId",
                "This recovery key id belongs to another account.",
            ),
            _ => e,
        })?;
    // The rows are gone; now the bytes. A failure leaves an orphan blob, never a reachable one.
    for id in files
        .iter()
        .filter_map(|f| herald_protocol::FileId::parse(f))
    {
        if let Err(e) = state.inner.blobs.remove(&id).await {
            tracing::warn!(file = %id, error = %e, "reset: removing a file's bytes failed");
        }
    }
    tracing::info!(old = %auth.account, account = %account_id, files = files.len(), "account reset");
    // Every credential of the old account is gone: its sockets and waiting calls end.
    state
        .hub()
        .publish(&auth.account, crate::hub::Change::AccountClosed);
    Ok((
        StatusCode::CREATED,
        Json(CreateAccountResponse {
            account_id,
            device_id,
            device_token,
        }),
    ))
}

/// How long an expired pairing request is kept, so a late poll still reads
/// `pairing_expired` rather than `not_found`.
const PAIRING_RETENTION: chrono::Duration = chrono::Duration::hours(1);

impl AppState {
    /// Deletes pairing requests that expired more than an hour ago (with any sealed bundle
    /// they still hold). The sweeper calls this periodically; tests may call it directly.
    /// Returns how many were deleted.
    pub async fn sweep_pairings(&self) -> crate::error::Result<usize> {
        let before = self.now() - PAIRING_RETENTION;
        let store = self.inner.store.clone();
        tokio::task::spawn_blocking(move || store.devices().sweep_pairings(before))
            .await
            .map_err(|e| crate::Error::Io(std::io::Error::other(e)))?
            .map_err(|e| match e {
                DeviceError::Store(s) => crate::Error::Store(s),
                other => crate::Error::Io(std::io::Error::other(other.to_string())),
            })
    }
}
