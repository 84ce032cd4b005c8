//! Typed-code pairing: an unlocked device (the approver) hands the account key bundle to a new
//! device after the person types, on the approver, the 8-digit code the new device shows
//! (protocol-decisions.md, "Unlocking a new device"; normative text in docs/devices.md).
//!
//! SPAKE2 (the `spake2` crate, Ed25519 group) turns the code into a shared 32-byte key `K`
//! that the relay in between cannot learn and can test only once per request. The new device
//! is side A with identity `"herald.v1/pairing/new-device" || lp(pairing id) || lp(its
//! Ed25519 key) || lp(its X25519 key)`; the approver is side B with identity
//! `"herald.v1/pairing/approver"` (the new device cannot know the account before the
//! response, so the account is bound by the confirmations instead). The crate has no key
//! confirmation, so both sides add one: HMAC-SHA256 over the transcript hash
//! `T = SHA-256("herald.v1/pairing/transcript" || lp(pairing id) || lp(new signing key) ||
//! lp(new encryption key) || lp(account id) || lp(AIK public key) || lp(msg A) || lp(msg B))`
//! under keys `HKDF(K, "herald.v1/pairing/confirm/approver")` and
//! `HKDF(K, "herald.v1/pairing/confirm/new-device")`, compared in constant time (ring's
//! `hmac::verify`). A wrong code, or any key or message changed on the way, fails a
//! confirmation. The bundle then travels HPKE-sealed in PSK mode with
//! `psk = HKDF(K, "herald.v1/pairing/psk")`, so only the PAKE peer can open it.

use std::fmt;

use herald_protocol::ids::{AccountId, PairingId};
use ring::hmac;
use spake2::{Ed25519Group, Identity, Password, Spake2};
use zeroize::Zeroizing;

use crate::account::AccountKeys;
use crate::error::{Error, Result};
use crate::hpke_base::{self, ENC_LEN, TAG_LEN};
use crate::keys::{key_id_ed25519, key_id_x25519, DeviceKeys, DevicePublic, Recipient};
use crate::labels;
use crate::primitives::{hkdf32, random_bytes, sha256};

/// Digits in a pairing code.
pub const PAIRING_CODE_DIGITS: usize = 8;
/// Version byte of a bundle sealed in pairing.
const SEALED_VERSION: u8 = 1;

/// The 8-digit code the new device shows and the person types on the approver. It never
/// leaves the new device. Zeroized on drop; `Debug` redacts.
#[derive(Clone)]
pub struct PairingCode(Zeroizing<[u8; PAIRING_CODE_DIGITS]>);

impl PairingCode {
    /// A uniformly random code (rejection sampling over 32-bit draws).
    pub fn generate() -> PairingCode {
        const RANGE: u32 = 100_000_000;
        // The largest multiple of RANGE that fits: draws at or above it are redrawn.
        let limit = u32::MAX - (u32::MAX % RANGE);
        let n = loop {
            let draw = u32::from_be_bytes(random_bytes());
            if draw < limit {
                break draw % RANGE;
            }
        };
        let mut digits = Zeroizing::new([0u8; PAIRING_CODE_DIGITS]);
        let mut rest = n;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        PairingCode(digits)
    }

    /// Parses a typed code: exactly 8 digits; spaces and `-` are ignored.
    /// Errors: [`Error::Malformed`] for anything else.
    pub fn parse(s: &str) -> Result<PairingCode> {
        const WHAT: &str = "pairing code: expected 8 digits";
        let mut digits = Zeroizing::new([0u8; PAIRING_CODE_DIGITS]);
        let mut n = 0;
        for c in s.chars() {
            if c.is_whitespace() || c == '-' {
                continue;
            }
            if !c.is_ascii_digit() || n == PAIRING_CODE_DIGITS {
                return Err(Error::Malformed(WHAT));
            }
            digits[n] = c as u8;
            n += 1;
        }
        if n != PAIRING_CODE_DIGITS {
            return Err(Error::Malformed(WHAT));
        }
        Ok(PairingCode(digits))
    }

