//! The account key bundle and the certificates its identity key signs.
//!
//! The account identity key (AIK, Ed25519) is the root of trust: the account fingerprint is
//! `SHA-256("herald.v1/account-fingerprint" || AIK public key)`, the account id is
//! `acc_` + base32 of its first 16 bytes, and every certificate (statement, encryption key
//! epochs, devices, connections) is `Ed25519(AIK, "herald.v1/certificate" || payload bytes)`
//! where the payload is the UTF-8 JSON of a `CertificateBody`, carried base64url as signed.
//! The account encryption key (AEK) is an X25519 HPKE key with an epoch; every device holds all
//! epochs so old messages stay readable after a rotation (protocol-decisions.md, "Keys").

use std::fmt;

use herald_protocol::envelope::{b64_decode, b64_encode, Certificate, CertificateBody};
use herald_protocol::ids::{AccountId, ConnectionId, DeviceId};
use zeroize::Zeroizing;

use crate::connection::ConnectionKeys;
use crate::error::{Error, Result};
use crate::keys::{key_id_ed25519, DevicePublic, Recipient, RecipientSecret};
use crate::labels;
use crate::primitives::{ed25519_public, ed25519_sign, ed25519_verify, random_bytes, sha256};

/// Version byte of [`AccountKeys::to_bytes`].
const BUNDLE_VERSION: u8 = 1;
/// Most AEK epochs a bundle may hold (a sanity bound for parsing).
const MAX_EPOCHS: usize = 100_000;

/// The account fingerprint of an AIK public key:
/// `SHA-256("herald.v1/account-fingerprint" || public key)`.
pub fn account_fingerprint(identity_public: &[u8; 32]) -> [u8; 32] {
    sha256(&[labels::ACCOUNT_FINGERPRINT, identity_public])
}

/// The account id of an AIK public key: `acc_` + base32 of the fingerprint's first 16 bytes.
pub fn account_id_for(identity_public: &[u8; 32]) -> AccountId {
    let fingerprint = account_fingerprint(identity_public);
    let mut first = [0u8; 16];
    first.copy_from_slice(&fingerprint[..16]);
    AccountId::from_random(&first)
}

/// The bytes an AIK signs for a certificate: `"herald.v1/certificate" || payload`.
fn certificate_message(payload: &[u8]) -> Vec<u8> {
    [labels::CERTIFICATE, payload].concat()
}

/// Checks `cert`'s signature by the AIK `identity_public` and returns what it says.
///
/// Errors: [`Error::Verification`] when the payload or signature is not base64url, the
/// signature is not 64 bytes or does not verify, or the payload is not a `CertificateBody`.
/// It does not check which account the body names; `Directory::verify`
/// does.
pub fn verify_certificate(
    cert: &Certificate,
    identity_public: &[u8; 32],
) -> Result<CertificateBody> {
    let payload =
        b64_decode(&cert.payload).ok_or(Error::Verification("certificate payload encoding"))?;
    let signature =
        b64_decode(&cert.signature).ok_or(Error::Verification("certificate signature encoding"))?;
    if signature.len() != 64
        || !ed25519_verify(identity_public, &certificate_message(&payload), &signature)
    {
        return Err(Error::Verification("certificate signature"));
    }
    serde_json::from_slice(&payload).map_err(|_| Error::Verification("certificate payload"))
}

/// The account key bundle: the AIK seed and the AEK secret of every epoch, oldest first.
/// Zeroized on drop; `Debug` shows the account id and epochs only.
#[derive(Clone)]
pub struct AccountKeys {
    identity_seed: Zeroizing<[u8; 32]>,
    identity_public: [u8; 32],
    /// `(epoch, secret)`, epochs strictly increasing; never empty.
    encryption: Vec<(u32, RecipientSecret)>,
}

impl AccountKeys {
    /// A new account: a random AIK and AEK epoch 1.
    pub fn generate() -> AccountKeys {
        let identity_seed = Zeroizing::new(random_bytes::<32>());
        AccountKeys {
            identity_public: ed25519_public(&identity_seed),
            identity_seed,
            encryption: vec![(1, RecipientSecret::generate())],
        }
    }

