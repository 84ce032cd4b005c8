//! Notifications sealed by the relay to the account encryption key (docs/agents.md,
//! "Storage"). Notifications are not end-to-end encrypted: the relay has the plaintext in
//! transit, seals it on arrival and drops it, so that what it stores (and what a later copy
//! of its database holds) is readable only by the account's devices.
//!
//! `(enc, ct) = HPKE.SealBase(pk = current AEK, info = "herald.v1/notification",
//! aad = account id (ASCII, fixed 30 bytes) || relay notification id (ASCII, fixed 30 bytes),
//! pt = NotificationContent JSON)`. Binding both ids stops the relay (or anyone editing its
//! database) from moving a sealed payload to another notification or account unnoticed.

use herald_protocol::notify::{SealedNotification, SEALED_NOTIFICATION_VERSION};
use herald_protocol::{AccountId, NotificationId};
use zeroize::Zeroizing;

use crate::account::AccountKeys;
use crate::error::{Error, Result};
use crate::hpke_base::{self, ENC_LEN};
use crate::keys::Recipient;
use crate::labels;
use herald_protocol::envelope::{b64_decode, b64_encode};

fn aad(account: &AccountId, id: &NotificationId) -> Vec<u8> {
    let mut aad = Vec::with_capacity(account.as_str().len() + id.as_str().len());
    aad.extend_from_slice(account.as_str().as_bytes());
    aad.extend_from_slice(id.as_str().as_bytes());
    aad
}

/// Seals a notification's content JSON to the account encryption key `aek`.
/// Errors: [`Error::InvalidInput`] when the key id does not match the key.
pub fn seal_notification(
    aek: &Recipient,
    account: &AccountId,
    id: &NotificationId,
    plaintext: &[u8],
) -> Result<SealedNotification> {
    aek.check()?;
    let (enc, ct) = hpke_base::seal(
        &aek.public_key,
        labels::NOTIFICATION,
        &aad(account, id),
        plaintext,
    )?;
    Ok(SealedNotification {
        v: SEALED_NOTIFICATION_VERSION,
        key_id: aek.key_id.clone(),
        enc: b64_encode(&enc),
        ciphertext: b64_encode(&ct),
    })
}

/// Opens a sealed notification with the account key bundle (any epoch).
/// Errors: [`Error::Malformed`] for another version or bad encoding, [`Error::Decryption`]
/// when no epoch of the bundle has the key or the ids do not match.
pub fn open_notification(
    bundle: &AccountKeys,
    account: &AccountId,
    id: &NotificationId,
    sealed: &SealedNotification,
) -> Result<Zeroizing<Vec<u8>>> {
    const WHAT: &str = "sealed notification";
    if sealed.v != SEALED_NOTIFICATION_VERSION {
        return Err(Error::Malformed(WHAT));
    }
    let enc = b64_decode(&sealed.enc)
        .filter(|e| e.len() == ENC_LEN)
        .ok_or(Error::Malformed(WHAT))?;
    let ct = b64_decode(&sealed.ciphertext).ok_or(Error::Malformed(WHAT))?;
    let secret = bundle
        .encryption_secret(&sealed.key_id)
        .ok_or(Error::Decryption(WHAT))?;
    hpke_base::open(
        secret.secret_bytes(),
        &enc,
        labels::NOTIFICATION,
        &aad(account, id),
        &ct,
        WHAT,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_binding() {
        let bundle = AccountKeys::generate();
        let account = bundle.account_id();
        let id = NotificationId::from_random(&[3; 16]);
        let sealed = seal_notification(
            &bundle.current_recipient(),
            &account,
            &id,
            b"{\"title\":\"t\"}",
        )
        .expect("seal");
        let opened = open_notification(&bundle, &account, &id, &sealed).expect("open");
        assert_eq!(&opened[..], b"{\"title\":\"t\"}", "round trip");
        let other_id = NotificationId::from_random(&[4; 16]);
        assert!(
            open_notification(&bundle, &account, &other_id, &sealed).is_err(),
            "bound to the notification id"
        );
        let other = AccountKeys::generate();
        assert!(
            open_notification(&other, &other.account_id(), &id, &sealed).is_err(),
            "another account cannot open it"
        );
        let mut tampered = sealed.clone();
        tampered.v = 2;
        assert!(
            open_notification(&bundle, &account, &id, &tampered).is_err(),
            "unknown version refused"
        );
    }
}
