//! The device side of secret delivery (docs/secrets.md).
//!
//! **Secret fields.** [`Core::answer`] validates the whole answer, then [`split_secrets`]
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
//! **Secret offers.** [`Core::open_secret_offer`] makes a one-time X25519 key, has the account
//! identity key certify it for this message and device (15 minutes), keeps the private half
//! sealed under the local key in `<data_dir>/offer-keys/<message id>`, and posts the
//! certificate. [`Core::reveal_secret_offer`] collects the sender's sealed secret (once),
//! opens it with the one-time key, deletes the key and returns the text in memory only.

use std::path::{Path, PathBuf};

use herald_crypto::{OneTimeKey, RecipientSecret, SealParams};
use herald_protocol::content::{AnswerContent, Field, FieldKind};
use herald_protocol::envelope::{Envelope, EnvelopeKind, Principal};
use herald_protocol::secrets::{
    secret_marker, OfferKeyRequest, SecretEnvelope, SecretOfferState, SecretOfferStatus,
    SECRET_OFFER_KIND, SECRET_TTL_SECS,
};
use herald_protocol::wire::AnswerRequest;
use herald_protocol::{ErrorCode, FileId, MessageId};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::session::{OpenedMessage, Session};
use crate::transport::http::{is_code, RelayHttp};
use crate::{view::present, Core, Error, Result};

/// Directory (in the data dir) of sealed one-time offer keys, one file per opened offer.
const OFFER_KEY_DIR: &str = "offer-keys";

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

/// Where the sealed one-time key of offer `id` lives.
fn offer_key_path(data_dir: &Path, id: &MessageId) -> PathBuf {
    data_dir.join(OFFER_KEY_DIR).join(id.as_str())
}

fn offer_key_aad(id: &MessageId) -> Vec<u8> {
    format!("offer-key/{id}").into_bytes()
}

/// Loads the sealed one-time key of an offer, if this device holds one.
fn load_offer_key(core: &Core, id: &MessageId) -> Result<Option<OneTimeKey>> {
    let path = offer_key_path(&core.inner.config.data_dir, id);
    let sealed = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let bytes = herald_crypto::open_local(&core.inner.local.key, &offer_key_aad(id), &sealed)?;
    Ok(Some(OneTimeKey::from_bytes(&bytes)?))
}

