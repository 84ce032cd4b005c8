//! `/files`: reserve an upload, stream its ciphertext in, stream it back out (docs/files.md).
//!
//! The relay never sees a file's name, type or key: a reservation is `{name: "encrypted",
//! type: "application/octet-stream", size}` and the bytes are an age file. It checks sizes,
//! deadlines (its own clock) and who may read: a file is downloadable by the account's devices
//! once a message carries it, by a connection when the message is its own, and by its
//! uploader. Bodies stream through fixed buffers; a 100 MiB upload never sits in memory.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Duration;
use futures_util::StreamExt;
use herald_protocol::content::MAX_ATTACHMENTS;
use herald_protocol::files::{
    FileReservation, ReserveFileRequest, FILE_RESERVATION_SECS, MAX_FILE_BYTES, RESERVED_FILE_NAME,
    RESERVED_FILE_TYPE,
};
use herald_protocol::{ErrorCode, FileId};
use ring::rand::{SecureRandom, SystemRandom};
use tokio::io::AsyncWriteExt;

use super::JsonBody;
use crate::auth::Auth;
use crate::clock::format_time;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::files::{FileError, FileResult, FileStore, NewFile};

/// Body limit of `PUT /files/:id`: the largest file plus slack for nothing (the handler stops
/// reading one byte past the reservation's size anyway).
pub(super) const UPLOAD_BODY_LIMIT: usize = MAX_FILE_BYTES as usize + 64 * 1024;
/// Write buffer of an upload and read buffer of a download.
const IO_BUFFER: usize = 256 * 1024;

impl From<FileError> for ApiError {
    fn from(e: FileError) -> Self {
        let index = e.attachment_index();
        let message = match &e {
            FileError::NotAttachable { .. } => {
                Some("Each attachment must be a completed upload by this credential.")
            }
            FileError::AlreadyAttached { .. } => {
                Some("This file is already attached to another message.")
            }
            FileError::AttachmentExpired { .. } => {
                Some("This upload expired before a message carried it; upload it again.")
            }
            _ => None,
        };
        let err = match (e.code(), message) {
            (Some(code), Some(m)) => ApiError::with_message(code, m),
            (Some(code), None) => ApiError::new(code),
            (None, _) => return ApiError::internal(e),
        };
        match index {
            Some(i) => err.fields([format!("attachments[{i}]")]),
            None => err,
        }
    }
}

/// Runs a blocking file-store call on tokio's blocking pool.
pub(super) async fn files<T, F>(state: &AppState, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&dyn FileStore) -> FileResult<T> + Send + 'static,
{
    let store = state.inner.files.clone();
    tokio::task::spawn_blocking(move || f(store.as_ref()))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::from)
}

fn new_file_id() -> Result<FileId, ApiError> {
    let mut bytes = [0u8; 16];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| ApiError::internal("system randomness failed"))?;
    Ok(FileId::from_random(&bytes))
}

/// `attachments` of a send or answer: at most [`MAX_ATTACHMENTS`] ids, none twice.
pub(super) fn check_attachment_ids(ids: &[FileId]) -> Result<(), ApiError> {
    if ids.len() > MAX_ATTACHMENTS {
        return Err(ApiError::invalid(
            "attachments",
            "A message carries at most 10 files.",
        ));
    }
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].contains(id) {
            return Err(ApiError::invalid(
                &format!("attachments[{i}]"),
                "The same file is listed twice.",
            ));
        }
    }
    Ok(())
}

fn file_id(raw: &str) -> Result<FileId, ApiError> {
    FileId::parse(raw).ok_or_else(ApiError::not_found)
}

fn reservation_ttl() -> Duration {
    Duration::seconds(FILE_RESERVATION_SECS as i64)
}

/// `POST /files` (devices and connections): `{name: "encrypted", type:
/// "application/octet-stream", size}` → 201 `{id, size, expiresAt}`.
pub(super) async fn reserve(
    State(state): State<AppState>,
    Auth(principal): Auth,
    JsonBody { value: req, .. }: JsonBody<ReserveFileRequest>,
) -> Result<(StatusCode, Json<FileReservation>), ApiError> {
    if req.name != RESERVED_FILE_NAME {
        return Err(ApiError::invalid(
            "name",
            "name must be \"encrypted\": the real name travels inside the encrypted message.",
        ));
    }
    if req.mime_type != RESERVED_FILE_TYPE {
        return Err(ApiError::invalid(
            "type",
            "type must be \"application/octet-stream\": the real type travels inside the encrypted message.",
        ));
    }
    if req.size == 0 {
        return Err(ApiError::invalid(
            "size",
            "size is the encrypted size in bytes, at least 1.",
        ));
    }
    if req.size > MAX_FILE_BYTES {
        return Err(ApiError::with_message(
            ErrorCode::PayloadTooLarge,
            "Files are at most 100 MiB encrypted (104857600 bytes).",
        )
        .fields(["size"]));
    }
    let now = state.now();
    let new = NewFile {
        id: new_file_id()?,
        account: principal.account().clone(),
        uploader: principal,
        size: req.size,
        now,
        expires_at: now + reservation_ttl(),
    };
    let reply = FileReservation {
        id: new.id.clone(),
        size: new.size,
        expires_at: format_time(new.expires_at),
    };
    files(&state, move |s| s.reserve_file(new)).await?;
    Ok((StatusCode::CREATED, Json(reply)))
}

