//! `attachments`: the files a message (or an answer) carries, described inside the encrypted
//! content: the relay's file id, the real name, type and size, the SHA-256 of the plaintext,
//! and the key that opens the file's ciphertext (an age X25519 identity made for this file
//! only; docs/files.md). The relay sees only the ids.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::check::Check;
use super::limits::*;
use crate::ids::FileId;

/// One attached file: `{id, name, type, size, sha256, key}`.
///
/// - `id`: the relay's file id, `fil_` + 26 base32 characters.
/// - `name`: 1–[`MAX_ATTACHMENT_NAME_CHARS`] characters, no control characters, no `/` or
///   `\`, not `.` or `..` (a name, never a path).
/// - `type`: a MIME type `type/subtype` (RFC 6838 restricted names, ≤
///   [`MAX_ATTACHMENT_TYPE_CHARS`] characters, no parameters).
/// - `size`: plaintext bytes, 0 ..= [`MAX_ATTACHMENT_BYTES`].
/// - `sha256`: base64url (no padding) of the plaintext's SHA-256, 43 characters.
/// - `key`: the age identity `AGE-SECRET-KEY-1…` (74 characters) that opens the ciphertext.
///   A secret: `Debug` redacts it.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub mime_type: String,
    pub size: u64,
    pub sha256: String,
    pub key: String,
}

impl std::fmt::Debug for Attachment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attachment")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("mime_type", &self.mime_type)
            .field("size", &self.size)
            .field("sha256", &self.sha256)
            .field("key", &"<redacted>")
            .finish()
    }
}

impl Attachment {
    /// Whether this attachment can be shown by an image block (PNG, JPEG, GIF or WebP).
    pub fn is_image(&self) -> bool {
        IMAGE_TYPES.contains(&self.mime_type.as_str())
    }
}

/// Bech32's data characters, upper case (age identities are upper case).
const BECH32_UPPER: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
/// `AGE-SECRET-KEY-1` + 58 Bech32 characters.
const KEY_PREFIX: &str = "AGE-SECRET-KEY-1";
const KEY_LEN: usize = 74;

fn is_key(key: &str) -> bool {
    key.len() == KEY_LEN
        && key
            .strip_prefix(KEY_PREFIX)
            .is_some_and(|rest| rest.chars().all(|c| BECH32_UPPER.contains(c)))
}

fn is_sha256(text: &str) -> bool {
    text.len() == 43
        && data_encoding::BASE64URL_NOPAD
            .decode(text.as_bytes())
            .is_ok_and(|b| b.len() == 32)
}

/// A name, not a path: no separators, no control characters, not `.` or `..`.
fn is_file_name(name: &str) -> bool {
    !name
        .chars()
        .any(|c| c.is_control() || c == '/' || c == '\\')
        && name != "."
        && name != ".."
        && !name.trim().is_empty()
}

/// RFC 6838 restricted-name: `[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}`.
fn is_restricted_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.len() <= 127
        && chars.all(|c| c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c))
}

/// `type/subtype`, no parameters.
pub(crate) fn is_mime_type(s: &str) -> bool {
    s.len() <= MAX_ATTACHMENT_TYPE_CHARS
        && s.split_once('/')
            .is_some_and(|(t, sub)| is_restricted_name(t) && is_restricted_name(sub))
}

/// Checks `attachments` (of a message or an answer): count, and each attachment's shape.
pub(crate) fn check_attachments(c: &mut Check, attachments: &[Attachment]) {
    if attachments.len() > MAX_ATTACHMENTS {
        c.fail(
            "attachments",
            format!("at most {MAX_ATTACHMENTS} attachments"),
        );
    }
    let mut ids = HashSet::new();
    for (i, a) in attachments.iter().enumerate() {
        let at = |key: &str| format!("attachments[{i}].{key}");
        if FileId::parse(&a.id).is_none() {
            c.fail(at("id"), "must be a file id (fil_ + 26 base32 characters)");
        } else if !ids.insert(a.id.as_str()) {
            c.fail(at("id"), "duplicate attachment id");
        }
        c.text(&at("name"), &a.name, 1, MAX_ATTACHMENT_NAME_CHARS);
        if !a.name.is_empty() && !is_file_name(&a.name) {
            c.fail(
                at("name"),
                "must be a file name: no control characters, no / or \\, not . or ..",
            );
        }
        if !is_mime_type(&a.mime_type) {
            c.fail(
                at("type"),
                format!("must be a MIME type type/subtype (≤ {MAX_ATTACHMENT_TYPE_CHARS} characters, no parameters)"),
            );
        }
        if a.size > MAX_ATTACHMENT_BYTES {
            c.fail(
                at("size"),
                format!("must be at most {MAX_ATTACHMENT_BYTES} bytes"),
            );
        }
        if !is_sha256(&a.sha256) {
            c.fail(at("sha256"), "must be base64url of 32 bytes (a SHA-256)");
        }
        if !is_key(&a.key) {
            c.fail(
                at("key"),
                "must be an age X25519 identity (AGE-SECRET-KEY-1…)",
            );
        }
    }
}

/// Finds the attachment with this id.
pub(crate) fn find<'a>(attachments: &'a [Attachment], id: &str) -> Option<&'a Attachment> {
    attachments.iter().find(|a| a.id == id)
}
