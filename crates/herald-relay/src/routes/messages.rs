//! `/messages`: send (idempotent), read the change feed, read one, answer, cancel.
//!
//! The relay checks what it can see: envelope version, suite and size, and that the (unsigned
//! to the relay) header names this message, this account and the caller as sender. It never
//! verifies signatures or decrypts; receivers do.

use axum::extract::{FromRequestParts, Path, RawQuery, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::Json;
use chrono::{DateTime, Duration, Utc};
use herald_protocol::envelope::{b64_decode, Envelope, EnvelopeKind, ENVELOPE_VERSION, SUITE_V1};
use herald_protocol::scopes::Scope;
use herald_protocol::wire::{
    AnswerRequest, MessagePage, MessageRecord, SendMessageRequest, ThreadPage, DEFAULT_PAGE_LIMIT,
    MAX_ENVELOPE_BYTES, MAX_EXPIRES_IN_SECS, MAX_PAGE_LIMIT,
};
use herald_protocol::{ConnectionId, DeviceId, ErrorCode, MessageId, Revision};

use super::JsonBody;
use crate::auth::{Auth, DeviceAuth, HeldScopes};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{IdempotencyClaim, NewAnswer, NewMessage, Principal, SendOutcome};

/// Length of an Ed25519 signature.
const SIGNATURE_LEN: usize = 64;
/// Longest kind.
const MAX_KIND_LEN: usize = 32;

/// The `Idempotency-Key` header: required, 1–255 visible ASCII characters
/// ([`herald_protocol::wire::check_idempotency_key`]). Checked before the body is read.
pub struct IdempotencyKey(pub String);

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let key = parts
            .headers
            .get("idempotency-key")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .unwrap_or("");
        if let Err(rule) = herald_protocol::wire::check_idempotency_key(key) {
            return Err(ApiError::with_message(
                ErrorCode::IdempotencyKeyRequired,
                format!("An Idempotency-Key header is required: {rule}."),
            )
            .fields(["Idempotency-Key"]));
        }
        Ok(IdempotencyKey(key.to_owned()))
    }
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = [0u8; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

pub(super) async fn send(
    State(state): State<AppState>,
    Auth(principal): Auth,
    held: HeldScopes,
    IdempotencyKey(key): IdempotencyKey,
    JsonBody { value: req, raw }: JsonBody<SendMessageRequest>,
) -> Result<(StatusCode, Json<MessageRecord>), ApiError> {
    // A request nobody could collect the answer of would wait in the inbox for nothing.
    if req.expects_answer && !held.allows(Scope::MessagesRead) {
        return Err(ApiError::with_message(
            ErrorCode::Forbidden,
            "This connection may send messages but not requests: an answer needs the scope \
             messages:read, which it does not hold. Nothing was sent.",
        ));
    }
    let request_hash = match &req.content_digest {
        Some(digest) => {
            let bytes = herald_protocol::envelope::b64_decode(digest)
                .filter(|d| d.len() == 32)
                .ok_or_else(|| {
                    ApiError::invalid(
                        "contentDigest",
                        "contentDigest must be 32 bytes of base64url.",
                    )
                })?;
            let mut labelled = b"herald.v1/idempotency/content-digest".to_vec();
            labelled.extend_from_slice(&bytes);
            sha256(&labelled)
        }
        None => sha256(&raw),
    };
    let claim = IdempotencyClaim {
        scope: principal.idempotency_scope(),
        key,
        request_hash,
    };
    let now = state.now();

    // One trip to the blocking pool for what the send reads before its write: a retry's
    // original record, else the account's current encryption key and the sender's name.
    let (scope, k) = (claim.scope.clone(), claim.key.clone());
    let (account, p) = (principal.account().clone(), principal.clone());
    let (replay, current_key, sender_name) = state
        .store(move |s| match s.idempotent_send(&scope, &k, now)? {
            Some(replay) => Ok((Some(replay), None, String::new())),
            None => Ok((
                None,
                s.current_encryption_key(&account)?,
                s.principal_name(&p)?,
            )),
        })
        .await?;
    // A retry is answered before validation: time-dependent checks (deadlines) may no longer
    // hold for the original body, and the original record is what the client wants.
    if let Some((hash, record)) = replay {
        if hash != claim.request_hash {
            return Err(ApiError::new(ErrorCode::IdempotencyConflict));
        }
        return Ok((StatusCode::OK, Json(record)));
    }

    check_kind(&req.kind)?;
    super::files::check_attachment_ids(&req.attachments)?;
    super::secrets::check_send(&req)?;
    let expires_at = deadline(&req, now)?;
    check_envelope(&req.envelope, EnvelopeKind::Message, &req.id, &principal)?;
    super::epoch::check_current_aek(current_key.as_ref(), &req.envelope)?;
    if let Some(parent) = req.reply_to.clone() {
        let (account, viewer) = (principal.account().clone(), principal.viewer());
        let visible = state
            .store(move |s| s.message(&account, &viewer, &parent, now))
            .await?;
        if visible.is_none() {
            return Err(ApiError::invalid(
                "replyTo",
                "replyTo must name a message you can see.",
            ));
        }
    }
    let account = principal.account().clone();
    let attachments = req.attachments;
    let new = NewMessage {
        account_id: account.clone(),
        id: req.id,
        kind: req.kind,
        expects_answer: req.expects_answer,
        sender: principal,
        sender_name,
        expires_at,
        reply_to: req.reply_to,
        envelope: req.envelope,
        now,
    };
    let outcome = if attachments.is_empty() {
        state.store(move |s| s.send_message(new, claim)).await?
    } else {
        super::files::files(&state, move |s| s.send_with_files(new, claim, &attachments)).await?
    };
    match outcome {
        SendOutcome::Created(record) => {
            state.notify(&account, &record);
            Ok((StatusCode::CREATED, Json(record)))
        }
        SendOutcome::Replayed(record) => Ok((StatusCode::OK, Json(record))),
    }
}

/// `kind`: 1–32 characters of `[a-z_]`.
fn check_kind(kind: &str) -> Result<(), ApiError> {
    let ok = !kind.is_empty()
        && kind.len() <= MAX_KIND_LEN
        && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    if !ok {
        return Err(ApiError::invalid(
            "kind",
            "kind must be 1 to 32 characters of a-z and _.",
        ));
    }
    Ok(())
}

/// The request's deadline by the relay's clock, from at most one of `expiresIn` and
/// `expiresAt`. Only requests (expectsAnswer) have deadlines.
fn deadline(
    req: &SendMessageRequest,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, ApiError> {
    let max = now + Duration::seconds(MAX_EXPIRES_IN_SECS as i64);
    let at = match (&req.expires_at, req.expires_in) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(ApiError::with_message(
                ErrorCode::InvalidRequest,
                "Give at most one of expiresAt and expiresIn.",
            )
            .fields(["expiresAt", "expiresIn"]))
        }
        (None, Some(secs)) => {
            if !(1..=MAX_EXPIRES_IN_SECS).contains(&secs) {
                return Err(ApiError::invalid(
                    "expiresIn",
                    "expiresIn must be 1 to 86400 seconds.",
                ));
            }
            now + Duration::seconds(secs as i64)
        }
        (Some(text), None) => {
            let at = DateTime::parse_from_rfc3339(text)
                .map_err(|_| ApiError::invalid("expiresAt", "expiresAt must be an RFC 3339 time."))?
                .with_timezone(&Utc);
            if at <= now || at > max {
                return Err(ApiError::invalid(
                    "expiresAt",
                    "expiresAt must be in the future and at most 24 hours ahead.",
                ));
            }
            at
        }
    };
    if !req.expects_answer {
        let field = if req.expires_at.is_some() {
            "expiresAt"
        } else {
            "expiresIn"
        };
        return Err(ApiError::invalid(
            field,
            "Only requests (expectsAnswer: true) have deadlines.",
        ));
    }
    Ok(Some(at))
}