/// The declared `Content-Length`, if any and parseable.
fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

fn too_short(size: u64) -> ApiError {
    ApiError::with_message(
        ErrorCode::FileTooShort,
        format!("The upload ended before the reserved {size} bytes; send the whole file again."),
    )
}

fn too_long(size: u64) -> ApiError {
    ApiError::with_message(
        ErrorCode::FileTooLong,
        format!("The upload is longer than the reserved {size} bytes."),
    )
}

/// `PUT /files/:id` (the uploader): exactly the reserved number of bytes, once, before the
/// reservation expires → 200 `{id, size, expiresAt}` with `expiresAt` the deadline to attach
/// it. A short or long upload leaves the reservation open for another try.
pub(super) async fn upload(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<FileReservation>, ApiError> {
    let id = file_id(&id)?;
    let (account, who, now) = (principal.account().clone(), principal.clone(), state.now());
    let fid = id.clone();
    let slot = files(&state, move |s| s.upload_slot(&account, &who, &fid, now)).await?;
    let Some(_lock) = state.inner.blobs.lock_upload(&id) else {
        return Err(ApiError::with_message(
            ErrorCode::FileAlreadyUploaded,
            "This file is being uploaded.",
        ));
    };
    match content_length(&headers) {
        Some(n) if n < slot.size => return Err(too_short(slot.size)),
        Some(n) if n > slot.size => return Err(too_long(slot.size)),
        _ => {}
    }
    let temp = state.inner.blobs.temp(&id).map_err(ApiError::internal)?;
    write_exactly(&temp.path, body, slot.size).await?;
    state
        .inner
        .blobs
        .commit(temp, &id)
        .await
        .map_err(ApiError::internal)?;
    let now = state.now();
    let attach_by = now + reservation_ttl();
    let (account, who, fid) = (principal.account().clone(), principal, id.clone());
    let done = files(&state, move |s| {
        s.complete_upload(&account, &who, &fid, now, attach_by)
    })
    .await;
    if let Err(e) = done {
        // Expired while the bytes came in (or the row changed): the bytes must not stay.
        if let Err(rm) = state.inner.blobs.remove(&id).await {
            tracing::error!(error = %rm, file = %id, "removing a refused upload failed");
        }
        return Err(e);
    }
    Ok(Json(FileReservation {
        id,
        size: slot.size,
        expires_at: format_time(attach_by),
    }))
}

/// Streams `body` into a new file at `path`: exactly `size` bytes, then flush and fsync.
async fn write_exactly(path: &std::path::Path, body: Body, size: u64) -> Result<(), ApiError> {
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    let file = options.open(path).await.map_err(ApiError::internal)?;
    let mut out = tokio::io::BufWriter::with_capacity(IO_BUFFER, file);
    let mut stream = body.into_data_stream();
    let mut received: u64 = 0;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| {
            ApiError::with_message(ErrorCode::BadRequest, "The upload could not be read.")
        })?;
        received += chunk.len() as u64;
        if received > size {
            return Err(too_long(size));
        }
        out.write_all(&chunk).await.map_err(ApiError::internal)?;
    }
    if received < size {
        return Err(too_short(size));
    }
    out.flush().await.map_err(ApiError::internal)?;
    out.into_inner()
        .sync_all()
        .await
        .map_err(ApiError::internal)
}

/// `GET /files/:id`: the ciphertext, streamed, with its `Content-Length`. 404 for anyone who
/// may not read it; 410 `file_expired` once deleted.
pub(super) async fn download(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = file_id(&id)?;
    let (fid, now) = (id.clone(), state.now());
    let found = files(&state, move |s| s.download(&principal, &fid, now)).await?;
    let file = tokio::fs::File::open(state.inner.blobs.path(&id))
        .await
        .map_err(|e| ApiError::internal(format!("file {id}: {e}")))?;
    let stream = tokio_util::io::ReaderStream::with_capacity(file, IO_BUFFER);
    let mut response = Body::from_stream(stream).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(RESERVED_FILE_TYPE),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(found.size));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    Ok(response)
}
