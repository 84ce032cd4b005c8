//! Answers and their validation against the effective form.
//!
//! An answer is checked before it is sealed (the device that writes it) and after it is opened,
//! against the form the message actually shows: `fields`, or `questions` expanded, or `schema`
//! converted (see [`MessageContent::effective_fields`](super::MessageContent::effective_fields)).

use std::cmp::Ordering;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::attachments::{check_attachments, Attachment};
use super::check::{cmp_numbers, is_integral, Check, Violation};
use super::dates::{is_date, is_date_time};
use super::fields::{Field, FieldKind};
use super::limits::*;

/// The decrypted content of an answer: `{actionId?, values}`.
///
/// `values` maps field ids to answers (see [`FieldKind`] for each type's shape). A file or
/// secret-file answer is `{"attachmentId": "<id>"}` naming one of the answer's `attachments`
/// (the upload, with its key; docs/files.md). An answer
/// from an action carries its `actionId` and exactly that action's `values`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerContent {
    /// The action tapped, if the answer came from an action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    /// Field id → value.
    #[serde(default)]
    pub values: Map<String, Value>,
    /// Files uploaded for file fields (≤ [`MAX_ATTACHMENTS`]); each file answer's
    /// `attachmentId` names one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

/// Checks answer values against fields: no unknown keys, every required field answered (or
/// `null` when nullable), each value valid for its type. Violation paths are field ids.
pub(crate) fn check_values(
    fields: &[Field],
    values: &Map<String, Value>,
) -> Result<(), Vec<Violation>> {
    let mut c = Check::default();
    for key in values.keys() {
        if !fields.iter().any(|f| &f.id == key) {
            c.fail(key.clone(), "no such field");
        }
    }
    for field in fields {
        match values.get(&field.id) {
            None | Some(Value::Null) if field.required && !field.nullable => {
                c.fail(field.id.clone(), "is required")
            }
            None | Some(Value::Null) => {}
            Some(v) => {
                if let Err(e) = check_value(field, v) {
                    c.fail(field.id.clone(), e);
                }
            }
        }
    }
    c.done()
}

/// Why `s` is refused for a choice: not an option, or (with Other) blank or too long. The
/// value is quoted only when short, so a pasted essay does not flood the error.
fn not_an_option(s: &str, other: bool) -> String {
    if other && s.trim().is_empty() {
        return "an Other answer must not be blank".into();
    }
    if other && s.chars().count() > MAX_OTHER_CHARS {
        return format!("an Other answer has at most {MAX_OTHER_CHARS} characters");
    }
    let shown: String = s.chars().take(40).collect();
    let ellipsis = if s.chars().count() > 40 { "…" } else { "" };
    format!("{shown:?}{ellipsis} is not one of the options")
}

/// Checks one non-null value against its field; the error is the reason.
pub(crate) fn check_value(field: &Field, value: &Value) -> Result<(), String> {
    match (&field.kind, value) {
        (kind, Value::String(s)) if kind.is_text() => check_text(field, s),
        (FieldKind::Number | FieldKind::Integer, Value::Number(n)) => {
            if field.kind == FieldKind::Integer && !is_integral(n) {
                return Err("must be a whole number".into());
            }
            if let Some(min) = &field.bounds.minimum {
                if cmp_numbers(n, min) == Ordering::Less {
                    return Err(format!("must be at least {min}"));
                }
            }
            if let Some(max) = &field.bounds.maximum {
                if cmp_numbers(n, max) == Ordering::Greater {
                    return Err(format!("must be at most {max}"));
                }
            }
            Ok(())
        }
        (FieldKind::Number, _) => Err("must be a number".into()),
        (FieldKind::Integer, _) => Err("must be a number (a whole one)".into()),
        (FieldKind::Boolean, Value::Bool(_)) => Ok(()),
        (FieldKind::Boolean, _) => Err("must be true or false".into()),
        (FieldKind::Date, Value::String(s)) if is_date(s) => Ok(()),
        (FieldKind::Date, _) => Err("must be a date, YYYY-MM-DD".into()),
        (FieldKind::DateTime, Value::String(s)) if is_date_time(s) => Ok(()),
        (FieldKind::DateTime, _) => Err("must be an RFC 3339 date-time".into()),
        (FieldKind::Choice { options, other }, Value::String(s)) => {
            let is_option = options.iter().any(|o| &o.value == s);
            if is_option || (*other && is_other_text(s)) {
                Ok(())
            } else {
                Err(not_an_option(s, *other))
            }
        }
        (FieldKind::Multiselect { options, other }, Value::Array(items)) => {
            let mut extra = 0;
            let mut seen = HashSet::new();
            for item in items {
                let Value::String(s) = item else {
                    return Err("items must be strings".into());
                };
                if !seen.insert(s.as_str()) {
                    return Err(format!("{s:?} is chosen twice"));
                }
                if !options.iter().any(|o| &o.value == s) {
                    extra += 1;
                    if *other && extra > 1 {
                        return Err("only one Other answer may be added".into());
                    }
                    if !*other || !is_other_text(s) {
                        return Err(not_an_option(s, *other));
                    }
                }
            }
            if field.required && items.is_empty() {
                return Err("is required".into());
            }
            Ok(())
        }
        (FieldKind::Multiselect { .. }, _) => Err("must be an array of strings".into()),
        (kind, Value::Object(o)) if kind.is_file() => check_attachment(o),
        (kind, _) if kind.is_file() => Err("must be an object {\"attachmentId\": ...}".into()),
        _ => Err("must be a string".into()),
    }
}

