//! The sender's side of a secret offer (docs/secrets.md): send a message of kind `secret`
//! (title and body only), wait until a device opens it and posts a one-time key, verify that
//! key's certificate against the pinned account key (a relay that substitutes the key is
//! refused here), seal the secret to that key alone and post it, then wait until the device
//! collects it.

use std::time::Duration;

use chrono::{DateTime, Utc};
use herald_crypto::{Directory, SealParams, VerifiedOfferKey};
use herald_protocol::content::MessageContent;
use herald_protocol::envelope::{b64_encode, EnvelopeKind};
use herald_protocol::secrets::{
    SecretOfferState, SecretOfferStatus, SecretPayloadRequest, MAX_SECRET_OFFER_BYTES,
    SECRET_OFFER_KIND,
};
use herald_protocol::wire::{MessageRecord, SendMessageRequest};
use herald_protocol::{ErrorCode, MessageId};
use reqwest::Method;
use zeroize::Zeroizing;

use super::{AgentClient, SendOptions};
use crate::timestamps::now_rfc3339;
use crate::transport::ws::SyncSocket;
use crate::{Error, Result};

/// How delivering an offered secret ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OfferOutcome {
    /// The device collected the secret (the relay deleted it).
    Delivered(SecretOfferState),
    /// The secret was posted but not collected before the wait timeout.
    Sent(SecretOfferState),
    /// No device opened the offer before the wait timeout; nothing was sent.
    NotOpened,
    /// The offer's key (or secret) expired on the relay; nothing more will happen.
    Expired(SecretOfferState),
}

impl AgentClient {
    /// Sends a secret offer for `secret` (the value [`AgentClient::deliver_secret`] will
    /// deliver; ≤ 64 KiB): `content` must be a title and body only (no form, actions or
    /// blocks). The secret itself is not sent here; its HMAC under this connection's
    /// idempotency key goes into the keyed request digest (`contentDigest`), so sending
    /// again under the same `idempotency_key` returns the first offer only for the same
    /// content and the same secret. Errors: `validation_failed`, `invalid_input`,
    /// `idempotency_conflict` (the key was used for another offer, or for this offer with
    /// another secret), relay errors.
    pub async fn send_secret_offer(
        &self,
        content: &MessageContent,
        secret: &[u8],
        options: SendOptions,
    ) -> Result<MessageRecord> {
        if let Some(key) = &options.idempotency_key {
            super::check_idempotency_key(key)?;
        }
        if secret.len() > MAX_SECRET_OFFER_BYTES {
            return Err(Error::InvalidInput(format!(
                "a secret offer holds at most {} KiB",
                MAX_SECRET_OFFER_BYTES / 1024
            )));
        }
        content.validate().map_err(Error::Validation)?;
        if content.expects_answer() || !content.blocks.is_empty() {
            return Err(Error::InvalidInput(
                "a secret offer has a title and a body only".into(),
            ));
        }
        let loaded = self.directory().await?;
        let (directory, connection_id) = &*loaded;
        let id = herald_crypto::new_message_id();
        let created_at = now_rfc3339();
        let recipients = [directory.current_account_recipient(), self.keys.recipient()];
        let plaintext = serde_json::to_vec(content).map_err(|e| Error::Protocol(e.to_string()))?;
        let envelope = herald_crypto::seal(
            &SealParams {
                kind: EnvelopeKind::Message,
                account_id: directory.account_id(),
                message_id: &id,
                created_at: &created_at,
                recipients: &recipients,
            },
            &plaintext,
            &self.keys.signer(connection_id),
        )?;
        crate::sealed_size::check(&envelope, "secret offer")?;
        // Only inside the HMAC input: neither the secret nor its own (keyed) digest leaves
        // this process.
        let secret_digest = self.keys.idempotency_digest(secret);
        let digest_input = serde_json::to_vec(&serde_json::json!({
            "content": content,
            "kind": SECRET_OFFER_KIND,
            "replyTo": options.reply_to,
            "secret": b64_encode(&secret_digest),
        }))
        .map_err(|e| Error::Protocol(e.to_string()))?;
        let request = SendMessageRequest {
            id,
            kind: SECRET_OFFER_KIND.into(),
            expects_answer: false,
            expires_at: None,
            expires_in: None,
            reply_to: options.reply_to,
            content_digest: Some(b64_encode(&self.keys.idempotency_digest(&digest_input))),
            envelope,
            attachments: Vec::new(),
        };
        let key = options
            .idempotency_key
            .unwrap_or_else(|| herald_crypto::new_bearer("idk_"));
        self.http.send_message(&key, &request).await
    }

    /// `GET /messages/:id/offer-key`.
    pub async fn offer_state(&self, id: &MessageId) -> Result<SecretOfferState> {
        self.http
            .send(
                self.http
                    .request(Method::GET, &format!("/messages/{id}/offer-key")),
            )
            .await
    }

