//! The relay's device routes (docs/devices.md) on [`RelayHttp`]: recovery lookup and
//! enrolment, pairing, the device list, revocation with rotation, per-device bundles, Reset.

use herald_protocol::devices::{
    CreatePairingRequest, CreatePairingResponse, DeviceBundleResponse, DeviceList,
    EnrolDeviceRequest, EnrolDeviceResponse, PairingCompleteRequest, PairingCompleteResponse,
    PairingConfirmationRequest, PairingList, PairingResponseRequest, PairingState, RecoveryBundle,
    ResetAccountRequest, RevokeDeviceRequest,
};
use herald_protocol::wire::CreateAccountResponse;
use herald_protocol::{DeviceId, PairingId};
use reqwest::Method;

use crate::transport::http::RelayHttp;
use crate::Result;

impl RelayHttp {
    /// `GET /keys/backup/{recoveryKeyId}` (no credential).
    pub async fn backup_by_key_id(&self, key_id: &str) -> Result<RecoveryBundle> {
        // Key ids are `k_` + base64url: safe in a path segment as they are.
        self.send(self.request(Method::GET, &format!("/keys/backup/{key_id}")))
            .await
    }

    /// `POST /keys/devices` (no credential; the certificate is signed by the AIK).
    pub async fn enrol_device(&self, req: &EnrolDeviceRequest) -> Result<EnrolDeviceResponse> {
        self.send(self.request(Method::POST, "/keys/devices").json(req))
            .await
    }

    /// `GET /keys/devices` (device).
    pub async fn devices(&self) -> Result<DeviceList> {
        self.send(self.request(Method::GET, "/keys/devices")).await
    }

    /// `DELETE /keys/devices/{id}` (device): revoke and rotate.
    pub async fn revoke_device(&self, id: &DeviceId, req: &RevokeDeviceRequest) -> Result<()> {
        self.send_empty(
            self.request(Method::DELETE, &format!("/keys/devices/{id}"))
                .json(req),
        )
        .await
    }

    /// `GET /keys/bundle` (device): the latest bundle sealed to this device.
    pub async fn device_bundle(&self) -> Result<DeviceBundleResponse> {
        self.send(self.request(Method::GET, "/keys/bundle")).await
    }

    /// `POST /keys/reset` (device).
    pub async fn reset_account(&self, req: &ResetAccountRequest) -> Result<CreateAccountResponse> {
        self.send(self.request(Method::POST, "/keys/reset").json(req))
            .await
    }

    /// `POST /keys/pairings` (no credential).
    pub async fn create_pairing(
        &self,
        req: &CreatePairingRequest,
    ) -> Result<CreatePairingResponse> {
        self.send(self.request(Method::POST, "/keys/pairings").json(req))
            .await
    }

    /// `GET /keys/pairings` (device): pending requests.
    pub async fn pairings(&self) -> Result<PairingList> {
        self.send(self.request(Method::GET, "/keys/pairings")).await
    }

    /// `GET /keys/pairings/{id}` (the poll token as bearer, or a device session).
    pub async fn pairing(&self, id: &PairingId) -> Result<PairingState> {
        self.send(self.request(Method::GET, &format!("/keys/pairings/{id}")))
            .await
    }

    /// `POST /keys/pairings/{id}/response` (device).
    pub async fn respond_pairing(
        &self,
        id: &PairingId,
        req: &PairingResponseRequest,
    ) -> Result<()> {
        self.send_empty(
            self.request(Method::POST, &format!("/keys/pairings/{id}/response"))
                .json(req),
        )
        .await
    }

    /// `POST /keys/pairings/{id}/confirmation` (poll token).
    pub async fn confirm_pairing(
        &self,
        id: &PairingId,
        req: &PairingConfirmationRequest,
    ) -> Result<()> {
        self.send_empty(
            self.request(Method::POST, &format!("/keys/pairings/{id}/confirmation"))
                .json(req),
        )
        .await
    }

    /// `POST /keys/pairings/{id}/failed` (either side).
    pub async fn fail_pairing(&self, id: &PairingId) -> Result<()> {
        self.send_empty(self.request(Method::POST, &format!("/keys/pairings/{id}/failed")))
            .await
    }

    /// `POST /keys/pairings/{id}/complete` (the approving device).
    pub async fn complete_pairing(
        &self,
        id: &PairingId,
        req: &PairingCompleteRequest,
    ) -> Result<PairingCompleteResponse> {
        self.send(
            self.request(Method::POST, &format!("/keys/pairings/{id}/complete"))
                .json(req),
        )
        .await
    }
}
