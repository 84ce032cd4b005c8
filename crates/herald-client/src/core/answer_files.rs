//! Files chosen for file and secret-file fields of an answer (docs/files.md, "File answers"):
//! checked locally, encrypted and uploaded (`herald_client::files`), then named by the answer.
//!
//! Order, so that a bad answer uploads nothing: [`precheck`] refuses unknown fields, fields
//! answered twice, missing or oversized files and every other violation of the form; only
//! then [`upload`] encrypts and uploads each file; [`add_to_answer`] puts
//! `{"attachmentId": …}` in each field's value and the attachment (with its key) in
//! `AnswerContent.attachments`. Uploads of an answer that is then refused are not attached
//! and the relay deletes them 15 minutes later.
//!
//! Secret-file fields go through the same steps; the caller decides where their attachments
//! travel (the secret envelope, not the ordinary one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use herald_protocol::content::{
    AnswerContent, Attachment, Field, FieldKind, MessageContent, Violation, MAX_ATTACHMENTS,
};
use serde_json::{json, Map, Value};

use crate::transport::http::RelayHttp;
use crate::{files, Error, Result};

/// The answer to one file or secret-file field: the uploaded file.
#[derive(Debug, Clone)]
pub(crate) struct AnswerFile {
    /// The field it answers.
    pub(crate) field_id: String,
    /// A `secret-file` field: only the asking connection may receive the attachment. Read by
    /// the secret-file routing, which moves such files to the secret envelope.
    #[allow(dead_code)]
    pub(crate) secret: bool,
    /// The upload, with its key (goes inside an encrypted envelope only).
    pub(crate) attachment: Attachment,
}

impl AnswerFile {
    /// The field's value: `{"attachmentId": "<file id>"}`.
    pub(crate) fn value(&self) -> Value {
        json!({ "attachmentId": self.attachment.id })
    }
}

fn violation(path: &str, message: String) -> Violation {
    Violation {
        path: path.to_owned(),
        message,
    }
}

/// Whether `field` is a secret-file field.
pub(crate) fn is_secret_file(field: &Field) -> bool {
    matches!(
        field.kind,
        FieldKind::SecretFile | FieldKind::File { secret: true }
    )
}

/// Local checks of `files` (field id → path) against the form, without touching the relay:
/// each id is a file or secret-file field, not also answered in `values`; each path is a
/// regular file of at most 100 MB ([`MAX_ATTACHMENT_BYTES`](herald_protocol::content::MAX_ATTACHMENT_BYTES)); at most 10 files. Then the
/// answer's other values are validated as if the files were attached, so a bad answer is
/// refused before anything is uploaded. Errors: `validation_failed` (paths are field ids).
pub(crate) fn precheck(
    content: &MessageContent,
    values: &Map<String, Value>,
    files: &BTreeMap<String, PathBuf>,
) -> Result<()> {
    let fields = content.effective_fields();
    let mut violations = Vec::new();
    if files.len() > MAX_ATTACHMENTS {
        violations.push(violation(
            "files",
            format!("an answer carries at most {MAX_ATTACHMENTS} files"),
        ));
    }
    for (id, path) in files {
        match fields.iter().find(|f| &f.id == id) {
            None => violations.push(violation(id, "no such field".into())),
            Some(f) if !f.kind.is_file() => violations.push(violation(
                id,
                format!("is a {} field, not a file field", f.kind.type_name()),
            )),
            Some(_) if values.contains_key(id) => violations.push(violation(
                id,
                "is answered both with a file and with a value".into(),
            )),
            Some(_) => {
                if let Err(message) = check_path(path) {
                    violations.push(violation(id, message));
                }
            }
        }
    }
    if !violations.is_empty() {
        return Err(Error::Validation(violations));
    }
    // Validate the rest of the answer with each file field marked answered; the
    // placeholders' own complaints ("must name an attachment") are about the files we are
    // about to upload and are checked again, for real, after the upload.
    let mut provisional = values.clone();
    for id in files.keys() {
        provisional.insert(id.clone(), json!({ "attachmentId": "pending" }));
    }
    let answer = AnswerContent {
        action_id: None,
        values: provisional,
        attachments: vec![],
    };
    match content.validate_answer(&answer) {
        Ok(()) => Ok(()),
        Err(found) => {
            let rest: Vec<Violation> = found
                .into_iter()
                .filter(|v| !files.contains_key(&v.path))
                .collect();
            if rest.is_empty() {
                Ok(())
            } else {
                Err(Error::Validation(rest))
            }
        }
    }
}