fn is_b64(s: &str) -> bool {
    b64_decode(s).is_some()
}

/// Checks what the relay can see of an envelope: version, suite, size, and that the header
/// names this message, the caller's account and the caller as sender.
pub(super) fn check_envelope(
    env: &Envelope,
    kind: EnvelopeKind,
    message_id: &MessageId,
    principal: &Principal,
) -> Result<(), ApiError> {
    if env.encoded_len() > MAX_ENVELOPE_BYTES {
        return Err(ApiError::new(ErrorCode::PayloadTooLarge).fields(["envelope"]));
    }
    if env.v != ENVELOPE_VERSION {
        return Err(ApiError::invalid(
            "envelope.v",
            "Unsupported envelope version.",
        ));
    }
    if env.suite != SUITE_V1 {
        return Err(ApiError::invalid(
            "envelope.suite",
            "Unsupported cipher suite.",
        ));
    }
    let header = env.header_unverified().ok_or_else(|| {
        ApiError::invalid(
            "envelope.header",
            "The header must be base64url of an envelope header.",
        )
    })?;
    if header.v != env.v || header.suite != env.suite {
        return Err(ApiError::invalid(
            "envelope.header",
            "The header's version and suite must match the envelope's.",
        ));
    }
    if header.kind != kind {
        return Err(ApiError::invalid(
            "envelope.header.kind",
            "The envelope header has the wrong kind for this route.",
        ));
    }
    if &header.message_id != message_id {
        return Err(ApiError::invalid(
            "envelope.header.messageId",
            "The envelope header names another message.",
        ));
    }
    if &header.account_id != principal.account() {
        return Err(ApiError::invalid(
            "envelope.header.accountId",
            "The envelope header names another account.",
        ));
    }
    if header.sender != principal.as_envelope_principal() {
        return Err(ApiError::invalid(
            "envelope.header.sender",
            "The envelope header must name the caller as sender.",
        ));
    }
    let recipients_match = !env.recipients.is_empty()
        && header.recipients.len() == env.recipients.len()
        && header
            .recipients
            .iter()
            .zip(&env.recipients)
            .all(|(id, sealed)| *id == sealed.key_id && is_b64(&sealed.enc) && is_b64(&sealed.ct));
    if !recipients_match {
        return Err(ApiError::invalid(
            "envelope.recipients",
            "Recipients must be non-empty, base64url, and in the header's order.",
        ));
    }
    if !is_b64(&env.ciphertext) {
        return Err(ApiError::invalid(
            "envelope.ciphertext",
            "The ciphertext must be base64url.",
        ));
    }
    if b64_decode(&env.signature).map(|s| s.len()) != Some(SIGNATURE_LEN) {
        return Err(ApiError::invalid(
            "envelope.signature",
            "The signature must be 64 bytes of base64url.",
        ));
    }
    Ok(())
}

