//! The account key bundle sealed to one device after a key rotation (docs/devices.md,
//! "Revoking a device"): `0x01 || enc (32) || HPKE.SealBase(pk = the device's X25519 key,
//! info = "herald.v1/device/bundle", aad = device id (ASCII), pt = bundle bytes)`.
//!
//! Base mode authenticates nobody, so the receiving device accepts a bundle only when it holds
//! the AIK it already trusts: nobody without the AIK seed can make such a bundle.

use herald_protocol::ids::DeviceId;

use crate::account::AccountKeys;
use crate::error::{Error, Result};
use crate::hpke_base::{self, ENC_LEN, TAG_LEN};
use crate::keys::{DeviceKeys, Recipient};
use crate::labels;

const SEALED_VERSION: u8 = 1;

/// Seals `bundle` to device `device_id` whose X25519 key is `device`.
/// Errors: [`Error::InvalidInput`] when the recipient's key id does not match its key.
pub fn seal_bundle_to_device(
    bundle: &AccountKeys,
    device: &Recipient,
    device_id: &DeviceId,
) -> Result<Vec<u8>> {
    device.check()?;
    let plaintext = bundle.to_bytes();
    let (enc, ct) = hpke_base::seal(
        &device.public_key,
        labels::DEVICE_BUNDLE,
        device_id.as_str().as_bytes(),
        &plaintext,
    )?;
    let mut out = Vec::with_capacity(1 + ENC_LEN + ct.len());
    out.push(SEALED_VERSION);
    out.extend_from_slice(&enc);
    out.extend_from_slice(&ct);
    Ok(out)
}

/// Opens [`seal_bundle_to_device`] output with this device's keys and checks that the bundle
/// holds the AIK `identity_public` (the account this device already trusts).
///
/// Errors: [`Error::Malformed`] for a wrong version byte or length, [`Error::Decryption`] when
/// it does not open with this device's key, [`Error::Verification`] for another AIK.
pub fn open_bundle_for_device(
    sealed: &[u8],
    device: &DeviceKeys,
    device_id: &DeviceId,
    identity_public: &[u8; 32],
) -> Result<AccountKeys> {
    const WHAT: &str = "device bundle";
    if sealed.len() < 1 + ENC_LEN + TAG_LEN || sealed[0] != SEALED_VERSION {
        return Err(Error::Malformed(WHAT));
    }
    let secret = device.recipient_secret();
    let plaintext = hpke_base::open(
        secret.secret_bytes(),
        &sealed[1..1 + ENC_LEN],
        labels::DEVICE_BUNDLE,
        device_id.as_str().as_bytes(),
        &sealed[1 + ENC_LEN..],
        WHAT,
    )?;
    let bundle = AccountKeys::from_bytes(&plaintext)?;
    if &bundle.identity_public() != identity_public {
        return Err(Error::Verification("the bundle is another account's"));
    }
    Ok(bundle)
}
