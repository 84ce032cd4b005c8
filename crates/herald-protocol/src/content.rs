//! Message content and answers: what only devices and connections see (it travels inside the
//! envelope's ciphertext), with the published limits. Validation runs where content is
//! visible: in the CLI/SDK before sealing and on the device after opening, so a malformed
//! message from a buggy sender becomes an error card, never a broken inbox.
//!
//! This covers the first end-to-end path: title, Markdown body, actions, and text, textarea,
//! choice and multiselect fields. (Questions, JSON Schema forms, blocks and the remaining field
//! types extend it.)

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Longest title, in characters (Unicode scalar values).
pub const MAX_TITLE_CHARS: usize = 180;
/// Longest Markdown body, in characters.
pub const MAX_BODY_CHARS: usize = 50_000;
/// Most fields in a form.
pub const MAX_FIELDS: usize = 30;
/// Most action buttons.
pub const MAX_ACTIONS: usize = 8;
/// Longest id of a field, option value or action.
pub const MAX_ID_CHARS: usize = 64;
/// Longest label of a field, option or action.
pub const MAX_LABEL_CHARS: usize = 200;
/// Most options of a choice field.
pub const MAX_OPTIONS: usize = 50;
/// Longest free-text "Other" answer.
pub const MAX_OTHER_CHARS: usize = 100;
/// Longest text answer of a text or textarea field.
pub const MAX_TEXT_ANSWER_CHARS: usize = 10_000;

/// The decrypted content of a message or request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageContent {
    /// 1–180 characters.
    pub title: String,
    /// Markdown, ≤ 50,000 characters.
    #[serde(default)]
    pub body: String,
    /// Up to 30 form fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
    /// 0 or 1–8 one-tap answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
}

/// One form field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    pub id: String,
    pub label: String,
    #[serde(flatten)]
    pub kind: FieldKind,
    #[serde(default)]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(default)]
    pub nullable: bool,
}

/// The type of a field and its type-specific settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum FieldKind {
    /// One line of text.
    Text,
    /// Several lines of text.
    Textarea,
    /// Exactly one of the options (or free text when `other`).
    #[serde(rename_all = "camelCase")]
    Choice {
        options: Vec<ChoiceOption>,
        #[serde(default)]
        other: bool,
    },
    /// Any number of the options (plus one free-text item when `other`).
    #[serde(rename_all = "camelCase")]
    Multiselect {
        options: Vec<ChoiceOption>,
        #[serde(default)]
        other: bool,
    },
}

