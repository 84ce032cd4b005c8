//! The device's persistent identity: relay URL, ids, session token, the account key bundle and
//! the device keys — sealed under the local key in `<data_dir>/device.sealed` (mode 0600,
//! replaced atomically). Nothing here is ever logged; `Debug` is redacted.

use std::fs;
use std::path::{Path, PathBuf};

use herald_crypto::{AccountKeys, DeviceKeys, LocalKey};
use herald_protocol::envelope::{b64_decode, b64_encode};
use herald_protocol::{AccountId, DeviceId};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::session::private_files::write_private_file;
use crate::{Error, Result};

/// File name of the sealed state in the data dir.
pub const STATE_FILE: &str = "device.sealed";
const AAD: &[u8] = b"herald.v1/device-state";

/// Everything a device needs to act for the account.
pub struct DeviceState {
    pub relay_url: String,
    pub account_id: AccountId,
    pub device_id: DeviceId,
    pub device_name: String,
    pub device_token: Zeroizing<String>,
    pub account_keys: AccountKeys,
    pub device_keys: DeviceKeys,
}

impl std::fmt::Debug for DeviceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceState")
            .field("relay_url", &self.relay_url)
            .field("account_id", &self.account_id)
            .field("device_id", &self.device_id)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StateFile {
    v: u32,
    relay_url: String,
    account_id: AccountId,
    device_id: DeviceId,
    device_name: String,
    device_token: String,
    account_keys: String,
    device_keys: String,
}

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(STATE_FILE)
}

/// Loads and opens the state file; `Ok(None)` when there is none.
pub fn load(data_dir: &Path, key: &LocalKey) -> Result<Option<DeviceState>> {
    let p = path(data_dir);
    if !p.exists() {
        return Ok(None);
    }
    let sealed = fs::read(&p)?;
    let plain = herald_crypto::open_local(key, AAD, &sealed).map_err(|_| {
        Error::Storage(format!(
            "{} cannot be opened with this device's key",
            p.display()
        ))
    })?;
    let file: StateFile =
        serde_json::from_slice(&plain).map_err(|e| Error::Storage(format!("device state: {e}")))?;
    let decode = |s: &str| {
        b64_decode(s)
            .map(Zeroizing::new)
            .ok_or_else(|| Error::Storage("device state: bad key encoding".into()))
    };
    Ok(Some(DeviceState {
        relay_url: file.relay_url,
        account_id: file.account_id,
        device_id: file.device_id,
        device_name: file.device_name,
        device_token: Zeroizing::new(file.device_token),
        account_keys: AccountKeys::from_bytes(&decode(&file.account_keys)?)?,
        device_keys: DeviceKeys::from_bytes(&decode(&file.device_keys)?)?,
    }))
}

/// Seals and writes the state (atomically: a new 0600 file renamed over the old one).
pub fn save(data_dir: &Path, key: &LocalKey, state: &DeviceState) -> Result<()> {
    let file = StateFile {
        v: 1,
        relay_url: state.relay_url.clone(),
        account_id: state.account_id.clone(),
        device_id: state.device_id.clone(),
        device_name: state.device_name.clone(),
        device_token: state.device_token.to_string(),
        account_keys: b64_encode(&state.account_keys.to_bytes()),
        device_keys: b64_encode(&state.device_keys.to_bytes()),
    };
    let json =
        Zeroizing::new(serde_json::to_vec(&file).map_err(|e| Error::Storage(e.to_string()))?);
    let sealed = herald_crypto::seal_local(key, AAD, &json);
    let tmp = data_dir.join(format!("{STATE_FILE}.tmp"));
    let _ = fs::remove_file(&tmp);
    write_private_file(&tmp, &sealed)?;
    fs::rename(&tmp, path(data_dir))?;
    Ok(())
}
