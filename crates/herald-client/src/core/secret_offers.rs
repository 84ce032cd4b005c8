//! Secret offers as `Core` methods (docs/secrets.md, "Secret offers"): open an offer with a
//! one-time key certified for this message and device, keep that key sealed under the local
//! key in `<data_dir>/offer-keys/<message id>`, and reveal the sender's secret once. Sealing
//! secret answers and the secret routes are in `crate::secrets`.

use crate::core::Core;
use crate::secrets::SecretReveal;
use crate::session::Session;
use crate::transport::http::is_code;
use crate::{view::present, Error, Result};
use herald_crypto::{OneTimeKey, RecipientSecret};
use herald_protocol::envelope::{Envelope, EnvelopeKind, Principal};
use herald_protocol::secrets::{
    OfferKeyRequest, SecretOfferStatus, SECRET_OFFER_KIND, SECRET_TTL_SECS,
};
use herald_protocol::{ErrorCode, MessageId};
use std::path::{Path, PathBuf};

/// Directory (in the data dir) of sealed one-time offer keys, one file per opened offer.
const OFFER_KEY_DIR: &str = "offer-keys";

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
    let bytes =
        herald_crypto::open_local(&core.inner.store.local.key, &offer_key_aad(id), &sealed)?;
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
    let sealed = herald_crypto::seal_local(
        &core.inner.store.local.key,
        &offer_key_aad(id),
        &key.to_bytes(),
    );
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
        let row = self.inner.store.cache_call(move |c| c.get(&owned)).await?;
        let opened = present::opened(&self.inner.store.local.key, &row)?;
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
