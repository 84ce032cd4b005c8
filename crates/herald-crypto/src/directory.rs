//! The verified view of an account's keys (`GET /keys`) against a pinned fingerprint.
//!
//! The relay serves the keys but is not trusted with them: [`Directory::verify`] accepts the
//! response only if the self-signed statement's AIK hashes to a fingerprint that starts with the
//! pin, the account id is the one derived from that fingerprint, and every certificate is signed
//! by that AIK for that account. A relay that substitutes a key is caught before anything is
//! sealed to it (protocol-decisions.md, "Connection keys"; docs/protocol.md, "Key directory").
//!
//! Revoked devices and connections are kept apart with the relay's revocation time: nothing is
//! ever sealed to them, but what they signed before that time still verifies
//! ([`Directory::signing_key_at`]), so history stays readable after a revocation.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use herald_protocol::envelope::{b64_decode, Certificate, CertificateBody, Principal};
use herald_protocol::ids::{AccountId, ConnectionId, DeviceId};
use herald_protocol::wire::{KeysResponse, RevokedCertificate};
use subtle::ConstantTimeEq;

use crate::account::{account_fingerprint, account_id_for, verify_certificate};
use crate::connection::ConnectionKeys;
use crate::error::{Error, Result};
use crate::keys::{key_id_ed25519, key_id_x25519, Recipient};

/// Shortest accepted pin: the 16-byte fingerprint prefix of a connection token.
pub const MIN_PIN_LEN: usize = 16;

/// One certified AEK epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptionKeyInfo {
    /// The epoch (strictly increasing, oldest first).
    pub epoch: u32,
    /// Key id and X25519 public key.
    pub recipient: Recipient,
    /// When the device that made it says it was made (RFC 3339, informational).
    pub created_at: String,
}

/// A certified device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device id.
    pub id: DeviceId,
    /// Display name.
    pub name: String,
    /// Platform text, e.g. `macos`.
    pub platform: String,
    /// Key id of `signing_key`.
    pub signing_key_id: String,
    /// Ed25519 public key.
    pub signing_key: [u8; 32],
    /// The device's own X25519 key.
    pub recipient: Recipient,
    /// RFC 3339, informational.
    pub created_at: String,
}

/// A certified connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionInfo {
    /// The connection id.
    pub id: ConnectionId,
    /// Display name (the agent's name as the user gave it).
    pub name: String,
    /// Key id of `signing_key`.
    pub signing_key_id: String,
    /// Ed25519 public key.
    pub signing_key: [u8; 32],
    /// The connection's X25519 key (answers are sealed to it).
    pub recipient: Recipient,
    /// RFC 3339, informational.
    pub created_at: String,
}

/// A revoked device or connection: its certified keys and when the relay revoked it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revoked<T> {
    /// What its certificate says (verified against the AIK like any other).
    pub info: T,
    /// The relay's revocation time, RFC 3339 as served.
    pub revoked_at: String,
    at: DateTime<Utc>,
}

/// An account's keys, every one verified against the pinned AIK.
#[derive(Debug, Clone)]
pub struct Directory {
    account_id: AccountId,
    identity_public: [u8; 32],
    fingerprint: [u8; 32],
    encryption_keys: Vec<EncryptionKeyInfo>,
    devices: Vec<DeviceInfo>,
    connections: Vec<ConnectionInfo>,
    revoked_devices: Vec<Revoked<DeviceInfo>>,
    revoked_connections: Vec<Revoked<ConnectionInfo>>,
}

/// An RFC 3339 time as the relay serves it (any offset; compared as UTC).
fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// A device certificate of `account_id`, verified with the AIK.
fn device_info(
    cert: &Certificate,
    identity_public: &[u8; 32],
    account_id: &AccountId,
) -> Result<DeviceInfo> {
    let CertificateBody::Device {
        account_id: of,
        device_id,
        name,
        platform,
        signing_key_id,
        signing_key: sk,
        encryption_key_id,
        encryption_key,
        created_at,
    } = verify_certificate(cert, identity_public)?
    else {
        return Err(Error::Verification("expected a device certificate"));
    };
    let keys = member_keys(
        &of,
        account_id,
        signing_key_id,
        &sk,
        encryption_key_id,
        &encryption_key,
    )?;
    Ok(DeviceInfo {
        id: device_id,
        name,
        platform,
        signing_key_id: keys.signing_key_id,
        signing_key: keys.signing_key,
        recipient: keys.recipient,
        created_at,
    })
}

