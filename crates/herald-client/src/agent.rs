//! The agent side (the Rust SDK the `herald` CLI is built on): send messages and requests as a
//! connection, and wait for answers.
//!
//! Before it encrypts anything the client fetches `GET /keys` and verifies it against the
//! fingerprint pinned in its token (docs/protocol.md, "Connections"), so a relay that swaps the
//! account key is caught. Content is validated before sealing; messages are sealed to the
//! account encryption key and to this connection's own key, and signed by the connection.

use std::time::Duration;

use herald_crypto::{ConnectionKeys, ConnectionToken, Directory, SealParams};
use herald_protocol::content::{AnswerContent, MessageContent};
use herald_protocol::envelope::EnvelopeKind;
use herald_protocol::wire::{MessageRecord, MessageStatus, SendMessageRequest};
use herald_protocol::{ConnectionId, MessageId};
use serde::Serialize;
use std::sync::Arc;

use tokio::sync::Mutex;

use crate::timestamps::now_rfc3339;
use crate::transport::http::RelayHttp;

mod answer_files;
mod offer;
mod secret_answer;

use crate::transport::ws::SyncSocket;
use crate::{Error, Result};
pub use answer_files::{safe_file_name, ReceivedFile};
pub use offer::OfferOutcome;
pub use secret_answer::{SecretFile, SecretValues};

/// Options of [`AgentClient::send`].
#[derive(Debug, Clone, Default)]
pub struct SendOptions {
    /// Idempotency-Key; generated when `None`. Pass your own to survive restarts.
    pub idempotency_key: Option<String>,
    /// Deadline in seconds from the relay's receipt (1 ..= 86,400); requests only.
    pub expires_in: Option<u64>,
    /// Continue the conversation of this message.
    pub reply_to: Option<MessageId>,
    /// Files to attach (≤ 10 with the content's own `attachments`, each ≤ 100 MB): each is
    /// encrypted, uploaded and added to the content's `attachments` before sealing.
    pub attachments: Vec<std::path::PathBuf>,
}

/// A decrypted, verified answer, as `herald ask` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerOutput {
    /// The request's id.
    pub id: MessageId,
    /// Always `answered`.
    pub status: MessageStatus,
    /// The action tapped, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    /// Field id → value.
    pub values: serde_json::Map<String, serde_json::Value>,
    /// For a request made of `questions`: question text → the chosen label(s), several joined
    /// by ", " (what an AskUserQuestion caller expects back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_answers: Option<std::collections::BTreeMap<String, String>>,
    /// RFC 3339, the relay's clock.
    pub answered_at: String,
    /// Name of the device that answered.
    pub answered_by: String,
    /// Files answered for file fields (each field's value names one); download them with
    /// [`AgentClient::save_answer_files`] or [`AgentClient::download_answer_file`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<ReceivedFile>,
    /// The values of secret fields (whose `values` entries read `{"secret": true}`),
    /// collected once from the relay. Never serialized; `Debug` shows field ids only.
    #[serde(skip)]
    pub secrets: Option<SecretValues>,
}

/// How a wait ended.
#[derive(Debug, Clone, PartialEq)]
// Returned once per wait, never stored in bulk: boxing the answer would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum WaitOutcome {
    Answered(AnswerOutput),
    /// The request closed without an answer (expired or cancelled).
    Closed(MessageStatus),
    /// The client's own wait timeout passed; the request is still answerable.
    TimedOut,
}

/// A connection's client: one token, one relay.
pub struct AgentClient {
    http: RelayHttp,
    token: ConnectionToken,
    keys: ConnectionKeys,
    /// The verified key directory and this connection's id, loaded on first use and reloaded
    /// when the relay reports that the account keys changed (a device was revoked).
    directory: Mutex<Option<Arc<(Directory, ConnectionId)>>>,
}

/// Refuses an `Idempotency-Key` outside the protocol's rule
/// ([`herald_protocol::wire::check_idempotency_key`]) with `invalid_input`, before anything is
/// uploaded or sent.
pub(crate) fn check_idempotency_key(key: &str) -> Result<()> {
    herald_protocol::wire::check_idempotency_key(key).map_err(|rule| {
        Error::InvalidInput(format!(
            "the idempotency key {key:?} is not valid: it must be {rule}"
        ))
    })
}

