//! Types the desktop UI (and `herald inbox`) sees. Declared once here, exported to
//! TypeScript with ts-rs into `ui/src/lib/bindings/` (committed; CI checks they are current).
//!
//! Every type is camelCase on the wire, the same shape Tauri commands return.

//!
//! Presenting also lives here: `present` turns cache rows into these views, `render_cache`
//! keeps rendered bodies. The view layer may call the session (to open a stored message) and
//! the renderer; nothing in it posts or syncs.

pub(crate) mod present;
pub(crate) mod render_cache;

pub use crate::error_code::UiErrorCode;
pub use crate::session::local_key::SecretStorageKind;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Whether this device has an account yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum SetupStatus {
    /// First run: no keys on this device.
    NeedsSetup,
    /// Keys are present and unlocked; the inbox can sync.
    Ready,
}

/// What the UI needs to pick its first screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SetupState {
    pub status: SetupStatus,
    pub account_id: Option<String>,
    pub device_id: Option<String>,
    pub device_name: Option<String>,
    /// Base URL of the relay this device syncs with, e.g. `http://127.0.0.1:8457`.
    pub relay_url: Option<String>,
    /// 30 digits in 6 groups of 5, separated by spaces; the same on every device.
    pub safety_code: Option<String>,
    pub secret_storage: SecretStorageKind,
    /// Path of the 0600 key file when `secret_storage` is `file`.
    pub secret_storage_path: Option<String>,
}

/// Returned once, at account creation. The recovery key is never stored on this device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct OnboardResult {
    pub account_id: String,
    /// 128-bit key in Crockford base32, groups of 4 separated by `-`.
    pub recovery_key: String,
    pub safety_code: String,
}

/// A connection (an agent credential) as listed in the Connections screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConnectionView {
    pub id: String,
    pub name: String,
    /// What its token may do: `messages:send`, `messages:read`, `events:read` (docs/
    /// authorization.md, "Scopes"), in that order.
    pub scopes: Vec<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
}

/// Returned once when a connection is created: `token` is shown once and never again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct NewConnection {
    pub id: String,
    pub name: String,
    /// `hdr_<bearer>.<seed>.<fingerprint>`; only `hdr_<bearer>` is ever sent to the relay.
    pub token: String,
    /// The relay URL the agent should use as `HERALD_URL`.
    pub relay_url: String,
    /// What the token may do, as in [`ConnectionView::scopes`].
    pub scopes: Vec<String>,
}

/// Lifecycle of a message as the relay reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum MessageStatus {
    /// A message that asks nothing.
    Delivered,
    /// A request waiting for an answer.
    Pending,
    Answered,
    Expired,
    Cancelled,
}

/// What a message is, from the relay's `kind` (docs/secrets.md). Kinds this version does not
/// know show as `message`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum MessageKind {
    /// A message or a request (relay kind `message`).
    Message,
    /// A secret offer (relay kind `secret`): title and body only; open it with
    /// `open_secret_offer`, then `reveal_secret_offer` shows the secret once.
    Secret,
}

/// One row of the inbox list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct MessageSummary {
    pub id: String,
    /// Fits a JS number: revisions stay far below 2^53.
    #[ts(type = "number")]
    pub revision: u64,
    /// Decrypted title, or "Unreadable message" when `error` is set.
    pub title: String,
    /// Name of the sending connection (or device).
    pub sender_name: String,
    /// Id of the sending connection (`con_…`, as in `ConnectionView.id`) or device; null for
    /// messages this device cached before it kept senders' ids. Settings mute senders by it.
    pub sender_id: Option<String>,
    /// RFC 3339, UTC, the relay's clock.
    pub created_at: String,
    pub expires_at: Option<String>,
    pub status: MessageStatus,
    pub expects_answer: bool,
    pub unread: bool,
    /// Set when the message could not be verified, decrypted or validated; the reason.
    pub error: Option<String>,
    /// The conversation: id of its first message (equal to `id` for a first message).
    pub thread_id: String,
    /// Position in the thread, 0 for the first message.
    pub thread_sequence: u32,
    /// The message this one replies to.
    pub reply_to: Option<String>,
    /// `message`, or `secret` for a secret offer.
    pub kind: MessageKind,
}