fn check_text(field: &Field, s: &str) -> Result<(), String> {
    if field.required && s.trim().is_empty() {
        return Err("is required".into());
    }
    let n = s.chars().count();
    let max = field.bounds.max_length.map_or(MAX_TEXT_ANSWER_CHARS, |m| {
        (m as usize).min(MAX_TEXT_ANSWER_CHARS)
    });
    if n > max {
        return Err(format!("must have at most {max} characters"));
    }
    if let Some(min) = field.bounds.min_length {
        if n < min as usize {
            return Err(format!("must have at least {min} characters"));
        }
    }
    Ok(())
}

/// Checks an answer's `attachments`: their shapes, that every file answer names one of them,
/// and that each is named by a file answer. Paths: `attachments[i].…`, or the field id.
pub(crate) fn check_answer_attachments(
    fields: &[Field],
    answer: &AnswerContent,
) -> Result<(), Vec<Violation>> {
    let mut c = Check::default();
    check_attachments(&mut c, &answer.attachments);
    let mut named = HashSet::new();
    for field in fields.iter().filter(|f| f.kind.is_file()) {
        // A malformed file answer is reported by the value check already.
        let id = answer
            .values
            .get(&field.id)
            .filter(|v| check_value(field, v).is_ok())
            .and_then(|v| v.get("attachmentId"))
            .and_then(Value::as_str);
        if let Some(id) = id {
            named.insert(id);
            if !answer.attachments.iter().any(|a| a.id == id) {
                c.fail(field.id.clone(), "must name an attachment of this answer");
            }
        }
    }
    for (i, a) in answer.attachments.iter().enumerate() {
        if !named.contains(a.id.as_str()) {
            c.fail(
                format!("attachments[{i}].id"),
                "is not the answer of any file field",
            );
        }
    }
    c.done()
}

/// Free text answering "Other": not blank, ≤ 100 characters.
fn is_other_text(s: &str) -> bool {
    !s.trim().is_empty() && s.chars().count() <= MAX_OTHER_CHARS
}

/// `{"attachmentId": "<id>"}` and nothing else.
fn check_attachment(o: &Map<String, Value>) -> Result<(), String> {
    if let Some(key) = o.keys().find(|k| *k != "attachmentId") {
        return Err(format!(
            "unknown key {key:?}; a file answer is {{\"attachmentId\": ...}}"
        ));
    }
    match o.get("attachmentId") {
        Some(Value::String(id)) if is_attachment_id(id) => Ok(()),
        _ => Err(format!(
            "attachmentId must be 1–{MAX_ATTACHMENT_ID_CHARS} visible characters"
        )),
    }
}

/// An attachment id: 1–128 characters, none of them whitespace or control characters.
pub(crate) fn is_attachment_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= MAX_ATTACHMENT_ID_CHARS
        && !id.chars().any(|c| c.is_whitespace() || c.is_control())
}