    /// The account id (derived from [`AccountKeys::fingerprint`]).
    pub fn account_id(&self) -> AccountId {
        account_id_for(&self.identity_public)
    }

    /// The account fingerprint (32 bytes); devices pin all of it, connection tokens its first
    /// 16 bytes.
    pub fn fingerprint(&self) -> [u8; 32] {
        account_fingerprint(&self.identity_public)
    }

    /// The AIK public key (Ed25519).
    pub fn identity_public(&self) -> [u8; 32] {
        self.identity_public
    }

    /// The safety code of this account (see [`safety_code`](crate::safety_code)).
    pub fn safety_code(&self) -> String {
        crate::safety::safety_code(&self.identity_public, &self.account_id())
    }

    /// The current (highest) AEK epoch.
    pub fn current_epoch(&self) -> u32 {
        self.current().0
    }

    /// All AEK epochs held, oldest first.
    pub fn epochs(&self) -> Vec<u32> {
        self.encryption.iter().map(|(epoch, _)| *epoch).collect()
    }

    fn current(&self) -> &(u32, RecipientSecret) {
        self.encryption
            .last()
            .expect("an account key bundle always holds an encryption key")
    }

    /// Starts a new AEK epoch (on device removal and on Reset) and returns its number. Upload
    /// [`AccountKeys::encryption_key_certificate`] for it and re-seal the bundle to the
    /// recovery key.
    pub fn rotate_encryption_key(&mut self) -> u32 {
        let epoch = self.current_epoch() + 1;
        self.encryption.push((epoch, RecipientSecret::generate()));
        epoch
    }

    pub(crate) fn sign(&self, body: &CertificateBody) -> Certificate {
        // Serializing these derived types (strings, integers, enum tags) cannot fail.
        let payload = serde_json::to_vec(body).expect("certificate bodies serialize");
        let signature = ed25519_sign(&self.identity_seed, &certificate_message(&payload));
        Certificate {
            payload: b64_encode(&payload),
            signature: b64_encode(&signature),
        }
    }

    /// The self-signed account statement (`CertificateBody::Account`).
    pub fn statement(&self, created_at: &str) -> Certificate {
        self.sign(&CertificateBody::Account {
            account_id: self.account_id(),
            identity_key: b64_encode(&self.identity_public),
            created_at: created_at.to_owned(),
        })
    }

    /// The certificate of AEK `epoch` (`CertificateBody::EncryptionKey`).
    /// Errors: [`Error::UnknownEpoch`] when the bundle holds no such epoch.
    pub fn encryption_key_certificate(&self, epoch: u32, created_at: &str) -> Result<Certificate> {
        let (_, secret) = self
            .encryption
            .iter()
            .find(|(e, _)| *e == epoch)
            .ok_or(Error::UnknownEpoch(epoch))?;
        let recipient = secret.recipient();
        Ok(self.sign(&CertificateBody::EncryptionKey {
            account_id: self.account_id(),
            epoch,
            key_id: recipient.key_id,
            public_key: b64_encode(&recipient.public_key),
            created_at: created_at.to_owned(),
        }))
    }

    /// A device certificate (`CertificateBody::Device`) for `device`'s public keys.
    pub fn certify_device(
        &self,
        device_id: &DeviceId,
        name: &str,
        platform: &str,
        device: &DevicePublic,
        created_at: &str,
    ) -> Certificate {
        self.sign(&CertificateBody::Device {
            account_id: self.account_id(),
            device_id: device_id.clone(),
            name: name.to_owned(),
            platform: platform.to_owned(),
            signing_key_id: device.signing_key_id.clone(),
            signing_key: b64_encode(&device.signing_key),
            encryption_key_id: device.encryption_key_id.clone(),
            encryption_key: b64_encode(&device.encryption_key),
            created_at: created_at.to_owned(),
        })
    }

