//! Owner-only directories and files: the data dir (0700) and the key and state files (0600,
//! created new, never widened even briefly). A leaf: it calls only the crate's error type.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Creates `dir` (and its parents) if needed and makes it owner-only (0700 on Unix).
pub(crate) fn create_private_dir(dir: &std::path::Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(Error::Storage(
            "it exists and is not a directory; choose a directory (or a path that does not exist yet)".into(),
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::Storage(format!(
            "cannot create it ({e}); choose a directory this user can create and write"
        ))
    })?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Writes `bytes` to a new file created with mode 0600 (never widened, even briefly).
pub(crate) fn write_private_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    Ok(())
}
