//! Output files for secrets (docs/secrets.md): created new (`O_EXCL`) with mode 0600 BEFORE
//! the secret is collected, because a secret is handed over once and must have somewhere to
//! go. If the command fails, times out or is interrupted (SIGINT/SIGTERM drop the command's
//! future, [`crate::interrupt`]) before writing, the file is removed again.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// A new, owner-only file reserved for a secret; removed on drop unless [`OutFile::finish`]
/// wrote it.
pub struct OutFile {
    path: PathBuf,
    file: Option<File>,
}

impl OutFile {
    /// Creates `path`, which must not exist (symlinks included), with mode 0600. Errors name
    /// the path only.
    pub fn create(path: &Path) -> Result<OutFile> {
        check_out_path(path)?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options
            .open(path)
            .with_context(|| format!("creating --out {}", path.display()))?;
        Ok(OutFile {
            path: path.to_owned(),
            file: Some(file),
        })
    }

    /// The reserved path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second handle on the reserved file, to stream into (e.g. a download). Call
    /// [`OutFile::keep`] once everything is written; dropping the `OutFile` instead removes it.
    pub fn handle(&self) -> Result<File> {
        self.file
            .as_ref()
            .context("the output file was already written")?
            .try_clone()
            .with_context(|| format!("opening --out {}", self.path.display()))
    }

    /// Syncs what was written through [`OutFile::handle`] to disk and keeps the file.
    pub fn keep(mut self) -> Result<()> {
        let file = self
            .file
            .take()
            .context("the output file was already written")?;
        if let Err(e) = file.sync_all() {
            let _ = std::fs::remove_file(&self.path);
            return Err(e).with_context(|| format!("writing --out {}", self.path.display()));
        }
        Ok(())
    }

    /// Writes `bytes`, syncs them to disk and keeps the file.
    pub fn finish(mut self, bytes: &[u8]) -> Result<()> {
        let mut file = self
            .file
            .take()
            .context("the output file was already written")?;
        let written = file.write_all(bytes).and_then(|()| file.sync_all());
        if let Err(e) = written {
            // Leave no half-written secret behind.
            let _ = std::fs::remove_file(&self.path);
            return Err(e).with_context(|| format!("writing --out {}", self.path.display()));
        }
        Ok(())
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Refuses an `--out` path that exists (or whose directory does not), before anything is
/// sent: the secret is handed over once and must have somewhere to go.
pub fn check_out_path(path: &Path) -> Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        bail!(
            "--out {} already exists: secrets are written to a new file only",
            path.display()
        );
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent {
        if !dir.is_dir() {
            bail!("--out {}: the directory does not exist", path.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_new_private_and_removed_unless_finished() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        let out = OutFile::create(&path).expect("created");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "owner-only from the start");
        }
        assert!(
            OutFile::create(&path).is_err(),
            "an existing path is refused"
        );
        drop(out);
        assert!(!path.exists(), "an unwritten reservation is removed");
        OutFile::create(&path)
            .unwrap()
            .finish(b"s3cret")
            .expect("written");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"s3cret",
            "kept once written"
        );
    }
}
