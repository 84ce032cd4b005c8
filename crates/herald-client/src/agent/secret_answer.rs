//! The agent's side of secret fields (docs/secrets.md): an answer whose values hold
//! `{"secret": true}` markers has a secret envelope waiting on the relay, sealed to this
//! connection only. The agent collects it once (`POST /messages/:id/secret/collect`), checks
//! that the device that signed the answer signed it too, and hands the values to the caller
//! wrapped in [`SecretValues`], whose `Debug` shows no value and which is never serialized.
//! A secret-file field's entry is the whole attachment (key included): the agent downloads
//! it with [`AgentClient::download_secret_file`] within 15 minutes of the answer.

use std::path::Path;

use herald_crypto::Directory;
use herald_protocol::content::{Attachment, Field, FieldKind, MessageContent};
use herald_protocol::envelope::{EnvelopeHeader, EnvelopeKind};
use herald_protocol::secrets::{is_secret_marker, SecretEnvelope};
use herald_protocol::wire::MessageRecord;
use herald_protocol::FileId;
use reqwest::Method;
use serde_json::{Map, Value};
use zeroize::Zeroize;

use super::{AgentClient, AnswerOutput};
use crate::{Error, Result};

/// The values of an answer's secret fields, by field id, and the files of its secret-file
/// fields. `Debug` prints the field ids only; it is skipped when an [`AnswerOutput`] is
/// serialized; the strings (and the files' keys) are wiped on drop.
#[derive(Clone, PartialEq, Default)]
pub struct SecretValues {
    values: Map<String, Value>,
    files: Vec<SecretFile>,
}

/// The answer to a secret-file field: an upload only this connection may download, for 15
/// minutes after the answer. The attachment carries the file's key; `Debug` shows the field
/// id only.
#[derive(Clone, PartialEq)]
pub struct SecretFile {
    /// The secret-file field it answers.
    pub field_id: String,
    attachment: Attachment,
}

impl SecretFile {
    /// The attachment as the person's device sealed it, key included (for
    /// [`crate::files::download_file`]). Handle the key as a secret.
    pub fn attachment(&self) -> &Attachment {
        &self.attachment
    }
}

impl std::fmt::Debug for SecretFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretFile")
            .field("field_id", &self.field_id)
            .finish_non_exhaustive()
    }
}

impl Drop for SecretFile {
    fn drop(&mut self) {
        self.attachment.key.zeroize();
    }
}

impl SecretValues {
    /// The value of secret field `id`.
    pub fn get(&self, id: &str) -> Option<&Value> {
        self.values.get(id)
    }

    /// All values of secret fields by field id (secret files are in
    /// [`SecretValues::files`]). Handle with care: never log or print them.
    pub fn expose(&self) -> &Map<String, Value> {
        &self.values
    }

    /// The answered secret-file fields.
    pub fn files(&self) -> &[SecretFile] {
        &self.files
    }

    /// Field ids, values first, then files.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.values
            .keys()
            .map(String::as_str)
            .chain(self.files.iter().map(|f| f.field_id.as_str()))
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.files.is_empty()
    }
}