    /// Delivers `secret` (≤ 64 KiB) for the offer `id`: waits (up to `timeout`) for a device
    /// to open it, verifies the offer key, seals and posts the secret, then waits for the
    /// device to collect it. The secret is sealed at most once; calling again after it was
    /// sent only waits for delivery.
    ///
    /// Errors: `invalid_input` (too large); `crypto` when the offer key does not verify
    /// against the pinned account key or has expired (nothing is sent); relay errors.
    pub async fn deliver_secret(
        &self,
        id: &MessageId,
        secret: &[u8],
        timeout: Option<Duration>,
    ) -> Result<OfferOutcome> {
        if secret.len() > MAX_SECRET_OFFER_BYTES {
            return Err(Error::InvalidInput(format!(
                "a secret offer holds at most {} KiB",
                MAX_SECRET_OFFER_BYTES / 1024
            )));
        }
        let mut sent = false;
        let decide = move |state: &SecretOfferState| match state.status {
            SecretOfferStatus::Waiting => Step::Wait,
            SecretOfferStatus::Opened if !sent => {
                sent = true;
                Step::Send(state.clone())
            }
            SecretOfferStatus::Opened | SecretOfferStatus::Sent => Step::Wait,
            SecretOfferStatus::Delivered => Step::Done(OfferOutcome::Delivered(state.clone())),
            SecretOfferStatus::Expired => Step::Done(OfferOutcome::Expired(state.clone())),
        };
        let work = self.watch(id, decide, |state| {
            self.seal_and_post_secret(id, state, secret)
        });
        let finished = match timeout {
            Some(t) => tokio::time::timeout(t, work).await.ok(),
            None => Some(work.await),
        };
        if let Some(result) = finished {
            return result;
        }
        // Timed out: report where it stands now.
        let state = self.offer_state(id).await?;
        Ok(match state.status {
            SecretOfferStatus::Waiting => OfferOutcome::NotOpened,
            SecretOfferStatus::Delivered => OfferOutcome::Delivered(state),
            SecretOfferStatus::Expired => OfferOutcome::Expired(state),
            SecretOfferStatus::Opened | SecretOfferStatus::Sent => OfferOutcome::Sent(state),
        })
    }

    /// Checks the offer key and posts the secret sealed to it.
    async fn seal_and_post_secret(
        &self,
        id: &MessageId,
        state: SecretOfferState,
        secret: &[u8],
    ) -> Result<()> {
        let cert = state
            .offer_key
            .as_ref()
            .ok_or_else(|| Error::Protocol("an opened offer without its key".into()))?;
        let key = self.verify_offer_key(cert, id).await?;
        // Expiry is the relay's: it judged the key live (`opened`) by its clock when it
        // answered, and refuses the secret past the 15 minutes (`410 secret_expired`). The
        // device's signed times come from the device's clock, which may be off (docs/faults.md,
        // "Relay time only"); only their difference, the key's lifetime, is checked here.
        let time = |t: &str| {
            DateTime::parse_from_rfc3339(t)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| Error::Protocol("the offer key's times are not RFC 3339".into()))
        };
        let lifetime = time(&key.expires_at)? - time(&key.created_at)?;
        if lifetime <= chrono::TimeDelta::zero()
            || lifetime > chrono::TimeDelta::seconds(herald_protocol::secrets::SECRET_TTL_SECS)
        {
            return Err(Error::Protocol(
                "the device's one-time key claims a lifetime other than 15 minutes; nothing was sent"
                    .into(),
            ));
        }
        let loaded = self.directory().await?;
        let (directory, connection_id) = &*loaded;
        let created_at = now_rfc3339();
        let plaintext = Zeroizing::new(secret.to_vec());
        let envelope = herald_crypto::seal(
            &SealParams {
                kind: EnvelopeKind::SecretPayload,
                account_id: directory.account_id(),
                message_id: id,
                created_at: &created_at,
                recipients: &[key.recipient],
            },
            &plaintext,
            &self.keys.signer(connection_id),
        )?;
        let posted: Result<SecretOfferState> = self
            .http
            .send(
                self.http
                    .request(Method::POST, &format!("/messages/{id}/secret-payload"))
                    .json(&SecretPayloadRequest { envelope }),
            )
            .await;
        match posted {
            // Another run of this sender posted it first: nothing more to send.
            Err(e) if crate::transport::http::is_code(&e, ErrorCode::SecretPayloadExists) => Ok(()),
            // The key's 15 minutes passed by the relay's clock meanwhile: nothing was stored,
            // and the next read of the state reports the offer expired.
            Err(e) if crate::transport::http::is_code(&e, ErrorCode::SecretExpired) => Ok(()),
            other => other.map(|_| ()),
        }
    }

    /// Verifies an offer key against the pinned directory, refreshing `GET /keys` once when
    /// the device is newer than the directory.
    async fn verify_offer_key(
        &self,
        cert: &herald_protocol::envelope::Certificate,
        id: &MessageId,
    ) -> Result<VerifiedOfferKey> {
        let loaded = self.directory().await?;
        let (directory, _) = &*loaded;
        match herald_crypto::verify_offer_key(cert, directory, id) {
            Ok(key) => Ok(key),
            Err(herald_crypto::Error::Verification(_)) => {
                let keys = self.http.keys().await?;
                let fresh = Directory::verify(&keys, &self.token.fingerprint_prefix)?;
                Ok(herald_crypto::verify_offer_key(cert, &fresh, id)?)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Reads the offer's state on connect and on every nudge; `decide` says what to do.
    async fn watch<F, Fut>(
        &self,
        id: &MessageId,
        mut decide: impl FnMut(&SecretOfferState) -> Step,
        send: F,
    ) -> Result<OfferOutcome>
    where
        F: Fn(SecretOfferState) -> Fut,
        Fut: std::future::Future<Output = Result<()>>,
    {
        let mut backoff = crate::transport::backoff::Backoff::default();
        loop {
            match SyncSocket::connect(&self.http).await {
                Ok(mut socket) => {
                    backoff.reset();
                    loop {
                        // Check after connecting and after every nudge.
                        loop {
                            match decide(&self.offer_state(id).await?) {
                                Step::Wait => break,
                                Step::Send(state) => send(state).await?,
                                Step::Done(outcome) => {
                                    socket.close().await;
                                    return Ok(outcome);
                                }
                            }
                        }
                        match socket.next_sync().await {
                            Ok(Some(_)) => continue,
                            _ => break,
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

/// What [`AgentClient::watch`] does after reading the state.
enum Step {
    Wait,
    Send(SecretOfferState),
    Done(OfferOutcome),
}