impl AgentClient {
    /// A client for `relay_url` with a parsed connection token. Does not touch the network.
    pub fn new(relay_url: &str, token: ConnectionToken) -> Result<AgentClient> {
        let http = RelayHttp::new(relay_url)?.with_bearer(&token.bearer);
        let keys = ConnectionKeys::from_seed(&token.seed);
        Ok(AgentClient {
            http,
            token,
            keys,
            directory: Mutex::new(None),
        })
    }

    /// The verified key directory and this connection's id (fetched on first use, then kept
    /// until [`AgentClient::forget_directory`]).
    async fn directory(&self) -> Result<Arc<(Directory, ConnectionId)>> {
        let mut slot = self.directory.lock().await;
        if let Some(loaded) = slot.as_ref() {
            return Ok(loaded.clone());
        }
        let keys = self.http.keys().await?;
        let directory = Directory::verify(&keys, &self.token.fingerprint_prefix)?;
        let id = directory
            .connection_for_keys(&self.keys)
            .map(|c| c.id.clone())
            .ok_or_else(|| {
                Error::Protocol(
                    "this token's keys are not certified by the account (was the connection revoked?)"
                        .into(),
                )
            })?;
        let loaded = Arc::new((directory, id));
        *slot = Some(loaded.clone());
        Ok(loaded)
    }

    /// Drops the cached key directory so the next call verifies `GET /keys` again.
    async fn forget_directory(&self) {
        *self.directory.lock().await = None;
    }

    /// Validates, seals and posts a message or request; returns the relay's record. Files in
    /// `options.attachments` are uploaded first (see [`AgentClient::upload_file`]) and added to
    /// the content's `attachments`; the content is validated completely before any upload
    /// (with stand-in attachments, [`validate_content`]) and again after, and its sealed size
    /// is checked before any upload too ([`crate::sealed_size::check`]: over 1 MiB is
    /// `validation_failed` naming the limit and the size), so refused content never leaves a
    /// file or a message behind.
    pub async fn send(
        &self,
        content: &MessageContent,
        options: SendOptions,
    ) -> Result<MessageRecord> {
        self.send_checked(content, options, false).await
    }

    /// Like [`AgentClient::send`] for a request: content that asks for nothing (no fields,
    /// questions, schema or actions, e.g. an empty `questions` list) is refused before
    /// anything is uploaded or sent, by [`MessageContent::validate_request`].
    pub async fn ask(
        &self,
        content: &MessageContent,
        options: SendOptions,
    ) -> Result<MessageRecord> {
        self.send_checked(content, options, true).await
    }

    async fn send_checked(
        &self,
        content: &MessageContent,
        options: SendOptions,
        request: bool,
    ) -> Result<MessageRecord> {
        if let Some(key) = &options.idempotency_key {
            check_idempotency_key(key)?;
        }
        if options.attachments.is_empty() {
            validate_content(content, &[], request)?;
            return self.seal_and_post(content, options).await;
        }
        self.preflight(content, &options.attachments, request)
            .await?;
        let mut content = content.clone();
        for path in &options.attachments {
            content.attachments.push(self.upload_file(path).await?);
        }
        content.validate().map_err(Error::Validation)?;
        self.seal_and_post(&content, options).await
    }

    /// Checks `content` as [`AgentClient::send`] (or, with `request`, [`AgentClient::ask`])
    /// will once `files` are uploaded, without uploading or sending anything:
    /// [`validate_content`] with a stand-in attachment per file (see [`stand_in_attachment`]),
    /// then the sealed size against the relay's 1 MiB cap ([`crate::sealed_size::check`];
    /// loads the key directory). Callers that upload files of their own before sending (image
    /// blocks) add stand-ins for them to `content` first. Errors: `validation_failed` (a
    /// violation per broken rule, or one naming the limit and the sealed size), and the errors
    /// of loading the key directory.
    pub async fn preflight(
        &self,
        content: &MessageContent,
        files: &[std::path::PathBuf],
        request: bool,
    ) -> Result<()> {
        validate_content(content, files, request)?;
        let mut draft = content.clone();
        for (i, path) in files.iter().enumerate() {
            draft.attachments.push(stand_in_attachment(i, path));
        }
        // Stand-ins are as long as real attachments: the size seen here is the size sent.
        self.check_sealed_size(&draft).await
    }

