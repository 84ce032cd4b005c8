//! View types of the device flows (docs/devices.md), exported to TypeScript with ts-rs like
//! `view` (into `ui/src/lib/bindings/`). camelCase on the wire, as Tauri commands return them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A new device unlocked (recovery key or approval): it is now a device of this account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UnlockResult {
    pub account_id: String,
    /// 30 digits in 6 groups of 5: compare it with another device's.
    pub safety_code: String,
}

/// A pairing request this new device registered. Show `code` and call `wait_pairing`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PairingStarted {
    pub pairing_id: String,
    /// 8 digits shown as `1234 5678`; typed on the unlocked device, never sent anywhere.
    pub code: String,
    /// RFC 3339, UTC, relay clock: 10 minutes after the request.
    pub expires_at: String,
}

/// A new device waiting for approval, as an unlocked device lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PairingRequestView {
    pub id: String,
    /// The name the new device gave itself (unverified until the code matches).
    pub name: String,
    pub platform: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// RFC 3339, UTC.
    pub expires_at: String,
}

/// One device of the account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DeviceView {
    pub id: String,
    pub name: String,
    /// "linux", "macos", "windows", "cli"…
    pub platform: String,
    /// RFC 3339, UTC (relay clock).
    pub created_at: String,
    /// RFC 3339, UTC; updated at most every 5 minutes.
    pub last_seen_at: Option<String>,
    /// Set for revoked devices.
    pub revoked_at: Option<String>,
    /// This device.
    pub current: bool,
}
