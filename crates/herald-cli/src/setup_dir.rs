//! The data dir of `herald device init|unlock|pair`: checked before anything is created (a
//! file, or a dir that already holds a device, is refused naming its path), and put back as
//! it was when the command fails before the device is set up (no `cache.db` or `local.key`
//! left behind by a bad URL or a refused relay).

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{bail, Result};
use herald_client::Core;

use crate::args::DataDirArgs;
use crate::config;

/// A data dir as it was before a setup command.
pub(crate) struct SetupDir {
    path: PathBuf,
    /// The names it held, or `None` when it did not exist.
    before: Option<HashSet<OsString>>,
}

impl SetupDir {
    /// Checks the data dir of `herald device {command}` and records what it holds.
    pub(crate) fn before(dir: &DataDirArgs, command: &str) -> Result<SetupDir> {
        let path = config::data_dir(dir)?;
        if path.exists() && !path.is_dir() {
            bail!(
                "the data dir {} is not a directory: pass a directory, or a path that does not exist yet, to `herald device {command}` (--data-dir, HERALD_HOME)",
                path.display()
            );
        }
        if Core::has_device_state(&path) {
            bail!(
                "the data dir {} already holds a device of an account (device.sealed): this machine is set up there already (`herald whoami --data-dir {}` shows it). For another account, pass a new --data-dir (HERALD_HOME) to `herald device {command}`",
                path.display(),
                path.display()
            );
        }
        let before = match std::fs::read_dir(&path) {
            Ok(entries) => Some(
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name())
                    .collect(),
            ),
            Err(_) => None,
        };
        Ok(SetupDir { path, before })
    }

    /// After a failed command: when no device was set up, removes what the command created
    /// (the whole dir when it did not exist before). Best effort: errors are ignored, the
    /// command's own error is what the person reads.
    pub(crate) fn restore(self) {
        if Core::has_device_state(&self.path) {
            return;
        }
        match self.before {
            None => {
                let _ = std::fs::remove_dir_all(&self.path);
            }
            Some(names) => {
                let Ok(entries) = std::fs::read_dir(&self.path) else {
                    return;
                };
                for entry in entries.filter_map(|e| e.ok()) {
                    if names.contains(&entry.file_name()) {
                        continue;
                    }
                    let p = entry.path();
                    if p.is_dir() {
                        let _ = std::fs::remove_dir_all(&p);
                    } else {
                        let _ = std::fs::remove_file(&p);
                    }
                }
            }
        }
    }
}