/// `after` and `limit` of `GET /messages`.
fn page_query(raw: Option<&str>) -> Result<(Revision, u32), ApiError> {
    super::paging::page_query(raw, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT)
}

/// `sender` of `GET /messages`: a connection (`con_…`) or device (`dev_…`) id, at most once.
/// The relay's only search, since everything else about a message is sealed.
///
/// # Errors
/// `invalid_request` naming `sender` when the value is not such an id or the parameter repeats.
fn sender_query(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    let mut values = raw
        .unwrap_or("")
        .split('&')
        .filter_map(|pair| pair.strip_prefix("sender="));
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(ApiError::invalid("sender", "Give sender at most once."));
    }
    if ConnectionId::parse(value).is_some() || DeviceId::parse(value).is_some() {
        Ok(Some(value.to_owned()))
    } else {
        Err(ApiError::invalid(
            "sender",
            "sender must be a connection id (con_…) or a device id (dev_…).",
        ))
    }
}

pub(super) async fn list(
    State(state): State<AppState>,
    Auth(principal): Auth,
    RawQuery(query): RawQuery,
) -> Result<Json<MessagePage>, ApiError> {
    let (after, limit) = page_query(query.as_deref())?;
    let sender = sender_query(query.as_deref())?;
    let (account, viewer, now) = (principal.account().clone(), principal.viewer(), state.now());
    let (records, has_more) = state
        .store(move |s| s.messages_after(&account, &viewer, after, limit, sender.as_deref(), now))
        .await?;
    let cursor = records.last().map(|r| r.revision).unwrap_or(after);
    Ok(Json(MessagePage {
        records,
        cursor,
        has_more,
    }))
}

fn message_id(raw: &str) -> Result<MessageId, ApiError> {
    MessageId::parse(raw).ok_or_else(ApiError::not_found)
}

pub(super) async fn get(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
) -> Result<Json<MessageRecord>, ApiError> {
    let id = message_id(&id)?;
    let (account, viewer, now) = (principal.account().clone(), principal.viewer(), state.now());
    state
        .store(move |s| s.message(&account, &viewer, &id, now))
        .await?
        .map(Json)
        .ok_or_else(ApiError::not_found)
}

/// `GET /messages/:id/thread`: the message's conversation, oldest first.
pub(super) async fn thread(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
) -> Result<Json<ThreadPage>, ApiError> {
    let id = message_id(&id)?;
    let (account, viewer, now) = (principal.account().clone(), principal.viewer(), state.now());
    let records = state
        .store(move |s| s.thread(&account, &viewer, &id, now))
        .await?
        .ok_or_else(ApiError::not_found)?;
    let thread_id = records
        .first()
        .map(|r| r.thread_id.clone())
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(ThreadPage { thread_id, records }))
}

