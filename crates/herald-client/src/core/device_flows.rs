//! The device flows as `Core` methods (docs/devices.md): unlock with the recovery key or by
//! typed-code pairing, approve a pairing, list and revoke devices, Reset, the safety code.
//! The steps they share with sync and the outbox (learning a key rotation, saving keys) are in
//! `crate::devices`.

use crate::core::Core;
use crate::device_view::{DeviceView, PairingRequestView, PairingStarted, UnlockResult};
use crate::devices::{
    backup_for, check_device_name, decode, fresh_keys, key32, pairing_error, reseal_backup,
    save_keys, statement_identity, POLL_INTERVAL,
};
use crate::session::device_state::{self, DeviceState};
use crate::session::pending_pairings::PendingPairing;
use crate::session::Session;
use crate::transport::http::{is_code, RelayHttp};
use crate::view::OnboardResult;
use crate::{Error, Result};
use herald_crypto::{
    open_bundle_with_recovery, seal_bundle_to_device, verify_certificate, AccountKeys,
    ApproverPairing, DeviceKeys, DevicePublic, NewDevicePairing, PairingCode, Recipient,
    RecoveryKey,
};
use herald_protocol::devices::{
    CreatePairingRequest, DeviceBundle, EnrolDeviceRequest, PairingCompleteRequest,
    PairingConfirmationRequest, PairingResponseRequest, PairingStatus, ResetAccountRequest,
    RevokeDeviceRequest,
};
use herald_protocol::envelope::{b64_encode, CertificateBody};
use herald_protocol::{DeviceId, ErrorCode, PairingId};
use std::sync::Arc;
use zeroize::Zeroizing;

impl Core {
    /// This account's safety code: 30 digits in 6 groups of 5, the same on every device.
    /// Errors: `not_set_up`.
    pub fn safety_code(&self) -> Result<String> {
        Ok(self.inner.session()?.safety_code.clone())
    }

    /// Forgets this device's account: stops sync, deletes the sealed device state and empties
    /// the cache. For a device that was revoked or whose account was reset.
    pub async fn forget_device(&self) -> Result<()> {
        self.stop_sync();
        let path = self.inner.config.data_dir.join(device_state::STATE_FILE);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
        self.inner.store.cache_call(|c| c.clear()).await?;
        self.inner.clear_rendered();
        *self
            .inner
            .session
            .write()
            .unwrap_or_else(|p| p.into_inner()) = None;
        Ok(())
    }

    /// A device may unlock when it has no account, or when the relay no longer knows its
    /// session (revoked, or its account was reset): then it forgets the old one first.
    async fn ensure_unlockable(&self) -> Result<()> {
        let Ok(session) = self.inner.session() else {
            return Ok(());
        };
        match session.http.keys().await {
            Err(e) if is_code(&e, ErrorCode::Unauthorized) => self.forget_device().await,
            _ => Err(Error::AlreadySetUp),
        }
    }

    /// Makes `state` this device's: verifies the relay's key directory against the bundle's
    /// fingerprint and that it certifies this device, empties the cache (history is read
    /// again from the relay), saves the sealed state and swaps the session in.
    async fn install(&self, state: DeviceState) -> Result<Arc<Session>> {
        let session = Arc::new(Session::new(state)?);
        let directory = session.directory(true).await?;
        if directory.device(&session.state.device_id).is_none() {
            return Err(Error::Protocol(
                "the relay's key directory does not list this device".into(),
            ));
        }
        self.stop_sync();
        self.inner.store.cache_call(|c| c.clear()).await?;
        device_state::save(
            &self.inner.config.data_dir,
            &self.inner.store.local.key,
            &session.state,
        )?;
        *self
            .inner
            .session
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some(session.clone());
        Ok(session)
    }

