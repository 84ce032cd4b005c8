//! Notifications from agents (docs/agents.md): the `POST /v1/notify` whitelist and its
//! validation, receipts, replies, status, the device feed of sealed notifications, and quiet
//! hours.
//!
//! Notifications are NOT end-to-end encrypted: the relay sees them in transit, seals the
//! whitelisted fields ([`NotificationContent`]) to the account's current encryption key on
//! arrival and keeps only that plus metadata. Only text and presentation fields exist; anything
//! else (buttons, commands, callbacks, URLs, scripts, HTML, unknown names) is refused as
//! `forbidden_fields`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ids::{NotificationId, Revision};

/// Longest `title`, in characters.
pub const MAX_TITLE_CHARS: usize = 180;
/// Longest `subtitle`, in characters.
pub const MAX_SUBTITLE_CHARS: usize = 180;
/// Longest `body`, in characters.
pub const MAX_BODY_CHARS: usize = 4_000;
/// Longest `group` or `threadId`, in characters.
pub const MAX_GROUP_CHARS: usize = 128;
/// Longest `notificationId` (1–128 of `[A-Za-z0-9._:-]`).
pub const MAX_NOTIFICATION_ID_LEN: usize = 128;
/// Longest typed reply, in characters.
pub const MAX_REPLY_CHARS: usize = 4_000;
/// How long the relay keeps a notification and its receipt after it arrived: 24 hours.
pub const RECEIPT_RETENTION_SECS: i64 = 24 * 60 * 60;
/// Largest `wait` of `GET /v1/replies/{id}`, in seconds.
pub const MAX_REPLY_WAIT_SECS: u64 = 60;
/// How long a voice reply's `audioUrl` stays valid, in seconds.
pub const AUDIO_URL_VALID_SECS: u64 = 3_600;
/// Default and largest page of `GET /notifications`.
pub const DEFAULT_NOTIFICATION_PAGE: u32 = 100;
/// Largest page of `GET /notifications`.
pub const MAX_NOTIFICATION_PAGE: u32 = 500;

/// Every field `POST /v1/notify` accepts; anything else is `forbidden_fields`.
pub const NOTIFY_FIELDS: &[&str] = &[
    "title",
    "subtitle",
    "body",
    "notificationId",
    "speak",
    "expectReply",
    "priority",
    "sound",
    "group",
    "threadId",
];

/// How insistent a notification is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Priority {
    Low,
    #[default]
    Normal,
    High,
}

/// What the relay seals to the account key (FROZEN once stored: devices open old ones).
/// JSON, camelCase, absent optionals omitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationContent {
    /// The agent's id for it (given or generated).
    pub notification_id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtitle: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Read it aloud (default false).
    #[serde(default)]
    pub speak: bool,
    /// Offer a reply box (default false).
    #[serde(default)]
    pub expect_reply: bool,
    #[serde(default)]
    pub priority: Priority,
    /// Play the system sound with the banner (default true).
    #[serde(default = "yes")]
    pub sound: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
}

fn yes() -> bool {
    true
}

/// Why a notify body was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotifyRejection {
    /// The body is not a JSON object.
    NotAnObject,
    /// Names outside [`NOTIFY_FIELDS`], sorted.
    ForbiddenFields(Vec<String>),
    /// Whitelisted fields that break their rule: every one of them, in [`NOTIFY_FIELDS`]
    /// order, never empty.
    Invalid(Vec<FieldProblem>),
}

/// One field of a notify body that breaks its rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    /// The field's name (`title`, `priority`, ...).
    pub field: String,
    /// A sentence naming the field and its rule.
    pub message: String,
}

/// `"rejected fields: a, b."` — the message of `forbidden_fields`.
pub fn forbidden_fields_message(fields: &[String]) -> String {
    format!("rejected fields: {}.", fields.join(", "))
}