    /// A connection certificate (`CertificateBody::Connection`) for keys derived from a token
    /// seed.
    pub fn certify_connection(
        &self,
        connection_id: &ConnectionId,
        name: &str,
        conn: &ConnectionKeys,
        created_at: &str,
    ) -> Certificate {
        let recipient = conn.recipient();
        self.sign(&CertificateBody::Connection {
            account_id: self.account_id(),
            connection_id: connection_id.clone(),
            name: name.to_owned(),
            signing_key_id: conn.signing_key_id().to_owned(),
            signing_key: b64_encode(&conn.signing_public_key()),
            encryption_key_id: recipient.key_id,
            encryption_key: b64_encode(&recipient.public_key),
            created_at: created_at.to_owned(),
        })
    }

    /// The AEK secret of any epoch whose key id is `key_id` (to open envelopes).
    pub fn encryption_secret(&self, key_id: &str) -> Option<RecipientSecret> {
        self.encryption
            .iter()
            .find(|(_, secret)| secret.key_id() == key_id)
            .map(|(_, secret)| secret.clone())
    }

    /// All AEK secrets, oldest first (to pass every epoch to [`open`](crate::open)).
    pub fn encryption_secrets(&self) -> Vec<RecipientSecret> {
        self.encryption.iter().map(|(_, s)| s.clone()).collect()
    }

    /// Key id and public key of the current AEK.
    pub fn current_recipient(&self) -> Recipient {
        self.current().1.recipient()
    }

    /// Serializes the bundle (big-endian integers):
    /// `0x01 || AIK seed (32) || count: u32 || count × (epoch: u32 || AEK secret (32))`.
    /// Seal the result before storing it anywhere.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(1 + 32 + 4 + 36 * self.encryption.len()));
        out.push(BUNDLE_VERSION);
        out.extend_from_slice(&self.identity_seed[..]);
        let count = u32::try_from(self.encryption.len()).expect("epoch count fits in u32");
        out.extend_from_slice(&count.to_be_bytes());
        for (epoch, secret) in &self.encryption {
            out.extend_from_slice(&epoch.to_be_bytes());
            out.extend_from_slice(secret.secret_bytes());
        }
        out
    }

    /// Parses [`AccountKeys::to_bytes`]. Errors: [`Error::Malformed`] for a wrong version byte
    /// or length, no epochs, or epochs not strictly increasing from at least 1.
    pub fn from_bytes(bytes: &[u8]) -> Result<AccountKeys> {
        const WHAT: &str = "account key bundle";
        if bytes.len() < 1 + 32 + 4 || bytes[0] != BUNDLE_VERSION {
            return Err(Error::Malformed(WHAT));
        }
        let mut identity_seed = Zeroizing::new([0u8; 32]);
        identity_seed.copy_from_slice(&bytes[1..33]);
        let count = u32::from_be_bytes(bytes[33..37].try_into().expect("4 bytes")) as usize;
        let rest = &bytes[37..];
        if count == 0 || count > MAX_EPOCHS || rest.len() != count * 36 {
            return Err(Error::Malformed(WHAT));
        }
        let mut encryption: Vec<(u32, RecipientSecret)> = Vec::with_capacity(count);
        for chunk in rest.chunks_exact(36) {
            let epoch = u32::from_be_bytes(chunk[..4].try_into().expect("4 bytes"));
            let previous = encryption.last().map_or(0, |(e, _)| *e);
            if epoch <= previous {
                return Err(Error::Malformed(WHAT));
            }
            let mut secret = Zeroizing::new([0u8; 32]);
            secret.copy_from_slice(&chunk[4..]);
            encryption.push((epoch, RecipientSecret::from_secret(secret)));
        }
        Ok(AccountKeys {
            identity_public: ed25519_public(&identity_seed),
            identity_seed,
            encryption,
        })
    }
}

impl fmt::Debug for AccountKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountKeys")
            .field("account_id", &self.account_id())
            .field("identity_key_id", &key_id_ed25519(&self.identity_public))
            .field("epochs", &self.epochs())
            .finish_non_exhaustive()
    }
}
