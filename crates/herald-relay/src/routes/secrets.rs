//! Secret delivery (docs/secrets.md): the secret half of an answer, handed to the asking
//! connection once, and secret offers (`kind: "secret"`), whose secret the sender seals to a
//! one-time key of the device that opened the offer.
//!
//! The relay sees only envelopes and certificates. It checks what it can (kinds, ids,
//! senders, recipients, sizes) and who may call; it hands every secret over once, in the same
//! transaction that deletes it, and deletes what nobody collected within 15 minutes.

use axum::extract::{Path, State};
use axum::Json;
use chrono::Duration;
use herald_protocol::envelope::{b64_decode, CertificateBody, Envelope, EnvelopeKind};
use herald_protocol::secrets::{
    OfferKeyRequest, SecretEnvelope, SecretOfferState, SecretPayloadRequest,
    MAX_SECRET_PAYLOAD_ENVELOPE_BYTES, SECRET_OFFER_KIND, SECRET_TTL_SECS,
};
use herald_protocol::wire::{MessageRecord, SendMessageRequest};
use herald_protocol::{ErrorCode, FileId, MessageId};

use super::messages::check_envelope;
use super::JsonBody;
use crate::auth::{Auth, DeviceAuth};
use crate::error::{ApiError, Result as RelayResult};
use crate::state::AppState;
use crate::store::secrets::{
    NewOfferKey, NewSecretAnswer, NewSecretPayload, SecretError, SecretResult, SecretStore,
};
use crate::store::{NewAnswer, Principal};

impl From<SecretError> for ApiError {
    fn from(e: SecretError) -> Self {
        match e {
            SecretError::NoConnection => ApiError::invalid(
                "secretEnvelope",
                "Only requests sent by a connection can have secret answers.",
            ),
            SecretError::Files { list, error } => {
                // The file errors name `attachments[i]`; secret files name their own list.
                let mut e = ApiError::from(error);
                e.0.fields =
                    e.0.fields
                        .iter()
                        .map(|f| match f.strip_prefix("attachments") {
                            Some(rest) => format!("{list}{rest}"),
                            None => f.clone(),
                        })
                        .collect();
                e
            }
            e => match e.code() {
                Some(code) => ApiError::new(code),
                None => ApiError::internal(e),
            },
        }
    }
}

/// Runs a blocking secret-store call on tokio's blocking pool.
async fn secrets<T, F>(state: &AppState, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&dyn SecretStore) -> SecretResult<T> + Send + 'static,
{
    let store = state.inner.secrets.clone();
    tokio::task::spawn_blocking(move || f(store.as_ref()))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::from)
}

fn ttl() -> Duration {
    Duration::seconds(SECRET_TTL_SECS)
}

fn message_id(raw: &str) -> Result<MessageId, ApiError> {
    MessageId::parse(raw).ok_or_else(ApiError::not_found)
}

/// `POST /messages` rules of a secret offer: it asks nothing (no form, no deadline).
pub(super) fn check_send(req: &SendMessageRequest) -> Result<(), ApiError> {
    if req.kind == SECRET_OFFER_KIND && req.expects_answer {
        return Err(ApiError::invalid(
            "expectsAnswer",
            "A secret offer (kind \"secret\") does not ask for an answer.",
        ));
    }
    Ok(())
}

/// An envelope sealed to exactly one recipient (a connection, or a one-time key).
fn single_recipient(env: &Envelope, field: &str) -> Result<String, ApiError> {
    match env.recipients.as_slice() {
        [only] => Ok(only.key_id.clone()),
        _ => Err(ApiError::invalid(
            field,
            "A secret is sealed to exactly one recipient.",
        )),
    }
}