/// Whether `id` is a valid `notificationId`: 1–128 characters of `[A-Za-z0-9._:-]`.
pub fn is_valid_notification_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_NOTIFICATION_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// A checked `POST /v1/notify` body. `notification_id` is `None` when the agent gave none
/// (the relay makes one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyRequest {
    pub notification_id: Option<String>,
    pub title: String,
    pub subtitle: Option<String>,
    pub body: Option<String>,
    pub speak: bool,
    pub expect_reply: bool,
    pub priority: Priority,
    pub sound: bool,
    pub group: Option<String>,
    pub thread_id: Option<String>,
}

fn invalid(field: &str, message: impl Into<String>) -> FieldProblem {
    FieldProblem {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// A text field: a string (or null/absent for optional ones), within `max` characters,
/// without control characters except newlines and tabs where `multiline`.
fn text(
    map: &Map<String, Value>,
    field: &str,
    max: usize,
    multiline: bool,
) -> Result<Option<String>, FieldProblem> {
    let value = match map.get(field) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s,
        Some(_) => return Err(invalid(field, format!("{field} must be a string."))),
    };
    if value.chars().count() > max {
        return Err(invalid(
            field,
            format!("{field} is longer than {max} characters."),
        ));
    }
    let allowed = |c: char| multiline && (c == '\n' || c == '\t' || c == '\r');
    if value.chars().any(|c| c.is_control() && !allowed(c)) {
        return Err(invalid(
            field,
            format!("{field} must not contain control characters."),
        ));
    }
    // A one-line field (title, subtitle, group) is read at a glance in a system banner: no
    // bidirectional overrides or zero-width characters. The Markdown body keeps them.
    if !multiline && crate::text::has_hidden_characters(value) {
        return Err(invalid(
            field,
            format!("{field} must not contain invisible formatting characters."),
        ));
    }
    Ok(Some(value.clone()))
}

/// `title`: required, under the one rule of titles and names ([`crate::text::check_label`]).
fn title(map: &Map<String, Value>) -> Result<String, FieldProblem> {
    match map.get("title") {
        Some(Value::String(t)) => match crate::text::check_label(t, MAX_TITLE_CHARS) {
            Ok(()) => Ok(t.clone()),
            Err(e) => Err(invalid("title", format!("title {e}."))),
        },
        None | Some(Value::Null) => Err(invalid("title", "title is required.")),
        Some(_) => Err(invalid("title", "title must be a string.")),
    }
}

fn flag(map: &Map<String, Value>, field: &str, default: bool) -> Result<bool, FieldProblem> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(invalid(field, format!("{field} must be true or false."))),
    }
}

/// The value of a checked field, or `T::default()` with the problem recorded.
fn keep<T: Default>(problems: &mut Vec<FieldProblem>, checked: Result<T, FieldProblem>) -> T {
    checked.unwrap_or_else(|p| {
        problems.push(p);
        T::default()
    })
}