pub(super) async fn answer(
    State(state): State<AppState>,
    auth: DeviceAuth,
    Path(id): Path<String>,
    JsonBody { value: req, .. }: JsonBody<AnswerRequest>,
) -> Result<Json<MessageRecord>, ApiError> {
    let id = message_id(&id)?;
    let principal = Principal::Device {
        account: auth.account.clone(),
        device_id: auth.device_id.clone(),
    };
    check_envelope(&req.envelope, EnvelopeKind::Answer, &id, &principal)?;
    super::epoch::require_current_aek(&state, principal.account(), &req.envelope).await?;
    super::files::check_attachment_ids(&req.attachments)?;
    let attachments = req.attachments;
    let answer = NewAnswer {
        device_id: auth.device_id,
        envelope: req.envelope,
        now: state.now(),
    };
    let account = auth.account;
    let acc = account.clone();
    let secret_attachments = req.secret_attachments;
    let record = match (req.secret_envelope, attachments.is_empty()) {
        (Some(secret), _) => {
            super::secrets::answer_with_secret(
                &state,
                &principal,
                id,
                answer,
                secret,
                attachments,
                secret_attachments,
            )
            .await?
        }
        (None, _) if !secret_attachments.is_empty() => {
            return Err(ApiError::invalid(
                "secretAttachments",
                "Secret attachments need a secretEnvelope: their keys travel only in it.",
            ))
        }
        (None, true) => state.store(move |s| s.answer(&acc, &id, answer)).await?,
        (None, false) => {
            super::files::files(&state, move |s| {
                s.answer_with_files(&acc, &id, answer, &principal, &attachments)
            })
            .await?
        }
    };
    state.notify(&account, &record);
    Ok(Json(record))
}

pub(super) async fn cancel(
    State(state): State<AppState>,
    Auth(principal): Auth,
    Path(id): Path<String>,
) -> Result<Json<MessageRecord>, ApiError> {
    let id = message_id(&id)?;
    let (account, viewer, now) = (principal.account().clone(), principal.viewer(), state.now());
    let acc = account.clone();
    let record = state
        .store(move |s| s.cancel(&acc, &viewer, &id, now))
        .await?;
    state.notify(&account, &record);
    Ok(Json(record))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_query_defaults_and_bounds() {
        assert_eq!(
            page_query(None).ok(),
            Some((Revision(0), DEFAULT_PAGE_LIMIT)),
            "no query: from the start, default page"
        );
        assert_eq!(
            page_query(Some("after=7&limit=500")).ok(),
            Some((Revision(7), 500)),
            "the largest page is allowed"
        );
        assert_eq!(
            page_query(Some("after=9223372036854775807")).ok(),
            Some((Revision(i64::MAX as u64), DEFAULT_PAGE_LIMIT)),
            "the largest revision the store holds is a cursor"
        );
        for (query, field) in [
            ("limit=0", "limit"),
            ("limit=501", "limit"),
            ("limit=x", "limit"),
            ("after=-1", "after"),
            ("after=", "after"),
            ("after=9223372036854775808", "after"),
        ] {
            let err = page_query(Some(query)).expect_err("must be refused");
            assert_eq!(err.0.fields, vec![field], "{query} names the bad field");
            assert_eq!(err.code(), Some(ErrorCode::InvalidRequest), "{query}");
        }
    }

    #[test]
    fn sender_query_takes_one_connection_or_device_id() {
        let connection = ConnectionId::from_random(&[1; 16]);
        let device = DeviceId::from_random(&[2; 16]);
        assert_eq!(sender_query(None).ok(), Some(None), "no filter");
        assert_eq!(
            sender_query(Some("after=3&limit=10")).ok(),
            Some(None),
            "no sender among other parameters"
        );
        for id in [connection.as_str(), device.as_str()] {
            assert_eq!(
                sender_query(Some(&format!("after=3&sender={id}"))).ok(),
                Some(Some(id.to_owned())),
                "{id} is a sender"
            );
        }
        for query in [
            "sender=".to_owned(),
            "sender=con_".to_owned(),
            "sender=msg_aaaaaaaaaaaaaaaaaaaaaaaaaa".to_owned(),
            format!("sender={}%20", connection.as_str()),
            format!("sender={0}&sender={0}", connection.as_str()),
        ] {
            let err = sender_query(Some(&query)).expect_err("must be refused");
            assert_eq!(err.0.fields, vec!["sender"], "{query} names sender");
            assert_eq!(err.code(), Some(ErrorCode::InvalidRequest), "{query}");
        }
    }

    #[test]
    fn kinds() {
        assert!(check_kind("message").is_ok(), "plain kind");
        assert!(
            check_kind("secret_offer").is_ok(),
            "underscores are allowed"
        );
        for bad in ["", "Message", "a-b", "x1", &"a".repeat(33)] {
            assert!(check_kind(bad).is_err(), "{bad:?} is refused");
        }
    }
}