/// `secretAttachments` beside `attachments`: each list checked like `attachments` (≤ 10, no
/// duplicates), at most 10 files together, and no file in both.
pub(super) fn check_secret_attachments(
    files: &[FileId],
    secret_files: &[FileId],
) -> Result<(), ApiError> {
    super::files::check_attachment_ids(secret_files).map_err(|mut e| {
        e.0.fields =
            e.0.fields
                .iter()
                .map(|f| f.replacen("attachments", "secretAttachments", 1))
                .collect();
        e
    })?;
    if files.len() + secret_files.len() > herald_protocol::content::MAX_ATTACHMENTS {
        return Err(ApiError::invalid(
            "secretAttachments",
            "An answer carries at most 10 files, secret ones included.",
        ));
    }
    if let Some(i) = secret_files.iter().position(|f| files.contains(f)) {
        return Err(ApiError::invalid(
            &format!("secretAttachments[{i}]"),
            "A file is either an attachment or a secret attachment, not both.",
        ));
    }
    Ok(())
}

/// The answer route's path for an answer with a `secretEnvelope`: checks it (kind
/// `secretAnswer`, this message, the answering device as sender, one recipient) and stores
/// both in one transaction, attaching the answer's `files` and `secret_files` (uploads of
/// the answering device; the secret ones downloadable by the asking connection only, for
/// 15 minutes).
pub(super) async fn answer_with_secret(
    state: &AppState,
    principal: &Principal,
    id: MessageId,
    answer: NewAnswer,
    secret: Envelope,
    files: Vec<FileId>,
    secret_files: Vec<FileId>,
) -> Result<MessageRecord, ApiError> {
    check_envelope(&secret, EnvelopeKind::SecretAnswer, &id, principal)
        .map_err(|e| rename_envelope_fields(e, "secretEnvelope"))?;
    single_recipient(&secret, "secretEnvelope.recipients")?;
    check_secret_attachments(&files, &secret_files)?;
    let secret = NewSecretAnswer {
        envelope: secret,
        expires_at: answer.now + ttl(),
        uploader: principal.clone(),
        files,
        secret_files,
    };
    let account = principal.account().clone();
    secrets(state, move |s| {
        s.answer_with_secret(&account, &id, answer, secret)
    })
    .await
}

/// `check_envelope` names `envelope.*`; the secret envelope's errors name their own field.
fn rename_envelope_fields(mut e: ApiError, prefix: &str) -> ApiError {
    e.0.fields =
        e.0.fields
            .iter()
            .map(|f| match f.strip_prefix("envelope") {
                Some(rest) => format!("{prefix}{rest}"),
                None => f.clone(),
            })
            .collect();
    e
}

/// `POST /messages/:id/secret/collect` (the asking connection): the secret answer, once.
pub(super) async fn collect_answer(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
) -> Result<Json<SecretEnvelope>, ApiError> {
    let Principal::Connection {
        account,
        connection_id,
    } = principal
    else {
        // Devices never get a secret answer back: it is not sealed to them anyway.
        return Err(ApiError::forbidden());
    };
    let id = message_id(&id)?;
    let now = state.now();
    let envelope = secrets(&state, move |s| {
        s.collect_secret_answer(&account, &connection_id, &id, now)
    })
    .await?;
    Ok(Json(SecretEnvelope { envelope }))
}

/// `PUT /messages/:id/offer-key` (device): the one-time key of a secret offer.
pub(super) async fn put_offer_key(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<OfferKeyRequest>,
) -> Result<Json<SecretOfferState>, ApiError> {
    let id = message_id(&id)?;
    let Some(CertificateBody::OfferKey {
        account_id,
        message_id: for_message,
        device_id,
        key_id,
        public_key,
        ..
    }) = req.certificate.body_unverified()
    else {
        return Err(ApiError::invalid(
            "certificate",
            "The certificate must be an offerKey certificate.",
        ));
    };
    if account_id != auth.account || for_message != id || device_id != auth.device_id {
        return Err(ApiError::invalid(
            "certificate",
            "The offer key must name this account, this message and the calling device.",
        ));
    }
    let key_ok = b64_decode(&public_key).is_some_and(|k| k.len() == 32)
        && key_id.starts_with("k_")
        && key_id.len() == 24;
    let signature_ok = b64_decode(&req.certificate.signature).is_some_and(|s| s.len() == 64);
    if !key_ok || !signature_ok {
        return Err(ApiError::invalid(
            "certificate",
            "The offer key certificate is malformed.",
        ));
    }
    let now = state.now();
    let key = NewOfferKey {
        device_id: auth.device_id,
        certificate: req.certificate,
        key_id,
        now,
        expires_at: now + ttl(),
    };
    let account = auth.account;
    let acc = account.clone();
    let change = secrets(&state, move |s| s.put_offer_key(&acc, &id, key)).await?;
    state.notify(&account, &change.record);
    Ok(Json(change.state))
}

