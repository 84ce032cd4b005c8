//! Where the device's 32-byte local key lives. Only this key goes to the OS keychain; it seals
//! the device state file (account key bundle, device keys, session token) and the cached
//! plaintext. Where no keychain exists (headless Linux, CI, the CLI by default) it is a file
//! with mode 0600 in the data dir — protected only by file permissions, which the UI and
//! docs say plainly.

use std::fs;

use std::path::{Path, PathBuf};

use herald_crypto::LocalKey;
use zeroize::Zeroizing;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::session::private_files::write_private_file;
use crate::{Error, Result};

/// Where this device keeps its 32-byte local key (which seals its key bundle and cache).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum SecretStorageKind {
    /// The OS keychain (Secret Service, macOS Keychain, Windows Credential Manager).
    Keychain,
    /// A file with mode 0600 in the data dir, used where no keychain exists (headless Linux).
    File,
}

/// Keychain service name.
const KEYCHAIN_SERVICE: &str = "run.herald.desktop";
/// Name of the fallback key file in the data dir.
pub const KEY_FILE: &str = "local.key";
/// Marker file recording that the key lives in the keychain (so a missing keychain entry is an
/// error, not a silent new key).
const KEYCHAIN_MARKER: &str = "local.key.keychain";

/// The loaded key and where it came from.
pub struct LoadedKey {
    pub key: LocalKey,
    pub kind: SecretStorageKind,
    pub path: Option<PathBuf>,
}

/// Loads the local key, creating it on first use: the keychain when `use_keychain` and one
/// answers, else the 0600 file.
pub fn load_or_create(data_dir: &Path, use_keychain: bool) -> Result<LoadedKey> {
    let file = data_dir.join(KEY_FILE);
    let marker = data_dir.join(KEYCHAIN_MARKER);
    let account = keychain_account(data_dir);
    if marker.exists() {
        let key = keychain_get(&account)?.ok_or_else(|| {
            Error::Storage("the keychain no longer holds this device's key".into())
        })?;
        return Ok(LoadedKey {
            key,
            kind: SecretStorageKind::Keychain,
            path: None,
        });
    }
    if file.exists() {
        return Ok(LoadedKey {
            key: read_key_file(&file)?,
            kind: SecretStorageKind::File,
            path: Some(file),
        });
    }
    if data_dir
        .join(crate::session::device_state::STATE_FILE)
        .exists()
    {
        // The device state is sealed under the key that is gone: a new key would not open it,
        // and writing one would hide what happened. Nothing is written.
        return Err(Error::Storage(format!(
            "{} is missing, so {} (this device's sealed keys) cannot be opened; nothing was changed. Restore {KEY_FILE} from a backup of this data dir, or move the data dir aside and sign this machine in again (`herald device unlock` with the recovery key, or `herald device pair`)",
            file.display(),
            crate::session::device_state::STATE_FILE
        )));
    }
    let key = LocalKey::generate();
    if use_keychain && keychain_set(&account, &key).is_ok() {
        write_private_file(&marker, b"the local key is in the OS keychain\n")?;
        return Ok(LoadedKey {
            key,
            kind: SecretStorageKind::Keychain,
            path: None,
        });
    }
    write_key_file(&file, &key)?;
    Ok(LoadedKey {
        key,
        kind: SecretStorageKind::File,
        path: Some(file),
    })
}

fn keychain_account(data_dir: &Path) -> String {
    format!("local-key:{}", data_dir.display())
}

fn keychain_entry(account: &str) -> Result<keyring::Entry> {
    keyring::Entry::new(KEYCHAIN_SERVICE, account)
        .map_err(|e| Error::Storage(format!("keychain: {e}")))
}

fn keychain_set(account: &str, key: &LocalKey) -> Result<()> {
    keychain_entry(account)?
        .set_secret(key.as_bytes())
        .map_err(|e| Error::Storage(format!("keychain: {e}")))
}

fn keychain_get(account: &str) -> Result<Option<LocalKey>> {
    match keychain_entry(account)?.get_secret() {
        Ok(bytes) => {
            let bytes = Zeroizing::new(bytes);
            let arr: [u8; 32] = bytes
                .as_slice()
                .try_into()
                .map_err(|_| Error::Storage("keychain entry has the wrong length".into()))?;
            Ok(Some(LocalKey::from_bytes(arr)))
        }
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(Error::Storage(format!("keychain: {e}"))),
    }
}

fn read_key_file(path: &Path) -> Result<LocalKey> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(path)?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(Error::Storage(format!(
                "{} is readable by other users (mode {mode:o}); run chmod 600 on it",
                path.display()
            )));
        }
    }
    let bytes = Zeroizing::new(fs::read(path)?);
    let arr: [u8; 32] = bytes
        .as_slice()
        .try_into()
        .map_err(|_| Error::Storage(format!("{} is not a 32-byte key", path.display())))?;
    Ok(LocalKey::from_bytes(arr))
}

fn write_key_file(path: &Path, key: &LocalKey) -> Result<()> {
    write_private_file(path, key.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_key_is_created_0600_and_reloaded() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path(), false).unwrap();
        assert_eq!(first.kind, SecretStorageKind::File, "no keychain requested");
        let again = load_or_create(dir.path(), false).unwrap();
        assert_eq!(
            first.key.as_bytes(),
            again.key.as_bytes(),
            "same key after reload"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.path().join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "key file is private");
            fs::set_permissions(dir.path().join(KEY_FILE), fs::Permissions::from_mode(0o644))
                .unwrap();
            assert!(
                load_or_create(dir.path(), false).is_err(),
                "a world-readable key file is refused"
            );
        }
    }
}
