//! Pairing requests this new device registered and still waits on, by pairing id: in memory
//! only, so a restart starts over (docs/devices.md, "Pairing"). Held by the core's context;
//! filled and emptied by the device flows (`core/device_flows.rs`).

use std::collections::HashMap;
use std::sync::Mutex;

use herald_crypto::{DeviceKeys, NewDevicePairing};
use herald_protocol::PairingId;

use crate::transport::http::RelayHttp;

/// A pairing request this (new) device registered and has not finished waiting on.
pub(crate) struct PendingPairing {
    /// The relay, without a credential (the base URL goes into the device state).
    pub(crate) relay: RelayHttp,
    /// The relay with the request's poll token as bearer.
    pub(crate) poll: RelayHttp,
    pub(crate) pairing: NewDevicePairing,
    pub(crate) device_keys: DeviceKeys,
}

/// The core's pending pairings, by pairing id (in memory only: a restart starts over).
#[derive(Default)]
pub(crate) struct PendingPairings(Mutex<HashMap<String, PendingPairing>>);

impl PendingPairings {
    pub(crate) fn put(&self, id: &PairingId, pending: PendingPairing) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), pending);
    }

    pub(crate) fn take(&self, id: &str) -> Option<PendingPairing> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(id)
    }
}
