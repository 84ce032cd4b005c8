//! Recovery keys: display/parse, typo detection, and the bundle sealed to them.

use herald_crypto::{
    open_bundle_with_recovery, seal_bundle_to_recovery, AccountKeys, Error, RecoveryKey,
};

const ALPHABET: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

#[test]
fn display_shape_and_round_trip() {
    let key = RecoveryKey::generate();
    let shown = key.display();
    let groups: Vec<&str> = shown.split('-').collect();
    assert_eq!(groups.len(), 7, "seven groups in {}", *shown);
    assert!(
        groups
            .iter()
            .all(|g| g.len() == 4 && g.chars().all(|c| ALPHABET.contains(c))),
        "groups of 4 Crockford characters in {}",
        *shown
    );
    let parsed = RecoveryKey::parse(&shown).expect("the displayed key parses");
    assert_eq!(
        parsed.recipient(),
        key.recipient(),
        "same key pair after the round trip"
    );
    assert_eq!(*parsed.display(), *shown, "display is stable");

    let relaxed = [
        shown.to_lowercase(),
        shown.replace('-', " "),
        shown.replace('-', ""),
        format!("  {}  ", shown.replace('-', " - ")),
        shown.replace('1', "l").replace('0', "O"),
        shown.replace('1', "I").replace('0', "o"),
    ];
    for text in relaxed {
        let parsed = RecoveryKey::parse(&text).expect("relaxed input parses");
        assert_eq!(
            parsed.recipient(),
            key.recipient(),
            "{text} is the same key"
        );
    }
}

#[test]
fn any_single_changed_character_fails_the_checksum() {
    for _ in 0..8 {
        let shown: String = RecoveryKey::generate().display().replace('-', "");
        let chars: Vec<char> = shown.chars().collect();
        for i in 0..chars.len() {
            for c in ALPHABET.chars().filter(|&c| c != chars[i]) {
                let mut typo = chars.clone();
                typo[i] = c;
                let typo: String = typo.into_iter().collect();
                assert!(
                    matches!(RecoveryKey::parse(&typo), Err(Error::Checksum)),
                    "changing character {i} to {c} must fail the checksum"
                );
            }
        }
        for i in 0..chars.len() - 1 {
            if chars[i] != chars[i + 1] {
                let mut swapped = chars.clone();
                swapped.swap(i, i + 1);
                let swapped: String = swapped.into_iter().collect();
                assert!(
                    matches!(RecoveryKey::parse(&swapped), Err(Error::Checksum)),
                    "swapping characters {i} and {} must fail the checksum",
                    i + 1
                );
            }
        }
    }
}

#[test]
fn malformed_recovery_keys() {
    let shown = RecoveryKey::generate().display().replace('-', "");
    for (name, text) in [
        ("empty", String::new()),
        ("one short", shown[1..].to_owned()),
        ("one long", format!("{shown}0")),
        ("U is not Crockford", format!("U{}", &shown[1..])),
        ("punctuation", format!("{}!", &shown[1..])),
    ] {
        assert!(
            matches!(RecoveryKey::parse(&text), Err(Error::Malformed(_))),
            "{name} must be refused as malformed"
        );
    }
}

#[test]
fn bundle_sealed_to_recovery_key() {
    let mut account = AccountKeys::generate();
    account.rotate_encryption_key();
    let key = RecoveryKey::generate();
    let sealed = seal_bundle_to_recovery(&account, &key.recipient()).expect("seal the bundle");
    let typed = RecoveryKey::parse(&key.display().to_lowercase()).expect("typed key parses");
    let opened = open_bundle_with_recovery(&sealed, &typed).expect("the typed key opens it");
    assert_eq!(
        *opened.to_bytes(),
        *account.to_bytes(),
        "the whole bundle comes back"
    );

    assert!(
        matches!(
            open_bundle_with_recovery(&sealed, &RecoveryKey::generate()),
            Err(Error::Decryption(_))
        ),
        "another recovery key must not open it"
    );
    for at in [1, 20, sealed.len() / 2, sealed.len() - 1] {
        let mut bad = sealed.clone();
        bad[at] ^= 1;
        assert!(
            matches!(
                open_bundle_with_recovery(&bad, &key),
                Err(Error::Decryption(_))
            ),
            "a flipped byte at {at} must fail decryption"
        );
    }
    let mut bad = sealed.clone();
    bad[0] = 2;
    assert!(
        matches!(
            open_bundle_with_recovery(&bad, &key),
            Err(Error::Malformed(_))
        ),
        "an unknown version byte is malformed"
    );
    assert!(
        matches!(
            open_bundle_with_recovery(&sealed[..40], &key),
            Err(Error::Malformed(_))
        ),
        "a truncated blob is malformed"
    );
}
