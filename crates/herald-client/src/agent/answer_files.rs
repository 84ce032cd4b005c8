//! The agent's side of file answers (docs/files.md, "File answers"): the files a person chose
//! for the request's file fields, listed in [`AnswerOutput::files`], and their download.
//!
//! An answered file field's value is `{"attachmentId": "fil_…"}` naming one of the answer's
//! attachments (inside the answer envelope, with its key). The relay lets the asking
//! connection download it because the answer's files are linked to the request it sent.
//! The name comes from the person's device and is untrusted: [`safe_file_name`] turns it
//! into one plain file name before anything is written.

use std::path::{Path, PathBuf};

use herald_protocol::content::{AnswerContent, Attachment, FieldKind, MessageContent};
use herald_protocol::MessageId;
use serde::Serialize;

use super::{AgentClient, AnswerOutput};
use crate::{files, Error, Result};

/// A file answered for a file field: what the person's device says about it, and (after
/// [`AgentClient::save_answer_files`]) where it was saved. The key that opens it stays
/// inside (never serialized; `Debug` redacts it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceivedFile {
    /// The file field it answers.
    pub field_id: String,
    /// The relay's file id (`fil_…`), as in the field's value.
    pub attachment_id: String,
    /// The file's name as the person's device gave it: untrusted text, not a path.
    pub name: String,
    /// MIME type, `type/subtype`.
    #[serde(rename = "type")]
    pub mime_type: String,
    /// Plaintext bytes (≤ 100 MB).
    pub size: u64,
    /// Where [`AgentClient::save_answer_files`] saved it; `None` until then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    #[serde(skip)]
    attachment: Attachment,
}

impl ReceivedFile {
    /// The attachment as the answer carries it, key included (for
    /// [`crate::files::download_file`] or [`crate::files::download_bytes`]). Handle the key
    /// as a secret: anyone holding it and the ciphertext can read the file.
    pub fn attachment(&self) -> &Attachment {
        &self.attachment
    }
}

/// The answer's files, in field order of `values`: each value `{"attachmentId": id}` that
/// names one of `content.attachments`. Values naming no attachment are left out.
pub(super) fn received_files(content: &AnswerContent) -> Vec<ReceivedFile> {
    content
        .values
        .iter()
        .filter_map(|(field_id, value)| {
            let id = value.get("attachmentId")?.as_str()?;
            let attachment = content.attachments.iter().find(|a| a.id == id)?;
            Some(ReceivedFile {
                field_id: field_id.clone(),
                attachment_id: attachment.id.clone(),
                name: attachment.name.clone(),
                mime_type: attachment.mime_type.clone(),
                size: attachment.size,
                path: None,
                attachment: attachment.clone(),
            })
        })
        .collect()
}

/// Longest file name [`safe_file_name`] returns, in bytes (file systems allow 255).
const MAX_SAVED_NAME_BYTES: usize = 200;

/// A plain file name for an untrusted `name`: path separators, control characters and
/// characters Windows forbids (`: * ? " < > |`) become `_`; leading dots and spaces, and
/// trailing dots and spaces, are dropped (no hidden files, no `.` or `..`); Windows device
/// names (`CON`, `NUL`, `COM1`, …) get a leading `_`; at most 200 bytes (cut at a character
/// boundary, keeping a short extension); `file` when nothing is left. The result never
/// contains `/` or `\` and is never `.` or `..`, so joining it to a directory stays inside it.
pub fn safe_file_name(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let trimmed = mapped
        .trim_start_matches(['.', ' '])
        .trim_end_matches(['.', ' ']);
    let mut out = if trimmed.is_empty() {
        "file".to_owned()
    } else {
        trimmed.to_owned()
    };
    let stem = out
        .split('.')
        .next()
        .unwrap_or_default()
        .to_ascii_uppercase();
    let reserved = matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit());
    if reserved {
        out.insert(0, '_');
    }
    if out.len() > MAX_SAVED_NAME_BYTES {
        let ext = out
            .rfind('.')
            .map(|i| out[i..].to_owned())
            .filter(|e| e.len() <= 16)
            .unwrap_or_default();
        let mut cut = MAX_SAVED_NAME_BYTES - ext.len();
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out = format!("{}{ext}", &out[..cut]);
    }
    out
}