impl NotifyRequest {
    /// Checks a body against the whitelist, then each field's rule. Forbidden fields are
    /// reported first and all at once; otherwise every field that breaks its rule is reported
    /// ([`NotifyRejection::Invalid`]).
    pub fn parse(value: &Value) -> Result<NotifyRequest, NotifyRejection> {
        let Value::Object(map) = value else {
            return Err(NotifyRejection::NotAnObject);
        };
        let mut forbidden: Vec<String> = map
            .keys()
            .filter(|k| !NOTIFY_FIELDS.contains(&k.as_str()))
            .cloned()
            .collect();
        if !forbidden.is_empty() {
            forbidden.sort();
            return Err(NotifyRejection::ForbiddenFields(forbidden));
        }
        let mut problems = Vec::new();
        let p = &mut problems;
        let title = keep(p, title(map));
        let subtitle = keep(p, text(map, "subtitle", MAX_SUBTITLE_CHARS, false));
        let body = keep(p, text(map, "body", MAX_BODY_CHARS, true));
        let notification_id = keep(p, match map.get("notificationId") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(id)) if is_valid_notification_id(id) => Ok(Some(id.clone())),
            Some(_) => Err(invalid(
                "notificationId",
                "notificationId must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', ':' and '-'.",
            )),
        });
        let speak = keep(p, flag(map, "speak", false));
        let expect_reply = keep(p, flag(map, "expectReply", false));
        let priority = keep(
            p,
            match map.get("priority") {
                None | Some(Value::Null) => Ok(Priority::Normal),
                Some(Value::String(v)) if v == "low" => Ok(Priority::Low),
                Some(Value::String(v)) if v == "normal" => Ok(Priority::Normal),
                Some(Value::String(v)) if v == "high" => Ok(Priority::High),
                Some(_) => Err(invalid(
                    "priority",
                    "priority must be \"low\", \"normal\" or \"high\".",
                )),
            },
        );
        let sound = keep(p, flag(map, "sound", true));
        let group = keep(p, text(map, "group", MAX_GROUP_CHARS, false));
        let thread_id = keep(p, text(map, "threadId", MAX_GROUP_CHARS, false));
        if !problems.is_empty() {
            return Err(NotifyRejection::Invalid(problems));
        }
        Ok(NotifyRequest {
            notification_id,
            title,
            subtitle,
            body,
            speak,
            expect_reply,
            priority,
            sound,
            group,
            thread_id,
        })
    }

    /// The content to seal, under the final notification id.
    pub fn into_content(self, notification_id: String) -> NotificationContent {
        NotificationContent {
            notification_id,
            title: self.title,
            subtitle: self.subtitle,
            body: self.body,
            speak: self.speak,
            expect_reply: self.expect_reply,
            priority: self.priority,
            sound: self.sound,
            group: self.group,
            thread_id: self.thread_id,
        }
    }
}

/// A notification's receipt: `POST /v1/notify` (with `duplicate`) and
/// `GET /v1/receipts/{notificationId}` (without). Times are the relay's clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Receipt {
    /// Only in the answer to `POST /v1/notify`: true when the id was seen before and nothing
    /// was queued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<bool>,
    pub notification_id: String,
    /// Always true: the relay has it.
    pub received: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub received_at: String,
    /// No device has reported it displayed, spoken, suppressed or replied to yet.
    pub queued: bool,
    pub displayed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub displayed_at: Option<String>,
    pub spoken: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub spoken_at: Option<String>,
    pub replied: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub replied_at: Option<String>,
    pub expect_reply: bool,
    /// Held back by quiet hours (or the device): no banner, no speech.
    pub suppressed: bool,
}

/// `GET /v1/replies/{notificationId}?wait=N`. Nothing yet: `replied: false, timedOut: true`.
/// A typed answer has `text`; a voice answer has `transcript` (made on the device, possibly
/// imperfect), `audioUrl` (valid [`AUDIO_URL_VALID_SECS`]) and `durationSeconds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReplyResult {
    pub notification_id: String,
    pub replied: bool,
    /// `Some(false)` only for a notification sent without `expectReply`: no reply can come, so
    /// the relay answers at once whatever `wait` says (no waiting, no poll seconds spent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_reply: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub replied_at: Option<String>,
    pub suppressed: bool,
}

/// `quietHours` of [`StatusResponse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QuietHoursActive {
    pub active: bool,
}

/// `GET /v1/status`: exactly these three members, nothing else about the devices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StatusResponse {
    /// A device of the account holds a live `/ws` connection now.
    pub online: bool,
    /// Last device activity (now while online); null when no device was ever seen.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub last_seen_at: Option<String>,
    pub quiet_hours: QuietHoursActive,
}

/// Version of [`SealedNotification`].
pub const SEALED_NOTIFICATION_VERSION: u32 = 1;

/// A notification's content sealed by the relay to the account encryption key (HPKE base
/// mode, docs/agents.md "Storage"). Binary values base64url without padding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SealedNotification {
    /// [`SEALED_NOTIFICATION_VERSION`].
    pub v: u32,
    /// Key id of the account encryption key (epoch) it is sealed to.
    pub key_id: String,
    /// HPKE encapsulated key (32 bytes).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub enc: String,
    /// HPKE ciphertext of the [`NotificationContent`] JSON.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Base64Url))]
    pub ciphertext: String,
}

