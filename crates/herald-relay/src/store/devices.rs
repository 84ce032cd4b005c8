//! Storage of devices beyond the first (docs/devices.md): enrolment with the recovery key,
//! typed-code pairing requests, the device list, revocation with key rotation (per-device
//! sealed bundles) and Reset. Kept in its own trait so the message store stays small;
//! [`Store::devices`](super::Store::devices) reaches it, so routes use the same blocking pool.
//!
//! Outcomes a client caused are [`DeviceError::Refused`] with their catalog code; everything
//! else is a [`StoreError`] and becomes `500 internal`.

use chrono::{DateTime, Utc};
use herald_protocol::devices::PairingStatus;
use herald_protocol::envelope::Certificate;
use herald_protocol::wire::RecoveryBackup;
use herald_protocol::{AccountId, DeviceId, ErrorCode, PairingId};

use super::{NewAccount, StoreError, TokenHash};

/// A refusal from the catalog, or a storage failure.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("refused: {}", .0.as_str())]
    Refused(ErrorCode),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for DeviceError {
    fn from(e: rusqlite::Error) -> Self {
        DeviceError::Store(StoreError::Sqlite(e))
    }
}

impl From<ErrorCode> for DeviceError {
    fn from(code: ErrorCode) -> Self {
        DeviceError::Refused(code)
    }
}

pub type DeviceResult<T> = std::result::Result<T, DeviceError>;

/// A device to register (enrolment or a completed pairing).
#[derive(Debug, Clone)]
pub struct NewDevice {
    pub account_id: AccountId,
    pub device_id: DeviceId,
    pub certificate: Certificate,
    pub name: String,
    pub platform: String,
    pub token_hash: TokenHash,
    pub now: DateTime<Utc>,
}

/// A device as listed to the account's devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRow {
    pub id: DeviceId,
    pub name: String,
    pub platform: String,
    pub certificate: Certificate,
    pub created_at: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Revoke `target` and rotate the account encryption key, atomically.
#[derive(Debug, Clone)]
pub struct Rotation {
    pub account_id: AccountId,
    pub target: DeviceId,
    /// The new epoch: must be the account's current epoch + 1.
    pub epoch: u32,
    pub encryption_key: Certificate,
    /// One sealed bundle per remaining device, exactly.
    pub bundles: Vec<(DeviceId, String)>,
    pub backup: Option<RecoveryBackup>,
    pub now: DateTime<Utc>,
}

/// A bundle sealed to one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceBundleRow {
    pub epoch: u32,
    pub sealed_bundle: String,
    pub created_at: DateTime<Utc>,
}

/// A new pairing request.
#[derive(Debug, Clone)]
pub struct NewPairing {
    pub id: PairingId,
    pub name: String,
    pub platform: String,
    pub signing_key: String,
    pub encryption_key: String,
    pub spake_message: String,
    pub poll_token_hash: TokenHash,
    pub now: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// A pairing request as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingRow {
    pub id: PairingId,
    pub name: String,
    pub platform: String,
    pub signing_key: String,
    pub encryption_key: String,
    pub spake_new_device: String,
    pub poll_token_hash: TokenHash,
    pub status: PairingStatus,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// The approving account (set by the response).
    pub account_id: Option<AccountId>,
    pub spake_approver: Option<String>,
    pub confirmation_approver: Option<String>,
    pub confirmation_new_device: Option<String>,
    pub device_id: Option<DeviceId>,
    pub certificate: Option<Certificate>,
    pub sealed_bundle: Option<String>,
    /// Whether the new device has collected its session token.
    pub token_collected: bool,
}

/// The approver's one response.
#[derive(Debug, Clone)]
pub struct PairingResponse {
    pub id: PairingId,
    pub account_id: AccountId,
    pub device_id: DeviceId,
    pub spake_message: String,
    pub confirmation: String,
    pub now: DateTime<Utc>,
}

