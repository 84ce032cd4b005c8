//! Operations of `routes/messages.rs`, `routes/files.rs` and `routes/secrets.rs`
//! (docs/protocol.md, docs/files.md, docs/secrets.md).
#![allow(dead_code)] // the functions only carry `#[utoipa::path]`

use herald_protocol::files::{FileReservation, ReserveFileRequest};
use herald_protocol::secrets::{
    OfferKeyRequest, SecretEnvelope, SecretOfferState, SecretPayloadRequest,
};
use herald_protocol::wire::{
    AnswerRequest, MessagePage, MessageRecord, SendMessageRequest, ThreadPage,
};
use herald_protocol::{ErrorBody, FileId, MessageId};
use utoipa::OpenApi;

use super::responses::{NotFound, PayloadTooLarge};
use super::schemas::Binary;

/// Messages, files and secrets.
#[derive(OpenApi)]
#[openapi(paths(
    list_messages,
    send_message,
    get_message,
    get_thread,
    answer_message,
    cancel_message,
    reserve_file,
    upload_file,
    download_file,
    collect_secret_answer,
    get_offer_state,
    put_offer_key,
    put_secret_payload,
    collect_secret_payload,
))]
pub(super) struct MessagesApi;

/// The change feed: records changed after a revision, in revision order.
#[utoipa::path(
    get,
    path = "/messages",
    tag = "messages",
    operation_id = "listMessages",
    params(
        ("after" = Option<u64>, Query, description = "Revision cursor, 0 to 2^63 − 1; records with a greater revision (default 0)."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1–500 (default 100)."),
        ("sender" = Option<String>, Query, pattern = "^(con|dev)_[a-z2-7]{26}$", description = "Only the records this connection or device sent: the relay's one search, since the rest of a record is sealed. Given once."),
    ),
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 200, description = "A page; devices see every message of the account, connections their own.", body = MessagePage),
        (status = 400, description = "`invalid_request` (`after`, `limit` or `sender`).", body = ErrorBody),
    )
)]
fn list_messages() {}

/// Send a message or request (idempotent per `Idempotency-Key`).
#[utoipa::path(
    post,
    path = "/messages",
    tag = "messages",
    operation_id = "sendMessage",
    params(
        ("Idempotency-Key" = String, Header, min_length = 1, max_length = 255, description = "1–255 characters, scoped to the credential. The same key with the same body (or `contentDigest`) answers the original record."),
    ),
    request_body = SendMessageRequest,
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 201, description = "Stored; sockets are nudged.", body = MessageRecord),
        (status = 200, description = "A retry: the original record.", body = MessageRecord),
        (status = 400, description = "`idempotency_key_required`, `bad_request`, or `invalid_request` (`kind`, `expiresAt`, `expiresIn`, `replyTo`, `contentDigest`, `attachments…`, `envelope…`).", body = ErrorBody),
        (status = 409, description = "`idempotency_conflict`, `message_id_taken`, `keys_changed` (not sealed to the current account key), `file_already_attached`.", body = ErrorBody),
        (status = 410, description = "`file_expired`: an attachment expired before a message carried it.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn send_message() {}

/// One record.
#[utoipa::path(
    get,
    path = "/messages/{id}",
    tag = "messages",
    operation_id = "getMessage",
    params(("id" = MessageId, Path, description = "The message.")),
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 200, description = "The record.", body = MessageRecord),
        (status = 404, response = NotFound),
    )
)]
fn get_message() {}

/// The conversation a message belongs to, oldest first.
#[utoipa::path(
    get,
    path = "/messages/{id}/thread",
    tag = "messages",
    operation_id = "getThread",
    params(("id" = MessageId, Path, description = "Any message of the thread.")),
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 200, description = "The records the caller may see.", body = ThreadPage),
        (status = 404, response = NotFound),
    )
)]
fn get_thread() {}

/// Answer a request, exactly once.
#[utoipa::path(
    post,
    path = "/messages/{id}/answer",
    tag = "messages",
    operation_id = "answerMessage",
    params(("id" = MessageId, Path, description = "The request.")),
    request_body = AnswerRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "Answered; sockets are nudged.", body = MessageRecord),
        (status = 400, description = "`bad_request` or `invalid_request` (`envelope…`, `secretEnvelope…`, `attachments…`, `secretAttachments…`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`already_answered`, `request_expired`, `request_cancelled`, `not_a_request`, `keys_changed`, `file_already_attached`.", body = ErrorBody),
        (status = 410, description = "`file_expired`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn answer_message() {}

/// Cancel a pending request (its sender or a device).
#[utoipa::path(
    post,
    path = "/messages/{id}/cancel",
    tag = "messages",
    operation_id = "cancelMessage",
    params(("id" = MessageId, Path, description = "The request.")),
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 200, description = "Cancelled; sockets are nudged.", body = MessageRecord),
        (status = 404, response = NotFound),
        (status = 409, description = "`not_a_request`, `already_answered`, `request_expired`, `request_cancelled`.", body = ErrorBody),
    )
)]
fn cancel_message() {}