/// A connection certificate of `account_id`, verified with the AIK.
fn connection_info(
    cert: &Certificate,
    identity_public: &[u8; 32],
    account_id: &AccountId,
) -> Result<ConnectionInfo> {
    let CertificateBody::Connection {
        account_id: of,
        connection_id,
        name,
        signing_key_id,
        signing_key: sk,
        encryption_key_id,
        encryption_key,
        created_at,
    } = verify_certificate(cert, identity_public)?
    else {
        return Err(Error::Verification("expected a connection certificate"));
    };
    let keys = member_keys(
        &of,
        account_id,
        signing_key_id,
        &sk,
        encryption_key_id,
        &encryption_key,
    )?;
    Ok(ConnectionInfo {
        id: connection_id,
        name,
        signing_key_id: keys.signing_key_id,
        signing_key: keys.signing_key,
        recipient: keys.recipient,
        created_at,
    })
}

/// The keys a device or connection certificate carries, decoded and checked.
struct MemberKeys {
    signing_key_id: String,
    signing_key: [u8; 32],
    recipient: Recipient,
}

/// Checks that a certificate names `account_id` (`of` is the account it names), then decodes
/// its Ed25519 signing key and X25519 encryption key, each against its key id.
///
/// # Errors
/// [`Error::Verification`] for another account's certificate; the errors of [`signing_key`]
/// and [`recipient`] for a key that is not base64url of 32 bytes or does not match its id.
fn member_keys(
    of: &AccountId,
    account_id: &AccountId,
    signing_key_id: String,
    sk: &str,
    encryption_key_id: String,
    encryption_key: &str,
) -> Result<MemberKeys> {
    if of != account_id {
        return Err(Error::Verification("certificate of another account"));
    }
    Ok(MemberKeys {
        signing_key: signing_key(&signing_key_id, sk)?,
        signing_key_id,
        recipient: recipient(encryption_key_id, encryption_key)?,
    })
}

/// The revoked entries of one list, each certificate verified by `info`.
fn revoked<T>(
    list: &[RevokedCertificate],
    info: impl Fn(&Certificate) -> Result<T>,
) -> Result<Vec<Revoked<T>>> {
    list.iter()
        .map(|r| {
            let at = parse_time(&r.revoked_at)
                .ok_or(Error::Verification("revocation time is not RFC 3339"))?;
            Ok(Revoked {
                info: info(&r.certificate)?,
                revoked_at: r.revoked_at.clone(),
                at,
            })
        })
        .collect()
}

fn key32(b64: &str) -> Result<[u8; 32]> {
    b64_decode(b64)
        .and_then(|v| v.try_into().ok())
        .ok_or(Error::Verification("certificate key encoding"))
}

fn recipient(key_id: String, b64: &str) -> Result<Recipient> {
    let public_key = key32(b64)?;
    if key_id != key_id_x25519(&public_key) {
        return Err(Error::Verification("certificate encryption key id"));
    }
    Ok(Recipient { key_id, public_key })
}

fn signing_key(key_id: &str, b64: &str) -> Result<[u8; 32]> {
    let key = key32(b64)?;
    if key_id != key_id_ed25519(&key) {
        return Err(Error::Verification("certificate signing key id"));
    }
    Ok(key)
}

