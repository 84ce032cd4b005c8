//! Files the person picked for file fields. The webview never sees or names a path: `pick_file`
//! opens the system's file dialog here, keeps the chosen path under an opaque pick id, and
//! returns only that id with the file's name and size. `answer` turns pick ids back into paths
//! for the core, which encrypts and uploads the file as it streams it from disk.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use crate::error_code::UiErrorCode;
use crate::view::{AnswerInput, UiError};

/// Largest file a message or an answer can carry: 100 MB (herald-protocol's
/// `MAX_ATTACHMENT_BYTES`, 100,000,000 bytes of plaintext).
pub const MAX_FILE_BYTES: u64 = 100_000_000;

/// What the UI learns about a picked file (`PickedFile` in ui/src/lib/backend/tauri.ts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PickedFile {
    /// Opaque id (`pick_<n>`), valid in this app process only.
    pub pick_id: String,
    /// The file's name, without its directory.
    pub name: String,
    /// Bytes, ≤ [`MAX_FILE_BYTES`] (a JavaScript number holds it exactly).
    #[ts(type = "number")]
    pub size: u64,
}

/// Why a picked path cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PickError {
    #[error("that is not a regular file")]
    NotAFile,
    #[error("the file is larger than 100 MB")]
    TooLarge,
    #[error("the file cannot be read: {0}")]
    Unreadable(String),
    #[error("that file is no longer picked; choose it again")]
    UnknownPick,
}

impl PickError {
    /// Stable code for the UI.
    pub fn code(&self) -> UiErrorCode {
        match self {
            PickError::NotAFile => UiErrorCode::NotAFile,
            PickError::TooLarge => UiErrorCode::FileTooLarge,
            PickError::Unreadable(_) => UiErrorCode::Io,
            PickError::UnknownPick => UiErrorCode::UnknownPick,
        }
    }
}

impl From<&PickError> for UiError {
    fn from(error: &PickError) -> Self {
        UiError::new(error.code(), error.to_string())
    }
}

/// Picks one answer took out of [`PickedFiles`] (pick id → path).
#[derive(Debug)]
#[must_use = "restore the picks if the answer fails"]
pub struct TakenPicks(HashMap<String, PathBuf>);

/// Pick id → path, for this process's lifetime.
#[derive(Default)]
pub struct PickedFiles {
    next: AtomicU64,
    paths: Mutex<HashMap<String, PathBuf>>,
}

