//! Encrypted files (docs/files.md): upload a file as an attachment, download one back. Used by
//! the agent SDK (`herald send/ask --file`), the device core (saving attachments, image
//! blocks) and file answers; any holder of a [`RelayHttp`] with a credential can call it.
//!
//! Upload: the file is encrypted (age, a fresh key per file; herald-crypto) into a temporary
//! file in a private temporary directory (`TMPDIR`), the relay reserves exactly that many
//! bytes (`POST /files`), and the ciphertext is streamed from disk (`PUT /files/:id`). The
//! returned [`Attachment`] carries the key and goes inside the encrypted message.
//!
//! Download: the ciphertext is streamed from the relay straight into the decryptor and the
//! plaintext into a temporary file next to the destination; only when the size and SHA-256
//! match the attachment is it renamed into place (never over an existing file). Memory stays
//! bounded by a few fixed buffers whatever the file size.
//!
//! Cancellation: every temporary file and directory is held by a guard in the calling future
//! (owner-only from creation: directory 0700, files 0600), so dropping the future (an
//! interrupted command, a timeout) removes it at once, as an error does. The blocking
//! encryption and decryption steps get only an open file handle and stop promptly once the
//! future is gone: the decryptor reads the ciphertext from a channel the future fills (closed
//! on drop), the encryptor checks a flag the future raises on drop.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use herald_crypto::files::{decrypt_file, encrypt_file, FileError, FileKey};
use herald_protocol::content::{Attachment, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENT_NAME_CHARS};
use herald_protocol::files::{FileReservation, ReserveFileRequest, MAX_FILE_BYTES};
use herald_protocol::{ErrorCode, FileId};
use reqwest::Method;

use crate::transport::http::{is_code, RelayHttp};
use crate::{Error, Result};

/// Upper bound of one file upload or download request (a slow link moving 100 MiB).
const TRANSFER_TIMEOUT: Duration = Duration::from_secs(60 * 60);
/// Read buffer when streaming the ciphertext from disk.
const STREAM_BUFFER: usize = 256 * 1024;
/// Network chunks of ciphertext queued for the decryptor (each one of reqwest's reads).
const PIPE_CHUNKS: usize = 16;

/// The MIME type for a path, from its extension (`application/octet-stream` when unknown).
pub fn guess_type(path: &Path) -> String {
    mime_guess::from_path(path)
        .first_or_octet_stream()
        .essence_str()
        .to_owned()
}

/// The ids of attachments, for `attachments` of a send or answer request. Ids that are not
/// file ids are skipped (content validation refuses them before this is used).
pub fn attachment_ids(attachments: &[Attachment]) -> Vec<FileId> {
    attachments
        .iter()
        .filter_map(|a| FileId::parse(&a.id))
        .collect()
}

/// `file_expired` from the relay becomes [`Error::FileExpired`].
fn relay_error(e: Error) -> Error {
    if is_code(&e, ErrorCode::FileExpired) {
        Error::FileExpired
    } else {
        e
    }
}

fn file_error(e: FileError) -> Error {
    match e {
        FileError::Io(io) => Error::Storage(format!("file: {io}")),
        FileError::TooLarge { limit } => {
            Error::InvalidInput(format!("a file is at most {limit} bytes"))
        }
        other => Error::FileIntegrity(other.to_string()),
    }
}

fn blocking_failed(e: tokio::task::JoinError) -> Error {
    Error::Storage(format!("file task failed: {e}"))
}

/// Why the local file at `path` cannot be sent, checked before any upload: missing, not a
/// regular file (a directory, a device), not readable by this user, or over 100 MB
/// ([`MAX_ATTACHMENT_BYTES`]). Returns its size in bytes; the error names the path.
pub fn check_local_file(path: &Path) -> std::result::Result<u64, String> {
    check_local_file_as(path, &path.display().to_string())
}

/// [`check_local_file`] whose messages name the file as `shown` instead of its path: the
/// desktop shows only the file's name, since the webview never learns where a picked file
/// lives.
pub fn check_local_file_as(path: &Path, shown: &str) -> std::result::Result<u64, String> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("no file at {shown}"),
        _ => format!("cannot read {shown}: {e}"),
    })?;
    if !meta.is_file() {
        return Err(format!(
            "{shown} is not a regular file: give a file, not a directory or a device"
        ));
    }
    if meta.len() > MAX_ATTACHMENT_BYTES {
        return Err(format!(
            "{shown} has {} bytes; a file is at most 100 MB ({MAX_ATTACHMENT_BYTES} bytes)",
            meta.len()
        ));
    }
    std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    Ok(meta.len())
}

