//! The device side of secret delivery (docs/secrets.md).
//!
//! **Secret fields.** `Core::answer` validates the whole answer, then [`split_secrets`]
//! takes every secret field's value out and leaves `{"secret": true}` in its place. The
//! redacted answer is sealed as usual (to the asking connection and the account); the secret
//! values go in a second envelope of kind `secretAnswer` sealed to the asking connection
//! ONLY, so no device — this one included — can read them again. The cache stores what the
//! relay's record carries: the redacted answer.
//!
//! **Secret-file fields.** The file is encrypted and uploaded like any answer file, but its
//! attachment (id, name, type, size, hash and key) moves from the answer into the secret
//! envelope, and its id goes in `secretAttachments`, so the relay lets only the asking
//! connection download it, for 15 minutes.
//!
//! **Secret offers.** `Core::open_secret_offer` makes a one-time X25519 key, has the account
//! identity key certify it for this message and device (15 minutes), keeps the private half
//! sealed under the local key in `<data_dir>/offer-keys/<message id>`, and posts the
//! certificate. `Core::reveal_secret_offer` collects the sender's sealed secret (once),
//! opens it with the one-time key, deletes the key and returns the text in memory only.

use herald_crypto::SealParams;
use herald_protocol::content::{AnswerContent, Field, FieldKind};
use herald_protocol::envelope::{Envelope, EnvelopeKind, Principal};
use herald_protocol::secrets::{secret_marker, OfferKeyRequest, SecretEnvelope, SecretOfferState};
use herald_protocol::wire::AnswerRequest;
use herald_protocol::{FileId, MessageId};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::session::{OpenedMessage, Session};
use crate::transport::http::RelayHttp;
use crate::{Error, Result};

/// A revealed secret offer: the text the sender offered. Only in memory: never cached,
/// logged or shown by `Debug`; zeroized on drop.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS, Zeroize, ZeroizeOnDrop)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SecretReveal {
    /// The secret, UTF-8 text of at most 64 KiB.
    pub text: String,
}

impl std::fmt::Debug for SecretReveal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretReveal { text: <redacted> }")
    }
}

/// Whether `kind` is answered with a file only the asking connection may download.
pub(crate) fn is_secret_file(kind: &FieldKind) -> bool {
    matches!(
        kind,
        FieldKind::SecretFile | FieldKind::File { secret: true }
    )
}

/// What leaves an answer for the secret envelope.
pub(crate) struct SplitSecrets {
    /// Field id → the value of a secret field, or the whole [`Attachment`] (key included)
    /// of a secret-file field: the secret envelope's plaintext.
    pub(crate) values: Map<String, Value>,
    /// The uploads of the secret-file fields, for `secretAttachments`.
    pub(crate) files: Vec<FileId>,
}

/// Takes the value of every secret field, and the attachment of every secret-file field, out
/// of `answer` (already validated against the form), leaving [`secret_marker`] in their
/// place; returns them, or `None` when no such field has a value. `null` stays `null`.
pub(crate) fn split_secrets(
    fields: &[Field],
    answer: &mut AnswerContent,
) -> Result<Option<SplitSecrets>> {
    let mut split = SplitSecrets {
        values: Map::new(),
        files: Vec::new(),
    };
    for field in fields {
        let file = is_secret_file(&field.kind);
        if !file && !matches!(field.kind, FieldKind::Secret) {
            continue;
        }
        let Some(value) = answer.values.get_mut(&field.id) else {
            continue;
        };
        if value.is_null() {
            continue;
        }
        let value = std::mem::replace(value, secret_marker());
        if !file {
            split.values.insert(field.id.clone(), value);
            continue;
        }
        let named = value.get("attachmentId").and_then(Value::as_str);
        let index = answer
            .attachments
            .iter()
            .position(|a| Some(a.id.as_str()) == named)
            .ok_or_else(|| {
                Error::Protocol(format!(
                    "secret-file field {} names no attachment",
                    field.id
                ))
            })?;
        let attachment = answer.attachments.remove(index);
        let id = FileId::parse(&attachment.id)
            .ok_or_else(|| Error::Protocol("attachment id is not a file id".into()))?;
        split.files.push(id);
        split.values.insert(
            field.id.clone(),
            serde_json::to_value(&attachment).map_err(|e| Error::Protocol(e.to_string()))?,
        );
    }
    Ok((!split.values.is_empty()).then_some(split))
}