/// One page of the inbox (`Core::inbox_page`): the newest messages first, then, given the id
/// of the last one shown, the next older ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InboxPage {
    /// Newest first (`createdAt`, then `id`, descending); at most the limit asked for.
    pub messages: Vec<MessageSummary>,
    /// Whether messages older than the last one here exist (ask again with its id).
    pub more: bool,
    /// How many of those older messages are unread (0 when `more` is false).
    pub unread_older: u32,
}

/// The requests waiting for the person (`Core::pending_requests`): the tray's menu and count,
/// the window title's count, the global shortcut's target. Not sent to the UI.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PendingRequests {
    /// How many requests are pending and not expired.
    pub count: u32,
    /// The newest of them, newest first (at most the limit asked for).
    pub newest: Vec<MessageSummary>,
    /// The earliest deadline among them (RFC 3339, the relay's clock): the count falls then
    /// without any event.
    pub next_expiry: Option<String>,
}

/// One option of a choice field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct OptionView {
    pub value: String,
    pub label: String,
    pub description: Option<String>,
    /// The option's Markdown preview, rendered to sanitized HTML (safe as innerHTML); shown
    /// while the option is selected.
    pub preview_html: Option<String>,
}

/// Field types the UI can render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum FieldKind {
    Text,
    Textarea,
    Choice,
    Multiselect,
    Number,
    Integer,
    Boolean,
    /// `YYYY-MM-DD`.
    Date,
    /// RFC 3339.
    DateTime,
    Secret,
    /// Answered with `{"attachmentId": ...}`.
    File,
    /// A file only the asking connection can download; answered like `File`.
    SecretFile,
}

/// One form field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FieldView {
    pub id: String,
    pub label: String,
    pub kind: FieldKind,
    pub required: bool,
    pub help: Option<String>,
    pub options: Vec<OptionView>,
    /// Default value as JSON text, if any.
    pub default_json: Option<String>,
    /// Short name of the field in the card's pager.
    pub header: Option<String>,
    /// Choice and multiselect: an "Other" choice answered with free text.
    pub other: bool,
    /// Number and integer: inclusive bounds.
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    /// Text, textarea and secret: inclusive length bounds, in characters.
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
}

/// One-tap answer button.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ActionView {
    pub id: String,
    pub label: String,
}

/// The answer this account gave, as decrypted on this device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AnswerView {
    pub action_id: Option<String>,
    /// The answer values as pretty JSON text.
    pub values_json: String,
    pub answered_at: String,
    /// Files the answer carries (file fields); save them with `save_attachment` and the
    /// request's message id.
    pub attachments: Vec<AttachmentView>,
}

/// An encrypted file carried by a message or an answer (docs/files.md). The key never leaves
/// the core: save it with `Core::save_attachment`, show an image with
/// `Core::attachment_bytes_for_image`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AttachmentView {
    /// `fil_…`, the id to pass to `save_attachment` / `attachment_bytes_for_image`.
    pub id: String,
    /// The sender's file name (a name, never a path; untrusted: escape before showing).
    pub name: String,
    /// MIME type as the sender declared it, e.g. `image/png`.
    pub mime_type: String,
    /// Plaintext size in bytes (≤ 100,000,000; fits a JS number).
    #[ts(type = "number")]
    pub size: u64,
    /// Whether an image block can show it inline (PNG, JPEG, GIF or WebP of at most 10 MB).
    pub inline_image: bool,
}

