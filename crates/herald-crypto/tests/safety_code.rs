//! Safety codes against libsignal's published NumericFingerprint vector
//! (rust/protocol/src/fingerprint.rs, `fingerprint_test_v1`: 5200 iterations).

mod common;

use common::Account;
use herald_crypto::{fingerprint_digits, numeric_fingerprint, safety_code, AccountKeys};

fn hex(s: &str) -> Vec<u8> {
    data_encoding::HEXLOWER.decode(s.as_bytes()).expect("hex")
}

#[test]
fn libsignal_displayable_fingerprint_vector() {
    // libsignal serializes identity keys with a 0x05 type byte: 33 bytes.
    let alice = hex("0506863bc66d02b40d27b8d49ca7c09e9239236f9d7d25d6fcca5ce13c7064d868");
    let bob = hex("05f781b6fb32fed9ba1cf2de978d4d5da28dc34046ae814402b5c0dbd96fda907b");
    let a = fingerprint_digits(&numeric_fingerprint(0, &alice, b"+14152222222", 5200));
    let b = fingerprint_digits(&numeric_fingerprint(0, &bob, b"+14153333333", 5200));
    assert_eq!(a.len(), 30, "each party has 30 digits");
    let combined = if a < b {
        format!("{a}{b}")
    } else {
        format!("{b}{a}")
    };
    assert_eq!(
        combined, "300354477692869396892869876765458257569162576843440918079131",
        "libsignal's displayable fingerprint (both halves, sorted)"
    );
}

#[test]
fn safety_code_format_and_stability() {
    let account = AccountKeys::generate();
    let code = account.safety_code();
    let groups: Vec<&str> = code.split(' ').collect();
    assert_eq!(groups.len(), 6, "six groups in {code}");
    assert!(
        groups
            .iter()
            .all(|g| g.len() == 5 && g.bytes().all(|b| b.is_ascii_digit())),
        "each group is 5 digits in {code}"
    );
    assert_eq!(
        code,
        safety_code(&account.identity_public(), &account.account_id()),
        "the account's code is the function of its AIK and id"
    );
    assert_ne!(
        code,
        AccountKeys::generate().safety_code(),
        "another account, another code"
    );
    let shared = Account::new();
    assert_eq!(
        shared.directory().safety_code(),
        shared.keys.safety_code(),
        "a verified directory shows the same code as the account's device"
    );
}

#[test]
fn safety_code_snapshot() {
    let account_id = herald_crypto::account_id_for(&[7u8; 32]);
    assert_eq!(
        account_id.as_str(),
        "acc_wukp7jfdfgisu3clamgzzymc2a",
        "frozen account id derivation"
    );
    assert_eq!(
        safety_code(&[7u8; 32], &account_id),
        "03369 44281 06224 09445 65905 61321",
        "frozen (computed independently in Python): the code for a fixed key never changes"
    );
}