/// Reserve an upload of an encrypted file.
#[utoipa::path(
    post,
    path = "/files",
    tag = "files",
    operation_id = "reserveFile",
    request_body = ReserveFileRequest,
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 201, description = "Reserved for 15 minutes.", body = FileReservation),
        (status = 400, description = "`bad_request` or `invalid_request` (`name`, `type`, `size`).", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: the body, or `size` over 100 MiB.", body = ErrorBody),
    )
)]
fn reserve_file() {}

/// Upload a reserved file's ciphertext: exactly the reserved size, once.
#[utoipa::path(
    put,
    path = "/files/{id}",
    tag = "files",
    operation_id = "uploadFile",
    params(("id" = FileId, Path, description = "The reservation.")),
    request_body(content = Binary, content_type = "application/octet-stream", description = "The age ciphertext."),
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 200, description = "Uploaded; `expiresAt` is now the deadline to attach it.", body = FileReservation),
        (status = 400, description = "`file_too_short`, or `bad_request` (the body could not be read).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`file_already_uploaded` (or being uploaded).", body = ErrorBody),
        (status = 410, description = "`file_reservation_expired`, `file_expired`.", body = ErrorBody),
        (status = 413, description = "`file_too_long`, `payload_too_large`.", body = ErrorBody),
    )
)]
fn upload_file() {}

/// Download a file's ciphertext (its uploader, or whoever may read a message carrying it).
#[utoipa::path(
    get,
    path = "/files/{id}",
    tag = "files",
    operation_id = "downloadFile",
    params(("id" = FileId, Path, description = "The file.")),
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 200, description = "The age ciphertext, streamed, with `Content-Length`.", content_type = "application/octet-stream", body = Binary),
        (status = 404, response = NotFound),
        (status = 410, description = "`file_expired`: deleted.", body = ErrorBody),
    )
)]
fn download_file() {}

/// Collect a secret answer, once (the asking connection).
#[utoipa::path(
    post,
    path = "/messages/{id}/secret/collect",
    tag = "secrets",
    operation_id = "collectSecretAnswer",
    params(("id" = MessageId, Path, description = "The answered request.")),
    security(("connection" = [])),
    responses(
        (status = 200, description = "The secret envelope (kind `secretAnswer`); the relay deletes it.", body = SecretEnvelope),
        (status = 404, response = NotFound),
        (status = 410, description = "`secret_collected`, `secret_expired`.", body = ErrorBody),
    )
)]
fn collect_secret_answer() {}

/// Where a secret offer stands.
#[utoipa::path(
    get,
    path = "/messages/{id}/offer-key",
    tag = "secrets",
    operation_id = "getOfferState",
    params(("id" = MessageId, Path, description = "The secret offer.")),
    security(("deviceSession" = []), ("connection" = [])),
    responses(
        (status = 200, description = "Its state.", body = SecretOfferState),
        (status = 404, response = NotFound),
        (status = 409, description = "`not_a_secret_offer`.", body = ErrorBody),
    )
)]
fn get_offer_state() {}

/// Open a secret offer on this device: post its one-time key.
#[utoipa::path(
    put,
    path = "/messages/{id}/offer-key",
    tag = "secrets",
    operation_id = "putOfferKey",
    params(("id" = MessageId, Path, description = "The secret offer.")),
    request_body = OfferKeyRequest,
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "Opened.", body = SecretOfferState),
        (status = 400, description = "`bad_request` or `invalid_request` (`certificate…`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`not_a_secret_offer`, `offer_key_exists`.", body = ErrorBody),
        (status = 410, description = "`secret_expired`, `secret_collected`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn put_offer_key() {}

/// Post an offer's secret, sealed to the offer key (the sending connection).
#[utoipa::path(
    post,
    path = "/messages/{id}/secret-payload",
    tag = "secrets",
    operation_id = "putSecretPayload",
    params(("id" = MessageId, Path, description = "The secret offer.")),
    request_body = SecretPayloadRequest,
    security(("connection" = [])),
    responses(
        (status = 200, description = "Sent.", body = SecretOfferState),
        (status = 400, description = "`bad_request` or `invalid_request` (`envelope…`).", body = ErrorBody),
        (status = 404, response = NotFound),
        (status = 409, description = "`not_a_secret_offer`, `offer_not_opened`, `secret_payload_exists`.", body = ErrorBody),
        (status = 410, description = "`secret_expired`, `secret_collected`.", body = ErrorBody),
        (status = 413, response = PayloadTooLarge),
    )
)]
fn put_secret_payload() {}

/// Collect an offer's secret, once (the device that opened it).
#[utoipa::path(
    post,
    path = "/messages/{id}/secret-payload/collect",
    tag = "secrets",
    operation_id = "collectSecretPayload",
    params(("id" = MessageId, Path, description = "The secret offer.")),
    security(("deviceSession" = [])),
    responses(
        (status = 200, description = "The secret envelope (kind `secretPayload`); the relay deletes it.", body = SecretEnvelope),
        (status = 404, response = NotFound),
        (status = 409, description = "`not_a_secret_offer`, `offer_not_opened`, `secret_not_sent`.", body = ErrorBody),
        (status = 410, description = "`secret_collected`, `secret_expired`.", body = ErrorBody),
    )
)]
fn collect_secret_payload() {}