/// Who sent a notification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NotificationSource {
    /// `agentKey` or `connector`.
    pub kind: String,
    /// The agent key's or connector's id.
    pub id: String,
    /// Its name when the notification arrived.
    pub name: String,
}

/// One notification in the device feed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NotificationRecord {
    pub id: NotificationId,
    /// The revision of its last change (arrival, a receipt, the reply).
    pub revision: Revision,
    pub source: NotificationSource,
    pub sealed: SealedNotification,
    /// Its receipt (without `duplicate`).
    pub receipt: Receipt,
}

/// `GET /notifications?after=<cursor>&limit=<n>` (device).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NotificationPage {
    pub records: Vec<NotificationRecord>,
    /// The revision to pass as `after` next.
    pub cursor: Revision,
    pub has_more: bool,
}

/// `POST /notifications/{id}/receipt` (device): set one or more receipts. Only `true` is
/// accepted; each is stamped once by the relay's clock (repeats keep the first time).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReceiptUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displayed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spoken: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<bool>,
}

/// `POST /notifications/{id}/reply` (device): the one typed reply (1–4,000 characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReplyRequest {
    pub text: String,
}

/// `PUT /quiet-hours` (device) and the settings part of `GET /quiet-hours`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QuietHours {
    pub enabled: bool,
    /// `HH:MM`, 24-hour, local time in `timezone`.
    pub start: String,
    /// `HH:MM`; before `start` means the period runs over midnight. Must differ from start.
    pub end: String,
    /// IANA name, e.g. `Europe/Paris`.
    pub timezone: String,
}

impl Default for QuietHours {
    fn default() -> Self {
        QuietHours {
            enabled: false,
            start: "22:00".into(),
            end: "07:00".into(),
            timezone: "UTC".into(),
        }
    }
}

/// `GET /quiet-hours` and the answer to `PUT`: the settings and whether they hold now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuietHoursView {
    #[serde(flatten)]
    pub settings: QuietHours,
    pub active: bool,
}

