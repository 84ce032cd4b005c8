//! Operations of `routes/devices.rs` and `routes/pairings.rs` (docs/devices.md).
#![allow(dead_code)] // the functions only carry `#[utoipa::path]`

use herald_protocol::devices::{
    CreatePairingRequest, CreatePairingResponse, DeviceBundleResponse, DeviceList,
    EnrolDeviceRequest, EnrolDeviceResponse, PairingCompleteRequest, PairingCompleteResponse,
    PairingConfirmationRequest, PairingList, PairingResponseRequest, PairingState, RecoveryBundle,
    ResetAccountRequest, RevokeDeviceRequest,
};
use herald_protocol::wire::CreateAccountResponse;
use herald_protocol::{DeviceId, ErrorBody, PairingId};
use utoipa::OpenApi;

use super::responses::{NotFound, PayloadTooLarge, RateLimited};

/// More devices: recovery, enrolment, pairing, revocation, reset.
#[derive(OpenApi)]
#[openapi(paths(
    backup_by_key_id,
    enrol_device,
    list_devices,
    revoke_device,
    device_bundle,
    reset_account,
    create_pairing,
    list_pairings,
    get_pairing,
    respond_pairing,
    confirm_pairing,
    fail_pairing,
    complete_pairing,
))]
pub(super) struct DevicesApi;

/// The sealed account bundle for a recovery key id (no credential; rate limited).
#[utoipa::path(
    get,
    path = "/keys/backup/{recoveryKeyId}",
    tag = "devices",
    operation_id = "backupByKeyId",
    params(("recoveryKeyId" = String, Path, description = "Key id of the recovery public key (`k_…`), which only the recovery key's holder can compute.")),
    responses(
        (status = 200, description = "The sealed bundle.", body = RecoveryBundle),
        (status = 404, response = NotFound),
        (status = 429, response = RateLimited),
    )
)]
fn backup_by_key_id() {}

/// Enrol a device whose certificate the account identity key signed (no credential: the
/// signature is the credential; rate limited).
#[utoipa::path(
    post,
    path = "/keys/devices",
    tag = "devices",
    operation_id = "enrolDevice",
    request_body = EnrolDeviceRequest,
    responses(
        (status = 201, description = "Enrolled; `deviceToken` is returned once.", body = EnrolDeviceResponse),
        (status = 400, description = "`bad_signature`, `bad_request` or `invalid_request` (`certificate…`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`device_limit_reached`: the account has 100 live devices; revoke one first.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
        (status = 429, response = RateLimited),
    )
)]
fn enrol_device() {}

/// The account's devices, oldest first, revoked ones included.
#[utoipa::path(
    get,
    path = "/keys/devices",
    tag = "devices",
    operation_id = "listDevices",
    security(("deviceSession" = [])),
    responses((status = 200, description = "The devices.", body = DeviceList))
)]
fn list_devices() {}

/// Revoke another device and rotate the account encryption key, in one transaction.
#[utoipa::path(
    delete,
    path = "/keys/devices/{id}",
    tag = "devices",
    operation_id = "revokeDevice",
    params(("id" = DeviceId, Path, description = "The device to revoke.")),
    request_body = RevokeDeviceRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 204, description = "Revoked; the new epoch is current."),
        (status = 400, description = "`bad_request` or `invalid_request` (`encryptionKey…`, `bundles…`, `backup…`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`cannot_revoke_self`, `keys_changed` (wrong epoch, or bundles not covering exactly the remaining devices).", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn revoke_device() {}

/// The latest account key bundle sealed to the calling device.
#[utoipa::path(
    get,
    path = "/keys/bundle",
    tag = "devices",
    operation_id = "deviceBundle",
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "The bundle.", body = DeviceBundleResponse),
        (status = 404, response = NotFound),
    )
)]
fn device_bundle() {}

