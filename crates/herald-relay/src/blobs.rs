//! The bytes of encrypted files, one file per upload under `<data_dir>/files/` (owner-only),
//! named by file id. An upload is streamed into a temporary `.<id>.<random>.part` file in the
//! same directory, synced, and renamed into place, so a file id names either nothing or the
//! complete ciphertext; the database row is marked uploaded only after the rename
//! (docs/files.md). Leftover `.part` files of a crash are removed at start.
//!
//! Metadata (who may read, deadlines) lives in the store ([`crate::store::files`]); this
//! module only moves bytes, with bounded memory.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use herald_protocol::FileId;
use ring::rand::{SecureRandom, SystemRandom};

use crate::state::AppState;
use crate::store::files::FileError;

/// Directory name under the data dir.
const DIR: &str = "files";
/// Most files the sweeper deletes in one transaction.
const SWEEP_BATCH: u32 = 500;

/// Creates `<data_dir>/files` (0700) and removes `.part` leftovers of an earlier run.
pub(crate) fn prepare(data_dir: &Path) -> io::Result<()> {
    let dir = data_dir.join(DIR);
    std::fs::create_dir_all(&dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    }
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.ends_with(".part") {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Where file bytes live, and which uploads are in flight.
pub(crate) struct Blobs {
    dir: PathBuf,
    uploading: Arc<Mutex<HashSet<FileId>>>,
}

/// Held while an upload of one file id runs; a second upload of the same id is refused.
pub(crate) struct UploadLock {
    id: FileId,
    uploading: Arc<Mutex<HashSet<FileId>>>,
}

impl Drop for UploadLock {
    fn drop(&mut self) {
        self.uploading
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
    }
}

/// A temporary upload file, removed on drop unless it was renamed into place.
pub(crate) struct TempBlob {
    pub path: PathBuf,
    kept: bool,
}

impl TempBlob {
    /// Marks it renamed: nothing to remove.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for TempBlob {
    fn drop(&mut self) {
        if !self.kept {
            // Best effort, off the error path: a leftover is removed at the next start.
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Blobs {
    /// Blobs under `<data_dir>/files` (see [`prepare`]).
    pub fn new(data_dir: &Path) -> Blobs {
        Blobs {
            dir: data_dir.join(DIR),
            uploading: Arc::default(),
        }
    }

    /// The final path of a file's bytes.
    pub fn path(&self, id: &FileId) -> PathBuf {
        self.dir.join(id.as_str())
    }

    /// A fresh temporary path for an upload of `id`.
    pub fn temp(&self, id: &FileId) -> io::Result<TempBlob> {
        let mut nonce = [0u8; 10];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| io::Error::other("system randomness failed"))?;
        let nonce = data_encoding::BASE32_NOPAD
            .encode(&nonce)
            .to_ascii_lowercase();
        Ok(TempBlob {
            path: self.dir.join(format!(".{id}.{nonce}.part")),
            kept: false,
        })
    }

    /// Claims the upload of `id`; `None` while another upload of it runs.
    pub fn lock_upload(&self, id: &FileId) -> Option<UploadLock> {
        let mut set = self.uploading.lock().unwrap_or_else(|p| p.into_inner());
        set.insert(id.clone()).then(|| UploadLock {
            id: id.clone(),
            uploading: self.uploading.clone(),
        })
    }

    /// Renames a synced temporary file into place and syncs the directory.
    pub async fn commit(&self, temp: TempBlob, id: &FileId) -> io::Result<()> {
        tokio::fs::rename(&temp.path, self.path(id)).await?;
        temp.keep();
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || std::fs::File::open(dir)?.sync_all())
            .await
            .map_err(io::Error::other)?
    }

    /// Deletes a file's bytes; a file that is not there is fine.
    pub async fn remove(&self, id: &FileId) -> io::Result<()> {
        match tokio::fs::remove_file(self.path(id)).await {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

impl AppState {
    /// Deletes every file whose deadline passed unattached (reservations never uploaded,
    /// uploads never attached): marks the rows deleted, then removes the bytes. The sweeper
    /// calls this every second; tests may call it directly. Returns how many were deleted.
    pub async fn sweep_files(&self) -> crate::error::Result<usize> {
        let mut total = 0;
        loop {
            let now = self.now();
            let files = self.inner.files.clone();
            let swept = tokio::task::spawn_blocking(move || files.sweep_files(now, SWEEP_BATCH))
                .await
                .map_err(|e| crate::Error::Io(io::Error::other(e)))?
                .map_err(|e| match e {
                    FileError::Store(s) => crate::Error::Store(s),
                    other => crate::Error::Io(io::Error::other(other.to_string())),
                })?;
            if swept.ids.is_empty() {
                return Ok(total);
            }
            total += swept.ids.len();
            for id in &swept.ids {
                if let Err(e) = self.inner.blobs.remove(id).await {
                    tracing::error!(error = %e, file = %id, "removing an expired file failed");
                }
            }
        }
    }
}
