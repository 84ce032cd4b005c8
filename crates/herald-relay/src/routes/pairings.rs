//! Typed-code pairing (docs/devices.md, "Pairing"). The relay relays PAKE messages and key
//! confirmations it cannot check, enforces one response per request and the 10-minute expiry,
//! registers the approved device and hands its session to the new device once.
//!
//! - `POST /keys/pairings` (no credential) → `{pairingId, pollToken, expiresAt}`;
//! - `GET /keys/pairings` (device) → pending requests;
//! - `GET /keys/pairings/{id}` (poll token, or the approving account's device) → its state;
//! - `POST /keys/pairings/{id}/response` (device) → the approver's one attempt;
//! - `POST /keys/pairings/{id}/confirmation` (poll token) → the new device's confirmation;
//! - `POST /keys/pairings/{id}/failed` (poll token, or the approving device) → burn it;
//! - `POST /keys/pairings/{id}/complete` (the approving account's device) → register it.

use axum::extract::{FromRequestParts, Path, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::Json;
use herald_protocol::devices::{
    CreatePairingRequest, CreatePairingResponse, PairingApproval, PairingCompleteRequest,
    PairingCompleteResponse, PairingCompletion, PairingConfirmationRequest, PairingList,
    PairingRequestInfo, PairingResponseRequest, PairingState, PairingStatus,
    MAX_PAIRING_FIELD_CHARS, MAX_SEALED_BUNDLE_CHARS, PAIRING_POLL_PREFIX, PAIRING_TTL_SECS,
};
use herald_protocol::wire::DEVICE_BEARER_PREFIX;
use herald_protocol::{ErrorCode, PairingId};
use subtle::ConstantTimeEq;

use super::accounts::{check_name, MAX_NAME_CHARS};
use super::device_checks::{device_cert, failed, key32, sealed, within_budget};
use super::devices::device_store;
use super::JsonBody;
use crate::auth::{new_token, token_hash, DeviceAuth};
use crate::clock::format_time;
use crate::error::ApiError;
use crate::limits::ClientIp;
use crate::state::AppState;
use crate::store::devices::{NewDevice, NewPairing, PairingResponse, PairingRow};

/// Who calls a pairing route that both sides use.
pub(super) enum PairingCaller {
    /// The new device, by its poll token (hashed), and the address its budget counts against.
    NewDevice([u8; 32], ClientIp),
    /// A device session.
    Device(DeviceAuth),
}

impl FromRequestParts<AppState> for PairingCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let poll = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|token| token.starts_with(PAIRING_POLL_PREFIX));
        match poll {
            Some(token) => {
                let hash = token_hash(token);
                let Ok(client) = ClientIp::from_request_parts(parts, state).await;
                Ok(PairingCaller::NewDevice(hash, client))
            }
            None => Ok(PairingCaller::Device(
                DeviceAuth::from_request_parts(parts, state).await?,
            )),
        }
    }
}

fn pairing_id(id: &str) -> Result<PairingId, ApiError> {
    PairingId::parse(id).ok_or_else(ApiError::not_found)
}

/// The request `id` if the caller may see it: the new device by its poll token (compared in
/// constant time; a wrong token is 401), a device of the approving account (else 404).
async fn visible(
    state: &AppState,
    id: &PairingId,
    caller: &PairingCaller,
) -> Result<PairingRow, ApiError> {
    if let PairingCaller::NewDevice(_, client) = caller {
        within_budget(state, *client)?;
    }
    let lookup = id.clone();
    let row = device_store(state, move |s| s.pairing(&lookup)).await?;
    match (caller, row) {
        (PairingCaller::NewDevice(hash, _), Some(row))
            if bool::from(row.poll_token_hash.ct_eq(hash)) =>
        {
            Ok(row)
        }
        (PairingCaller::NewDevice(_, client), _) => {
            Err(failed(state, *client, ApiError::unauthorized()))
        }
        (PairingCaller::Device(auth), Some(row))
            if row.account_id.as_ref() == Some(&auth.account) =>
        {
            Ok(row)
        }
        (PairingCaller::Device(_), _) => Err(ApiError::not_found()),
    }
}

fn check_field(value: &str, field: &str) -> Result<(), ApiError> {
    sealed(value, MAX_PAIRING_FIELD_CHARS, field)
}