/// Device storage (see the module docs). Every method is blocking.
pub trait DeviceStore: Send + Sync + 'static {
    /// The backup sealed to the recovery key with key id `key_id`, with its account.
    fn backup_by_key_id(&self, key_id: &str) -> DeviceResult<Option<(AccountId, RecoveryBackup)>>;
    /// The account's statement, if the account exists.
    fn statement(&self, account: &AccountId) -> DeviceResult<Option<Certificate>>;
    /// Registers a device with a session. Refused: `invalid_request` when the id exists,
    /// `not_found` when the account does not, `device_limit_reached` at `MAX_DEVICES` live
    /// devices.
    fn enrol_device(&self, new: NewDevice) -> DeviceResult<()>;
    /// All devices of the account, revoked ones included, oldest first.
    fn list_devices(&self, account: &AccountId) -> DeviceResult<Vec<DeviceRow>>;
    /// Revokes `rotation.target` (its session is refused from then on), adds the AEK epoch,
    /// stores the per-device bundles and the re-sealed backup, in one transaction.
    /// Refused: `not_found` (no such live device), `keys_changed` (epoch is not current + 1,
    /// or the bundles do not cover exactly the remaining devices).
    fn revoke_device(&self, rotation: Rotation) -> DeviceResult<()>;
    /// The latest bundle sealed to `device`, if any.
    fn device_bundle(&self, device: &DeviceId) -> DeviceResult<Option<DeviceBundleRow>>;
    /// Deletes everything of account `old` and creates `new` (its first device included), in
    /// one transaction. Returns the ids of the old account's files, whose bytes the caller
    /// removes from disk.
    fn reset_account(
        &self,
        old: &AccountId,
        new: NewAccount,
        backup: &RecoveryBackup,
    ) -> DeviceResult<Vec<String>>;

    /// Stores a new pairing request. Refused: `pairing_id_taken`.
    fn create_pairing(&self, new: NewPairing) -> DeviceResult<()>;
    /// Deletes pairing requests that expired before `before`, whatever their state (the
    /// sealed bundle of a completed one with them). Returns how many were deleted.
    fn sweep_pairings(&self, before: DateTime<Utc>) -> DeviceResult<usize>;
    /// Pending requests not yet expired at `now`, newest first.
    fn pending_pairings(&self, now: DateTime<Utc>) -> DeviceResult<Vec<PairingRow>>;
    /// One request by id.
    fn pairing(&self, id: &PairingId) -> DeviceResult<Option<PairingRow>>;
    /// Records the one response. Refused: `not_found`, `pairing_expired`, `pairing_claimed`,
    /// `pairing_failed`, `device_limit_reached` (the approving account is full).
    fn respond_pairing(&self, response: PairingResponse) -> DeviceResult<()>;
    /// Records the new device's confirmation. Refused: `pairing_expired`,
    /// `pairing_not_ready`, `pairing_failed`.
    fn confirm_pairing(
        &self,
        id: &PairingId,
        confirmation: &str,
        now: DateTime<Utc>,
    ) -> DeviceResult<()>;
    /// Burns the request (a confirmation did not verify). Idempotent; a completed request is
    /// refused with `pairing_not_ready`.
    fn fail_pairing(&self, id: &PairingId, now: DateTime<Utc>) -> DeviceResult<()>;
    /// Registers the new device (without a usable session yet) and stores what the new device
    /// collects. Refused: `not_found` (not this account's), `pairing_expired`,
    /// `pairing_not_ready`, `pairing_failed`, `invalid_request` (device id taken),
    /// `device_limit_reached`.
    fn complete_pairing(
        &self,
        id: &PairingId,
        device: NewDevice,
        sealed_bundle: &str,
    ) -> DeviceResult<()>;
    /// Gives the completed pairing's device the session `token_hash`, once: `Ok(true)` the
    /// first time, `Ok(false)` afterwards.
    fn collect_pairing_session(&self, id: &PairingId, token_hash: &TokenHash)
        -> DeviceResult<bool>;
}