    /// Unlocks this new device with the recovery key: finds the backup by the recovery key's
    /// id (`GET /keys/backup/{id}`), opens the account bundle, enrols this device with a
    /// certificate signed by the account identity key, and keeps the keys. The history is
    /// read by the next sync (`sync_once` / `start_sync`). Errors: `invalid_input` (malformed
    /// or mistyped key, bad name), `wrong_recovery_key`, `already_set_up`, `network`.
    pub async fn unlock_with_recovery_key(
        &self,
        relay_url: &str,
        recovery_key: &str,
        device_name: &str,
    ) -> Result<UnlockResult> {
        let name = check_device_name(device_name)?;
        let key = RecoveryKey::parse(recovery_key).map_err(|e| match e {
            herald_crypto::Error::Checksum => Error::InvalidInput(
                "the recovery key has a typo: a character does not match its checksum".into(),
            ),
            _ => Error::InvalidInput(
                "a recovery key is 28 letters and digits, in groups of 4".into(),
            ),
        })?;
        self.ensure_unlockable().await?;
        let relay = RelayHttp::new(relay_url)?;
        let found = relay
            .backup_by_key_id(&key.recipient().key_id)
            .await
            .map_err(|e| {
                if is_code(&e, ErrorCode::NotFound) {
                    Error::WrongRecoveryKey
                } else {
                    e
                }
            })?;
        let account_keys =
            open_bundle_with_recovery(&decode(&found.sealed_bundle, "the backup")?, &key)
                .map_err(|_| Error::WrongRecoveryKey)?;
        let device_keys = DeviceKeys::generate();
        let device_id = herald_crypto::new_device_id();
        let certificate = account_keys.certify_device(
            &device_id,
            &name,
            &self.inner.config.platform,
            &device_keys.public(),
            &crate::timestamps::now_rfc3339(),
        );
        let enrolled = relay
            .enrol_device(&EnrolDeviceRequest { certificate })
            .await?;
        if enrolled.account_id != account_keys.account_id() || enrolled.device_id != device_id {
            return Err(Error::Protocol(
                "the relay enrolled another account or device".into(),
            ));
        }
        let session = self
            .install(DeviceState {
                relay_url: relay.base_url().to_owned(),
                account_id: enrolled.account_id,
                device_id,
                device_name: name,
                device_token: Zeroizing::new(enrolled.device_token),
                account_keys,
                device_keys,
            })
            .await?;
        Ok(UnlockResult {
            account_id: session.state.account_id.to_string(),
            safety_code: session.safety_code.clone(),
        })
    }

    /// Registers this new device's pairing request and returns the code to show. The code is
    /// never sent: the person types it on an unlocked device. Then call [`Core::wait_pairing`].
    /// Errors: `invalid_input`, `already_set_up`, `network`.
    pub async fn start_pairing(
        &self,
        relay_url: &str,
        device_name: &str,
    ) -> Result<PairingStarted> {
        let name = check_device_name(device_name)?;
        self.ensure_unlockable().await?;
        let relay = RelayHttp::new(relay_url)?;
        let device_keys = DeviceKeys::generate();
        let public = device_keys.public();
        let id = PairingId::from_random(&herald_crypto::random_bytes());
        let code = PairingCode::generate();
        let pairing = NewDevicePairing::start(&id, &public, &code);
        let created = relay
            .create_pairing(&CreatePairingRequest {
                id: id.clone(),
                name,
                platform: self.inner.config.platform.clone(),
                signing_key: b64_encode(&public.signing_key),
                encryption_key: b64_encode(&public.encryption_key),
                spake_message: b64_encode(pairing.message()),
            })
            .await?;
        let poll = relay.with_bearer(&created.poll_token);
        self.inner.pairings.put(
            &id,
            PendingPairing {
                relay,
                poll,
                pairing,
                device_keys,
            },
        );
        Ok(PairingStarted {
            pairing_id: id.to_string(),
            code: code.display().to_string(),
            expires_at: created.expires_at,
        })
    }