    /// The code as shown: two groups of four digits, `1234 5678`.
    pub fn display(&self) -> Zeroizing<String> {
        let mut out = Zeroizing::new(String::with_capacity(PAIRING_CODE_DIGITS + 1));
        for (i, d) in self.0.iter().enumerate() {
            if i == PAIRING_CODE_DIGITS / 2 {
                out.push(' ');
            }
            out.push(char::from(*d));
        }
        out
    }

    fn password(&self) -> Password {
        Password::new(&self.0[..])
    }
}

impl fmt::Debug for PairingCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PairingCode(<redacted>)")
    }
}

impl DevicePublic {
    /// The public keys of a device from its two raw keys (computes the key ids).
    pub fn from_keys(signing_key: [u8; 32], encryption_key: [u8; 32]) -> DevicePublic {
        DevicePublic {
            signing_key_id: key_id_ed25519(&signing_key),
            signing_key,
            encryption_key_id: key_id_x25519(&encryption_key),
            encryption_key,
        }
    }
}

fn lp(out: &mut Vec<u8>, part: &[u8]) {
    let len = u32::try_from(part.len()).expect("pairing transcript parts are short");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(part);
}

fn identity_new_device(pairing_id: &PairingId, device: &DevicePublic) -> Identity {
    let mut id = labels::PAIRING_NEW_DEVICE.to_vec();
    lp(&mut id, pairing_id.as_str().as_bytes());
    lp(&mut id, &device.signing_key);
    lp(&mut id, &device.encryption_key);
    Identity::new(&id)
}

fn identity_approver() -> Identity {
    Identity::new(labels::PAIRING_APPROVER)
}

/// What both sides bind into the confirmations.
struct Transcript<'a> {
    pairing_id: &'a PairingId,
    device: &'a DevicePublic,
    account_id: &'a AccountId,
    identity_public: &'a [u8; 32],
    message_new_device: &'a [u8],
    message_approver: &'a [u8],
}

impl Transcript<'_> {
    fn hash(&self) -> [u8; 32] {
        let mut t = Vec::with_capacity(256);
        lp(&mut t, self.pairing_id.as_str().as_bytes());
        lp(&mut t, &self.device.signing_key);
        lp(&mut t, &self.device.encryption_key);
        lp(&mut t, self.account_id.as_str().as_bytes());
        lp(&mut t, self.identity_public);
        lp(&mut t, self.message_new_device);
        lp(&mut t, self.message_approver);
        sha256(&[labels::PAIRING_TRANSCRIPT, &t])
    }
}

/// Keys derived from the PAKE key and the transcript.
struct Confirmed {
    pairing_id: PairingId,
    transcript: [u8; 32],
    identity_public: [u8; 32],
    confirm_approver: Zeroizing<[u8; 32]>,
    confirm_new_device: Zeroizing<[u8; 32]>,
    psk: Zeroizing<[u8; 32]>,
}

impl Confirmed {
    fn new(key: &[u8], transcript: &Transcript<'_>) -> Confirmed {
        Confirmed {
            pairing_id: transcript.pairing_id.clone(),
            transcript: transcript.hash(),
            identity_public: *transcript.identity_public,
            confirm_approver: hkdf32(key, labels::PAIRING_CONFIRM_APPROVER),
            confirm_new_device: hkdf32(key, labels::PAIRING_CONFIRM_NEW_DEVICE),
            psk: hkdf32(key, labels::PAIRING_PSK),
        }
    }

    fn mac(&self, key: &[u8; 32]) -> [u8; 32] {
        let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), &self.transcript);
        tag.as_ref()
            .try_into()
            .expect("HMAC-SHA256 tags are 32 bytes")
    }

    /// Constant-time check (ring's `hmac::verify`).
    fn check(&self, key: &[u8; 32], confirmation: &[u8]) -> Result<()> {
        hmac::verify(
            &hmac::Key::new(hmac::HMAC_SHA256, key),
            &self.transcript,
            confirmation,
        )
        .map_err(|_| Error::PairingMismatch)
    }
}

fn finish(spake: Spake2<Ed25519Group>, message: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    spake
        .finish(message)
        .map(Zeroizing::new)
        .map_err(|_| Error::Malformed("pairing message"))
}

/// The new device's side of a pairing. Holds the SPAKE2 state between registering the
/// request and reading the approver's response; `Debug` shows the pairing id only.
pub struct NewDevicePairing {
    pairing_id: PairingId,
    device: DevicePublic,
    spake: Spake2<Ed25519Group>,
    message: Vec<u8>,
}

