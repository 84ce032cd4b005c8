//! Wire bodies of the device routes (docs/devices.md): unlocking a new device with the
//! recovery key (`GET /keys/backup/{recoveryKeyId}`, `POST /keys/devices`), typed-code pairing
//! (`/keys/pairings…`), the device list and revocation with key rotation (`/keys/devices…`,
//! `GET /keys/bundle`) and Reset (`POST /keys/reset`).
//!
//! Binary values are base64url without padding; times are RFC 3339 UTC with milliseconds from
//! the relay's clock; field names are camelCase. The relay never sees a pairing code, a PAKE
//! key or an unsealed bundle: everything secret here is sealed or a one-way PAKE message.

use serde::{Deserialize, Serialize};

use crate::envelope::Certificate;
use crate::ids::{AccountId, DeviceId, PairingId};
use crate::wire::RecoveryBackup;

/// Prefix of a pairing poll token (the new device's credential for its own request).
pub const PAIRING_POLL_PREFIX: &str = "hdp_";
/// How long a pairing request lives, by the relay's clock: 10 minutes.
pub const PAIRING_TTL_SECS: i64 = 10 * 60;
/// Longest accepted SPAKE2 message or confirmation MAC, encoded (both are 32–33 bytes).
pub const MAX_PAIRING_FIELD_CHARS: usize = 64;
/// Largest accepted sealed bundle (to a device or in a pairing), encoded: 16 KiB, as backups.
pub const MAX_SEALED_BUNDLE_CHARS: usize = crate::wire::MAX_BACKUP_CHARS;
/// Most live (not revoked) devices an account may hold: enrolment (`POST /keys/devices`) and
/// pairing (response and completion) are refused with `409 device_limit_reached` at this
/// count until a device is revoked. It also bounds the per-device bundles of a rotation.
/// Our choice; the reference documentation names no limit (docs/devices.md).
pub const MAX_DEVICES: usize = 100;

/// `GET /keys/backup/{recoveryKeyId}` (no credential): the sealed bundle only. The id is the
/// key id of the recovery public key, which only the recovery key's holder (and the account's
/// devices) can compute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RecoveryBundle {
    pub recovery_key_id: String,
    /// base64url of herald-crypto `seal_bundle_to_recovery` output.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub sealed_bundle: String,
}

/// `POST /keys/devices` (no credential): enrol a device whose certificate is signed by the
/// account identity key (the new device opened the recovery backup, so it holds the AIK). Name
/// and platform come from the certificate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EnrolDeviceRequest {
    /// `CertificateBody::Device`, signed by the AIK of the account it names.
    pub certificate: Certificate,
}

/// Answer to `POST /keys/devices` and to a completed pairing's poll: the new device session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EnrolDeviceResponse {
    pub account_id: AccountId,
    pub device_id: DeviceId,
    /// `hds_…` device session bearer, returned once.
    pub device_token: String,
}

/// `POST /keys/pairings` (no credential): a new device asks to be approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatePairingRequest {
    /// Made by the new device (`pai_` + 128 random bits); bound into the PAKE.
    pub id: PairingId,
    /// Device name shown to the approver (1–100 characters).
    pub name: String,
    /// Platform label (≤ 100 characters).
    pub platform: String,
    /// base64url Ed25519 public key of the new device (32 bytes).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub signing_key: String,
    /// base64url X25519 public key of the new device (32 bytes).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub encryption_key: String,
    /// base64url SPAKE2 message of the new device (side A).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub spake_message: String,
}

/// Answer to `POST /keys/pairings` (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatePairingResponse {
    pub pairing_id: PairingId,
    /// `hdp_…`: the new device's credential for polling and confirming this request.
    pub poll_token: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub expires_at: String,
}

/// One pending request in `GET /keys/pairings` (device session).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingRequestInfo {
    pub id: PairingId,
    pub name: String,
    pub platform: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub signing_key: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub encryption_key: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub spake_message: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub expires_at: String,
}

/// `GET /keys/pairings`: pending, unexpired, unanswered requests, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingList {
    pub pairings: Vec<PairingRequestInfo>,
}

/// `POST /keys/pairings/{id}/response` (device session): the approver's one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingResponseRequest {
    /// base64url SPAKE2 message of the approver (side B).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub spake_message: String,
    /// base64url HMAC-SHA256 key confirmation of the approver.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub confirmation: String,
}

/// `POST /keys/pairings/{id}/confirmation` (poll token): the new device's key confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingConfirmationRequest {
    /// base64url HMAC-SHA256 key confirmation of the new device.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub confirmation: String,
}

/// `POST /keys/pairings/{id}/complete` (the approving device): certificate and bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingCompleteRequest {
    /// `CertificateBody::Device` for the new device's keys, signed by the AIK.
    pub certificate: Certificate,
    /// base64url of the account key bundle sealed to the new device (HPKE PSK mode).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub sealed_bundle: String,
}

