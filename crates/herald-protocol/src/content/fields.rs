//! Form fields, their types and options, and action buttons: the shapes a sender writes in
//! `fields` and `actions`, and what `questions` and `schema` are converted into.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// One form field.
///
/// JSON: `{id, label, type, required?, help?, default?, nullable?, header?, ...}` plus the
/// type's settings (`options`/`other` for choices) and bounds (`minimum`/`maximum`,
/// `minLength`/`maxLength`). `id` is 1–[`MAX_ID_CHARS`](super::MAX_ID_CHARS) characters of
/// `A–Z a–z 0–9 _ - .`, unique in the form; `label` 1–[`MAX_LABEL_CHARS`](super::MAX_LABEL_CHARS);
/// `help` ≤ [`MAX_HELP_CHARS`](super::MAX_HELP_CHARS); `header` 1–
/// [`MAX_HEADER_CHARS`](super::MAX_HEADER_CHARS); `default` must be a valid answer to the field.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    pub id: String,
    pub label: String,
    #[serde(flatten)]
    pub kind: FieldKind,
    /// The answer must carry a value (non-blank text, at least one item of a multiselect).
    #[serde(default)]
    pub required: bool,
    /// Shown under the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Pre-filled answer; must itself be valid for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// `null` is an accepted answer even when the field is required.
    #[serde(default)]
    pub nullable: bool,
    /// Short name of the field in the card's pager (questions carry theirs here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// Numeric and length bounds, each only valid on the types it names.
    #[serde(flatten)]
    pub bounds: Bounds,
}

/// Bounds of a field's answer, all inclusive.
///
/// `minimum`/`maximum` apply to `number` and `integer` fields (integers need integral bounds);
/// `minLength`/`maxLength` to `text`, `textarea` and `secret` fields, with `maxLength` ≤
/// [`MAX_TEXT_ANSWER_CHARS`](super::MAX_TEXT_ANSWER_CHARS). A bound on any other type, or a
/// lower bound above the upper one, is a violation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bounds {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
}

impl Bounds {
    /// Whether no bound is set.
    pub fn is_empty(&self) -> bool {
        *self == Bounds::default()
    }
}

/// The type of a field (`type`) and its type-specific settings. Answers by type:
///
/// | `type` | answer |
/// |---|---|
/// | `text`, `textarea` | string, ≤ [`MAX_TEXT_ANSWER_CHARS`](super::MAX_TEXT_ANSWER_CHARS) |
/// | `number` | JSON number within the bounds |
/// | `integer` | JSON number with no fractional part within the bounds |
/// | `boolean` | `true` or `false` |
/// | `date` | string `YYYY-MM-DD` (a real calendar day) |
/// | `date-time` | RFC 3339 string, e.g. `2025-04-01T09:30:00Z` |
/// | `choice` | one option `value`, or free text ≤ [`MAX_OTHER_CHARS`](super::MAX_OTHER_CHARS) when `other` |
/// | `multiselect` | array of distinct option values, plus one free-text item when `other` |
/// | `secret` | string, like `text` (its transport is end-to-end to the asking connection only) |
/// | `file`, `secret-file` | object `{"attachmentId": "<id>"}` naming an upload |
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum FieldKind {
    /// One line of text.
    #[default]
    Text,
    /// Several lines of text.
    Textarea,
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// Yes or no.
    Boolean,
    /// A calendar day, `YYYY-MM-DD`.
    Date,
    /// An instant, RFC 3339.
    #[serde(rename = "date-time")]
    DateTime,
    /// Exactly one of the options (or free text when `other`).
    #[serde(rename_all = "camelCase")]
    Choice {
        /// 1–[`MAX_OPTIONS`](super::MAX_OPTIONS) options with distinct values.
        options: Vec<ChoiceOption>,
        /// Adds an "Other" choice answered with free text.
        #[serde(default)]
        other: bool,
    },
    /// Any number of the options (plus one free-text item when `other`).
    #[serde(rename_all = "camelCase")]
    Multiselect {
        /// 1–[`MAX_OPTIONS`](super::MAX_OPTIONS) options with distinct values.
        options: Vec<ChoiceOption>,
        /// Adds an "Other" choice: one extra free-text item.
        #[serde(default)]
        other: bool,
    },
    /// A credential; never combined with actions.
    Secret,
    /// An uploaded file; `secret: true` makes it a `secret-file`. Never combined with actions.
    File {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        secret: bool,
    },
    /// A file only the asking connection can download. Never combined with actions.
    #[serde(rename = "secret-file")]
    SecretFile,
}

impl FieldKind {
    /// The wire `type` text.
    pub fn type_name(&self) -> &'static str {
        match self {
            FieldKind::Text => "text",
            FieldKind::Textarea => "textarea",
            FieldKind::Number => "number",
            FieldKind::Integer => "integer",
            FieldKind::Boolean => "boolean",
            FieldKind::Date => "date",
            FieldKind::DateTime => "date-time",
            FieldKind::Choice { .. } => "choice",
            FieldKind::Multiselect { .. } => "multiselect",
            FieldKind::Secret => "secret",
            FieldKind::File { secret: false } => "file",
            FieldKind::File { secret: true } | FieldKind::SecretFile => "secret-file",
        }
    }

    /// Answered with a string whose length `minLength`/`maxLength` may bound.
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            FieldKind::Text | FieldKind::Textarea | FieldKind::Secret
        )
    }

    /// Answered with a number that `minimum`/`maximum` may bound.
    pub fn is_numeric(&self) -> bool {
        matches!(self, FieldKind::Number | FieldKind::Integer)
    }

    /// Answered with an attachment object.
    pub fn is_file(&self) -> bool {
        matches!(self, FieldKind::File { .. } | FieldKind::SecretFile)
    }

    /// A secret, file or secret-file field: these cannot be combined with actions.
    pub fn excludes_actions(&self) -> bool {
        matches!(self, FieldKind::Secret) || self.is_file()
    }

    /// The options and the `other` flag of a choice or multiselect field.
    pub fn options(&self) -> Option<(&[ChoiceOption], bool)> {
        match self {
            FieldKind::Choice { options, other } | FieldKind::Multiselect { options, other } => {
                Some((options, *other))
            }
            _ => None,
        }
    }
}

/// One option of a choice field: `{value, label, description?, preview?}`.
///
/// `value` (what the answer carries) and `label` are 1–[`MAX_LABEL_CHARS`](super::MAX_LABEL_CHARS);
/// `description` (shown under the label) ≤ [`MAX_DESCRIPTION_CHARS`](super::MAX_DESCRIPTION_CHARS);
/// `preview` (Markdown shown while the option is selected: a mockup, some code) ≤
/// [`MAX_PREVIEW_CHARS`](super::MAX_PREVIEW_CHARS).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceOption {
    pub value: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

/// A one-tap answer: `{id, label, values}` where `values` is a complete, valid answer to the
/// form (often `{}`). `id` follows the field id rules and is unique; `label` 1–
/// [`MAX_LABEL_CHARS`](super::MAX_LABEL_CHARS).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    pub id: String,
    pub label: String,
    #[serde(default)]
    pub values: Map<String, Value>,
}
