//! An unlocked device: its keys, its relay session, the verified key directory, and the two
//! transformations the rest of the core is built on — opening a relay record into a cache row
//! (verify the signature chain, decrypt, validate, re-seal under the local key) and sealing an
//! answer.

//!
//! The session layer also owns this device's state on disk and its keys: the sealed device
//! state (`device_state`), the local key that seals it (`local_key`), owner-only files
//! (`private_files`) and pairing requests in flight (`pending_pairings`). It may call the
//! transport; nothing in it calls the view, sync, answers or `Core`. (Learning and saving
//! the account's keys when they rotate needs the core's context: that is devices.rs at the crate root.)

pub(crate) mod device_state;

pub(crate) mod local_key;
pub(crate) mod pending_pairings;
pub(crate) mod private_files;

use herald_crypto::{Directory, LocalKey, RecipientSecret, SealParams};
use herald_protocol::content::{AnswerContent, MessageContent};
use herald_protocol::envelope::{Envelope, EnvelopeHeader, EnvelopeKind, Principal};
use herald_protocol::wire::MessageRecord;
use herald_protocol::MessageId;
use tokio::sync::RwLock;

use crate::cache::StoredRecord;
use crate::session::device_state::DeviceState;
use crate::transport::http::RelayHttp;
use crate::{Error, Result};

/// An unlocked device's working set.
pub(crate) struct Session {
    pub state: DeviceState,
    pub http: RelayHttp,
    pub safety_code: String,
    directory: RwLock<Option<Directory>>,
    /// The account key bundle after a rotation this session learned of (devices.rs); `None`
    /// while `state.account_keys` is the latest.
    rotated: std::sync::RwLock<Option<herald_crypto::AccountKeys>>,
    /// Whether cached rows that did not open should be read again (sync.rs): set when the
    /// session starts and whenever the account keys change.
    reopen: std::sync::atomic::AtomicBool,
}

/// Decrypted parts of a cached message, as sealed in its row.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct OpenedMessage {
    pub content: MessageContent,
    /// Who signed it (verified), to seal the answer back to.
    pub sender: Principal,
}

impl Session {
    pub fn new(state: DeviceState) -> Result<Session> {
        let http = RelayHttp::new(&state.relay_url)?.with_bearer(&state.device_token);
        let safety_code =
            herald_crypto::safety_code(&state.account_keys.identity_public(), &state.account_id);
        Ok(Session {
            state,
            http,
            safety_code,
            directory: RwLock::new(None),
            rotated: std::sync::RwLock::new(None),
            reopen: std::sync::atomic::AtomicBool::new(true),
        })
    }

    /// The latest account key bundle this session holds (every AEK epoch it knows).
    pub fn account_keys(&self) -> herald_crypto::AccountKeys {
        self.rotated
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .unwrap_or_else(|| self.state.account_keys.clone())
    }

    /// Replaces the bundle after a rotation (the caller saves the device state too).
    pub fn set_account_keys(&self, keys: herald_crypto::AccountKeys) {
        *self.rotated.write().unwrap_or_else(|p| p.into_inner()) = Some(keys);
        self.request_reopen();
    }