/// Reset: replace the account with a new one (new identity key, so a new account id).
#[utoipa::path(
    post,
    path = "/keys/reset",
    tag = "devices",
    operation_id = "resetAccount",
    request_body = ResetAccountRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 201, description = "The new account; the calling session now belongs to it.", body = CreateAccountResponse),
        (status = 400, description = "`bad_request` or `invalid_request` (`statement…`, `encryptionKey…`, `device…`, `backup…`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`account_exists`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn reset_account() {}

/// A new device asks to be approved (no credential; rate limited).
#[utoipa::path(
    post,
    path = "/keys/pairings",
    tag = "devices",
    operation_id = "createPairing",
    request_body = CreatePairingRequest,
    responses(
        (status = 201, description = "Created; `pollToken` (`hdp_…`) is the new device's credential for it.", body = CreatePairingResponse),
        (status = 400, description = "`bad_request` or `invalid_request` (`name`, `platform`, `signingKey`, `encryptionKey`, `spakeMessage`).", body = ErrorBody),
        (status = 409, description = "`pairing_id_taken`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
        (status = 429, response = RateLimited),
    )
)]
fn create_pairing() {}

/// Pending pairing requests, newest first.
#[utoipa::path(
    get,
    path = "/keys/pairings",
    tag = "devices",
    operation_id = "listPairings",
    security(("deviceSession" = [])),
    responses((status = 200, description = "Pending, unexpired, unanswered requests.", body = PairingList))
)]
fn list_pairings() {}

/// A pairing request's state (the new device's poll, or the approving account's device).
#[utoipa::path(
    get,
    path = "/keys/pairings/{id}",
    tag = "devices",
    operation_id = "getPairing",
    params(("id" = PairingId, Path, description = "The pairing request.")),
    security(("pairingPoll" = []), ("deviceSession" = [])),
    responses(
        (status = 200, description = "Its state; a completed one hands the new device its session once.", body = PairingState),
        (status = 404, response = NotFound),
        (status = 409, description = "`pairing_failed`.", body = ErrorBody),
        (status = 410, description = "`pairing_expired`.", body = ErrorBody),
        (status = 429, response = RateLimited),
    )
)]
fn get_pairing() {}

/// The approver's one response (SPAKE2 message and key confirmation).
#[utoipa::path(
    post,
    path = "/keys/pairings/{id}/response",
    tag = "devices",
    operation_id = "respondPairing",
    params(("id" = PairingId, Path, description = "The pairing request.")),
    request_body = PairingResponseRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 204, description = "Recorded."),
        (status = 400, description = "`bad_request` or `invalid_request` (`spakeMessage`, `confirmation`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`pairing_claimed`, `pairing_failed`, `pairing_not_ready`, `device_limit_reached` (the account has 100 live devices; revoke one first).", body = ErrorBody),
        (status = 410, description = "`pairing_expired`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn respond_pairing() {}

/// The new device's key confirmation.
#[utoipa::path(
    post,
    path = "/keys/pairings/{id}/confirmation",
    tag = "devices",
    operation_id = "confirmPairing",
    params(("id" = PairingId, Path, description = "The pairing request.")),
    request_body = PairingConfirmationRequest,
    security(("pairingPoll" = [])),
    responses(
        (status = 204, description = "Recorded."),
        (status = 400, description = "`bad_request` or `invalid_request` (`confirmation`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`pairing_failed`, `pairing_not_ready`.", body = ErrorBody),
        (status = 410, description = "`pairing_expired`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
        (status = 429, response = RateLimited),
    )
)]
fn confirm_pairing() {}

/// Burn a pairing request whose key confirmation failed (either side).
#[utoipa::path(
    post,
    path = "/keys/pairings/{id}/failed",
    tag = "devices",
    operation_id = "failPairing",
    params(("id" = PairingId, Path, description = "The pairing request.")),
    security(("pairingPoll" = []), ("deviceSession" = [])),
    responses(
        (status = 204, description = "Burned."),
        (status = 404, response = NotFound),
        (status = 409, description = "`pairing_not_ready` (already completed).", body = ErrorBody),
        (status = 429, response = RateLimited),
    )
)]
fn fail_pairing() {}

/// Register the approved device: its certificate and the sealed account bundle.
#[utoipa::path(
    post,
    path = "/keys/pairings/{id}/complete",
    tag = "devices",
    operation_id = "completePairing",
    params(("id" = PairingId, Path, description = "The pairing request.")),
    request_body = PairingCompleteRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 201, description = "Registered; the new device collects its session with its next poll.", body = PairingCompleteResponse),
        (status = 400, description = "`bad_request` or `invalid_request` (`certificate…`, `sealedBundle`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`pairing_failed`, `pairing_not_ready`, `pairing_claimed`, `device_limit_reached` (the account has 100 live devices; revoke one first).", body = ErrorBody),
        (status = 410, description = "`pairing_expired`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn complete_pairing() {}