    /// Encrypts and uploads one file as this connection (docs/files.md); put the returned
    /// attachment in a message's `attachments` (and name its id in image blocks) within 15
    /// minutes. Errors as [`crate::files::upload_file`].
    pub async fn upload_file(
        &self,
        path: &std::path::Path,
    ) -> Result<herald_protocol::content::Attachment> {
        crate::files::upload_file(&self.http, path).await
    }

    /// Like [`AgentClient::upload_file`], with the attachment's name and MIME type given
    /// (e.g. a type sniffed from the content). Errors as [`crate::files::upload_file_as`].
    pub async fn upload_file_as(
        &self,
        path: &std::path::Path,
        name: &str,
        mime_type: &str,
    ) -> Result<herald_protocol::content::Attachment> {
        crate::files::upload_file_as(&self.http, path, name, mime_type).await
    }

    /// Seals and posts; when the relay answers `keys_changed` (the account encryption key
    /// rotated since the keys were loaded), reloads and verifies `GET /keys` and seals again
    /// once, under the same Idempotency-Key.
    async fn seal_and_post(
        &self,
        content: &MessageContent,
        options: SendOptions,
    ) -> Result<MessageRecord> {
        self.seal_and_post_at(content, options, None).await
    }

    /// [`AgentClient::seal_and_post`] with the envelope's `createdAt` given (a sender whose
    /// clock is off, in tests); `None` is this machine's clock. The relay never trusts it.
    async fn seal_and_post_at(
        &self,
        content: &MessageContent,
        mut options: SendOptions,
        created_at: Option<&str>,
    ) -> Result<MessageRecord> {
        let key = options
            .idempotency_key
            .take()
            .unwrap_or_else(|| herald_crypto::new_bearer("idk_"));
        check_idempotency_key(&key)?;
        match self
            .seal_and_post_once(content, &options, &key, created_at)
            .await
        {
            Err(e)
                if crate::transport::http::is_code(&e, herald_protocol::ErrorCode::KeysChanged) =>
            {
                self.forget_directory().await;
                self.seal_and_post_once(content, &options, &key, created_at)
                    .await
            }
            other => other,
        }
    }

    /// Seals `content` as a message with id `id` from this connection.
    fn seal_message(
        &self,
        directory: &Directory,
        connection_id: &ConnectionId,
        id: &MessageId,
        created_at: &str,
        content: &MessageContent,
    ) -> Result<herald_protocol::envelope::Envelope> {
        let recipients = [directory.current_account_recipient(), self.keys.recipient()];
        let plaintext = serde_json::to_vec(content).map_err(|e| Error::Protocol(e.to_string()))?;
        Ok(herald_crypto::seal(
            &SealParams {
                kind: EnvelopeKind::Message,
                account_id: directory.account_id(),
                message_id: id,
                created_at,
                recipients: &recipients,
            },
            &plaintext,
            &self.keys.signer(connection_id),
        )?)
    }

    /// Seals `content` once, as [`AgentClient::send`] would, and refuses it when the envelope
    /// would pass the relay's cap ([`crate::sealed_size::check`]). Loads the key directory
    /// (which sending needs anyway); sends nothing.
    async fn check_sealed_size(&self, content: &MessageContent) -> Result<()> {
        let loaded = self.directory().await?;
        let (directory, connection_id) = &*loaded;
        let id = herald_crypto::new_message_id();
        let envelope = self.seal_message(directory, connection_id, &id, &now_rfc3339(), content)?;
        crate::sealed_size::check(&envelope, "message")
    }

    async fn seal_and_post_once(
        &self,
        content: &MessageContent,
        options: &SendOptions,
        key: &str,
        created_at: Option<&str>,
    ) -> Result<MessageRecord> {
        let loaded = self.directory().await?;
        let (directory, connection_id) = &*loaded;
        let id = herald_crypto::new_message_id();
        let created_at = created_at.map_or_else(now_rfc3339, str::to_owned);
        let envelope = self.seal_message(directory, connection_id, &id, &created_at, content)?;
        crate::sealed_size::check(&envelope, "message")?;
        let expects_answer = content.expects_answer();
        let expires_in = if expects_answer {
            options.expires_in
        } else {
            None
        };
        // Same content and metadata give the same digest, so a retry with the same
        // Idempotency-Key gets the original message back although this seal differs.
        // Attachments count by what they hold, not by their upload: a retry uploads again
        // (new ids, new keys) and must still match.
        let mut digest_content = content.clone();
        let files: Vec<_> = digest_content
            .attachments
            .drain(..)
            .map(|a| serde_json::json!([a.name, a.mime_type, a.size, a.sha256]))
            .collect();
        let digest_input = serde_json::to_vec(&serde_json::json!({
            "content": digest_content,
            "files": files,
            "expiresIn": expires_in,
            "replyTo": &options.reply_to,
        }))
        .map_err(|e| Error::Protocol(e.to_string()))?;
        let digest = self.keys.idempotency_digest(&digest_input);
        let request = SendMessageRequest {
            id,
            kind: "message".into(),
            expects_answer,
            expires_at: None,
            expires_in,
            reply_to: options.reply_to.clone(),
            content_digest: Some(herald_protocol::envelope::b64_encode(&digest)),
            envelope,
            attachments: crate::files::attachment_ids(&content.attachments),
        };
        self.http.send_message(key, &request).await
    }

