//! The device flows of the core (docs/devices.md): unlock a new device with the recovery key
//! or by typed-code pairing, approve a pairing, list and revoke devices (revoking rotates the
//! account encryption key and re-seals the recovery backup), Reset, and the safety code.
//!
//! The relay sees none of the secrets: the recovery key opens a backup sealed to it, the
//! pairing code only feeds SPAKE2 (herald-crypto `pairing`), and bundles travel sealed to the
//! recovery key, a device's key, or (pairing) a key only the PAKE peer holds.

use std::time::Duration;

use herald_crypto::{
    account_id_for, open_bundle_for_device, seal_bundle_to_recovery, verify_certificate,
    AccountKeys, Recipient, RecoveryKey,
};
use herald_protocol::envelope::{b64_decode, b64_encode, Certificate, CertificateBody};
use herald_protocol::wire::{MessageRecord, RecoveryBackup};
use herald_protocol::{AccountId, ErrorCode};

use crate::context::Store;
use crate::session::device_state::{self, DeviceState};
use crate::session::Session;
use crate::transport::http::is_code;
use crate::{Error, Result};

/// How often a waiting side re-reads its pairing request. Bounded by the 10-minute expiry.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// The typed errors behind the relay's pairing codes.
pub(crate) fn pairing_error(e: Error) -> Error {
    if is_code(&e, ErrorCode::PairingExpired) {
        Error::PairingExpired
    } else if is_code(&e, ErrorCode::PairingFailed) {
        Error::WrongPairingCode
    } else if is_code(&e, ErrorCode::PairingClaimed) {
        Error::PairingClaimed
    } else {
        e
    }
}

pub(crate) fn decode(b64: &str, what: &str) -> Result<Vec<u8>> {
    b64_decode(b64).ok_or_else(|| Error::Protocol(format!("{what} is not base64url")))
}

pub(crate) fn key32(b64: &str, what: &str) -> Result<[u8; 32]> {
    decode(b64, what)?
        .try_into()
        .map_err(|_| Error::Protocol(format!("{what} is not 32 bytes")))
}

/// The one rule of titles and names (`herald_protocol::text::check_label`), on the trimmed name.
pub(crate) fn check_device_name(name: &str) -> Result<String> {
    let name = name.trim();
    herald_protocol::text::check_label(name, 100)
        .map_err(|e| Error::InvalidInput(format!("the device name {e}")))?;
    Ok(name.to_owned())
}

/// The AIK and account id of a self-signed account statement (signature checked).
pub(crate) fn statement_identity(statement: &Certificate) -> Result<([u8; 32], AccountId)> {
    let Some(CertificateBody::Account { identity_key, .. }) = statement.body_unverified() else {
        return Err(Error::Protocol(
            "the approval carries no account statement".into(),
        ));
    };
    let aik = key32(&identity_key, "the identity key")?;
    let account_id = account_id_for(&aik);
    match verify_certificate(statement, &aik)? {
        CertificateBody::Account {
            account_id: stated, ..
        } if stated == account_id => Ok((aik, account_id)),
        _ => Err(Error::Protocol(
            "the account statement names another account".into(),
        )),
    }
}

/// The bundle sealed to the recovery key of `backup` (the key id must be its key's).
pub(crate) fn reseal_backup(keys: &AccountKeys, backup: &RecoveryBackup) -> Result<RecoveryBackup> {
    let recipient = Recipient::from_public_key(key32(
        &backup.recovery_public_key,
        "the recovery public key",
    )?);
    if recipient.key_id != backup.recovery_key_id {
        return Err(Error::Protocol(
            "the recovery backup's key id is not its key's".into(),
        ));
    }
    Ok(RecoveryBackup {
        sealed_bundle: b64_encode(&seal_bundle_to_recovery(keys, &recipient)?),
        updated_at: None,
        ..backup.clone()
    })
}