impl Directory {
    /// Verifies `keys` against `pin`, a prefix of the account fingerprint: 16 bytes for
    /// connections (from the token), the full 32 bytes for devices.
    ///
    /// Checks the statement's self-signature; that the account id is the one derived from the
    /// fingerprint and equals `keys.account_id`; that the fingerprint starts with `pin`
    /// (constant time); and that every certificate is signed by the AIK, is of the kind its
    /// list holds, names this account, and carries key ids matching its keys — the revoked
    /// devices and connections too, whose `revokedAt` must be RFC 3339. AEK epochs must be
    /// strictly increasing and at least one must exist; device and connection ids unique
    /// across the live and revoked lists. Nothing is dropped silently: one bad certificate
    /// fails the whole response.
    ///
    /// Errors: [`Error::InvalidInput`] for a pin shorter than 16 or longer than 32 bytes,
    /// [`Error::PinMismatch`], [`Error::Verification`] for everything else.
    pub fn verify(keys: &KeysResponse, pin: &[u8]) -> Result<Directory> {
        if pin.len() < MIN_PIN_LEN || pin.len() > 32 {
            return Err(Error::InvalidInput(
                "pin must be 16 to 32 bytes of the account fingerprint",
            ));
        }
        let Some(CertificateBody::Account { identity_key, .. }) = keys.statement.body_unverified()
        else {
            return Err(Error::Verification("account statement"));
        };
        let identity_public = key32(&identity_key)?;
        let fingerprint = account_fingerprint(&identity_public);
        if !bool::from(fingerprint[..pin.len()].ct_eq(pin)) {
            return Err(Error::PinMismatch);
        }
        let account_id = account_id_for(&identity_public);
        match verify_certificate(&keys.statement, &identity_public)? {
            CertificateBody::Account {
                account_id: stated,
                identity_key: signed_key,
                ..
            } if stated == account_id && signed_key == identity_key => {}
            _ => return Err(Error::Verification("account statement")),
        }
        if keys.account_id != account_id {
            return Err(Error::Verification(
                "account id does not match the statement",
            ));
        }

        let mut encryption_keys: Vec<EncryptionKeyInfo> = Vec::new();
        for cert in &keys.encryption_keys {
            let CertificateBody::EncryptionKey {
                account_id: of,
                epoch,
                key_id,
                public_key,
                created_at,
            } = verify_certificate(cert, &identity_public)?
            else {
                return Err(Error::Verification(
                    "expected an encryption key certificate",
                ));
            };
            if of != account_id {
                return Err(Error::Verification("certificate of another account"));
            }
            if encryption_keys
                .last()
                .is_some_and(|last| last.epoch >= epoch)
            {
                return Err(Error::Verification("encryption key epochs out of order"));
            }
            encryption_keys.push(EncryptionKeyInfo {
                epoch,
                recipient: recipient(key_id, &public_key)?,
                created_at,
            });
        }
        if encryption_keys.is_empty() {
            return Err(Error::Verification("no account encryption key"));
        }

        let devices = keys
            .devices
            .iter()
            .map(|c| device_info(c, &identity_public, &account_id))
            .collect::<Result<Vec<_>>>()?;
        let connections = keys
            .connections
            .iter()
            .map(|c| connection_info(c, &identity_public, &account_id))
            .collect::<Result<Vec<_>>>()?;
        let revoked_devices = revoked(&keys.revoked_devices, |c| {
            device_info(c, &identity_public, &account_id)
        })?;
        let revoked_connections = revoked(&keys.revoked_connections, |c| {
            connection_info(c, &identity_public, &account_id)
        })?;
        // One id, one certificate: a credential is either live or revoked, never both.
        let mut seen = BTreeSet::new();
        for id in devices
            .iter()
            .map(|d| d.id.as_str())
            .chain(revoked_devices.iter().map(|r| r.info.id.as_str()))
        {
            if !seen.insert(id.to_owned()) {
                return Err(Error::Verification("duplicate device certificate"));
            }
        }
        for id in connections
            .iter()
            .map(|c| c.id.as_str())
            .chain(revoked_connections.iter().map(|r| r.info.id.as_str()))
        {
            if !seen.insert(id.to_owned()) {
                return Err(Error::Verification("duplicate connection certificate"));
            }
        }

        Ok(Directory {
            account_id,
            identity_public,
            fingerprint,
            encryption_keys,
            devices,
            connections,
            revoked_devices,
            revoked_connections,
        })
    }

