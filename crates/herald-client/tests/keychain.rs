//! The OS keychain path of the local key (Secret Service over D-Bus). Needs a session bus with
//! an unlocked keyring, so it is ignored by a plain `cargo test` (reported as ignored, not as
//! passed); scripts/test.sh runs it with `--ignored` under `dbus-run-session` and
//! `gnome-keyring-daemon` (scripts/with-keyring.sh).

use herald_client::view::{SecretStorageKind, SetupStatus};
use herald_client::{Core, CoreConfig, KEY_FILE};

#[test]
#[ignore = "needs a session bus with an unlocked keyring: scripts/test.sh runs it"]
fn local_key_lives_in_the_keychain_and_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let config = CoreConfig {
        data_dir: dir.path().to_path_buf(),
        device_name: "k".into(),
        platform: "linux".into(),
        use_keychain: true,
    };
    let core = Core::open(config.clone()).expect("core opens with the keychain");
    let state = core.setup_state();
    assert_eq!(
        state.secret_storage,
        SecretStorageKind::Keychain,
        "the keychain was used"
    );
    assert!(
        state.secret_storage_path.is_none(),
        "no key file path to show"
    );
    assert!(
        !dir.path().join(KEY_FILE).exists(),
        "no 0600 fallback file was written"
    );
    drop(core);
    let again = Core::open(config).expect("reopens with the key from the keychain");
    assert_eq!(
        again.setup_state().secret_storage,
        SecretStorageKind::Keychain,
        "still the keychain"
    );
    assert_eq!(
        again.setup_state().status,
        SetupStatus::NeedsSetup,
        "no account yet, but the key loaded"
    );
}
