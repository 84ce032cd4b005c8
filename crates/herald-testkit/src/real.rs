//! Accounts with REAL keys (herald-crypto), for routes where the relay verifies a signature
//! itself (`POST /keys/devices`) and for tests that need to sign certificates later (a device
//! enrolled with the recovery key, a paired device, a rotation).

use herald_crypto::{AccountKeys, DeviceKeys, RecoveryKey};
use herald_protocol::envelope::{b64_encode, Certificate};
use herald_protocol::wire::{CreateAccountRequest, CreateAccountResponse, RecoveryBackup};
use herald_protocol::{AccountId, DeviceId};

/// A time for certificates made here.
pub const CREATED_AT: &str = "2026-01-01T00:00:00.000Z";

/// An account created through `POST /accounts` with real keys, plus its first device.
pub struct RealAccount {
    pub keys: AccountKeys,
    pub account_id: AccountId,
    pub device_id: DeviceId,
    pub device_keys: DeviceKeys,
    /// `hds_…` of the first device.
    pub device_token: String,
    pub recovery: RecoveryKey,
}

impl RealAccount {
    /// A device certificate for new keys, signed by this account's AIK.
    pub fn certify_new_device(&self, name: &str) -> (DeviceId, DeviceKeys, Certificate) {
        let id = herald_crypto::new_device_id();
        let keys = DeviceKeys::generate();
        let cert = self
            .keys
            .certify_device(&id, name, "linux", &keys.public(), CREATED_AT);
        (id, keys, cert)
    }

    /// The recovery backup of this account's current bundle.
    pub fn backup(&self) -> RecoveryBackup {
        let recipient = self.recovery.recipient();
        RecoveryBackup {
            recovery_key_id: recipient.key_id.clone(),
            recovery_public_key: b64_encode(&recipient.public_key),
            sealed_bundle: b64_encode(
                &herald_crypto::seal_bundle_to_recovery(&self.keys, &recipient)
                    .expect("sealing to the recovery key"),
            ),
            updated_at: None,
        }
    }
}

/// Creates an account with real keys and uploads its recovery backup.
pub async fn create_account(relay_url: &str) -> RealAccount {
    let keys = AccountKeys::generate();
    let device_keys = DeviceKeys::generate();
    let device_id = herald_crypto::new_device_id();
    let req = CreateAccountRequest {
        statement: keys.statement(CREATED_AT),
        encryption_key: keys
            .encryption_key_certificate(1, CREATED_AT)
            .expect("epoch 1 exists"),
        device: keys.certify_device(
            &device_id,
            "First device",
            "linux",
            &device_keys.public(),
            CREATED_AT,
        ),
    };
    let client = reqwest::Client::new();
    let resp = client
        .post(format!("{relay_url}/accounts"))
        .json(&req)
        .send()
        .await
        .expect("POST /accounts reaches the relay");
    assert_eq!(resp.status().as_u16(), 201, "POST /accounts with real keys");
    let created: CreateAccountResponse = resp.json().await.expect("CreateAccountResponse");
    let account = RealAccount {
        account_id: created.account_id,
        device_id,
        device_keys,
        device_token: created.device_token,
        recovery: RecoveryKey::generate(),
        keys,
    };
    let resp = client
        .put(format!("{relay_url}/keys/backup"))
        .bearer_auth(&account.device_token)
        .json(&account.backup())
        .send()
        .await
        .expect("PUT /keys/backup reaches the relay");
    assert_eq!(resp.status().as_u16(), 204, "the recovery backup is stored");
    account
}
