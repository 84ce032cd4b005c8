//! Bodies and limits of the relay's file routes (`POST /files`, `PUT /files/:id`,
//! `GET /files/:id`; docs/files.md). The relay stores ciphertext only: the reservation names
//! neither the real file name nor its type (those travel inside the encrypted message, see
//! [`crate::content::Attachment`]), so the name and type here are fixed values.

use serde::{Deserialize, Serialize};

use crate::ids::FileId;

/// The only accepted reservation `name`: the relay never learns a file's real name.
pub const RESERVED_FILE_NAME: &str = "encrypted";
/// The only accepted reservation `type`.
pub const RESERVED_FILE_TYPE: &str = "application/octet-stream";
/// Largest encrypted file the relay stores: 100 MiB (104,857,600 bytes). The plaintext limit
/// ([`crate::content::MAX_ATTACHMENT_BYTES`], 100 MB) leaves room for age's overhead.
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;
/// How long a reservation waits for its upload, and how long a finished upload waits to be
/// attached to a message before the relay deletes it: 15 minutes.
pub const FILE_RESERVATION_SECS: u64 = 15 * 60;

/// `POST /files` (devices and connections): reserve an upload of `size` encrypted bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReserveFileRequest {
    /// Exactly [`RESERVED_FILE_NAME`].
    pub name: String,
    /// Exactly [`RESERVED_FILE_TYPE`].
    #[serde(rename = "type")]
    pub mime_type: String,
    /// The encrypted size in bytes, 1 ..= [`MAX_FILE_BYTES`]; `PUT` must send exactly this many.
    pub size: u64,
}

impl ReserveFileRequest {
    /// A reservation of `size` encrypted bytes with the fixed name and type.
    pub fn new(size: u64) -> Self {
        ReserveFileRequest {
            name: RESERVED_FILE_NAME.into(),
            mime_type: RESERVED_FILE_TYPE.into(),
            size,
        }
    }
}

/// Answer to `POST /files` (201) and to a completed `PUT /files/:id` (200).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FileReservation {
    /// `fil_` + 26 base32 characters, made by the relay.
    pub id: FileId,
    /// The encrypted size in bytes.
    pub size: u64,
    /// RFC 3339 (relay clock): the upload must be complete before this time; after a
    /// completed upload, the time by which a message must carry the file.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub expires_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservation_snapshot() {
        assert_eq!(
            serde_json::to_value(ReserveFileRequest::new(42)).expect("serializes"),
            serde_json::json!({"name": "encrypted", "type": "application/octet-stream", "size": 42}),
            "the published reservation body"
        );
        let unknown = serde_json::from_value::<ReserveFileRequest>(
            serde_json::json!({"name": "encrypted", "type": "application/octet-stream", "size": 1, "x": 1}),
        );
        assert!(unknown.is_err(), "unknown keys are refused");
        assert_eq!(MAX_FILE_BYTES, 104_857_600, "100 MiB");
    }
}