    /// Cancels a pending request this connection sent (`POST /messages/:id/cancel`). Errors:
    /// `already_answered`, `request_expired`, `request_cancelled`, `not_found`.
    pub async fn cancel(&self, id: &MessageId) -> Result<MessageRecord> {
        self.http.cancel(id).await
    }

    /// Fetches a request and, when answered, opens and verifies its answer.
    pub async fn check(&self, id: &MessageId) -> Result<Option<WaitOutcome>> {
        let record = self.http.message(id).await?;
        match record.status {
            MessageStatus::Answered => Ok(Some(WaitOutcome::Answered(
                self.open_answer(&record).await?,
            ))),
            MessageStatus::Expired | MessageStatus::Cancelled => {
                Ok(Some(WaitOutcome::Closed(record.status)))
            }
            MessageStatus::Delivered => Err(Error::InvalidInput(format!(
                "{id} is a message, not a request: there is nothing to wait for"
            ))),
            MessageStatus::Pending => Ok(None),
        }
    }

    async fn open_answer(&self, record: &MessageRecord) -> Result<AnswerOutput> {
        let answer = record
            .answer
            .as_ref()
            .ok_or_else(|| Error::Protocol("answered record without an answer".into()))?;
        let loaded = self.directory().await?;
        let (directory, _) = &*loaded;
        let secret = self.keys.recipient_secret();
        // The relay's answer time, not the header's: an answer given before its device was
        // revoked still verifies (docs/protocol.md, "Key directory").
        let at = &answer.answered_at;
        let opened = match herald_crypto::open_at(&answer.envelope, directory, &[&secret], at) {
            // The answering device may be newer than our directory: refresh once.
            Err(herald_crypto::Error::UnknownSender) => {
                let keys = self.http.keys().await?;
                let fresh = Directory::verify(&keys, &self.token.fingerprint_prefix)?;
                herald_crypto::open_at(&answer.envelope, &fresh, &[&secret], at)?
            }
            other => other?,
        };
        let (header, plaintext) = opened;
        if header.kind != EnvelopeKind::Answer || header.message_id != record.id {
            return Err(Error::Protocol(
                "answer envelope does not belong to this request".into(),
            ));
        }
        let content: AnswerContent = herald_protocol::json::from_slice(&plaintext)
            .map_err(|e| Error::Protocol(format!("the answer's content: {e}")))?;
        // Secret fields: their values wait on the relay, sealed to this connection only.
        let secrets = self
            .collect_secrets(record, &header, &content.values)
            .await?;
        let answered_by = directory
            .sender_name(&header.sender)
            .unwrap_or_else(|| "a device".into());
        // The request was sealed to this connection too: open it to map questions back.
        let question_answers = match herald_crypto::open_at(
            &record.envelope,
            directory,
            &[&secret],
            &record.created_at,
        ) {
            Ok((_, plain)) => herald_protocol::json::from_slice::<MessageContent>(&plain)
                .ok()
                .filter(|c| !c.questions.is_empty())
                .map(|c| herald_protocol::content::question_answers(&c, &content)),
            Err(_) => None,
        };
        Ok(AnswerOutput {
            id: record.id.clone(),
            status: MessageStatus::Answered,
            action_id: content.action_id.clone(),
            values: content.values.clone(),
            question_answers,
            answered_at: answer.answered_at.clone(),
            answered_by,
            files: answer_files::received_files(&content),
            secrets,
        })
    }