/// `GET /messages/:id/offer-key` (the sending connection, or a device): the offer's state.
pub(super) async fn offer_state(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
) -> Result<Json<SecretOfferState>, ApiError> {
    let id = message_id(&id)?;
    let (account, viewer, now) = (principal.account().clone(), principal.viewer(), state.now());
    let offer = secrets(&state, move |s| s.offer_state(&account, &viewer, &id, now)).await?;
    Ok(Json(offer))
}

/// `POST /messages/:id/secret-payload` (the sending connection): the secret, sealed to the
/// offer key only.
pub(super) async fn put_payload(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<SecretPayloadRequest>,
) -> Result<Json<SecretOfferState>, ApiError> {
    let Principal::Connection {
        account,
        connection_id,
    } = principal.clone()
    else {
        return Err(ApiError::forbidden());
    };
    let id = message_id(&id)?;
    if req.envelope.encoded_len() > MAX_SECRET_PAYLOAD_ENVELOPE_BYTES {
        return Err(ApiError::new(ErrorCode::PayloadTooLarge).fields(["envelope"]));
    }
    check_envelope(&req.envelope, EnvelopeKind::SecretPayload, &id, &principal)?;
    let recipient = single_recipient(&req.envelope, "envelope.recipients")?;
    let now = state.now();
    let (acc, con, mid) = (account.clone(), connection_id.clone(), id.clone());
    let key_id = secrets(&state, move |s| s.offer_key_id(&acc, &con, &mid, now)).await?;
    if recipient != key_id {
        return Err(ApiError::invalid(
            "envelope.recipients",
            "The secret must be sealed to the offer key.",
        ));
    }
    let payload = NewSecretPayload {
        connection_id,
        envelope: req.envelope,
        now,
        expires_at: now + ttl(),
    };
    let acc = account.clone();
    let change = secrets(&state, move |s| s.put_secret_payload(&acc, &id, payload)).await?;
    state.notify(&account, &change.record);
    Ok(Json(change.state))
}

/// `POST /messages/:id/secret-payload/collect` (the device that opened the offer): the
/// sealed secret, once.
pub(super) async fn collect_payload(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
) -> Result<Json<SecretEnvelope>, ApiError> {
    let id = message_id(&id)?;
    let now = state.now();
    let (account, device) = (auth.account.clone(), auth.device_id);
    let (envelope, change) = secrets(&state, move |s| {
        s.collect_secret_payload(&account, &device, &id, now)
    })
    .await?;
    state.notify(&auth.account, &change.record);
    Ok(Json(SecretEnvelope { envelope }))
}

impl AppState {
    /// Deletes every secret answer, offer and secret file past its 15 minutes (relay clock),
    /// leaving tombstones, removes the secret files' bytes, and nudges the sockets of expired
    /// offers. The sweeper calls this with
    /// [`AppState::sweep_expired`]; tests may call it directly. Returns how many secrets
    /// were deleted.
    pub async fn sweep_secrets(&self) -> RelayResult<usize> {
        let now = self.now();
        let store = self.inner.secrets.clone();
        let swept = tokio::task::spawn_blocking(move || store.sweep_secrets(now))
            .await
            .map_err(|e| crate::Error::Io(std::io::Error::other(e)))?
            .map_err(|e| match e {
                SecretError::Store(s) => crate::Error::Store(s),
                other => crate::Error::Io(std::io::Error::other(other.to_string())),
            })?;
        for c in &swept.offers {
            self.notify(&c.account_id, &c.record);
        }
        for id in &swept.files {
            if let Err(e) = self.inner.blobs.remove(id).await {
                tracing::error!(error = %e, file = %id, "removing an expired secret file failed");
            }
        }
        Ok(swept.answers + swept.offers.len() + swept.files.len())
    }
}