/// `POST /keys/pairings`.
pub(super) async fn create(
    State(state): State<AppState>,
    client: ClientIp,
    JsonBody { value: req, .. }: JsonBody<CreatePairingRequest>,
) -> Result<(StatusCode, Json<CreatePairingResponse>), ApiError> {
    check_name(&req.name, "name")?;
    if req.platform.chars().count() > MAX_NAME_CHARS || req.platform.chars().any(char::is_control) {
        return Err(ApiError::invalid(
            "platform",
            "The platform must be at most 100 characters without control characters.",
        ));
    }
    key32(&req.signing_key, "signingKey")?;
    key32(&req.encryption_key, "encryptionKey")?;
    check_field(&req.spake_message, "spakeMessage")?;
    let now = state.now();
    if !state.inner.limits.pairings.spend(client, now) {
        return Err(ApiError::new(ErrorCode::RateLimited));
    }
    let poll_token = new_token(PAIRING_POLL_PREFIX)?;
    let expires_at = now + chrono::TimeDelta::seconds(PAIRING_TTL_SECS);
    let new = NewPairing {
        id: req.id.clone(),
        name: req.name,
        platform: req.platform,
        signing_key: req.signing_key,
        encryption_key: req.encryption_key,
        spake_message: req.spake_message,
        poll_token_hash: token_hash(&poll_token),
        now,
        expires_at,
    };
    device_store(&state, move |s| s.create_pairing(new)).await?;
    tracing::info!(pairing = %req.id, "pairing requested");
    Ok((
        StatusCode::CREATED,
        Json(CreatePairingResponse {
            pairing_id: req.id,
            poll_token,
            expires_at: format_time(expires_at),
        }),
    ))
}

/// `GET /keys/pairings`: pending, unexpired requests, newest first.
pub(super) async fn list(
    State(state): State<AppState>,
    _auth: DeviceAuth,
) -> Result<Json<PairingList>, ApiError> {
    let now = state.now();
    let rows = device_store(&state, move |s| s.pending_pairings(now)).await?;
    Ok(Json(PairingList {
        pairings: rows
            .into_iter()
            .map(|r| PairingRequestInfo {
                id: r.id,
                name: r.name,
                platform: r.platform,
                signing_key: r.signing_key,
                encryption_key: r.encryption_key,
                spake_message: r.spake_new_device,
                created_at: format_time(r.created_at),
                expires_at: format_time(r.expires_at),
            })
            .collect(),
    }))
}

/// `GET /keys/pairings/{id}`.
pub(super) async fn get(
    State(state): State<AppState>,
    caller: PairingCaller,
    Path(id): Path<String>,
) -> Result<Json<PairingState>, ApiError> {
    let id = pairing_id(&id)?;
    let row = visible(&state, &id, &caller).await?;
    let now = state.now();
    if row.status != PairingStatus::Completed
        && row.status != PairingStatus::Failed
        && row.expires_at <= now
    {
        return Err(ApiError::new(ErrorCode::PairingExpired));
    }
    let mut out = PairingState {
        id: row.id.clone(),
        status: row.status,
        expires_at: format_time(row.expires_at),
        approval: None,
        confirmation: None,
        completion: None,
    };
    match caller {
        PairingCaller::Device(_) => out.confirmation = row.confirmation_new_device,
        PairingCaller::NewDevice(..) => {
            if let (Some(account), Some(spake), Some(confirmation)) = (
                row.account_id.clone(),
                row.spake_approver,
                row.confirmation_approver,
            ) {
                let statement = device_store(&state, move |s| s.statement(&account))
                    .await?
                    .ok_or_else(|| ApiError::new(ErrorCode::PairingFailed))?;
                out.approval = Some(PairingApproval {
                    spake_message: spake,
                    confirmation,
                    statement,
                });
            }
            if let (Some(account_id), Some(device_id), Some(certificate), Some(sealed_bundle)) = (
                row.account_id,
                row.device_id,
                row.certificate,
                row.sealed_bundle,
            ) {
                let device_token = if row.token_collected {
                    None
                } else {
                    let token = new_token(DEVICE_BEARER_PREFIX)?;
                    let hash = token_hash(&token);
                    let pid = id.clone();
                    device_store(&state, move |s| s.collect_pairing_session(&pid, &hash))
                        .await?
                        .then_some(token)
                };
                out.completion = Some(PairingCompletion {
                    certificate,
                    sealed_bundle,
                    account_id,
                    device_id,
                    device_token,
                });
            }
        }
    }
    Ok(Json(out))
}