/// Encrypts the file at `path` and uploads it; name and type come from the path (see
/// [`upload_file_as`]).
pub async fn upload_file(http: &RelayHttp, path: &Path) -> Result<Attachment> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::InvalidInput(format!("{} is not a file", path.display())))?;
    upload_file_as(http, path, &name, &guess_type(path)).await
}

/// Encrypts the file at `path` (≤ 100 MB, [`MAX_ATTACHMENT_BYTES`]) to a fresh key, reserves
/// and uploads the ciphertext, and returns the attachment to put in the message (or answer)
/// and whose id goes in its `attachments`. The relay keeps an upload 15 minutes until a
/// message carries it. Errors: `invalid_input` (not a readable file, too large, a name that
/// is not a file name), `network`, relay codes (`payload_too_large`, `unauthorized`, …).
pub async fn upload_file_as(
    http: &RelayHttp,
    path: &Path,
    name: &str,
    mime_type: &str,
) -> Result<Attachment> {
    check_name(name)?;
    check_local_file_as(path, name).map_err(Error::InvalidInput)?;
    let source = path.to_path_buf();
    // The temporary directory is this future's: dropped (interrupted) or failed, it goes.
    let (dir, encrypted, output) = tokio::task::spawn_blocking(temp_upload_file)
        .await
        .map_err(blocking_failed)??;
    let cancel = CancelOnDrop::default();
    let cancelled = cancel.flag();
    let info = tokio::task::spawn_blocking(move || encrypt_into(&source, output, &cancelled))
        .await
        .map_err(blocking_failed)??;
    drop(cancel);
    if info.encrypted_size > MAX_FILE_BYTES {
        return Err(Error::InvalidInput(
            "the encrypted file is too large".into(),
        ));
    }
    let reservation: FileReservation = http
        .send(
            http.request(Method::POST, "/files")
                .json(&ReserveFileRequest::new(info.encrypted_size)),
        )
        .await?;
    let file = tokio::fs::File::open(&encrypted).await?;
    let body = reqwest::Body::wrap_stream(tokio_util::io::ReaderStream::with_capacity(
        file,
        STREAM_BUFFER,
    ));
    let _: FileReservation = http
        .send(
            http.transfer_request(Method::PUT, &format!("/files/{}", reservation.id))
                .timeout(TRANSFER_TIMEOUT)
                .header(reqwest::header::CONTENT_LENGTH, info.encrypted_size)
                .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
                .body(body),
        )
        .await?;
    drop(dir);
    Ok(Attachment {
        id: reservation.id.to_string(),
        name: name.to_owned(),
        mime_type: mime_type.to_owned(),
        size: info.plaintext_size,
        sha256: herald_protocol::envelope::b64_encode(&info.sha256),
        key: info.key.expose().to_owned(),
    })
}

fn check_name(name: &str) -> Result<()> {
    let ok = !name.trim().is_empty()
        && name.chars().count() <= MAX_ATTACHMENT_NAME_CHARS
        && !name
            .chars()
            .any(|c| c.is_control() || c == '/' || c == '\\')
        && name != "."
        && name != "..";
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "an attachment name has 1–{MAX_ATTACHMENT_NAME_CHARS} characters, no control characters and no / or \\"
        )))
    }
}

/// A private temporary directory `herald-upload-*` in `TMPDIR` (mode 0700, removed with
/// everything in it on drop), the path of the ciphertext file in it, and that file, created
/// new with mode 0600.
fn temp_upload_file() -> Result<(tempfile::TempDir, PathBuf, std::fs::File)> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("herald-upload-");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        builder.permissions(std::fs::Permissions::from_mode(0o700));
        options.mode(0o600);
    }
    let dir = builder.tempdir()?;
    let path = dir.path().join("file.age");
    let output = options.open(&path)?;
    Ok((dir, path, output))
}

/// Encrypts `source` into `output` (blocking); stops with an error once `cancelled` is set.
fn encrypt_into(
    source: &Path,
    output: std::fs::File,
    cancelled: &AtomicBool,
) -> Result<herald_crypto::files::EncryptedFile> {
    let input = std::fs::File::open(source)
        .map_err(|e| Error::InvalidInput(format!("{}: {e}", source.display())))?;
    let input = Cancellable {
        inner: input,
        cancelled,
    };
    let mut writer = BufWriter::with_capacity(STREAM_BUFFER, output);
    let info = encrypt_file(
        BufReader::with_capacity(STREAM_BUFFER, input),
        &mut writer,
        MAX_ATTACHMENT_BYTES,
    )
    .map_err(file_error)?;
    writer.flush()?;
    Ok(info)
}

/// Raises its flag when dropped: the future that owns it is gone, and the blocking step
/// that watches the flag stops.
#[derive(Default)]
struct CancelOnDrop(Arc<AtomicBool>);

impl CancelOnDrop {
    fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A reader that fails once `cancelled` is set.
struct Cancellable<'a, R> {
    inner: R,
    cancelled: &'a AtomicBool,
}