/// Parses `HH:MM` (00:00–23:59) into minutes after midnight.
pub fn parse_hhmm(s: &str) -> Option<u16> {
    let (h, m) = s.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let h: u16 = h.parse().ok()?;
    let m: u16 = m.parse().ok()?;
    (h < 24 && m < 60).then_some(h * 60 + m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whitelist_table() {
        let cases: &[(Value, Result<(), NotifyRejection>)] = &[
            (json!({"title": "Build finished"}), Ok(())),
            (
                json!({"title": "t", "body": "a\nb", "subtitle": "s", "speak": true,
                       "expectReply": true, "priority": "high", "sound": false,
                       "group": "ci", "threadId": "t-1", "notificationId": "build-214"}),
                Ok(()),
            ),
            (
                json!({"title": "t", "command": "rm -rf /"}),
                Err(NotifyRejection::ForbiddenFields(vec!["command".into()])),
            ),
            (
                json!({"title": "t", "url": "x", "buttons": [], "script": "x"}),
                Err(NotifyRejection::ForbiddenFields(vec![
                    "buttons".into(),
                    "script".into(),
                    "url".into(),
                ])),
            ),
            (
                json!({"command": 1}),
                Err(NotifyRejection::ForbiddenFields(vec!["command".into()])),
            ),
            (json!([1]), Err(NotifyRejection::NotAnObject)),
            (json!({}), Err(bad("title", "x"))),
            (json!({"title": "  "}), Err(bad("title", "x"))),
            (json!({"title": "x".repeat(181)}), Err(bad("title", "x"))),
            (json!({"title": "x".repeat(180)}), Ok(())),
            (json!({"title": "a\u{7}"}), Err(bad("title", "x"))),
            (json!({"title": "a\nb"}), Err(bad("title", "x"))),
            (
                json!({"title": "t", "body": "x".repeat(4001)}),
                Err(bad("body", "x")),
            ),
            (
                json!({"title": "t", "notificationId": ""}),
                Err(bad("notificationId", "x")),
            ),
            (
                json!({"title": "t", "notificationId": "a b"}),
                Err(bad("notificationId", "x")),
            ),
            (
                json!({"title": "t", "notificationId": "x".repeat(129)}),
                Err(bad("notificationId", "x")),
            ),
            (
                json!({"title": "t", "priority": "urgent"}),
                Err(bad("priority", "x")),
            ),
            (
                json!({"title": "t", "speak": "yes"}),
                Err(bad("speak", "x")),
            ),
        ];
        for (body, want) in cases {
            let got = NotifyRequest::parse(body);
            match (got, want) {
                (Ok(_), Ok(())) => {}
                (Err(NotifyRejection::Invalid(got)), Err(NotifyRejection::Invalid(want))) => {
                    let got: Vec<_> = got.iter().map(|p| p.field.as_str()).collect();
                    let want: Vec<_> = want.iter().map(|p| p.field.as_str()).collect();
                    assert_eq!(got, want, "{body}: the offending fields")
                }
                (got, want) => assert_eq!(got.map(|_| ()), want.clone(), "{body}"),
            }
        }
    }

    /// A rejection naming `field` only (messages are not compared).
    fn bad(field: &str, _message: &str) -> NotifyRejection {
        NotifyRejection::Invalid(vec![invalid(field, "x")])
    }

    #[test]
    fn every_bad_field_is_named() {
        let body = json!({"title": "a\u{202E}b", "subtitle": 3, "priority": "urgent",
                          "speak": "yes", "threadId": "x".repeat(129), "body": "fine"});
        let Err(NotifyRejection::Invalid(problems)) = NotifyRequest::parse(&body) else {
            panic!("refused");
        };
        let fields: Vec<_> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            ["title", "subtitle", "speak", "priority", "threadId"]
        );
        for p in &problems {
            assert!(p.message.starts_with(&p.field), "{p:?}");
        }
    }

    #[test]
    fn defaults_and_message() {
        let req = NotifyRequest::parse(&json!({"title": "t"})).unwrap();
        assert!(!req.speak && !req.expect_reply, "off by default");
        assert!(req.sound, "sound on by default");
        assert_eq!(req.priority, Priority::Normal);
        assert_eq!(
            forbidden_fields_message(&["command".into()]),
            "rejected fields: command.",
            "the message of the spec's example"
        );
        assert_eq!(
            forbidden_fields_message(&["a".into(), "b".into()]),
            "rejected fields: a, b."
        );
    }

    #[test]
    fn receipt_snapshot() {
        let r = Receipt {
            duplicate: Some(false),
            notification_id: "build-214".into(),
            received: true,
            received_at: "2026-10-02T13:00:04.000Z".into(),
            queued: true,
            displayed: false,
            displayed_at: None,
            spoken: false,
            spoken_at: None,
            replied: false,
            replied_at: None,
            expect_reply: true,
            suppressed: false,
        };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"duplicate":false,"notificationId":"build-214","received":true,"receivedAt":"2026-10-02T13:00:04.000Z","queued":true,"displayed":false,"spoken":false,"replied":false,"expectReply":true,"suppressed":false}"#,
            "the receipt of the spec's send_notification example, in its order"
        );
        let s = StatusResponse {
            online: true,
            last_seen_at: Some("2026-10-02T13:14:19.111Z".into()),
            quiet_hours: QuietHoursActive { active: false },
        };
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"online":true,"lastSeenAt":"2026-10-02T13:14:19.111Z","quietHours":{"active":false}}"#,
            "the status of the spec's example"
        );
    }

    #[test]
    fn hhmm() {
        assert_eq!(parse_hhmm("22:00"), Some(22 * 60));
        assert_eq!(parse_hhmm("07:05"), Some(7 * 60 + 5));
        for bad in ["24:00", "7:00", "07:60", "0700", "aa:bb", ""] {
            assert_eq!(parse_hhmm(bad), None, "{bad:?}");
        }
    }
}