impl NewDevicePairing {
    /// Starts side A for `pairing_id` with this device's public keys and the code it shows.
    pub fn start(
        pairing_id: &PairingId,
        device: &DevicePublic,
        code: &PairingCode,
    ) -> NewDevicePairing {
        let (spake, message) = Spake2::<Ed25519Group>::start_a(
            &code.password(),
            &identity_new_device(pairing_id, device),
            &identity_approver(),
        );
        NewDevicePairing {
            pairing_id: pairing_id.clone(),
            device: device.clone(),
            spake,
            message,
        }
    }

    /// The SPAKE2 message to register with the request.
    pub fn message(&self) -> &[u8] {
        &self.message
    }

    /// Reads the approver's response: finishes SPAKE2, binds the approving account (its id
    /// and AIK public key, from its statement) and checks the approver's confirmation.
    ///
    /// Errors: [`Error::PairingMismatch`] when the confirmation does not verify (a wrong
    /// code, or a key or message substituted on the way); [`Error::Malformed`] for a message
    /// that is not a SPAKE2 message.
    pub fn finish(
        self,
        approver_message: &[u8],
        account_id: &AccountId,
        identity_public: &[u8; 32],
        approver_confirmation: &[u8],
    ) -> Result<NewDeviceConfirmed> {
        let key = finish(self.spake, approver_message)?;
        let confirmed = Confirmed::new(
            &key,
            &Transcript {
                pairing_id: &self.pairing_id,
                device: &self.device,
                account_id,
                identity_public,
                message_new_device: &self.message,
                message_approver: approver_message,
            },
        );
        confirmed.check(&confirmed.confirm_approver, approver_confirmation)?;
        Ok(NewDeviceConfirmed(confirmed))
    }
}

impl fmt::Debug for NewDevicePairing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewDevicePairing")
            .field("pairing_id", &self.pairing_id)
            .finish_non_exhaustive()
    }
}

/// The new device after it verified the approver: it sends its own confirmation and later
/// opens the bundle. `Debug` redacts.
pub struct NewDeviceConfirmed(Confirmed);

impl NewDeviceConfirmed {
    /// The new device's key confirmation (32 bytes) for the approver.
    pub fn confirmation(&self) -> [u8; 32] {
        self.0.mac(&self.0.confirm_new_device)
    }

    /// Opens the bundle the approver sealed with [`ApproverConfirmed::seal_bundle`] to this
    /// device's X25519 key, and checks it is the bundle of the account bound into the
    /// transcript (its AIK).
    ///
    /// Errors: [`Error::Malformed`] for a wrong version byte or length, [`Error::Decryption`]
    /// when it does not open (not sealed by the PAKE peer, or tampered), and
    /// [`Error::Verification`] for another account's bundle.
    pub fn open_bundle(&self, sealed: &[u8], device: &DeviceKeys) -> Result<AccountKeys> {
        const WHAT: &str = "pairing bundle";
        if sealed.len() < 1 + ENC_LEN + TAG_LEN || sealed[0] != SEALED_VERSION {
            return Err(Error::Malformed(WHAT));
        }
        let secret = device.recipient_secret();
        let plaintext = hpke_base::open_psk(
            secret.secret_bytes(),
            &sealed[1..1 + ENC_LEN],
            labels::PAIRING_BUNDLE,
            self.0.pairing_id.as_str().as_bytes(),
            &sealed[1 + ENC_LEN..],
            &self.0.psk[..],
            labels::PAIRING_PSK_ID,
            WHAT,
        )?;
        let bundle = AccountKeys::from_bytes(&plaintext)?;
        if bundle.identity_public() != self.0.identity_public {
            return Err(Error::Verification("the bundle is another account's"));
        }
        Ok(bundle)
    }
}

impl fmt::Debug for NewDeviceConfirmed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewDeviceConfirmed")
            .field("pairing_id", &self.0.pairing_id)
            .finish_non_exhaustive()
    }
}

/// The approving device's side, after it answered with the typed code. `Debug` redacts.
pub struct ApproverPairing {
    confirmed: Confirmed,
    message: Vec<u8>,
}