/// Zeroizes the strings of a value map, nested ones included (best effort: serde_json has
/// no zeroizing types).
pub(crate) fn wipe(values: &mut Map<String, Value>) {
    fn wipe_value(v: &mut Value) {
        match v {
            Value::String(s) => s.zeroize(),
            Value::Object(m) => wipe(m),
            Value::Array(items) => items.iter_mut().for_each(wipe_value),
            _ => {}
        }
    }
    for (_, v) in values.iter_mut() {
        wipe_value(v);
    }
    values.clear();
}

impl Session {
    /// The body of `POST /messages/:id/answer` for an answer already validated against the
    /// form: the redacted answer sealed to the asker and the account, plus, when secret
    /// fields have values, those values sealed to the asking connection only.
    pub(crate) async fn answer_request(
        &self,
        id: &MessageId,
        opened: &OpenedMessage,
        mut answer: AnswerContent,
    ) -> Result<AnswerRequest> {
        let fields = opened.content.effective_fields();
        let secrets = split_secrets(&fields, &mut answer)?;
        let envelope = self.seal_answer(id, &opened.sender, &answer).await?;
        let Some(mut secrets) = secrets else {
            return Ok(AnswerRequest {
                envelope,
                secret_envelope: None,
                attachments: crate::files::attachment_ids(&answer.attachments),
                secret_attachments: Vec::new(),
            });
        };
        let sealed = self
            .seal_secret_answer(id, &opened.sender, &secrets.values)
            .await;
        wipe(&mut secrets.values);
        Ok(AnswerRequest {
            envelope,
            secret_envelope: Some(sealed?),
            attachments: crate::files::attachment_ids(&answer.attachments),
            secret_attachments: secrets.files,
        })
    }

    async fn seal_secret_answer(
        &self,
        id: &MessageId,
        to: &Principal,
        secrets: &Map<String, Value>,
    ) -> Result<Envelope> {
        let Principal::Connection(connection) = to else {
            return Err(Error::InvalidInput(
                "secret fields can be answered only to a request from a connection".into(),
            ));
        };
        let mut directory = self.directory(false).await?;
        if directory.connection(connection).is_none() {
            directory = self.directory(true).await?;
        }
        let asker = directory
            .connection(connection)
            .map(|c| c.recipient.clone())
            .ok_or_else(|| {
                Error::Protocol("the asking connection is no longer certified (revoked?)".into())
            })?;
        let plaintext = Zeroizing::new(
            serde_json::to_vec(secrets).map_err(|e| Error::Protocol(e.to_string()))?,
        );
        let created_at = crate::timestamps::now_rfc3339();
        Ok(herald_crypto::seal(
            &SealParams {
                kind: EnvelopeKind::SecretAnswer,
                account_id: &self.state.account_id,
                message_id: id,
                created_at: &created_at,
                // The asking connection ONLY: the account key cannot open it.
                recipients: &[asker],
            },
            &plaintext,
            &self.state.device_keys.signer(&self.state.device_id),
        )?)
    }
}

impl RelayHttp {
    /// `GET /messages/:id/offer-key`: the state of a secret offer.
    pub async fn offer_state(&self, id: &MessageId) -> Result<SecretOfferState> {
        self.send(self.request(Method::GET, &format!("/messages/{id}/offer-key")))
            .await
    }

    /// `PUT /messages/:id/offer-key` (device).
    pub async fn put_offer_key(
        &self,
        id: &MessageId,
        req: &OfferKeyRequest,
    ) -> Result<SecretOfferState> {
        self.send(
            self.request(Method::PUT, &format!("/messages/{id}/offer-key"))
                .json(req),
        )
        .await
    }

    /// `POST /messages/:id/secret-payload/collect` (the device that opened the offer).
    pub async fn collect_secret_payload(&self, id: &MessageId) -> Result<SecretEnvelope> {
        self.send(self.request(
            Method::POST,
            &format!("/messages/{id}/secret-payload/collect"),
        ))
        .await
    }
}