impl<R: Read> Read for Cancellable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("cancelled"));
        }
        self.inner.read(buf)
    }
}

/// The decryptor's end of the ciphertext channel: the chunks the download future received,
/// then end of file when the future finished the stream or was dropped (a truncated
/// ciphertext, which the decryptor refuses).
struct ChannelReader {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<tokio_util::bytes::Bytes>>,
    chunk: tokio_util::bytes::Bytes,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.chunk.is_empty() {
            match self.rx.blocking_recv() {
                Some(chunk) => self.chunk = chunk?,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk.split_to(n));
        Ok(n)
    }
}

fn parse_attachment(attachment: &Attachment) -> Result<(FileId, FileKey, [u8; 32])> {
    let id = FileId::parse(&attachment.id)
        .ok_or_else(|| Error::Protocol("attachment id is not a file id".into()))?;
    let key = FileKey::parse(&attachment.key)
        .map_err(|_| Error::Protocol("attachment key is malformed".into()))?;
    let sha256: [u8; 32] = herald_protocol::envelope::b64_decode(&attachment.sha256)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::Protocol("attachment sha256 is malformed".into()))?;
    Ok((id, key, sha256))
}

/// Streams the attachment's ciphertext from the relay through the decryptor into `out`
/// (inside a blocking task) and checks size and SHA-256; returns `out` on success. This
/// future reads the network and hands the chunks over a bounded channel; dropped, it closes
/// the channel and the decryptor stops at its next read.
async fn fetch_into<W: Write + Send + 'static>(
    http: &RelayHttp,
    attachment: &Attachment,
    out: W,
) -> Result<W> {
    let (id, key, sha256) = parse_attachment(attachment)?;
    let resp = http
        .request(Method::GET, &format!("/files/{id}"))
        .timeout(TRANSFER_TIMEOUT)
        .send()
        .await
        .map_err(|e| http.network(e))?;
    if !resp.status().is_success() {
        let status = resp.status().as_u16();
        let body = resp
            .json::<herald_protocol::ErrorBody>()
            .await
            .unwrap_or_else(|_| herald_protocol::ErrorBody::new(ErrorCode::Internal));
        return Err(relay_error(Error::Relay { status, body }));
    }
    if resp.content_length().is_some_and(|n| n > MAX_FILE_BYTES) {
        return Err(Error::Protocol("the relay sent an oversized file".into()));
    }
    let (tx, rx) = tokio::sync::mpsc::channel(PIPE_CHUNKS);
    let size = attachment.size;
    let decrypt = tokio::task::spawn_blocking(move || {
        let mut out = out;
        let reader = ChannelReader {
            rx,
            chunk: Default::default(),
        };
        let reader = BufReader::with_capacity(STREAM_BUFFER, reader);
        decrypt_file(reader, &mut out, &key, size, &sha256).map_err(file_error)?;
        Ok(out)
    });
    let mut stream = resp.bytes_stream();
    let pump = async move {
        while let Some(chunk) = stream.next().await {
            let failed = chunk.is_err();
            // A closed channel: the decryptor stopped (its error is the one reported).
            if tx.send(chunk.map_err(std::io::Error::other)).await.is_err() || failed {
                break;
            }
        }
    };
    tokio::pin!(decrypt);
    let decrypted = tokio::select! {
        // Done (or failed) before the stream ended: stop reading the network.
        decrypted = &mut decrypt => decrypted,
        // The stream ended, failed, or the decryptor stopped reading: its result.
        () = pump => decrypt.await,
    };
    decrypted.map_err(blocking_failed)?
}