impl ApproverPairing {
    /// Answers the request `pairing_id` of the new device with keys `new_device` and SPAKE2
    /// message `new_device_message`, using the code the person typed and this account.
    /// Errors: [`Error::Malformed`] for a message that is not a SPAKE2 message.
    pub fn respond(
        pairing_id: &PairingId,
        new_device: &DevicePublic,
        new_device_message: &[u8],
        code: &PairingCode,
        account: &AccountKeys,
    ) -> Result<ApproverPairing> {
        let (spake, message) = Spake2::<Ed25519Group>::start_b(
            &code.password(),
            &identity_new_device(pairing_id, new_device),
            &identity_approver(),
        );
        let key = finish(spake, new_device_message)?;
        let confirmed = Confirmed::new(
            &key,
            &Transcript {
                pairing_id,
                device: new_device,
                account_id: &account.account_id(),
                identity_public: &account.identity_public(),
                message_new_device: new_device_message,
                message_approver: &message,
            },
        );
        Ok(ApproverPairing { confirmed, message })
    }

    /// The approver's SPAKE2 message.
    pub fn message(&self) -> &[u8] {
        &self.message
    }

    /// The approver's key confirmation (32 bytes) for the new device.
    pub fn confirmation(&self) -> [u8; 32] {
        self.confirmed.mac(&self.confirmed.confirm_approver)
    }

    /// Checks the new device's confirmation (constant time). Only after this may the bundle
    /// be sealed. Errors: [`Error::PairingMismatch`] (a wrong code; the request is burned).
    pub fn verify_new_device(self, confirmation: &[u8]) -> Result<ApproverConfirmed> {
        self.confirmed
            .check(&self.confirmed.confirm_new_device, confirmation)?;
        Ok(ApproverConfirmed(self.confirmed))
    }
}

impl fmt::Debug for ApproverPairing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApproverPairing")
            .field("pairing_id", &self.confirmed.pairing_id)
            .finish_non_exhaustive()
    }
}

/// The approver after both confirmations matched. `Debug` redacts.
pub struct ApproverConfirmed(Confirmed);

impl ApproverConfirmed {
    /// Seals the account key bundle to the new device's X25519 key in HPKE PSK mode:
    /// `0x01 || enc (32) || SealPSK(pk, info = "herald.v1/pairing/bundle", aad = pairing id,
    /// pt = bundle bytes, psk = HKDF(K, "herald.v1/pairing/psk"),
    /// psk_id = "herald.v1/pairing/id-of-psk")`.
    /// Errors: [`Error::InvalidInput`] for a recipient whose key id does not match its key.
    pub fn seal_bundle(&self, bundle: &AccountKeys, new_device: &Recipient) -> Result<Vec<u8>> {
        new_device.check()?;
        let plaintext = bundle.to_bytes();
        let (enc, ct) = hpke_base::seal_psk(
            &new_device.public_key,
            labels::PAIRING_BUNDLE,
            self.0.pairing_id.as_str().as_bytes(),
            &plaintext,
            &self.0.psk[..],
            labels::PAIRING_PSK_ID,
        )?;
        let mut out = Vec::with_capacity(1 + ENC_LEN + ct.len());
        out.push(SEALED_VERSION);
        out.extend_from_slice(&enc);
        out.extend_from_slice(&ct);
        Ok(out)
    }
}

impl fmt::Debug for ApproverConfirmed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApproverConfirmed")
            .field("pairing_id", &self.0.pairing_id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_eight_digits_and_parse_back() {
        let code = PairingCode::generate();
        let shown = code.display();
        assert_eq!(shown.len(), 9, "8 digits and one space: {}", shown.len());
        let parsed = PairingCode::parse(&shown).expect("a shown code parses");
        assert_eq!(*parsed.0, *code.0, "round trip");
        assert!(
            PairingCode::parse("1234-5678").is_ok(),
            "dashes are ignored"
        );
        for bad in ["1234567", "123456789", "1234 567a", ""] {
            assert!(PairingCode::parse(bad).is_err(), "{bad:?} is refused");
        }
        assert_eq!(
            format!("{code:?}"),
            "PairingCode(<redacted>)",
            "Debug never shows the code"
        );
    }
}
