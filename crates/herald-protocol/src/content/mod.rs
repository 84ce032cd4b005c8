//! Message content and answers: what only devices and connections see (it travels inside the
//! envelope's ciphertext), with the published limits. Validation runs where content is
//! visible: in the CLI/SDK before sealing and on the device after opening, so a malformed
//! message from a buggy sender becomes an error card, never a broken inbox.
//!
//! A message has a title, a Markdown body, optional [`blocks`](Block) and at most one form,
//! written one of three ways: [`fields`](Field), [`questions`](Question) (Claude Code's
//! AskUserQuestion shape) or a flat JSON [`schema`](FormSchema). All three reduce to one list
//! of fields, [`MessageContent::effective_fields`], which validation and the UI share.
//! [`actions`](Action) answer the form in one tap. Every limit is a constant in [`limits`].
//!
//! Layout: `fields` (field and action shapes), `questions`, `schema` + `property` (schema →
//! fields), `blocks`, `answer` (answer shape and checks), `dates`, `check` (violations and the
//! shared field checker).

use std::borrow::Cow;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};

mod answer;
mod attachments;
mod blocks;
mod check;
pub mod dates;
mod fields;
pub mod limits;
mod property;
mod questions;
mod schema;

pub use answer::AnswerContent;
pub use attachments::Attachment;
pub use blocks::{Block, ImageBlock, TableBlock, TextBlock};
pub use check::Violation;
pub use fields::{Action, Bounds, ChoiceOption, Field, FieldKind};
pub use limits::*;
pub use questions::{question_answers, Question, QuestionOption};
pub use schema::FormSchema;

use answer::{check_answer_attachments, check_values};
use check::{check_field, check_id, Check, Part, Source};