    /// Asks the next catch-up to read again the cached rows that did not open.
    pub fn request_reopen(&self) {
        self.reopen.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether a re-read was asked for since the last call (clears the request).
    pub fn take_reopen(&self) -> bool {
        self.reopen.swap(false, std::sync::atomic::Ordering::SeqCst)
    }

    /// The verified directory, fetching `GET /keys` when missing or when `refresh`.
    pub async fn directory(&self, refresh: bool) -> Result<Directory> {
        if !refresh {
            if let Some(d) = self.directory.read().await.as_ref() {
                return Ok(d.clone());
            }
        }
        let keys = self.http.keys().await?;
        let fresh = Directory::verify(&keys, &self.state.account_keys.fingerprint())?;
        if fresh.account_id() != &self.state.account_id {
            return Err(Error::Protocol(
                "the relay served another account's keys".into(),
            ));
        }
        *self.directory.write().await = Some(fresh.clone());
        Ok(fresh)
    }

    fn account_secrets(&self, envelope: &Envelope) -> Vec<RecipientSecret> {
        let keys = self.account_keys();
        envelope
            .recipients
            .iter()
            .filter_map(|r| keys.encryption_secret(&r.key_id))
            .collect()
    }

    /// Seals the account key bundle to the recovery public key and stores it on the relay
    /// (`PUT /keys/backup`), so the recovery key alone can unlock a new device.
    pub async fn upload_recovery_backup(&self, recovery: &herald_crypto::Recipient) -> Result<()> {
        let sealed = herald_crypto::seal_bundle_to_recovery(&self.account_keys(), recovery)?;
        let backup = herald_protocol::wire::RecoveryBackup {
            recovery_key_id: recovery.key_id.clone(),
            recovery_public_key: herald_protocol::envelope::b64_encode(&recovery.public_key),
            sealed_bundle: herald_protocol::envelope::b64_encode(&sealed),
            updated_at: None,
        };
        self.http.put_backup(&backup).await
    }

    /// Verifies and opens an envelope of a record the relay stored at `stored_at` (its
    /// `createdAt`, or `answeredAt` for an answer) with the account keys, refreshing the
    /// directory once when the signer is unknown (a connection created on another device).
    /// A sender revoked since still verifies for a record stored before the revocation.
    async fn open(
        &self,
        envelope: &Envelope,
        stored_at: &str,
    ) -> Result<(EnvelopeHeader, zeroize::Zeroizing<Vec<u8>>)> {
        let secrets = self.account_secrets(envelope);
        let refs: Vec<&RecipientSecret> = secrets.iter().collect();
        let directory = self.directory(false).await?;
        match herald_crypto::open_at(envelope, &directory, &refs, stored_at) {
            Err(herald_crypto::Error::UnknownSender) => {
                let directory = self.directory(true).await?;
                Ok(herald_crypto::open_at(
                    envelope, &directory, &refs, stored_at,
                )?)
            }
            other => Ok(other?),
        }
    }

    /// Turns a relay record into a cache row. Never fails for bad content: a message that
    /// cannot be verified, opened or validated becomes a row with `error` set, so one bad
    /// sender cannot break the inbox. Fails only when the relay itself is unreachable.
    pub async fn process(&self, local: &LocalKey, record: &MessageRecord) -> Result<StoredRecord> {
        let mut row = StoredRecord {
            id: record.id.to_string(),
            revision: record.revision,
            status: record.status,
            expects_answer: record.expects_answer,
            sender_name: record.sender.name.clone(),
            sender_id: Some(record.sender.id.clone()),
            created_at: record.created_at.clone(),
            expires_at: record.expires_at.clone(),
            sealed_title: None,
            sealed_content: None,
            sealed_answer: None,
            answered_at: record.answer.as_ref().map(|a| a.answered_at.clone()),
            error: None,
            thread_id: record.thread_id.to_string(),
            thread_sequence: record.thread_sequence,
            reply_to: record.reply_to.as_ref().map(|r| r.to_string()),
            kind: record.kind.clone(),
        };
        let aad = record.id.as_str().as_bytes();
        match self.open_message(record).await {
            Ok((opened, sender_name)) => {
                if let Err(violations) = opened.content.validate() {
                    row.error = Some(format!(
                        "The sender's message breaks the format: {}",
                        violations
                            .iter()
                            .map(|v| v.to_string())
                            .collect::<Vec<_>>()
                            .join("; ")
                    ));
                }
                row.sender_name = sender_name;
                // The signed header's sender, which the relay's metadata only repeats.
                row.sender_id = Some(match &opened.sender {
                    Principal::Device(id) => id.to_string(),
                    Principal::Connection(id) => id.to_string(),
                });
                // A title that breaks the one rule of titles (controls, line breaks, bidi
                // overrides, nothing visible) is not trusted: the list shows it escaped, next to
                // the error that names the rule.
                let title = herald_protocol::text::inert_label(&opened.content.title);
                row.sealed_title = Some(herald_crypto::seal_local(local, aad, title.as_bytes()));
                let json = zeroize::Zeroizing::new(
                    serde_json::to_vec(&opened).map_err(|e| Error::Protocol(e.to_string()))?,
                );
                row.sealed_content = Some(herald_crypto::seal_local(local, aad, &json));
            }
            Err(Error::Network(e)) => return Err(Error::Network(e)),
            Err(e) => row.error = Some(describe(&e)),
        }
        if let Some(answer) = &record.answer {
            match self
                .open_answer(&record.id, &answer.envelope, &answer.answered_at)
                .await
            {
                Ok(content) => {
                    let json = zeroize::Zeroizing::new(
                        serde_json::to_vec(&content).map_err(|e| Error::Protocol(e.to_string()))?,
                    );
                    row.sealed_answer = Some(herald_crypto::seal_local(local, aad, &json));
                }
                Err(Error::Network(e)) => return Err(Error::Network(e)),
                // The row keeps no answer and is read again once the keys change (sync.rs).
                Err(e) => {
                    tracing::debug!(message = %record.id, code = %e.code(), "answer could not be opened")
                }
            }
        }
        Ok(row)
    }

    async fn open_message(&self, record: &MessageRecord) -> Result<(OpenedMessage, String)> {
        let (header, plaintext) = self.open(&record.envelope, &record.created_at).await?;
        if header.kind != EnvelopeKind::Message
            || header.message_id != record.id
            || header.account_id != self.state.account_id
        {
            return Err(Error::Protocol(
                "the envelope header does not match its record".into(),
            ));
        }
        let content: MessageContent = herald_protocol::json::from_slice(&plaintext)
            .map_err(|e| Error::Protocol(format!("the content is not a Herald message: {e}")))?;
        let directory = self.directory(false).await?;
        let name = directory
            .sender_name(&header.sender)
            .unwrap_or_else(|| record.sender.name.clone());
        Ok((
            OpenedMessage {
                content,
                sender: header.sender,
            },
            name,
        ))
    }

    async fn open_answer(
        &self,
        id: &MessageId,
        envelope: &Envelope,
        answered_at: &str,
    ) -> Result<AnswerContent> {
        let (header, plaintext) = self.open(envelope, answered_at).await?;
        if header.kind != EnvelopeKind::Answer || &header.message_id != id {
            return Err(Error::Protocol(
                "answer envelope does not belong to this request".into(),
            ));
        }
        herald_protocol::json::from_slice(&plaintext)
            .map_err(|e| Error::Protocol(format!("the answer's content: {e}")))
    }

    /// Seals an answer to the asking sender (a connection or device) and the account, signed
    /// by this device.
    pub async fn seal_answer(
        &self,
        id: &MessageId,
        to: &Principal,
        answer: &AnswerContent,
    ) -> Result<Envelope> {
        // Always fresh: after a device is revoked the account key rotates, and an answer
        // sealed to the old epoch would stay readable by the revoked device. Callers learn a
        // newer epoch first (devices::fresh_keys); this device never seals to an account key
        // it cannot open itself.
        let directory = self.directory(true).await?;
        if let Some(current) = directory.encryption_keys().last() {
            if self
                .account_keys()
                .encryption_secret(&current.recipient.key_id)
                .is_none()
            {
                return Err(herald_crypto::Error::UnknownEpoch(current.epoch).into());
            }
        }
        let asker = recipient_of(&directory, to).ok_or_else(|| {
            Error::Protocol("the asking connection is no longer certified (revoked?)".into())
        })?;
        let recipients = [asker, directory.current_account_recipient()];
        let plaintext = zeroize::Zeroizing::new(
            serde_json::to_vec(answer).map_err(|e| Error::Protocol(e.to_string()))?,
        );
        let created_at = crate::timestamps::now_rfc3339();
        let envelope = herald_crypto::seal(
            &SealParams {
                kind: EnvelopeKind::Answer,
                account_id: &self.state.account_id,
                message_id: id,
                created_at: &created_at,
                recipients: &recipients,
            },
            &plaintext,
            &self.state.device_keys.signer(&self.state.device_id),
        )?;
        crate::sealed_size::check(&envelope, "answer")?;
        Ok(envelope)
    }
}

/// The X25519 recipient of a certified principal (answers go back to the asker).
fn recipient_of(directory: &Directory, who: &Principal) -> Option<herald_crypto::Recipient> {
    match who {
        Principal::Connection(id) => directory.connection(id).map(|c| c.recipient.clone()),
        Principal::Device(id) => directory.device(id).map(|d| d.recipient.clone()),
    }
}

/// A short reason for an error card (no secrets, no content).
fn describe(e: &Error) -> String {
    match e {
        Error::Crypto(c) => format!("This message could not be verified or decrypted ({c})."),
        other => format!("This message could not be read ({other})."),
    }
}