pub(crate) fn backup_for(keys: &AccountKeys, recovery: &RecoveryKey) -> Result<RecoveryBackup> {
    let recipient = recovery.recipient();
    Ok(RecoveryBackup {
        recovery_key_id: recipient.key_id.clone(),
        recovery_public_key: b64_encode(&recipient.public_key),
        sealed_bundle: b64_encode(&seal_bundle_to_recovery(keys, &recipient)?),
        updated_at: None,
    })
}

/// A copy of `state` holding `keys`.
pub(crate) fn with_keys(state: &DeviceState, keys: AccountKeys) -> DeviceState {
    DeviceState {
        relay_url: state.relay_url.clone(),
        account_id: state.account_id.clone(),
        device_id: state.device_id.clone(),
        device_name: state.device_name.clone(),
        device_token: state.device_token.clone(),
        account_keys: keys,
        device_keys: state.device_keys.clone(),
    }
}

/// Keeps a rotated bundle: in the session and, sealed, in the device state file.
pub(crate) fn save_keys(store: &Store, session: &Session, keys: AccountKeys) -> Result<()> {
    device_state::save(
        &store.data_dir,
        &store.local.key,
        &with_keys(&session.state, keys.clone()),
    )?;
    session.set_account_keys(keys);
    Ok(())
}

/// Fetches `GET /keys/bundle` and keeps it when it is newer than what the session holds.
/// Returns whether the keys changed.
pub(crate) async fn learn_rotation(store: &Store, session: &Session) -> Result<bool> {
    let found = match session.http.device_bundle().await {
        Ok(found) => found,
        Err(e) if is_code(&e, ErrorCode::NotFound) => return Ok(false),
        Err(e) => return Err(e),
    };
    let current = session.account_keys();
    if found.epoch <= current.current_epoch() {
        return Ok(false);
    }
    let bundle = open_bundle_for_device(
        &decode(&found.sealed_bundle, "the device bundle")?,
        &session.state.device_keys,
        &session.state.device_id,
        &current.identity_public(),
    )?;
    let epochs = bundle.epochs();
    if !current.epochs().iter().all(|e| epochs.contains(e)) {
        return Err(Error::Protocol(
            "the rotated bundle lacks an epoch this device holds".into(),
        ));
    }
    tracing::info!(
        epoch = bundle.current_epoch(),
        "account encryption key rotated"
    );
    save_keys(store, session, bundle)?;
    let _ = session.directory(true).await;
    Ok(true)
}

/// Called by the sync engine before it opens a page: when an envelope of a record (the
/// message, or its answer) is sealed to no account key this device holds, the account key may
/// have rotated; fetch the new bundle once. Returns whether the keys changed.
pub(crate) async fn learn_rotation_for(
    store: &Store,
    session: &Session,
    records: &[MessageRecord],
) -> bool {
    let keys = session.account_keys();
    let unknown = records
        .iter()
        .flat_map(|r| std::iter::once(&r.envelope).chain(r.answer.as_ref().map(|a| &a.envelope)))
        .any(|envelope| {
            !envelope
                .recipients
                .iter()
                .any(|k| keys.encryption_secret(&k.key_id).is_some())
        });
    if !unknown {
        return false;
    }
    match learn_rotation(store, session).await {
        Ok(changed) => changed,
        Err(e) => {
            tracing::debug!(code = %e.code(), "could not fetch the rotated account key");
            false
        }
    }
}

/// The verified directory fresh from `GET /keys`, with this device's bundle brought up to the
/// epoch it certifies first (`GET /keys/bundle`): called before sealing, so what this device
/// seals to the current account key it can open too. Errors: `network`, crypto errors.
pub(crate) async fn fresh_keys(
    store: &Store,
    session: &Session,
) -> Result<herald_crypto::Directory> {
    let directory = session.directory(true).await?;
    let certified = directory.encryption_keys().last().map(|k| k.epoch);
    if certified > Some(session.account_keys().current_epoch()) {
        learn_rotation(store, session).await?;
        return session.directory(false).await;
    }
    Ok(directory)
}