/// `POST /keys/pairings/{id}/response`: accepted once per request.
pub(super) async fn respond(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<PairingResponseRequest>,
) -> Result<StatusCode, ApiError> {
    let id = pairing_id(&id)?;
    check_field(&req.spake_message, "spakeMessage")?;
    check_field(&req.confirmation, "confirmation")?;
    let response = PairingResponse {
        id: id.clone(),
        account_id: auth.account.clone(),
        device_id: auth.device_id.clone(),
        spake_message: req.spake_message,
        confirmation: req.confirmation,
        now: state.now(),
    };
    device_store(&state, move |s| s.respond_pairing(response)).await?;
    tracing::info!(pairing = %id, account = %auth.account, device = %auth.device_id, "pairing answered");
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /keys/pairings/{id}/confirmation` (the new device).
pub(super) async fn confirm(
    State(state): State<AppState>,
    caller: PairingCaller,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<PairingConfirmationRequest>,
) -> Result<StatusCode, ApiError> {
    let id = pairing_id(&id)?;
    if matches!(caller, PairingCaller::Device(_)) {
        return Err(ApiError::forbidden());
    }
    visible(&state, &id, &caller).await?;
    check_field(&req.confirmation, "confirmation")?;
    let now = state.now();
    device_store(&state, move |s| {
        s.confirm_pairing(&id, &req.confirmation, now)
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /keys/pairings/{id}/failed` (either side): a confirmation did not verify.
pub(super) async fn fail(
    State(state): State<AppState>,
    caller: PairingCaller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = pairing_id(&id)?;
    visible(&state, &id, &caller).await?;
    let now = state.now();
    let pid = id.clone();
    device_store(&state, move |s| s.fail_pairing(&pid, now)).await?;
    tracing::info!(pairing = %id, "pairing failed key confirmation");
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /keys/pairings/{id}/complete` (a device of the approving account).
pub(super) async fn complete(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<PairingCompleteRequest>,
) -> Result<(StatusCode, Json<PairingCompleteResponse>), ApiError> {
    let id = pairing_id(&id)?;
    let row = visible(&state, &id, &PairingCaller::Device(auth.clone())).await?;
    // The state first: a step out of order is reported as such whatever the body holds (the
    // store checks again inside its transaction).
    match row.status {
        PairingStatus::Failed => return Err(ApiError::new(ErrorCode::PairingFailed)),
        _ if row.expires_at <= state.now() => return Err(ApiError::new(ErrorCode::PairingExpired)),
        PairingStatus::Confirmed => {}
        _ => return Err(ApiError::new(ErrorCode::PairingNotReady)),
    }
    let cert = device_cert(&req.certificate, "certificate")?;
    if cert.account_id != auth.account {
        return Err(ApiError::invalid(
            "certificate.accountId",
            "The device belongs to another account.",
        ));
    }
    if cert.signing_key != row.signing_key || cert.encryption_key != row.encryption_key {
        return Err(ApiError::invalid(
            "certificate",
            "The certificate must carry the keys of the pairing request.",
        ));
    }
    sealed(&req.sealed_bundle, MAX_SEALED_BUNDLE_CHARS, "sealedBundle")?;
    // The session is made when the new device collects it; until then nobody holds a token
    // whose hash is this random value.
    let placeholder = token_hash(&new_token("unusable_")?);
    let device = NewDevice {
        account_id: auth.account.clone(),
        device_id: cert.device_id.clone(),
        certificate: req.certificate,
        name: cert.name,
        platform: cert.platform,
        token_hash: placeholder,
        now: state.now(),
    };
    let sealed_bundle = req.sealed_bundle;
    let pid = id.clone();
    device_store(&state, move |s| {
        s.complete_pairing(&pid, device, &sealed_bundle)
    })
    .await
    .map_err(|e| match e.code() {
        Some(ErrorCode::InvalidRequest) => ApiError::invalid(
            "certificate.deviceId",
            "A device with this id exists already.",
        ),
        _ => e,
    })?;
    tracing::info!(pairing = %id, account = %auth.account, device = %cert.device_id, "device paired");
    Ok((
        StatusCode::CREATED,
        Json(PairingCompleteResponse {
            device_id: cert.device_id,
        }),
    ))
}