impl std::fmt::Debug for SecretValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretValues")
            .field("ids", &self.ids().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Drop for SecretValues {
    fn drop(&mut self) {
        crate::secrets::wipe(&mut self.values);
    }
}

impl AnswerOutput {
    /// The answer's values with every secret marker replaced by its value (a secret file by
    /// `{"attachmentId": …}`, as a file field reads): what the person answered, as one map.
    /// Wrapped like the secrets themselves.
    pub fn merged_values(&self) -> SecretValues {
        let mut all = self.values.clone();
        if let Some(secrets) = &self.secrets {
            for (id, value) in secrets.expose() {
                all.insert(id.clone(), value.clone());
            }
            for file in secrets.files() {
                all.insert(
                    file.field_id.clone(),
                    serde_json::json!({"attachmentId": file.attachment.id}),
                );
            }
        }
        SecretValues {
            values: all,
            files: Vec::new(),
        }
    }
}

/// Splits the opened secret envelope into values and files, checking each against its
/// field's kind: a string (or other JSON value) for a secret field, an [`Attachment`] for a
/// secret-file field; exactly the `marked` fields.
fn parse_secrets(
    mut all: Map<String, Value>,
    fields: &[Field],
    marked: &[&String],
) -> Result<SecretValues> {
    let mismatch =
        || Error::Protocol("the secret values do not match the answer's secret fields".into());
    let same_fields =
        all.len() == marked.len() && marked.iter().all(|id| all.contains_key(id.as_str()));
    if !same_fields {
        crate::secrets::wipe(&mut all);
        return Err(mismatch());
    }
    let mut out = SecretValues::default();
    for (id, value) in std::mem::take(&mut all) {
        let field = fields.iter().find(|f| f.id == id);
        match field.map(|f| &f.kind) {
            Some(kind) if crate::secrets::is_secret_file(kind) => {
                let attachment: Attachment = serde_json::from_value(value).map_err(|_| {
                    Error::Protocol(format!("the secret file of {id} is not an attachment"))
                })?;
                if FileId::parse(&attachment.id).is_none() {
                    return Err(Error::Protocol(format!(
                        "the secret file of {id} names no file"
                    )));
                }
                out.files.push(SecretFile {
                    field_id: id,
                    attachment,
                });
            }
            Some(FieldKind::Secret) => {
                out.values.insert(id, value);
            }
            _ => return Err(mismatch()),
        }
    }
    Ok(out)
}

impl AgentClient {
    /// Ids of the secret and secret-file fields of request `id` (this connection's own
    /// request, opened with its key), so a caller can prepare where secrets go before
    /// waiting: they are handed over once.
    pub async fn secret_field_ids(&self, id: &herald_protocol::MessageId) -> Result<Vec<String>> {
        Ok(self
            .request_content(id)
            .await?
            .effective_fields()
            .iter()
            .filter(|f| {
                matches!(f.kind, FieldKind::Secret) || crate::secrets::is_secret_file(&f.kind)
            })
            .map(|f| f.id.clone())
            .collect())
    }

    /// Downloads, decrypts and verifies a secret file to `dest`, which must not exist (mode
    /// 0600, written only after size and SHA-256 match). Only this connection may download
    /// it, until 15 minutes after the answer. Errors: `invalid_input` (dest exists),
    /// `file_expired`, `file_integrity`, `not_found`, `network`, `storage`.
    pub async fn download_secret_file(&self, file: &SecretFile, dest: &Path) -> Result<()> {
        crate::files::download_file(&self.http, &file.attachment, dest).await
    }

    /// Downloads, decrypts and verifies a secret file into `out` (for example the 0600 file a
    /// caller created with `O_EXCL` before collecting the secret, so it cannot be lost to a
    /// path taken meanwhile) and returns `out`. On an error part of the plaintext may have
    /// been written to `out`: discard it. Errors as [`AgentClient::download_secret_file`].
    pub async fn download_secret_file_to<W: std::io::Write + Send + 'static>(
        &self,
        file: &SecretFile,
        out: W,
    ) -> Result<W> {
        crate::files::download_to(&self.http, &file.attachment, out).await
    }

    /// When `values` holds secret markers, collects and opens the secret envelope (once: a
    /// second call fails with `secret_collected`, after 15 minutes `secret_expired`).
    pub(super) async fn collect_secrets(
        &self,
        record: &MessageRecord,
        answer: &EnvelopeHeader,
        values: &Map<String, Value>,
    ) -> Result<Option<SecretValues>> {
        let marked: Vec<&String> = values
            .iter()
            .filter(|(_, v)| is_secret_marker(v))
            .map(|(k, _)| k)
            .collect();
        if marked.is_empty() {
            return Ok(None);
        }
        let collected: SecretEnvelope = self
            .http
            .send(self.http.request(
                Method::POST,
                &format!("/messages/{}/secret/collect", record.id),
            ))
            .await?;
        let loaded = self.directory().await?;
        let (directory, _) = &*loaded;
        let secret = self.keys.recipient_secret();
        // Posted with the answer: the relay's answer time is its time too.
        let at = record
            .answer
            .as_ref()
            .map(|a| a.answered_at.as_str())
            .ok_or_else(|| Error::Protocol("answered record without an answer".into()))?;
        let (header, plaintext) =
            match herald_crypto::open_at(&collected.envelope, directory, &[&secret], at) {
                Err(herald_crypto::Error::UnknownSender) => {
                    let keys = self.http.keys().await?;
                    let fresh = Directory::verify(&keys, &self.token.fingerprint_prefix)?;
                    herald_crypto::open_at(&collected.envelope, &fresh, &[&secret], at)?
                }
                other => other?,
            };
        if header.kind != EnvelopeKind::SecretAnswer
            || header.message_id != record.id
            || header.sender != answer.sender
        {
            return Err(Error::Protocol(
                "the secret envelope does not belong to this answer".into(),
            ));
        }
        let all: Map<String, Value> = serde_json::from_slice(&plaintext)
            .map_err(|_| Error::Protocol("the secret values are not a JSON object".into()))?;
        // The request was sealed to this connection too: its form says which field is what.
        let (_, request) =
            herald_crypto::open_at(&record.envelope, directory, &[&secret], &record.created_at)?;
        let content: MessageContent = herald_protocol::json::from_slice(&request)
            .map_err(|e| Error::Protocol(format!("the request's content: {e}")))?;
        parse_secrets(all, &content.effective_fields(), &marked).map(Some)
    }
}
