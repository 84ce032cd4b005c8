//! A small account for the integration tests: AIK + AEK, one device, one connection, and the
//! `GET /keys` response the relay would serve for it.

#![allow(dead_code)]

use herald_crypto::{
    new_connection_id, new_device_id, random_bytes, AccountKeys, ConnectionId, ConnectionKeys,
    DeviceId, DeviceKeys, Directory,
};
use herald_protocol::wire::KeysResponse;

pub const NOW: &str = "2026-01-01T00:00:00Z";

pub struct Account {
    pub keys: AccountKeys,
    pub device_id: DeviceId,
    pub device: DeviceKeys,
    pub connection_id: ConnectionId,
    pub connection_seed: [u8; 32],
    pub connection: ConnectionKeys,
}

impl Account {
    pub fn new() -> Account {
        let connection_seed = random_bytes::<32>();
        Account {
            keys: AccountKeys::generate(),
            device_id: new_device_id(),
            device: DeviceKeys::generate(),
            connection_id: new_connection_id(),
            connection: ConnectionKeys::from_seed(&connection_seed),
            connection_seed,
        }
    }

    /// What `GET /keys` serves for this account.
    pub fn keys_response(&self) -> KeysResponse {
        let k = &self.keys;
        KeysResponse {
            account_id: k.account_id(),
            statement: k.statement(NOW),
            encryption_keys: k
                .epochs()
                .into_iter()
                .map(|e| k.encryption_key_certificate(e, NOW).expect("epoch is held"))
                .collect(),
            devices: vec![k.certify_device(
                &self.device_id,
                "Laptop",
                "linux",
                &self.device.public(),
                NOW,
            )],
            connections: vec![k.certify_connection(
                &self.connection_id,
                "build-bot",
                &self.connection,
                NOW,
            )],
            revoked_devices: vec![],
            revoked_connections: vec![],
        }
    }

    /// The directory as the account's own device sees it (full fingerprint pinned).
    pub fn directory(&self) -> Directory {
        Directory::verify(&self.keys_response(), &self.keys.fingerprint())
            .expect("an honest keys response verifies")
    }
}