    /// Waits until an unlocked device approves the request [`Core::start_pairing`] made:
    /// checks the approver's key confirmation, sends this device's, then opens the account
    /// bundle (sealed with a key only the PAKE peer has) and keeps the keys. Errors:
    /// `wrong_pairing_code` (on either side; the request is used up), `pairing_expired`,
    /// `not_found` (no such pending request on this device), `network`.
    pub async fn wait_pairing(&self, pairing_id: &str) -> Result<UnlockResult> {
        let pending = self
            .inner
            .pairings
            .take(pairing_id)
            .ok_or_else(|| Error::NotFound(pairing_id.to_owned()))?;
        let id = PairingId::parse(pairing_id).ok_or_else(|| Error::NotFound(pairing_id.into()))?;
        let PendingPairing {
            relay,
            poll,
            pairing,
            device_keys,
        } = pending;
        let mut pairing = Some(pairing);
        let mut confirmed = None;
        loop {
            let state = poll.pairing(&id).await.map_err(pairing_error)?;
            if state.status == PairingStatus::Failed {
                return Err(Error::WrongPairingCode);
            }
            if let (true, Some(approval)) = (pairing.is_some(), state.approval.as_ref()) {
                let Some(n) = pairing.take() else {
                    continue;
                };
                let (aik, account_id) = statement_identity(&approval.statement)?;
                let result = n.finish(
                    &decode(&approval.spake_message, "the approver's message")?,
                    &account_id,
                    &aik,
                    &decode(&approval.confirmation, "the approver's confirmation")?,
                );
                let c = match result {
                    Ok(c) => c,
                    Err(e) => {
                        // Burn the request so the approver hears of it at once.
                        let _ = poll.fail_pairing(&id).await;
                        return Err(match e {
                            herald_crypto::Error::PairingMismatch => Error::WrongPairingCode,
                            other => other.into(),
                        });
                    }
                };
                poll.confirm_pairing(
                    &id,
                    &PairingConfirmationRequest {
                        confirmation: b64_encode(&c.confirmation()),
                    },
                )
                .await
                .map_err(pairing_error)?;
                confirmed = Some((c, aik, account_id));
                continue;
            }
            if let (Some((c, aik, account_id)), Some(done)) = (&confirmed, state.completion) {
                let token = done.device_token.ok_or_else(|| {
                    Error::Protocol("the device session was handed out already".into())
                })?;
                let bundle = c.open_bundle(
                    &decode(&done.sealed_bundle, "the sealed bundle")?,
                    &device_keys,
                )?;
                let name = match verify_certificate(&done.certificate, aik)? {
                    CertificateBody::Device {
                        account_id: of,
                        device_id,
                        name,
                        signing_key_id,
                        encryption_key_id,
                        ..
                    } if &of == account_id
                        && device_id == done.device_id
                        && signing_key_id == device_keys.public().signing_key_id
                        && encryption_key_id == device_keys.public().encryption_key_id =>
                    {
                        name
                    }
                    _ => {
                        return Err(Error::Protocol(
                            "the device certificate is not for this device".into(),
                        ))
                    }
                };
                let session = self
                    .install(DeviceState {
                        relay_url: relay.base_url().to_owned(),
                        account_id: account_id.clone(),
                        device_id: done.device_id,
                        device_name: name,
                        device_token: Zeroizing::new(token),
                        account_keys: bundle,
                        device_keys,
                    })
                    .await?;
                return Ok(UnlockResult {
                    account_id: session.state.account_id.to_string(),
                    safety_code: session.safety_code.clone(),
                });
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// New devices waiting for approval (pending, unexpired, unanswered), newest first.
    pub async fn pairing_requests(&self) -> Result<Vec<PairingRequestView>> {
        let session = self.inner.session()?;
        Ok(session
            .http
            .pairings()
            .await?
            .pairings
            .into_iter()
            .map(|p| PairingRequestView {
                id: p.id.to_string(),
                name: p.name,
                platform: p.platform,
                created_at: p.created_at,
                expires_at: p.expires_at,
            })
            .collect())
    }

    /// Approves a new device with the code it shows: one attempt per request. Runs SPAKE2
    /// with the code, waits for the new device's key confirmation, then certifies it and
    /// sends it the account bundle. Errors: `invalid_input` (not 8 digits),
    /// `wrong_pairing_code` (the request is used up), `pairing_expired`, `pairing_claimed`,
    /// `not_found`, `network`.
    pub async fn approve_pairing(&self, pairing_id: &str, code: &str) -> Result<DeviceView> {
        let session = self.inner.session()?;
        let id = PairingId::parse(pairing_id).ok_or_else(|| Error::NotFound(pairing_id.into()))?;
        let code = PairingCode::parse(code)
            .map_err(|_| Error::InvalidInput("the pairing code has 8 digits".into()))?;
        let request = session
            .http
            .pairings()
            .await?
            .pairings
            .into_iter()
            .find(|p| p.id == id)
            .ok_or_else(|| Error::NotFound(pairing_id.to_owned()))?;
        let public = DevicePublic::from_keys(
            key32(&request.signing_key, "the new device's signing key")?,
            key32(&request.encryption_key, "the new device's encryption key")?,
        );
        let account = session.account_keys();
        let approver = ApproverPairing::respond(
            &id,
            &public,
            &decode(&request.spake_message, "the new device's message")?,
            &code,
            &account,
        )?;
        session
            .http
            .respond_pairing(
                &id,
                &PairingResponseRequest {
                    spake_message: b64_encode(approver.message()),
                    confirmation: b64_encode(&approver.confirmation()),
                },
            )
            .await
            .map_err(pairing_error)?;
        let confirmation = loop {
            let state = session.http.pairing(&id).await.map_err(pairing_error)?;
            match (state.status, state.confirmation) {
                (PairingStatus::Failed, _) => return Err(Error::WrongPairingCode),
                (PairingStatus::Confirmed, Some(c)) => break c,
                (PairingStatus::Completed, _) => {
                    return Err(Error::Protocol("the pairing completed elsewhere".into()))
                }
                _ => tokio::time::sleep(POLL_INTERVAL).await,
            }
        };
        let approver = match approver.verify_new_device(&decode(&confirmation, "the confirmation")?)
        {
            Ok(a) => a,
            Err(e) => {
                let _ = session.http.fail_pairing(&id).await;
                return Err(match e {
                    herald_crypto::Error::PairingMismatch => Error::WrongPairingCode,
                    other => other.into(),
                });
            }
        };
        let device_id = herald_crypto::new_device_id();
        let certificate = account.certify_device(
            &device_id,
            &request.name,
            &request.platform,
            &public,
            &crate::timestamps::now_rfc3339(),
        );
        let sealed =
            approver.seal_bundle(&account, &Recipient::from_public_key(public.encryption_key))?;
        session
            .http
            .complete_pairing(
                &id,
                &PairingCompleteRequest {
                    certificate,
                    sealed_bundle: b64_encode(&sealed),
                },
            )
            .await
            .map_err(pairing_error)?;
        let _ = session.directory(true).await;
        self.devices()
            .await?
            .into_iter()
            .find(|d| d.id == device_id.as_str())
            .ok_or_else(|| Error::Protocol("the paired device is not listed".into()))
    }

    /// The account's devices (revoked ones included, with `revokedAt`), this one `current`.
    pub async fn devices(&self) -> Result<Vec<DeviceView>> {
        let session = self.inner.session()?;
        let me = session.state.device_id.clone();
        Ok(session
            .http
            .devices()
            .await?
            .devices
            .into_iter()
            .map(|d| DeviceView {
                current: d.id == me,
                id: d.id.to_string(),
                name: d.name,
                platform: d.platform,
                created_at: d.created_at,
                last_seen_at: Some(d.last_seen_at),
                revoked_at: d.revoked_at,
            })
            .collect())
    }

    /// Revokes another device of the account: its session is refused at once, and the
    /// account encryption key rotates so it cannot read anything sent afterwards. The new
    /// bundle is sealed to every remaining (certified) device and re-sealed to the recovery
    /// key. Errors: `invalid_input` (this device), `not_found`, `keys_changed` (another
    /// rotation raced; retry), `network`.
    pub async fn revoke_device(&self, id: &str) -> Result<()> {
        let session = self.inner.session()?;
        let target = DeviceId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        if target == session.state.device_id {
            return Err(Error::InvalidInput(
                "a device cannot revoke itself: revoke it from another device, or reset".into(),
            ));
        }
        // Rotate from the latest epoch: learn one this device missed first.
        let directory = fresh_keys(&self.inner.store, &session).await?;
        if directory.device(&target).is_none() {
            return Err(Error::NotFound(id.to_owned()));
        }
        let mut keys = session.account_keys();
        let epoch = keys.rotate_encryption_key();
        let encryption_key =
            keys.encryption_key_certificate(epoch, &crate::timestamps::now_rfc3339())?;
        let bundles = directory
            .devices()
            .iter()
            .filter(|d| d.id != target)
            .map(|d| {
                Ok(DeviceBundle {
                    device_id: d.id.clone(),
                    sealed_bundle: b64_encode(&seal_bundle_to_device(&keys, &d.recipient, &d.id)?),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let backup = match session.http.backup().await {
            Ok(backup) => Some(reseal_backup(&keys, &backup)?),
            Err(e) if is_code(&e, ErrorCode::NotFound) => None,
            Err(e) => return Err(e),
        };
        session
            .http
            .revoke_device(
                &target,
                &RevokeDeviceRequest {
                    encryption_key,
                    bundles,
                    backup,
                },
            )
            .await?;
        save_keys(&self.inner.store, &session, keys)?;
        let _ = session.directory(true).await;
        Ok(())
    }

    /// Resets the account: new identity key (so a new account id), new encryption key, this
    /// device as the only one, a new recovery key (returned once). The relay deletes the old
    /// account's messages, files, connections and devices; other devices must unlock again.
    /// Errors: `not_set_up`, `network`.
    pub async fn reset_account(&self) -> Result<OnboardResult> {
        let session = self.inner.session()?;
        let account_keys = AccountKeys::generate();
        let device_keys = DeviceKeys::generate();
        let device_id = herald_crypto::new_device_id();
        let recovery = RecoveryKey::generate();
        let now = crate::timestamps::now_rfc3339();
        let request = ResetAccountRequest {
            statement: account_keys.statement(&now),
            encryption_key: account_keys
                .encryption_key_certificate(account_keys.current_epoch(), &now)?,
            device: account_keys.certify_device(
                &device_id,
                &session.state.device_name,
                &self.inner.config.platform,
                &device_keys.public(),
                &now,
            ),
            backup: backup_for(&account_keys, &recovery)?,
        };
        let created = session.http.reset_account(&request).await?;
        let was_syncing = self
            .inner
            .sync_task
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|t| !t.is_finished());
        let fresh = self
            .install(DeviceState {
                relay_url: session.state.relay_url.clone(),
                account_id: created.account_id,
                device_id: created.device_id,
                device_name: session.state.device_name.clone(),
                device_token: Zeroizing::new(created.device_token),
                account_keys,
                device_keys,
            })
            .await?;
        if was_syncing {
            self.start_sync()?;
        }
        Ok(OnboardResult {
            account_id: fresh.state.account_id.to_string(),
            recovery_key: recovery.display().to_string(),
            safety_code: fresh.safety_code.clone(),
        })
    }
}