    /// Waits for the request to be answered, expire or be cancelled, or for `timeout` to pass
    /// (the request stays answerable; call again to resume). Holds the live-update socket and
    /// re-checks on every nudge and reconnect.
    pub async fn wait(&self, id: &MessageId, timeout: Option<Duration>) -> Result<WaitOutcome> {
        // One check before the clock starts: an answered request is reported as answered
        // whatever the timeout.
        if let Some(done) = self.check(id).await? {
            return Ok(done);
        }
        let work = self.wait_forever(id);
        match timeout {
            Some(t) => tokio::time::timeout(t, work)
                .await
                .unwrap_or(Ok(WaitOutcome::TimedOut)),
            None => work.await,
        }
    }

    async fn wait_forever(&self, id: &MessageId) -> Result<WaitOutcome> {
        let mut backoff = crate::transport::backoff::Backoff::default();
        loop {
            match SyncSocket::connect(&self.http).await {
                Ok(mut socket) => {
                    backoff.reset();
                    // Check after connecting, so nothing between check and subscribe is missed.
                    if let Some(done) = self.check(id).await? {
                        socket.close().await;
                        return Ok(done);
                    }
                    while let Ok(Some(_)) = socket.next_sync().await {
                        if let Some(done) = self.check(id).await? {
                            socket.close().await;
                            return Ok(done);
                        }
                    }
                }
                Err(e) if crate::transport::http::is_transient(&e) => {}
                Err(e) => return Err(e),
            }
            tokio::time::sleep(backoff.next_delay()).await;
        }
    }
}

/// Validates `content` as it will be once the files at `attachments` are uploaded and added to
/// its `attachments` (stand-ins take their place: [`stand_in_attachment`] with indices 0, 1,
/// …), with herald-protocol's rules: [`MessageContent::validate`], or with `request`
/// [`MessageContent::validate_request`]. What [`AgentClient::send`] and
/// [`AgentClient::ask`] check before any upload; callers that upload other files first (image
/// blocks) check their own draft with it too. Errors: [`Error::Validation`] naming every path.
pub fn validate_content(
    content: &MessageContent,
    attachments: &[std::path::PathBuf],
    request: bool,
) -> Result<()> {
    // Every file is checked (present, a regular file, readable, ≤ 100 MB) before any upload.
    for path in attachments {
        crate::files::check_local_file(path).map_err(Error::InvalidInput)?;
    }
    let mut draft = content.clone();
    for (i, path) in attachments.iter().enumerate() {
        draft.attachments.push(stand_in_attachment(i, path));
    }
    if request {
        draft.validate_request()
    } else {
        draft.validate()
    }
    .map_err(Error::Validation)
}

/// A well-formed placeholder for a file not uploaded yet, to validate content before spending
/// an upload: the real name and guessed type, an id distinct for each `index` (0–25), and the
/// size on disk (when readable).
pub fn stand_in_attachment(
    index: usize,
    path: &std::path::Path,
) -> herald_protocol::content::Attachment {
    let letter = char::from(b'a' + (index % 26) as u8);
    herald_protocol::content::Attachment {
        id: format!("fil_{}{letter}", "7".repeat(25)),
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        mime_type: crate::files::guess_type(path),
        size: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        sha256: "A".repeat(43),
        key: format!("AGE-SECRET-KEY-1{}", "Q".repeat(58)),
    }
}

/// Test support (feature `test-support`): behave like a buggy sender.
#[cfg(feature = "test-support")]
pub mod testing {
    use super::*;

    /// Seals and posts `content` WITHOUT validating it, as a broken SDK would, so tests can
    /// check that devices turn such messages into error cards.
    pub async fn send_unchecked(
        client: &AgentClient,
        content: &MessageContent,
    ) -> Result<MessageRecord> {
        client.seal_and_post(content, SendOptions::default()).await
    }

    /// Validates, seals and posts `content` like [`AgentClient::send`] (no attachments), but
    /// as a sender whose clock is `skew` off: the envelope's `createdAt` is now + skew.
    pub async fn send_with_clock_skew(
        client: &AgentClient,
        content: &MessageContent,
        options: SendOptions,
        skew: chrono::TimeDelta,
    ) -> Result<MessageRecord> {
        content.validate().map_err(Error::Validation)?;
        let created_at =
            (chrono::Utc::now() + skew).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        client
            .seal_and_post_at(content, options, Some(&created_at))
            .await
    }
}