/// Why `path` cannot be uploaded ([`files::check_local_file_as`]), naming the file by its
/// name only: the message reaches the webview, which never learns a picked file's path.
fn check_path(path: &Path) -> std::result::Result<(), String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "the file".to_owned());
    files::check_local_file_as(path, &name).map(|_| ())
}

/// Encrypts and uploads each file of `files` (already [`precheck`]ed) with `http` (the
/// answering device's session), one after the other, in field-id order. The name is the
/// path's file name and the type is guessed from its extension. Errors: as
/// [`files::upload_file`] (`invalid_input`, `network`, relay codes).
pub(crate) async fn upload(
    http: &RelayHttp,
    content: &MessageContent,
    files: &BTreeMap<String, PathBuf>,
) -> Result<Vec<AnswerFile>> {
    let fields = content.effective_fields();
    let mut uploaded = Vec::with_capacity(files.len());
    for (id, path) in files {
        let field = fields
            .iter()
            .find(|f| &f.id == id && f.kind.is_file())
            .ok_or_else(|| Error::Validation(vec![violation(id, "no such file field".into())]))?;
        let attachment = files::upload_file(http, path).await?;
        uploaded.push(AnswerFile {
            field_id: id.clone(),
            secret: is_secret_file(field),
            attachment,
        });
    }
    Ok(uploaded)
}

/// Puts each uploaded file in the answer: the field's value names the attachment and the
/// attachment joins `answer.attachments`.
pub(crate) fn add_to_answer(answer: &mut AnswerContent, uploaded: Vec<AnswerFile>) {
    for file in uploaded {
        answer.values.insert(file.field_id.clone(), file.value());
        answer.attachments.push(file.attachment);
    }
}

/// [`precheck`], [`upload`] and [`add_to_answer`] in one: the answer with its files, for the
/// caller to validate against the form and seal. Does nothing when `files` is empty (an
/// action's answer has none).
pub(crate) async fn attach(
    http: &RelayHttp,
    content: &MessageContent,
    answer: &mut AnswerContent,
    files: &BTreeMap<String, PathBuf>,
) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    precheck(content, &answer.values, files)?;
    let uploaded = upload(http, content, files).await?;
    add_to_answer(answer, uploaded);
    Ok(())
}

/// Test support (feature `test-support`): behave like a broken or hostile device.
#[cfg(feature = "test-support")]
impl super::Core {
    /// Encrypts and uploads `path` as this device, as [`files::upload_file`] does.
    pub async fn upload_file_unchecked(&self, path: &Path) -> Result<Attachment> {
        files::upload_file(&self.inner.session()?.http, path).await
    }

    /// Seals and posts `answer` to request `id` WITHOUT validating it (not even attachment
    /// names), so tests can check what an agent does with a hostile answer.
    pub async fn answer_unchecked(&self, id: &str, answer: AnswerContent) -> Result<()> {
        let session = self.inner.session()?;
        let message_id =
            herald_protocol::MessageId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let owned = id.to_owned();
        let row = self.inner.store.cache_call(move |c| c.get(&owned)).await?;
        let opened = crate::view::present::opened(&self.inner.store.local.key, &row)?;
        let request = session.answer_request(&message_id, &opened, answer).await?;
        session.http.answer(&message_id, &request).await?;
        Ok(())
    }
}