/// A message opened in the reading pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct MessageView {
    pub summary: MessageSummary,
    /// The same as `summary.kind`: `secret` shows the secret-offer card instead of a form.
    pub kind: MessageKind,
    /// Sanitized HTML of the Markdown body (herald-render); safe to insert as innerHTML.
    pub body_html: String,
    /// The Markdown source of the body (for terminals and "copy as Markdown").
    pub body_markdown: String,
    pub actions: Vec<ActionView>,
    pub fields: Vec<FieldView>,
    /// Where `fields` came from: the desktop pages `questions` one field per step with a pager
    /// of headers, pages other forms the same way when a field has a `header`, and shows the
    /// rest as one form.
    pub form_source: FormSource,
    /// Structured content shown above the form, in order (≤ 10).
    pub blocks: Vec<BlockView>,
    /// Whether the person must open the full view before answering (the message or any block
    /// asks for review).
    pub requires_review: bool,
    pub answer: Option<AnswerView>,
    /// Files the message carries, in the sender's order (≤ 10).
    pub attachments: Vec<AttachmentView>,
    /// This device's answer waits in its outbox for the relay (`answer_queued` from
    /// `Core::answer`): shown as pending, not as an error. Once the
    /// relay takes it, the view carries the answer and this is false again.
    pub answer_queued: bool,
}

/// How the sender wrote the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum FormSource {
    /// No form (a message, or actions only).
    None,
    Fields,
    /// AskUserQuestion-style `questions`; each field is one question (q1…qN).
    Questions,
    /// A flat JSON Schema.
    Schema,
}

/// What a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum BlockKind {
    Code,
    Diff,
    Json,
    Table,
    Image,
}

/// One block, rendered by the backend to sanitized HTML (syntect classes for code and JSON,
/// `diff-*` rows for diffs, `data-table` for tables; an image block's `html` is only a
/// fallback: the UI shows the attachment named by `attachment_id`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct BlockView {
    pub kind: BlockKind,
    /// Optional caption (code, diff, json).
    pub title: Option<String>,
    /// Language of a code block: text, sql, javascript, typescript, python or json.
    pub language: Option<String>,
    /// Safe to insert as innerHTML.
    pub html: String,
    /// Plain text for terminals (`herald inbox show`): the code, diff or JSON as sent, a table
    /// as tab-separated lines, an image as `[image: alt]`. Untrusted: escape control
    /// characters before printing.
    pub text: String,
    pub requires_review: bool,
    /// Image blocks: the attachment to show (see `MessageView::attachments`); load its bytes
    /// with `attachment_bytes_for_image`.
    pub attachment_id: Option<String>,
}

/// What the person submits: either an action id (its values are taken from the action) or
/// field values, an object from field id to value (string, or array of strings for multiselect),
/// plus the local files chosen for file fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AnswerInput {
    pub action_id: Option<String>,
    /// JSON object text, e.g. `{"reason":"looks good"}`; ignored when `action_id` is set.
    pub values_json: Option<String>,
    /// File and secret-file fields: field id → path of a local file (at most 100 MB) that the
    /// core encrypts and uploads as the field's answer (docs/files.md). A field named here
    /// must not also appear in `values_json`. Empty by default; must be empty with `action_id`.
    #[serde(default)]
    #[ts(type = "Record<string, string>")]
    pub files: std::collections::BTreeMap<String, std::path::PathBuf>,
}

/// Events pushed to the UI (Tauri event name `herald://event`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
#[ts(export)]
pub enum CoreEvent {
    /// A message was added or changed (new, answered, expired...). `isNew` is true the first
    /// time this device sees it (used for OS notifications).
    #[serde(rename_all = "camelCase")]
    MessageUpserted {
        message: MessageSummary,
        is_new: bool,
    },
    /// A notification from an agent was added or changed (receipt, reply, read). `isNew` is
    /// true the first time this device sees it; show a banner (and speak when `speak`) only
    /// when it is new and not `suppressed` (quiet hours), then report the receipt.
    #[serde(rename_all = "camelCase")]
    NotificationUpserted {
        notification: crate::notification_view::NotificationView,
        is_new: bool,
    },
    /// The fully highlighted body of message `id` is ready (its first view had code blocks
    /// marked `highlight-skipped`): fetch the message again and swap in its `bodyHtml`.
    #[serde(rename_all = "camelCase")]
    MessageRendered { id: String },
    /// Connection to the relay went up or down.
    #[serde(rename_all = "camelCase")]
    SyncState {
        connected: bool,
        error: Option<String>,
    },
}

