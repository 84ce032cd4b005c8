//! One-time keys of secret offers (docs/secrets.md, "Secret offer").
//!
//! When the person opens a secret offer, the device makes a fresh X25519 key pair
//! ([`OneTimeKey`]) and the account identity key certifies its public half in a
//! `CertificateBody::OfferKey` that names the account, the offer's message id, the device and
//! an expiry. The sender checks that certificate against its pinned directory
//! ([`verify_offer_key`]) before it seals the secret to the key with an ordinary envelope of
//! kind `secretPayload` and that key as the only recipient. The certificate signature uses the
//! certificate label (`herald.v1/certificate`); the body's `type: "offerKey"` keeps it apart
//! from every other certificate, and a directory never accepts one in its lists.

use std::fmt;

use herald_protocol::envelope::{b64_decode, b64_encode, Certificate, CertificateBody};
use herald_protocol::ids::{DeviceId, MessageId};
use zeroize::Zeroizing;

use crate::account::{verify_certificate, AccountKeys};
use crate::directory::Directory;
use crate::error::{Error, Result};
use crate::keys::{key_id_x25519, Recipient, RecipientSecret};

/// Version byte of [`OneTimeKey::to_bytes`].
const ONE_TIME_KEY_VERSION: u8 = 1;

/// A device's one-time X25519 key for one secret offer. Zeroized on drop; `Debug` shows the
/// key id only. Keep it in memory, or sealed (e.g. [`seal_local`](crate::seal_local)) between
/// opening the offer and revealing the secret; delete it after use.
#[derive(Clone)]
pub struct OneTimeKey {
    secret: RecipientSecret,
}

impl OneTimeKey {
    /// A fresh random key pair (HPKE DeriveKeyPair over 32 random bytes).
    pub fn generate() -> OneTimeKey {
        OneTimeKey {
            secret: RecipientSecret::generate(),
        }
    }

    /// `0x01 || X25519 secret (32)`. Seal it before storing it.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(33));
        out.push(ONE_TIME_KEY_VERSION);
        out.extend_from_slice(self.secret.secret_bytes());
        out
    }

    /// Parses [`OneTimeKey::to_bytes`]. Errors: [`Error::Malformed`].
    pub fn from_bytes(bytes: &[u8]) -> Result<OneTimeKey> {
        if bytes.len() != 33 || bytes[0] != ONE_TIME_KEY_VERSION {
            return Err(Error::Malformed("one-time key"));
        }
        let mut secret = Zeroizing::new([0u8; 32]);
        secret.copy_from_slice(&bytes[1..]);
        Ok(OneTimeKey {
            secret: RecipientSecret::from_secret(secret),
        })
    }

    /// The public half.
    pub fn recipient(&self) -> Recipient {
        self.secret.recipient()
    }

    /// The private half, for [`open`](crate::open).
    pub fn recipient_secret(&self) -> &RecipientSecret {
        &self.secret
    }
}

impl fmt::Debug for OneTimeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OneTimeKey")
            .field("key_id", &self.secret.key_id())
            .finish_non_exhaustive()
    }
}

impl AccountKeys {
    /// Certifies a one-time key for the secret offer `message_id`, held by `device_id`
    /// (`CertificateBody::OfferKey`). `created_at`/`expires_at` are RFC 3339.
    pub fn certify_offer_key(
        &self,
        message_id: &MessageId,
        device_id: &DeviceId,
        key: &Recipient,
        created_at: &str,
        expires_at: &str,
    ) -> Certificate {
        self.sign(&CertificateBody::OfferKey {
            account_id: self.account_id(),
            message_id: message_id.clone(),
            device_id: device_id.clone(),
            key_id: key.key_id.clone(),
            public_key: b64_encode(&key.public_key),
            created_at: created_at.to_owned(),
            expires_at: expires_at.to_owned(),
        })
    }
}

/// A verified offer key: seal the secret to `recipient` (and nothing else).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedOfferKey {
    /// The one-time key.
    pub recipient: Recipient,
    /// The certified device that holds it.
    pub device_id: DeviceId,
    /// RFC 3339, as certified (the device's clock); this crate reads no clock. Herald's
    /// sender checks only `expires_at - created_at` and leaves expiry to the relay's clock.
    pub created_at: String,
    /// RFC 3339, as certified (the device's clock).
    pub expires_at: String,
}

/// Checks an offer key certificate against a verified directory: signed by the account
/// identity key, of type `offerKey`, naming this account, `message_id` and a device the
/// directory certifies, with a key id that matches the key.
///
/// Errors: [`Error::Verification`] for any failure (a relay that substitutes the key cannot
/// produce the AIK signature).
pub fn verify_offer_key(
    cert: &Certificate,
    directory: &Directory,
    message_id: &MessageId,
) -> Result<VerifiedOfferKey> {
    let CertificateBody::OfferKey {
        account_id,
        message_id: for_message,
        device_id,
        key_id,
        public_key,
        created_at,
        expires_at,
        ..
    } = verify_certificate(cert, &directory.identity_public())?
    else {
        return Err(Error::Verification("expected an offer key certificate"));
    };
    if &account_id != directory.account_id() {
        return Err(Error::Verification("offer key of another account"));
    }
    if &for_message != message_id {
        return Err(Error::Verification("offer key of another message"));
    }
    if directory.device(&device_id).is_none() {
        return Err(Error::Verification("offer key of an uncertified device"));
    }
    let public_key: [u8; 32] = b64_decode(&public_key)
        .and_then(|k| k.try_into().ok())
        .ok_or(Error::Verification("offer key encoding"))?;
    if key_id != key_id_x25519(&public_key) {
        return Err(Error::Verification("offer key id"));
    }
    Ok(VerifiedOfferKey {
        recipient: Recipient { key_id, public_key },
        device_id,
        created_at,
        expires_at,
    })
}
