//! Typed-code pairing (SPAKE2 + key confirmation + HPKE PSK bundle) and bundles sealed to a
//! device after a rotation: the right code hands the bundle over; a wrong code, a substituted
//! key or a substituted account fails confirmation; the PSK bundle opens only with the PAKE key.

use herald_crypto::{
    new_device_id, open_bundle_for_device, seal_bundle_to_device, AccountKeys, ApproverPairing,
    DeviceKeys, Error, NewDevicePairing, PairingCode, PairingId,
};

fn pairing_id() -> PairingId {
    PairingId::from_random(&herald_crypto::random_bytes())
}

/// Runs the exchange up to the new device's check of the approver's confirmation.
fn exchange(
    code_shown: &PairingCode,
    code_typed: &PairingCode,
    account: &AccountKeys,
    new_device: &DeviceKeys,
) -> (
    herald_crypto::Result<herald_crypto::NewDeviceConfirmed>,
    ApproverPairing,
) {
    let id = pairing_id();
    let n = NewDevicePairing::start(&id, &new_device.public(), code_shown);
    let d = ApproverPairing::respond(&id, &new_device.public(), n.message(), code_typed, account)
        .expect("a well-formed SPAKE2 message");
    let confirmation = d.confirmation();
    let result = n.finish(
        d.message(),
        &account.account_id(),
        &account.identity_public(),
        &confirmation,
    );
    (result, d)
}

#[test]
fn the_right_code_hands_the_bundle_over() {
    let account = AccountKeys::generate();
    let new_device = DeviceKeys::generate();
    let code = PairingCode::generate();
    let (n, d) = exchange(&code, &code, &account, &new_device);
    let n = n.expect("the approver's confirmation verifies with the right code");
    let d = d
        .verify_new_device(&n.confirmation())
        .expect("the new device's confirmation verifies");
    let sealed = d
        .seal_bundle(&account, &new_device.recipient())
        .expect("sealing works");
    let opened = n
        .open_bundle(&sealed, &new_device)
        .expect("the new device opens the bundle");
    assert_eq!(
        opened.account_id(),
        account.account_id(),
        "the same account arrives"
    );
    assert_eq!(opened.epochs(), account.epochs(), "with every epoch");
}

#[test]
fn a_wrong_code_fails_confirmation_on_both_sides() {
    let account = AccountKeys::generate();
    let new_device = DeviceKeys::generate();
    let shown = PairingCode::parse("1234 5678").unwrap();
    let typed = PairingCode::parse("1234 5679").unwrap();
    let (n, d) = exchange(&shown, &typed, &account, &new_device);
    assert_eq!(
        n.err(),
        Some(Error::PairingMismatch),
        "the new device detects the wrong code"
    );
    // A new device that (wrongly) went on would send a confirmation the approver refuses.
    let id = pairing_id();
    let n = NewDevicePairing::start(&id, &new_device.public(), &shown);
    let d2 =
        ApproverPairing::respond(&id, &new_device.public(), n.message(), &typed, &account).unwrap();
    assert_eq!(
        d2.verify_new_device(&[0u8; 32]).err().map(|e| e.code()),
        Some("pairing_mismatch"),
        "a forged confirmation is refused by the approver"
    );
    assert!(
        d.verify_new_device(&[7u8; 32]).is_err(),
        "the approver refuses anything but the right MAC"
    );
}

#[test]
fn a_substituted_new_device_key_is_detected() {
    let account = AccountKeys::generate();
    let real = DeviceKeys::generate();
    let attacker = DeviceKeys::generate();
    let code = PairingCode::generate();
    let id = pairing_id();
    let n = NewDevicePairing::start(&id, &real.public(), &code);
    // The relay shows the approver the attacker's keys with the real device's message.
    let d = ApproverPairing::respond(&id, &attacker.public(), n.message(), &code, &account)
        .expect("the message parses");
    let confirmation = d.confirmation();
    let result = n.finish(
        d.message(),
        &account.account_id(),
        &account.identity_public(),
        &confirmation,
    );
    assert_eq!(
        result.err(),
        Some(Error::PairingMismatch),
        "the new device's identity is bound into the PAKE"
    );
}

#[test]
fn a_substituted_account_is_detected() {
    let account = AccountKeys::generate();
    let other = AccountKeys::generate();
    let new_device = DeviceKeys::generate();
    let code = PairingCode::generate();
    let id = pairing_id();
    let n = NewDevicePairing::start(&id, &new_device.public(), &code);
    let d =
        ApproverPairing::respond(&id, &new_device.public(), n.message(), &code, &account).unwrap();
    let confirmation = d.confirmation();
    let result = n.finish(
        d.message(),
        &other.account_id(),
        &other.identity_public(),
        &confirmation,
    );
    assert_eq!(
        result.err(),
        Some(Error::PairingMismatch),
        "the approving account's AIK is bound into the confirmation"
    );
}

#[test]
fn the_psk_bundle_opens_only_with_the_pake_key() {
    let account = AccountKeys::generate();
    let new_device = DeviceKeys::generate();
    let code = PairingCode::generate();
    let (n1, d1) = exchange(&code, &code, &account, &new_device);
    let n1 = n1.unwrap();
    let d1 = d1.verify_new_device(&n1.confirmation()).unwrap();
    let sealed = d1.seal_bundle(&account, &new_device.recipient()).unwrap();
    // Another run with the same device keys and code has another PAKE key.
    let (n2, _) = exchange(&code, &code, &account, &new_device);
    let n2 = n2.unwrap();
    assert!(
        matches!(
            n2.open_bundle(&sealed, &new_device),
            Err(Error::Decryption(_))
        ),
        "the device's X25519 key alone does not open a PSK-mode bundle"
    );
    let mut tampered = sealed.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 1;
    assert!(
        n1.open_bundle(&tampered, &new_device).is_err(),
        "a tampered bundle is refused"
    );
    assert!(
        n1.open_bundle(&sealed, &DeviceKeys::generate()).is_err(),
        "another device cannot open it"
    );
}

#[test]
fn rotated_bundles_open_only_on_their_device_and_account() {
    let mut account = AccountKeys::generate();
    account.rotate_encryption_key();
    let device = DeviceKeys::generate();
    let device_id = new_device_id();
    let sealed = seal_bundle_to_device(&account, &device.recipient(), &device_id).unwrap();
    let opened =
        open_bundle_for_device(&sealed, &device, &device_id, &account.identity_public()).unwrap();
    assert_eq!(opened.epochs(), vec![1, 2], "both epochs arrive");
    assert!(
        open_bundle_for_device(
            &sealed,
            &DeviceKeys::generate(),
            &device_id,
            &account.identity_public()
        )
        .is_err(),
        "another device's key does not open it"
    );
    assert!(
        open_bundle_for_device(
            &sealed,
            &device,
            &new_device_id(),
            &account.identity_public()
        )
        .is_err(),
        "the device id is bound as aad"
    );
    let stranger = AccountKeys::generate();
    let foreign = seal_bundle_to_device(&stranger, &device.recipient(), &device_id).unwrap();
    assert!(
        matches!(
            open_bundle_for_device(&foreign, &device, &device_id, &account.identity_public()),
            Err(Error::Verification(_))
        ),
        "a bundle of another AIK is refused"
    );
}