/// Names to save a file called `name` under, in order: `name`, then `stem (2).ext`,
/// `stem (3).ext`, … up to 1000; the first one free is used (the download never replaces a
/// file, and a name taken meanwhile moves on to the next).
fn candidate_names(name: &str) -> impl Iterator<Item = String> + Send + 'static {
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (name[..i].to_owned(), name[i..].to_owned()),
        _ => (name.to_owned(), String::new()),
    };
    std::iter::once(name.to_owned()).chain((2..=1000).map(move |n| format!("{stem} ({n}){ext}")))
}

impl AgentClient {
    /// The content of request `id`, which this connection sent (opened with its own key).
    /// Errors: `not_found`, `network`, crypto errors.
    pub async fn request_content(&self, id: &MessageId) -> Result<MessageContent> {
        let record = self.http.message(id).await?;
        let loaded = self.directory().await?;
        let (directory, _) = &*loaded;
        let secret = self.keys.recipient_secret();
        let (_, plaintext) =
            herald_crypto::open_at(&record.envelope, directory, &[&secret], &record.created_at)?;
        herald_protocol::json::from_slice(&plaintext)
            .map_err(|e| Error::Protocol(format!("the request's content: {e}")))
    }

    /// Ids of the file fields (not secret-file) of request `id`, so a caller can choose where
    /// answered files go before waiting.
    pub async fn file_field_ids(&self, id: &MessageId) -> Result<Vec<String>> {
        Ok(self
            .request_content(id)
            .await?
            .effective_fields()
            .iter()
            .filter(|f| matches!(f.kind, FieldKind::File { secret: false }))
            .map(|f| f.id.clone())
            .collect())
    }

    /// Downloads, decrypts and verifies an answered file to `dest`, which must not exist
    /// (mode 0600, written only after size and SHA-256 match). Errors: `invalid_input` (dest
    /// exists), `file_expired`, `file_integrity`, `not_found`, `network`, `storage`.
    pub async fn download_answer_file(&self, file: &ReceivedFile, dest: &Path) -> Result<()> {
        files::download_file(&self.http, &file.attachment, dest).await
    }

    /// Saves every file of `answer` in `dir` (an existing directory) under
    /// [`safe_file_name`] of its name (` (2)`, ` (3)`, … added when taken, also when another
    /// process takes the name during the download; nothing is ever replaced), with mode 0600,
    /// and records each path in [`ReceivedFile::path`]. Stops at the first failure (files
    /// saved before it stay, with their paths recorded). Errors: `invalid_input` (dir is not a
    /// directory), as [`AgentClient::download_answer_file`].
    pub async fn save_answer_files(&self, answer: &mut AnswerOutput, dir: &Path) -> Result<()> {
        for file in &mut answer.files {
            let names = candidate_names(&safe_file_name(&file.name));
            let dest =
                files::download_file_into_dir(&self.http, &file.attachment, dir, names).await?;
            file.path = Some(dest);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::safe_file_name;

    #[test]
    fn names_stay_inside_the_directory() {
        for (given, want) in [
            ("report.pdf", "report.pdf"),
            ("../../etc/passwd", "_.._etc_passwd"),
            ("..", "file"),
            (".", "file"),
            ("", "file"),
            ("/abs/path.txt", "_abs_path.txt"),
            ("..\\..\\win.ini", "_.._win.ini"),
            (".bashrc", "bashrc"),
            ("a\u{0}b\nc", "a_b_c"),
            ("CON.txt", "_CON.txt"),
            ("com1", "_com1"),
            ("trailing. ", "trailing"),
            ("C:evil", "C_evil"),
        ] {
            assert_eq!(safe_file_name(given), want, "{given:?}");
        }
    }

    #[test]
    fn taken_names_get_a_number_before_the_extension() {
        let names: Vec<String> = super::candidate_names("server.log").take(3).collect();
        assert_eq!(names, ["server.log", "server (2).log", "server (3).log"]);
        let names: Vec<String> = super::candidate_names("README").take(2).collect();
        assert_eq!(names, ["README", "README (2)"]);
        assert_eq!(super::candidate_names("x").count(), 1000, "bounded");
    }

    #[test]
    fn long_names_are_cut_at_a_character_boundary_keeping_the_extension() {
        let long = format!("{}.tar.gz", "é".repeat(300));
        let safe = safe_file_name(&long);
        assert!(safe.len() <= 200, "{} bytes", safe.len());
        assert!(safe.ends_with(".gz"), "{safe}");
        assert!(safe.starts_with('é'));
    }
}