/// The decrypted content of a message or request.
///
/// JSON: `{title, body?, fields? | questions? | schema?, actions?, blocks?, requiresReview?,
/// attachments?}`.
/// (The message `kind` is relay-visible metadata on the send request, not content.)
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageContent {
    /// 1–[`MAX_TITLE_CHARS`] characters, not blank.
    pub title: String,
    /// Markdown, ≤ [`MAX_BODY_CHARS`] characters.
    #[serde(default)]
    pub body: String,
    /// Up to [`MAX_FIELDS`] form fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
    /// 0 or 1–[`MAX_ACTIONS`] one-tap answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    /// Up to [`MAX_QUESTIONS`] multiple-choice questions, instead of `fields`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Question>,
    /// A flat JSON Schema object, instead of `fields`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<FormSchema>,
    /// Up to [`MAX_BLOCKS`] blocks shown above the form.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    /// Open the full view before answering (see [`MessageContent::requires_review`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_review: bool,
    /// Up to [`MAX_ATTACHMENTS`] encrypted files; image blocks show image attachments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

impl MessageContent {
    /// Whether this content asks for an answer (it has a form or actions).
    pub fn expects_answer(&self) -> bool {
        // A schema or questions ask even when they are broken: validation then says why.
        !self.effective_fields().is_empty()
            || !self.actions.is_empty()
            || !self.questions.is_empty()
            || self.schema.is_some()
    }

    /// Whether the full view must open before answering: `requiresReview` on the message or
    /// on any block.
    pub fn requires_review(&self) -> bool {
        self.requires_review || self.blocks.iter().any(Block::requires_review)
    }

    /// The form as fields: `fields`, else `questions` expanded (`q1…qN`), else `schema`
    /// converted (property order kept), else none. Meant for content that passed
    /// [`validate`](Self::validate); otherwise best effort.
    pub fn effective_fields(&self) -> Cow<'_, [Field]> {
        if !self.fields.is_empty() {
            Cow::Borrowed(&self.fields)
        } else if !self.questions.is_empty() {
            Cow::Owned(questions::to_fields(&self.questions))
        } else if let Some(schema) = &self.schema {
            Cow::Owned(schema.to_fields())
        } else {
            Cow::Borrowed(&[])
        }
    }

    /// Where effective field `index` (with id `id`) was written, to name it in errors.
    fn source<'a>(&self, index: usize, id: &'a str) -> Source<'a> {
        if !self.fields.is_empty() {
            Source::Field(index)
        } else if !self.questions.is_empty() {
            Source::Question(index)
        } else {
            // A schema field's id is its property name.
            Source::Schema {
                name: id,
                array: false,
            }
        }
    }

    /// Checks every published limit; returns all violations, each naming its path.
    pub fn validate(&self) -> Result<(), Vec<Violation>> {
        let mut c = Check::default();
        c.label("title", &self.title, MAX_TITLE_CHARS);
        c.text("body", &self.body, 0, MAX_BODY_CHARS);
        if self.fields.len() > MAX_FIELDS {
            c.fail("fields", format!("at most {MAX_FIELDS} fields"));
        }
        if self.actions.len() > MAX_ACTIONS {
            c.fail("actions", format!("at most {MAX_ACTIONS} actions"));
        }
        let forms = [
            ("fields", !self.fields.is_empty()),
            ("questions", !self.questions.is_empty()),
            ("schema", self.schema.is_some()),
        ];
        for (name, _) in forms.iter().filter(|(_, given)| *given).skip(1) {
            c.fail(
                *name,
                "a message has at most one of fields, questions and schema",
            );
        }
        let mut ids = HashSet::new();
        for (i, field) in self.fields.iter().enumerate() {
            if !ids.insert(field.id.as_str()) {
                c.fail(format!("fields[{i}].id"), "duplicate field id");
            }
            check_field(&mut c, Source::Field(i), field);
        }
        questions::check_questions(&mut c, &self.questions);
        if let Some(schema) = &self.schema {
            schema.check(&mut c);
        }
        attachments::check_attachments(&mut c, &self.attachments);
        blocks::check_blocks(&mut c, &self.blocks, &self.attachments);
        self.check_actions(&mut c);
        c.done()
    }

    /// [`validate`](Self::validate) for content sent as a request (`herald ask`, the MCP
    /// `ask` tool, the SDK's `AgentClient::ask`):
    /// it must also ask for something. An empty `questions` (or `fields`, or `actions`) list
    /// is the same as none, so without this rule it would go out as a plain message. The
    /// violation's path is empty.
    pub fn validate_request(&self) -> Result<(), Vec<Violation>> {
        let mut violations = self.validate().err().unwrap_or_default();
        if !self.expects_answer() {
            violations.push(Violation {
                path: String::new(),
                message: "a request must ask for something: give it at least one question, \
                          field or action (or a schema); an empty list asks nothing"
                    .into(),
            });
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }

    fn check_actions(&self, c: &mut Check) {
        let fields = self.effective_fields();
        if !self.actions.is_empty() {
            for (i, field) in fields.iter().enumerate() {
                if field.kind.excludes_actions() {
                    c.fail(
                        self.source(i, &field.id).path(Part::Type),
                        format!(
                            "a {} field cannot be combined with actions",
                            field.kind.type_name()
                        ),
                    );
                }
            }
        }
        let mut action_ids = HashSet::new();
        for (i, action) in self.actions.iter().enumerate() {
            let path = format!("actions[{i}]");
            check_id(c, &format!("{path}.id"), &action.id);
            if !action_ids.insert(action.id.as_str()) {
                c.fail(format!("{path}.id"), "duplicate action id");
            }
            c.label(&format!("{path}.label"), &action.label, MAX_LABEL_CHARS);
            if let Err(errs) = check_values(&fields, &action.values) {
                for e in errs {
                    let message = if e.message == "is required" {
                        // The usual surprise: a button cannot carry what the person types.
                        "is required, and a tapped action answers the form with its own \
                         values, fixed when the request is sent: give the action this value, \
                         make the field optional, or ask the decision as a required choice \
                         field instead of actions"
                            .to_owned()
                    } else {
                        e.message
                    };
                    c.fail(format!("{path}.values.{}", e.path), message);
                }
            }
        }
    }

    /// Checks an answer against the effective form: the action exists (its values are then
    /// the answer), or the values satisfy every field (types, bounds, integer-ness, dates,
    /// options, Other length, required, nullable, no unknown fields). Paths are field ids, or
    /// `actionId` / `values`.
    pub fn validate_answer(&self, answer: &AnswerContent) -> Result<(), Vec<Violation>> {
        let fail = |path: &str, message: String| {
            Err(vec![Violation {
                path: path.into(),
                message,
            }])
        };
        if !self.expects_answer() {
            return fail("", "this message does not ask for an answer".into());
        }
        if let Some(action_id) = &answer.action_id {
            let Some(action) = self.actions.iter().find(|a| &a.id == action_id) else {
                return fail(
                    "actionId",
                    format!("no action {action_id:?} in this request"),
                );
            };
            if !answer.attachments.is_empty() {
                return fail(
                    "attachments",
                    "an action's answer carries no attachments".into(),
                );
            }
            if action.values != answer.values {
                return fail(
                    "values",
                    "an action's answer carries exactly the action's values".into(),
                );
            }
            return Ok(());
        }
        let fields = self.effective_fields();
        if fields.is_empty() {
            return fail("actionId", "choose one of the actions".into());
        }
        let mut violations = check_values(&fields, &answer.values)
            .err()
            .unwrap_or_default();
        if let Err(more) = check_answer_attachments(&fields, answer) {
            violations.extend(more);
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }
}