    /// The account id.
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }

    /// The AIK public key.
    pub fn identity_public(&self) -> [u8; 32] {
        self.identity_public
    }

    /// The full account fingerprint (a device may pin it after first use).
    pub fn fingerprint(&self) -> [u8; 32] {
        self.fingerprint
    }

    /// The account's safety code (see [`safety_code`](crate::safety_code)).
    pub fn safety_code(&self) -> String {
        crate::safety::safety_code(&self.identity_public, &self.account_id)
    }

    /// The AEK of the latest epoch: every message is sealed to it.
    pub fn current_account_recipient(&self) -> Recipient {
        self.encryption_keys
            .last()
            .expect("verify requires at least one encryption key")
            .recipient
            .clone()
    }

    /// All certified AEK epochs, oldest first.
    pub fn encryption_keys(&self) -> &[EncryptionKeyInfo] {
        &self.encryption_keys
    }

    /// A certified connection by id.
    pub fn connection(&self, id: &ConnectionId) -> Option<&ConnectionInfo> {
        self.connections.iter().find(|c| &c.id == id)
    }

    /// All certified connections, in response order.
    pub fn connections(&self) -> &[ConnectionInfo] {
        &self.connections
    }

    /// The certified connection whose keys are `keys` (both key ids match): how the CLI
    /// learns its own connection id from its token.
    pub fn connection_for_keys(&self, keys: &ConnectionKeys) -> Option<&ConnectionInfo> {
        self.connections.iter().find(|c| {
            c.signing_key_id == keys.signing_key_id()
                && c.recipient.key_id == keys.encryption_key_id()
        })
    }

    /// A certified device by id.
    pub fn device(&self, id: &DeviceId) -> Option<&DeviceInfo> {
        self.devices.iter().find(|d| &d.id == id)
    }

    /// All certified devices, in response order.
    pub fn devices(&self) -> &[DeviceInfo] {
        &self.devices
    }

    /// Revoked devices (never sealed to; what they signed before `revoked_at` verifies).
    pub fn revoked_devices(&self) -> &[Revoked<DeviceInfo>] {
        &self.revoked_devices
    }

    /// Revoked connections, as [`Directory::revoked_devices`].
    pub fn revoked_connections(&self) -> &[Revoked<ConnectionInfo>] {
        &self.revoked_connections
    }

    /// The Ed25519 key to verify what `principal` signed with `key_id` in a record the relay
    /// stamped at `stored_at` (RFC 3339: a message's `createdAt`, an answer's `answeredAt` —
    /// never a time the sender wrote itself).
    ///
    /// A live credential's key is returned whatever the time. A revoked one's only when
    /// `stored_at` is not after its `revokedAt`: the relay refuses a revoked credential at
    /// once, so only the ordering of its records is taken from the relay, which orders them
    /// anyway. Errors: [`Error::UnknownSender`] (no such certified key: refresh once),
    /// [`Error::RevokedSender`] (stored after the revocation, or `stored_at` unreadable).
    pub fn signing_key_at(
        &self,
        principal: &Principal,
        key_id: &str,
        stored_at: &str,
    ) -> Result<[u8; 32]> {
        if let Some(key) = self.signing_key(principal, key_id) {
            return Ok(key);
        }
        let revoked = match principal {
            Principal::Device(id) => self
                .revoked_devices
                .iter()
                .find(|r| &r.info.id == id)
                .map(|r| (&r.info.signing_key_id, r.info.signing_key, r.at)),
            Principal::Connection(id) => self
                .revoked_connections
                .iter()
                .find(|r| &r.info.id == id)
                .map(|r| (&r.info.signing_key_id, r.info.signing_key, r.at)),
        };
        match revoked {
            Some((id, key, revoked_at)) if id == key_id => match parse_time(stored_at) {
                Some(at) if at <= revoked_at => Ok(key),
                _ => Err(Error::RevokedSender),
            },
            _ => Err(Error::UnknownSender),
        }
    }

    /// The Ed25519 key certified for a live (not revoked) `principal` if its key id is
    /// `key_id`.
    pub fn signing_key(&self, principal: &Principal, key_id: &str) -> Option<[u8; 32]> {
        let (id, key) = match principal {
            Principal::Device(id) => self
                .device(id)
                .map(|d| (&d.signing_key_id, d.signing_key))?,
            Principal::Connection(id) => self
                .connection(id)
                .map(|c| (&c.signing_key_id, c.signing_key))?,
        };
        (id == key_id).then_some(key)
    }

    /// The certified display name of `principal`, revoked or not.
    pub fn sender_name(&self, principal: &Principal) -> Option<String> {
        match principal {
            Principal::Device(id) => self.device(id).map(|d| d.name.clone()).or_else(|| {
                self.revoked_devices
                    .iter()
                    .find(|r| &r.info.id == id)
                    .map(|r| r.info.name.clone())
            }),
            Principal::Connection(id) => {
                self.connection(id).map(|c| c.name.clone()).or_else(|| {
                    self.revoked_connections
                        .iter()
                        .find(|r| &r.info.id == id)
                        .map(|r| r.info.name.clone())
                })
            }
        }
    }
}
