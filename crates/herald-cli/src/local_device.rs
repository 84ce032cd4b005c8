//! Opening this machine's device core (herald-client's `Core`) from the data dir, and syncing
//! it within a bound before a read. Every device command (`device`, `devices`, `agents`,
//! `reveal`) starts here; this module calls only `config` and the core.

use anyhow::Result;
use herald_client::view::SetupStatus;
use herald_client::{Core, CoreConfig};

use crate::args::DataDirArgs;
use crate::config;

/// The device name: `--name`, else this machine's host name, else `headless`.
pub(crate) fn device_name(name: Option<String>) -> String {
    name.unwrap_or_else(|| {
        let host = gethostname::gethostname();
        let host = host.to_string_lossy();
        let host = host.trim();
        if host.is_empty() {
            "headless".into()
        } else {
            host.to_owned()
        }
    })
}

pub(crate) fn open(dir: &DataDirArgs, name: Option<String>) -> Result<Core> {
    let device_name = device_name(name);
    Ok(Core::open(CoreConfig {
        data_dir: config::data_dir(dir)?,
        device_name,
        platform: "cli".into(),
        use_keychain: false,
    })?)
}

/// The device core of a machine that is a device already. Creates nothing in the data dir
/// when it is not (a read-only command on an empty or missing dir leaves it as it was).
pub(crate) fn ready(dir: &DataDirArgs) -> Result<Core> {
    let path = config::data_dir(dir)?;
    let not_a_device = || {
        anyhow::anyhow!(
            "this machine is not a device of any account yet (no device state in {}): run `herald device init --relay URL`, `herald device unlock --relay URL` or `herald device pair --relay URL`, or pass the right --data-dir (HERALD_HOME)",
            path.display()
        )
    };
    if !Core::has_device_state(&path) {
        return Err(not_a_device());
    }
    let core = open(dir, None)?;
    if core.setup_state().status != SetupStatus::Ready {
        return Err(not_a_device());
    }
    Ok(core)
}

/// How long `herald inbox list|show` and `herald notifications list` wait for the
/// relay to answer (connect included) before showing what the cache holds.
pub(crate) const REACH: std::time::Duration = std::time::Duration::from_secs(3);

/// Syncs with the relay when it answers within [`REACH`]; when it does not (down, hung, a
/// 5xx), says so on stderr with when this device last synced, and goes on with the cache.
/// Other errors (a signed-out device) are returned. `Ok(true)`: synced; `Ok(false)`: the
/// cache alone.
pub(crate) async fn sync_or_cached(core: &Core) -> Result<bool> {
    let e = match core.sync_within(REACH).await {
        Ok(_) => return Ok(true),
        Err(e) => e,
    };
    let unreachable = match &e {
        herald_client::Error::Network(_) => true,
        herald_client::Error::Relay { status, .. } => *status >= 500,
        _ => false,
    };
    if !unreachable {
        return Err(e.into());
    }
    let last = match core.last_synced_at().await? {
        Some(at) => format!("last synced {at}"),
        None => "never synced yet".to_owned(),
    };
    crate::note!("herald: {e}");
    crate::note!("herald: the relay is unreachable: showing what this device has cached ({last}); check that the relay is running (`herald whoami` shows its URL)");
    Ok(false)
}