/// A new temporary file `.herald-download-*` (mode 0600) in `dir`: the open file, and its
/// path, removed when dropped unless persisted.
async fn temp_download_file(dir: PathBuf) -> Result<(std::fs::File, tempfile::TempPath)> {
    let temp = tokio::task::spawn_blocking(move || {
        if !dir.is_dir() {
            return Err(Error::InvalidInput(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
        Ok(tempfile::Builder::new()
            .prefix(".herald-download-")
            .tempfile_in(dir)?)
    })
    .await
    .map_err(blocking_failed)??;
    Ok(temp.into_parts())
}

/// Decrypts the attachment into `file` (see [`fetch_into`]) and syncs it to disk.
async fn fetch_into_file(
    http: &RelayHttp,
    attachment: &Attachment,
    file: std::fs::File,
) -> Result<()> {
    let writer = BufWriter::with_capacity(STREAM_BUFFER, file);
    let writer = fetch_into(http, attachment, writer).await?;
    tokio::task::spawn_blocking(move || {
        let file = writer
            .into_inner()
            .map_err(|e| Error::Storage(format!("file: {}", e.error())))?;
        file.sync_all()?;
        Ok(())
    })
    .await
    .map_err(blocking_failed)?
}

/// Downloads and decrypts an attachment to `dest`, which must not exist: the plaintext goes to
/// a temporary file (mode 0600) in `dest`'s directory and is renamed to `dest` only after the
/// size and SHA-256 match. Errors: `invalid_input` (dest exists), [`Error::FileExpired`],
/// [`Error::FileIntegrity`], `not_found` (not visible to this credential), `network`,
/// `storage`.
pub async fn download_file(http: &RelayHttp, attachment: &Attachment, dest: &Path) -> Result<()> {
    let checked = dest.to_path_buf();
    let dir = tokio::task::spawn_blocking(move || check_dest(&checked))
        .await
        .map_err(blocking_failed)??;
    // The temporary path is this future's: dropped (interrupted) or failed, it is removed.
    let (file, temp) = temp_download_file(dir).await?;
    fetch_into_file(http, attachment, file).await?;
    temp.persist_noclobber(dest).map_err(|e| {
        if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            Error::InvalidInput(format!("{} already exists", dest.display()))
        } else {
            Error::Storage(format!("saving {}: {}", dest.display(), e.error))
        }
    })
}

/// The directory a new file `dest` goes into, after checking that `dest` names a file that
/// does not exist (symlinks included) in a directory that does. Errors (`invalid_input`) name
/// the path the caller gave, never a temporary file.
fn check_dest(dest: &Path) -> Result<PathBuf> {
    let text = dest.as_os_str().to_string_lossy();
    let names_dir = text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR);
    match std::fs::symlink_metadata(dest) {
        Ok(meta) if meta.is_dir() => {
            return Err(Error::InvalidInput(format!(
                "{} is a directory; give the path of a new file",
                dest.display()
            )))
        }
        Ok(_) => {
            return Err(Error::InvalidInput(format!(
                "{} already exists; choose a new path",
                dest.display()
            )))
        }
        Err(_) if names_dir => {
            return Err(Error::InvalidInput(format!(
                "{} names a directory; give the path of a new file",
                dest.display()
            )))
        }
        Err(_) => {}
    }
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(Error::InvalidInput(format!(
            "the directory {} does not exist",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Downloads and decrypts an attachment into `out` (for example a file the caller created
/// beforehand, `O_EXCL`), checking size and SHA-256 at the end, and returns `out`. On an error
/// part of the plaintext may have been written: the caller discards `out`. Errors as
/// [`download_file`] (without the `dest` checks).
pub async fn download_to<W: Write + Send + 'static>(
    http: &RelayHttp,
    attachment: &Attachment,
    out: W,
) -> Result<W> {
    fetch_into(http, attachment, out).await
}

/// Downloads and decrypts an attachment into directory `dir` (which must exist) under the
/// first free name `candidates` yields (each a plain file name), and returns its path. The
/// plaintext goes to a temporary file (mode 0600) in `dir`; once size and SHA-256 match it is
/// linked under a candidate name without ever replacing a file — a name taken meanwhile (by
/// another process saving into the same directory) moves on to the next candidate. Errors:
/// `invalid_input` (`dir` is not a directory, or every candidate is taken), as
/// [`download_file`] otherwise.
pub async fn download_file_into_dir(
    http: &RelayHttp,
    attachment: &Attachment,
    dir: &Path,
    candidates: impl Iterator<Item = String> + Send + 'static,
) -> Result<PathBuf> {
    // The temporary path is this future's: dropped (interrupted) or failed, it is removed.
    let (file, mut temp) = temp_download_file(dir.to_path_buf()).await?;
    fetch_into_file(http, attachment, file).await?;
    for name in candidates {
        let dest = dir.join(&name);
        match temp.persist_noclobber(&dest) {
            Ok(()) => return Ok(dest),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => temp = e.path,
            Err(e) => {
                return Err(Error::Storage(format!(
                    "saving {}: {}",
                    dest.display(),
                    e.error
                )))
            }
        }
    }
    Err(Error::InvalidInput(format!(
        "{}: every name for this file is taken",
        dir.display()
    )))
}

/// Downloads and decrypts an attachment into memory, for attachments of at most `max` bytes
/// (image blocks: `MAX_INLINE_IMAGE_BYTES`). Errors as [`download_file`], and
/// `invalid_input` when the attachment is larger than `max`.
pub async fn download_bytes(
    http: &RelayHttp,
    attachment: &Attachment,
    max: u64,
) -> Result<Vec<u8>> {
    if attachment.size > max {
        return Err(Error::InvalidInput(format!(
            "this file has {} bytes; at most {max} are loaded into memory",
            attachment.size
        )));
    }
    fetch_into(
        http,
        attachment,
        Vec::with_capacity(attachment.size as usize),
    )
    .await
}