/// One option of a choice field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceOption {
    pub value: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A one-tap answer: `values` is a complete, valid answer to the form (often `{}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    pub id: String,
    pub label: String,
    #[serde(default)]
    pub values: Map<String, Value>,
}

/// The decrypted content of an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerContent {
    /// The action tapped, if the answer came from an action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    /// Field id → value.
    #[serde(default)]
    pub values: Map<String, Value>,
}

/// One broken rule: the JSON path of the offending input and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Collects violations while walking content.
#[derive(Default)]
struct Check(Vec<Violation>);

impl Check {
    fn fail(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Violation {
            path: path.into(),
            message: message.into(),
        });
    }

    fn text(&mut self, path: &str, value: &str, min: usize, max: usize) {
        let n = value.chars().count();
        if n < min {
            self.fail(path, format!("must have at least {min} character(s)"));
        } else if n > max {
            self.fail(
                path,
                format!("must have at most {max} characters (has {n})"),
            );
        }
    }

    fn done(self) -> Result<(), Vec<Violation>> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self.0)
        }
    }
}

impl MessageContent {
    /// Whether this content asks for an answer (it has fields or actions).
    pub fn expects_answer(&self) -> bool {
        !self.fields.is_empty() || !self.actions.is_empty()
    }

    /// Checks every published limit; returns all violations, each naming its path.
    pub fn validate(&self) -> Result<(), Vec<Violation>> {
        let mut c = Check::default();
        c.text("title", self.title.trim(), 1, MAX_TITLE_CHARS);
        c.text("body", &self.body, 0, MAX_BODY_CHARS);
        if self.fields.len() > MAX_FIELDS {
            c.fail("fields", format!("at most {MAX_FIELDS} fields"));
        }
        if self.actions.len() > MAX_ACTIONS {
            c.fail("actions", format!("at most {MAX_ACTIONS} actions"));
        }
        let mut ids = HashSet::new();
        for (i, field) in self.fields.iter().enumerate() {
            let path = format!("fields[{i}]");
            if !ids.insert(field.id.as_str()) {
                c.fail(format!("{path}.id"), "duplicate field id");
            }
            check_field(&mut c, &path, field);
        }
        let mut action_ids = HashSet::new();
        for (i, action) in self.actions.iter().enumerate() {
            let path = format!("actions[{i}]");
            check_id(&mut c, &format!("{path}.id"), &action.id);
            if !action_ids.insert(action.id.as_str()) {
                c.fail(format!("{path}.id"), "duplicate action id");
            }
            c.text(&format!("{path}.label"), &action.label, 1, MAX_LABEL_CHARS);
            if let Err(errs) = check_values(&self.fields, &action.values) {
                for e in errs {
                    c.fail(format!("{path}.values.{}", e.path), e.message);
                }
            }
        }
        c.done()
    }

    /// Checks an answer against this form: the action exists (its values are then the
    /// answer), or the values satisfy every field.
    pub fn validate_answer(&self, answer: &AnswerContent) -> Result<(), Vec<Violation>> {
        if !self.expects_answer() {
            return Err(vec![Violation {
                path: "".into(),
                message: "this message does not ask for an answer".into(),
            }]);
        }
        if let Some(action_id) = &answer.action_id {
            let Some(action) = self.actions.iter().find(|a| &a.id == action_id) else {
                return Err(vec![Violation {
                    path: "actionId".into(),
                    message: format!("no action {action_id:?} in this request"),
                }]);
            };
            if action.values != answer.values {
                return Err(vec![Violation {
                    path: "values".into(),
                    message: "an action's answer carries exactly the action's values".into(),
                }]);
            }
            return Ok(());
        }
        if self.fields.is_empty() {
            return Err(vec![Violation {
                path: "actionId".into(),
                message: "choose one of the actions".into(),
            }]);
        }
        check_values(&self.fields, &answer.values)
    }
}

fn check_id(c: &mut Check, path: &str, id: &str) {
    let ok = !id.is_empty()
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.'));
    if !ok {
        c.fail(
            path,
            format!("must be 1–{MAX_ID_CHARS} characters of A–Z, a–z, 0–9, _ - ."),
        );
    }
}

fn check_field(c: &mut Check, path: &str, field: &Field) {
    check_id(c, &format!("{path}.id"), &field.id);
    c.text(&format!("{path}.label"), &field.label, 1, MAX_LABEL_CHARS);
    if let FieldKind::Choice { options, .. } | FieldKind::Multiselect { options, .. } = &field.kind
    {
        if options.is_empty() || options.len() > MAX_OPTIONS {
            c.fail(
                format!("{path}.options"),
                format!("must have 1–{MAX_OPTIONS} options"),
            );
        }
        let mut values = HashSet::new();
        for (j, option) in options.iter().enumerate() {
            let opath = format!("{path}.options[{j}]");
            c.text(&format!("{opath}.value"), &option.value, 1, MAX_LABEL_CHARS);
            c.text(&format!("{opath}.label"), &option.label, 1, MAX_LABEL_CHARS);
            if !values.insert(option.value.as_str()) {
                c.fail(format!("{opath}.value"), "duplicate option value");
            }
        }
    }
    if let Some(default) = &field.default {
        if let Err(e) = check_value(field, default) {
            c.fail(format!("{path}.default"), e);
        }
    }
}

/// Checks answer values against fields; paths are field ids.
fn check_values(fields: &[Field], values: &Map<String, Value>) -> Result<(), Vec<Violation>> {
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

fn check_value(field: &Field, value: &Value) -> Result<(), String> {
    match (&field.kind, value) {
        (FieldKind::Text | FieldKind::Textarea, Value::String(s)) => {
            if field.required && s.trim().is_empty() {
                return Err("is required".into());
            }
            let n = s.chars().count();
            if n > MAX_TEXT_ANSWER_CHARS {
                return Err(format!(
                    "must have at most {MAX_TEXT_ANSWER_CHARS} characters"
                ));
            }
            Ok(())
        }
        (FieldKind::Choice { options, other }, Value::String(s)) => {
            let is_option = options.iter().any(|o| &o.value == s);
            let is_other = *other && !s.trim().is_empty() && s.chars().count() <= MAX_OTHER_CHARS;
            if is_option || is_other {
                Ok(())
            } else {
                Err(format!("{s:?} is not one of the options"))
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
                    if !*other
                        || extra > 1
                        || s.trim().is_empty()
                        || s.chars().count() > MAX_OTHER_CHARS
                    {
                        return Err(format!("{s:?} is not one of the options"));
                    }
                }
            }
            if field.required && items.is_empty() {
                return Err("is required".into());
            }
            Ok(())
        }
        (FieldKind::Multiselect { .. }, _) => Err("must be an array of strings".into()),
        _ => Err("must be a string".into()),
    }
}

#[cfg(test)]
mod tests;