/// Stores a new one-time key sealed under the local key (0600, created new). Returns the
/// key that is stored: an existing one wins a race.
fn store_offer_key(core: &Core, id: &MessageId, key: OneTimeKey) -> Result<OneTimeKey> {
    use std::io::Write;
    let path = offer_key_path(&core.inner.config.data_dir, id);
    if let Some(dir) = path.parent() {
        // Owner-only, like the data dir: the sealed keys' names are message ids.
        crate::session::private_files::create_private_dir(dir)?;
    }
    let sealed =
        herald_crypto::seal_local(&core.inner.local.key, &offer_key_aad(id), &key.to_bytes());
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(&path) {
        Ok(mut file) => {
            file.write_all(&sealed)?;
            file.sync_all()?;
            Ok(key)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => load_offer_key(core, id)?
            .ok_or_else(|| Error::Storage("the one-time key vanished".into())),
        Err(e) => Err(e.into()),
    }
}

/// Deletes the one-time key of an offer (after use, or when the offer is over).
fn delete_offer_key(core: &Core, id: &MessageId) {
    let path = offer_key_path(&core.inner.config.data_dir, id);
    if let Err(e) = std::fs::remove_file(&path) {
        if e.kind() != std::io::ErrorKind::NotFound {
            tracing::warn!(message = %id, error = %e, "deleting a one-time offer key failed");
        }
    }
}

fn offer_over(status: SecretOfferStatus) -> Error {
    Error::InvalidInput(match status {
        SecretOfferStatus::Delivered => "this secret was already revealed; it is shown once".into(),
        SecretOfferStatus::Expired => "this secret offer expired".into(),
        _ => "this secret offer was opened on another device".into(),
    })
}

impl Core {
    /// Opens a secret offer on this device (the person chose to see it): makes a one-time
    /// key, certifies it with the account identity key for this message and device (valid 15
    /// minutes) and posts it, so the sender can seal the secret to it. Calling it again on
    /// the same device is harmless. Then poll [`Core::reveal_secret_offer`] (or wait for the
    /// message's next `messageUpserted` event).
    ///
    /// Errors: `not_found`; `invalid_input` when the message is not a secret offer, or was
    /// opened on another device, revealed already or expired; `network`.
    pub async fn open_secret_offer(&self, id: &str) -> Result<()> {
        self.open_secret_offer_skewed(id, chrono::TimeDelta::zero())
            .await
    }

    /// [`Core::open_secret_offer`] as a device whose clock is `skew` off (tests of clock
    /// skew, docs/faults.md): the key certificate's times are the local clock + `skew`.
    #[cfg(feature = "test-support")]
    #[doc(hidden)]
    pub async fn open_secret_offer_with_clock_skew(
        &self,
        id: &str,
        skew: chrono::TimeDelta,
    ) -> Result<()> {
        self.open_secret_offer_skewed(id, skew).await
    }

    async fn open_secret_offer_skewed(&self, id: &str, skew: chrono::TimeDelta) -> Result<()> {
        let session = self.inner.session()?;
        let message_id = MessageId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let record = session.http.message(&message_id).await?;
        if record.kind != SECRET_OFFER_KIND {
            return Err(Error::InvalidInput(format!("{id} is not a secret offer")));
        }
        let state = session.http.offer_state(&message_id).await?;
        let mine = state.device_id.as_ref() == Some(&session.state.device_id);
        match state.status {
            SecretOfferStatus::Waiting => {}
            SecretOfferStatus::Opened | SecretOfferStatus::Sent if mine => return Ok(()),
            other => return Err(offer_over(other)),
        }
        let key = match load_offer_key(self, &message_id)? {
            Some(key) => key,
            None => store_offer_key(self, &message_id, OneTimeKey::generate())?,
        };
        let now = chrono::Utc::now() + skew;
        let fmt = |t: chrono::DateTime<chrono::Utc>| {
            t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        };
        let certificate = session.state.account_keys.certify_offer_key(
            &message_id,
            &session.state.device_id,
            &key.recipient(),
            &fmt(now),
            &fmt(now + chrono::Duration::seconds(SECRET_TTL_SECS)),
        );
        match session
            .http
            .put_offer_key(&message_id, &OfferKeyRequest { certificate })
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_code(&e, ErrorCode::OfferKeyExists) => {
                // Another call (or device) got there first.
                let state = session.http.offer_state(&message_id).await?;
                if state.device_id.as_ref() == Some(&session.state.device_id) {
                    Ok(())
                } else {
                    delete_offer_key(self, &message_id);
                    Err(offer_over(state.status))
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Reveals an opened secret offer: collects the sender's sealed secret (the relay hands
    /// it over once), verifies that the offer's sender sealed it, opens it with the one-time
    /// key and deletes that key. `Ok(None)` while the sender has not sent it yet. The text is
    /// returned in memory only; nothing is cached.
    ///
    /// Errors: `invalid_input` when this device has not opened the offer (or already
    /// revealed it); `secret_collected`, `secret_expired`; `crypto` when the secret does not
    /// verify; `network`.
    pub async fn reveal_secret_offer(&self, id: &str) -> Result<Option<SecretReveal>> {
        let session = self.inner.session()?;
        let message_id = MessageId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let Some(key) = load_offer_key(self, &message_id)? else {
            return Err(Error::InvalidInput(
                "open this secret offer on this device first (a secret is revealed once)".into(),
            ));
        };
        let owned = id.to_owned();
        let row = self.inner.cache_call(move |c| c.get(&owned)).await?;
        let opened = present::opened(&self.inner.local.key, &row)?;
        let collected = match session.http.collect_secret_payload(&message_id).await {
            Ok(c) => c,
            Err(e) if is_code(&e, ErrorCode::SecretNotSent) => return Ok(None),
            Err(e)
                if is_code(&e, ErrorCode::SecretCollected)
                    || is_code(&e, ErrorCode::SecretExpired)
                    || is_code(&e, ErrorCode::Forbidden) =>
            {
                delete_offer_key(self, &message_id);
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        // The relay deleted the ciphertext: whatever happens next, the key has no more use.
        let result = open_payload(
            &session,
            &message_id,
            &opened.sender,
            &collected.envelope,
            key.recipient_secret(),
        )
        .await;
        delete_offer_key(self, &message_id);
        result.map(Some)
    }
}

/// Verifies and opens an offer's secret: signed by the offer's sender, kind `secretPayload`,
/// for this message, sealed to the one-time key; UTF-8 text.
async fn open_payload(
    session: &Session,
    id: &MessageId,
    sender: &Principal,
    envelope: &Envelope,
    key: &RecipientSecret,
) -> Result<SecretReveal> {
    let directory = session.directory(false).await?;
    let (header, plaintext) = match herald_crypto::open(envelope, &directory, &[key]) {
        Err(herald_crypto::Error::UnknownSender) => {
            let directory = session.directory(true).await?;
            herald_crypto::open(envelope, &directory, &[key])?
        }
        other => other?,
    };
    if header.kind != EnvelopeKind::SecretPayload
        || &header.message_id != id
        || &header.sender != sender
    {
        return Err(Error::Protocol(
            "the secret was not sealed by this offer's sender for this offer".into(),
        ));
    }
    let text = std::str::from_utf8(&plaintext)
        .map_err(|_| Error::Protocol("the offered secret is not UTF-8 text".into()))?;
    Ok(SecretReveal {
        text: text.to_owned(),
    })
}