/// Answer to `POST /keys/pairings/{id}/complete` (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingCompleteResponse {
    pub device_id: DeviceId,
}

/// Where a pairing request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum PairingStatus {
    /// Waiting for an approver's response.
    Pending,
    /// An approver answered; waiting for the new device's confirmation.
    Responded,
    /// The new device confirmed; waiting for the approver to complete.
    Confirmed,
    /// The device is registered; the new device collects its session.
    Completed,
    /// Key confirmation failed on either side (a wrong code); the request is burned.
    Failed,
}

impl PairingStatus {
    /// Wire text.
    pub fn as_str(self) -> &'static str {
        match self {
            PairingStatus::Pending => "pending",
            PairingStatus::Responded => "responded",
            PairingStatus::Confirmed => "confirmed",
            PairingStatus::Completed => "completed",
            PairingStatus::Failed => "failed",
        }
    }

    /// Parses wire text.
    pub fn parse(s: &str) -> Option<PairingStatus> {
        Some(match s {
            "pending" => PairingStatus::Pending,
            "responded" => PairingStatus::Responded,
            "confirmed" => PairingStatus::Confirmed,
            "completed" => PairingStatus::Completed,
            "failed" => PairingStatus::Failed,
            _ => return None,
        })
    }
}

/// The approver's half, as the new device reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingApproval {
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub spake_message: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub confirmation: String,
    /// The approving account's self-signed statement (its AIK is bound into the
    /// confirmation transcript).
    pub statement: Certificate,
}

/// What a completed pairing hands the new device (once for the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingCompletion {
    pub certificate: Certificate,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub sealed_bundle: String,
    pub account_id: AccountId,
    pub device_id: DeviceId,
    /// `hds_…`, present on the one poll that collects it, absent afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_token: Option<String>,
}

/// `GET /keys/pairings/{id}` (the poll token, or the approving account's device session).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingState {
    pub id: PairingId,
    pub status: PairingStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub expires_at: String,
    /// Set once an approver responded (for the new device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<PairingApproval>,
    /// The new device's confirmation, once posted (for the approver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Base64Url>))]
    pub confirmation: Option<String>,
    /// Set once completed (for the new device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion: Option<PairingCompletion>,
}

/// One device in `GET /keys/devices` (device session), revoked ones included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceRecord {
    pub id: DeviceId,
    pub name: String,
    pub platform: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
    /// Updated at most every 5 minutes.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub last_seen_at: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub revoked_at: Option<String>,
}

/// `GET /keys/devices`: oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceList {
    pub devices: Vec<DeviceRecord>,
}

/// The rotated account key bundle sealed to one remaining device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceBundle {
    pub device_id: DeviceId,
    /// base64url of herald-crypto `seal_bundle_to_device` output.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub sealed_bundle: String,
}

/// `DELETE /keys/devices/{id}` (device session): revoke a device and rotate the AEK, in one
/// transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RevokeDeviceRequest {
    /// `CertificateBody::EncryptionKey` of the next epoch (current + 1).
    pub encryption_key: Certificate,
    /// The new bundle sealed to every remaining (non-revoked) device, exactly once each.
    pub bundles: Vec<DeviceBundle>,
    /// The new bundle re-sealed to the recovery key (omit only when the account has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<RecoveryBackup>,
}

/// `GET /keys/bundle` (device session): the latest bundle sealed to the calling device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceBundleResponse {
    /// The AEK epoch the bundle was made for.
    pub epoch: u32,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub sealed_bundle: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
}

/// `POST /keys/reset` (device session): replace the account with a new one (new AIK, so a new
/// account id). Shaped like `POST /accounts` plus the new recovery backup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ResetAccountRequest {
    pub statement: Certificate,
    pub encryption_key: Certificate,
    pub device: Certificate,
    pub backup: RecoveryBackup,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairing_status_round_trip() {
        for s in ["pending", "responded", "confirmed", "completed", "failed"] {
            let status = PairingStatus::parse(s).expect("known status");
            assert_eq!(status.as_str(), s, "status {s}");
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::json!(s),
                "serde uses the wire text"
            );
        }
        assert!(PairingStatus::parse("done").is_none(), "unknown text");
    }

    #[test]
    fn pairing_state_omits_absent_parts() {
        let state = PairingState {
            id: PairingId::from_random(&[1; 16]),
            status: PairingStatus::Pending,
            expires_at: "2026-01-01T00:10:00.000Z".into(),
            approval: None,
            confirmation: None,
            completion: None,
        };
        assert_eq!(
            serde_json::to_value(&state).unwrap(),
            serde_json::json!({
                "id": state.id.as_str(),
                "status": "pending",
                "expiresAt": "2026-01-01T00:10:00.000Z"
            }),
            "snapshot of a pending pairing"
        );
    }
}