/// Error the UI receives: it branches on `code`, never on `message`, and shows each of
/// `fields` beside the input it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UiError {
    /// Stable snake_case code, one of [`UiErrorCode`] (`validation_failed`,
    /// `already_answered`, …). A String here because a relay's code passes through as sent
    /// (a newer relay may know codes this build does not); TypeScript sees the union.
    #[ts(as = "UiErrorCode")]
    pub code: String,
    /// A sentence for the person; never holds a secret.
    pub message: String,
    /// The inputs at fault, in the order found; empty when the error is about no input.
    #[serde(default)]
    pub fields: Vec<FieldError>,
}

/// One input an error is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FieldError {
    /// Where: a form field's id (`env`), a path into it (`fields[2].label`), an argument
    /// (`relayUrl`), or `values` / `actionId` for an answer as a whole.
    pub path: String,
    /// Why, as a phrase (`must be at most 5 characters`); empty when the source gave only
    /// the name (a relay error's `fields`).
    pub message: String,
}

impl UiError {
    /// An error about no input in particular.
    pub fn new(code: UiErrorCode, message: impl Into<String>) -> Self {
        UiError {
            code: code.as_str().into(),
            message: message.into(),
            fields: Vec::new(),
        }
    }

    /// Whether this error carries `code`.
    pub fn is(&self, code: UiErrorCode) -> bool {
        self.code == code.as_str()
    }
}

impl From<&crate::Error> for UiError {
    /// The core's error with its code; a validation error lists each violation in `fields`,
    /// a relay error the fields its body named.
    fn from(error: &crate::Error) -> Self {
        let fields = match error {
            crate::Error::Validation(violations) => violations
                .iter()
                .map(|v| FieldError {
                    path: v.path.clone(),
                    message: v.message.clone(),
                })
                .collect(),
            crate::Error::Relay { body, .. } => body
                .fields
                .iter()
                .map(|name| FieldError {
                    path: name.clone(),
                    message: String::new(),
                })
                .collect(),
            _ => Vec::new(),
        };
        UiError {
            code: error.code(),
            message: error.to_string(),
            fields,
        }
    }
}

#[cfg(test)]
mod tests {
    use herald_protocol::content::Violation;
    use herald_protocol::error::{ErrorBody, ErrorCode};

    use super::{FieldError, UiError};
    use crate::Error;

    fn field(path: &str, message: &str) -> FieldError {
        FieldError {
            path: path.into(),
            message: message.into(),
        }
    }

    #[test]
    fn a_validation_error_lists_each_violation_as_a_field() {
        let error = Error::Validation(vec![
            Violation {
                path: "replicas".into(),
                message: "must be at most 5".into(),
            },
            Violation {
                path: "actionId".into(),
                message: "no such action".into(),
            },
        ]);
        let ui = UiError::from(&error);
        assert_eq!(ui.code, "validation_failed");
        assert_eq!(
            ui.fields,
            vec![
                field("replicas", "must be at most 5"),
                field("actionId", "no such action")
            ]
        );
        let json = serde_json::to_value(&ui).expect("serializes");
        assert_eq!(json["fields"][0]["path"], "replicas");
    }

    #[test]
    fn a_relay_error_names_its_fields_and_others_name_none() {
        let mut body =
            ErrorBody::with_message(ErrorCode::ForbiddenFields, "rejected fields: command.");
        body.fields = vec!["command".into()];
        let ui = UiError::from(&Error::Relay { status: 400, body });
        assert_eq!(ui.code, "forbidden_fields");
        assert_eq!(ui.fields, vec![field("command", "")]);

        let ui = UiError::from(&Error::AnswerQueued);
        assert!(ui.fields.is_empty());
        // An older payload without `fields` still reads.
        let old: UiError =
            serde_json::from_str(r#"{"code":"storage","message":"locked"}"#).expect("reads");
        assert!(old.fields.is_empty());
    }
}