impl PickedFiles {
    /// Checks the path (a regular file of at most 100 MB) and remembers it under a new id.
    pub fn add(&self, path: &Path) -> Result<PickedFile, PickError> {
        let meta =
            std::fs::metadata(path).map_err(|e| PickError::Unreadable(e.kind().to_string()))?;
        if !meta.is_file() {
            return Err(PickError::NotAFile);
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(PickError::TooLarge);
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or(PickError::NotAFile)?;
        let pick_id = format!("pick_{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        self.paths
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(pick_id.clone(), path.to_path_buf());
        Ok(PickedFile {
            pick_id,
            name,
            size: meta.len(),
        })
    }

    /// The path picked under `pick_id`.
    pub fn path(&self, pick_id: &str) -> Result<PathBuf, PickError> {
        self.paths
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(pick_id)
            .cloned()
            .ok_or(PickError::UnknownPick)
    }

    /// Takes the picks `input.files` names out of the map, swapping each id for its path, so
    /// while this answer is under way no other answer can use them: a pick is consumed by
    /// one answer. Returns what was taken, to [`restore`](Self::restore) if the answer fails
    /// (the person may press again). One pick may fill several file fields of the same answer.
    /// A value that is not a pick id this process handed out (a path typed by the webview,
    /// say) is refused with `UnknownPick`, and then nothing is taken and `input` is unchanged.
    pub fn take_in(&self, input: &mut AnswerInput) -> Result<TakenPicks, PickError> {
        let mut paths = self.paths.lock().unwrap_or_else(|p| p.into_inner());
        let ids: Vec<String> = input
            .files
            .values()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if !ids.iter().all(|id| paths.contains_key(id)) {
            return Err(PickError::UnknownPick);
        }
        let mut taken = HashMap::new();
        for (value, id) in input.files.values_mut().zip(ids) {
            let path = match paths.remove(&id) {
                Some(path) => path,
                None => taken.get(&id).cloned().ok_or(PickError::UnknownPick)?,
            };
            *value = path.clone();
            taken.insert(id, path);
        }
        Ok(TakenPicks(taken))
    }

    /// Gives back picks an answer took and could not use (it failed).
    pub fn restore(&self, taken: TakenPicks) {
        let mut paths = self.paths.lock().unwrap_or_else(|p| p.into_inner());
        paths.extend(taken.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picked_file_is_known_by_id_until_an_answer_uses_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("kubeconfig");
        std::fs::write(&path, b"apiVersion: v1\n").expect("write");
        let picks = PickedFiles::default();

        let picked = picks.add(&path).expect("a small regular file is accepted");
        assert_eq!(picked.name, "kubeconfig", "the name without its directory");
        assert_eq!(picked.size, 15, "its size in bytes");
        assert!(!picked.pick_id.contains('/'), "the id reveals no path");
        assert_eq!(
            picks.path(&picked.pick_id),
            Ok(path.clone()),
            "the id resolves to the path"
        );

        let second = picks.add(&path).expect("picked again");
        assert_ne!(second.pick_id, picked.pick_id, "each pick gets its own id");

        let mut used = AnswerInput::default();
        used.files
            .insert("f".into(), PathBuf::from(&picked.pick_id));
        drop(
            picks
                .take_in(&mut used)
                .expect("taken by an answer that succeeds"),
        );
        assert_eq!(
            picks.path(&picked.pick_id),
            Err(PickError::UnknownPick),
            "used up by its answer"
        );
        assert!(picks.path(&second.pick_id).is_ok(), "other picks stay");
    }

    #[test]
    fn an_answer_takes_its_picks_until_it_fails() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("report.csv");
        std::fs::write(&path, b"a,b\n").expect("write");
        let picks = PickedFiles::default();
        let picked = picks.add(&path).expect("picked");
        let input = |ids: &[(&str, &str)]| AnswerInput {
            files: ids
                .iter()
                .map(|(field, id)| ((*field).to_owned(), PathBuf::from(id)))
                .collect(),
            ..Default::default()
        };

        let mut first = input(&[("report", &picked.pick_id), ("copy", &picked.pick_id)]);
        let taken = picks.take_in(&mut first).expect("a known pick");
        assert_eq!(first.files["report"], path, "swapped for its path");
        assert_eq!(first.files["copy"], path, "one pick may fill two fields");
        let mut second = input(&[("report", &picked.pick_id)]);
        assert_eq!(
            picks.take_in(&mut second).err(),
            Some(PickError::UnknownPick),
            "another answer meanwhile cannot use it"
        );
        assert_eq!(
            second.files["report"],
            PathBuf::from(&picked.pick_id),
            "a refused input is left as it was"
        );

        picks.restore(taken);
        let mut again = input(&[("report", &picked.pick_id)]);
        let taken = picks
            .take_in(&mut again)
            .expect("given back after a failure");
        drop(taken);
        let mut unknown = input(&[("report", "/etc/passwd")]);
        assert_eq!(
            picks.take_in(&mut unknown).err(),
            Some(PickError::UnknownPick),
            "a path is not a pick"
        );
    }

    #[test]
    fn directories_missing_files_and_unknown_ids_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let picks = PickedFiles::default();
        assert_eq!(
            picks.add(dir.path()),
            Err(PickError::NotAFile),
            "a directory is not a file"
        );
        assert!(
            matches!(
                picks.add(&dir.path().join("nope")),
                Err(PickError::Unreadable(_))
            ),
            "a missing file is unreadable"
        );
        assert_eq!(
            picks.path("pick_99"),
            Err(PickError::UnknownPick),
            "an id never handed out"
        );
    }

    #[test]
    fn files_over_100_mb_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("big.bin");
        let file = std::fs::File::create(&path).expect("create");
        file.set_len(MAX_FILE_BYTES + 1).expect("sparse file");
        let picks = PickedFiles::default();
        assert_eq!(
            picks.add(&path),
            Err(PickError::TooLarge),
            "one byte over the limit"
        );
        file.set_len(MAX_FILE_BYTES).expect("resize");
        assert!(picks.add(&path).is_ok(), "exactly 100 MB is fine");
    }
}
