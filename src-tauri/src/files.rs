//! File commands: the system dialogs run here, in Rust, so the webview never names a path.
//! `pick_file` remembers the chosen file under an opaque id (crate::picks); saving asks for
//! the destination and lets the core decrypt straight to it; image bytes go back raw (an
//! `ArrayBuffer` in the UI), never as JSON numbers.

use std::path::{Path, PathBuf};

use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_dialog::{DialogExt, FilePath};

use crate::ipc::{shell_error, ui_error, Bytes, CmdResult};
use crate::state::AppState;
use herald_client::answers::picks::PickedFile;
use herald_client::view::{UiError, UiErrorCode};

fn into_path(picked: Option<FilePath>) -> CmdResult<Option<PathBuf>> {
    picked
        .map(|p| {
            p.into_path().map_err(|_| {
                shell_error(
                    UiErrorCode::Io,
                    "the dialog returned something that is not a file path",
                )
            })
        })
        .transpose()
}

/// Opens the system's file picker; `null` when the person cancels. Errors: `not_a_file`,
/// `file_too_large` (over 100 MB), `io`.
pub async fn pick_file<R: Runtime>(app: AppHandle<R>) -> CmdResult<Option<PickedFile>> {
    let state = app.state::<AppState>();
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog().file().pick_file(move |picked| {
        let _ = tx.send(picked);
    });
    let picked = rx
        .await
        .map_err(|_| shell_error(UiErrorCode::Io, "the file dialog closed without an answer"))?;
    let Some(path) = into_path(picked)? else {
        return Ok(None);
    };
    state
        .picks
        .add(&path)
        .map(Some)
        .map_err(|e| UiError::from(&e))
}

/// Asks where to save (suggesting `name`); `None` when cancelled.
pub async fn ask_save_path<R: Runtime>(
    app: &AppHandle<R>,
    name: &str,
) -> CmdResult<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_file_name(name)
        .save_file(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx
        .await
        .map_err(|_| shell_error(UiErrorCode::Io, "the save dialog closed without an answer"))?;
    into_path(picked)
}

/// Asks where to save an attachment (suggesting its name), then downloads, decrypts and
/// verifies it straight to that file. Returns the path saved to, or `null` when the person
/// cancels. A file the person chose to replace is replaced only once the new one is complete.
/// Errors: `not_found`, `file_expired` (the relay deleted it), `file_integrity`, `network`,
/// `storage`, `io`.
pub async fn save_attachment<R: Runtime>(
    app: AppHandle<R>,
    message_id: String,
    attachment_id: String,
) -> CmdResult<Option<String>> {
    let state = app.state::<AppState>();
    let view = state.core.message(&message_id).await.map_err(ui_error)?;
    let name = view
        .attachments
        .iter()
        .chain(view.answer.iter().flat_map(|a| a.attachments.iter()))
        .find(|a| a.id == attachment_id)
        .map(|a| a.name.clone())
        .ok_or_else(|| shell_error(UiErrorCode::NotFound, "this message has no such attachment"))?;
    let Some(dest) = ask_save_path(&app, &name).await? else {
        return Ok(None);
    };
    // The core never overwrites; the dialog already asked whether to replace an existing file.
    let target = if dest.exists() {
        partial_path(&dest)
    } else {
        dest.clone()
    };
    state
        .core
        .save_attachment(&message_id, &attachment_id, &target)
        .await
        .map_err(ui_error)?;
    if target != dest {
        if let Err(e) = std::fs::rename(&target, &dest) {
            let _ = std::fs::remove_file(&target);
            return Err(shell_error(
                UiErrorCode::Io,
                format!("could not replace the file: {e}"),
            ));
        }
    }
    Ok(Some(dest.display().to_string()))
}

/// A hidden sibling of `dest` to write to before it replaces `dest`; a leftover of an earlier
/// failed save under that name is removed first (the core never overwrites).
fn partial_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let partial = dest.with_file_name(format!(".{name}.herald-partial"));
    let _ = std::fs::remove_file(&partial);
    partial
}

/// An image attachment's decrypted bytes, raw (an `ArrayBuffer` in the webview), for an image
/// block: PNG, JPEG, GIF or WebP of at most 10 MB. The UI checks the bytes' real type again
/// before it shows them. Errors: `not_found`, `invalid_input` (not an image, too large),
/// `file_expired`, `file_integrity`, `network`.
pub async fn attachment_image<R: Runtime>(
    app: AppHandle<R>,
    message_id: String,
    attachment_id: String,
) -> CmdResult<Bytes> {
    let state = app.state::<AppState>();
    let (_mime, bytes) = state
        .core
        .attachment_bytes_for_image(&message_id, &attachment_id)
        .await
        .map_err(ui_error)?;
    Ok(Bytes(bytes))
}
