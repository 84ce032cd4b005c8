//! `questions`: several multiple-choice questions at once, in the shape of Claude Code's
//! AskUserQuestion input, so an agent can ask through Herald instead of its own question tool.
//!
//! Question `i` (from 0) becomes the required field `q{i+1}`: a `choice` (or `multiselect` with
//! `multiSelect`) with `other: true`, whose option values are the option labels. The answer
//! maps back to question text with [`question_answers`].

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer::AnswerContent;
use super::check::{check_field, Check, Source};
use super::fields::{Bounds, ChoiceOption, Field, FieldKind};
use super::limits::*;
use super::MessageContent;

/// One question: `{question, header?, options: [{label, description?}], multiSelect?}`.
///
/// `question` is 1–[`MAX_LABEL_CHARS`] characters and unique in the message (answers are
/// keyed by it); `header` 1–[`MAX_HEADER_CHARS`]; 1–[`MAX_OPTIONS`] options with distinct
/// labels of 1–[`MAX_LABEL_CHARS`]; descriptions ≤ [`MAX_DESCRIPTION_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    pub question: String,
    /// Short name in the card's pager.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub options: Vec<QuestionOption>,
    /// Any number of the options may be chosen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multi_select: bool,
}

/// One answer to offer: its `label` is also the value the answer carries.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionOption {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Markdown shown while the option is selected (a mockup, a snippet), ≤ 10,000
    /// characters, as for choice options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

impl Question {
    /// The field question `index` (from 0) becomes: id `q{index+1}`, required, with Other.
    pub fn to_field(&self, index: usize) -> Field {
        let options = self
            .options
            .iter()
            .map(|o| ChoiceOption {
                value: o.label.clone(),
                label: o.label.clone(),
                description: o.description.clone(),
                preview: o.preview.clone(),
            })
            .collect();
        let kind = if self.multi_select {
            FieldKind::Multiselect {
                options,
                other: true,
            }
        } else {
            FieldKind::Choice {
                options,
                other: true,
            }
        };
        Field {
            id: format!("q{}", index + 1),
            label: self.question.clone(),
            kind,
            required: true,
            help: None,
            default: None,
            nullable: false,
            header: self.header.clone(),
            bounds: Bounds::default(),
        }
    }
}

/// Expands questions into fields `q1…qN`.
pub(crate) fn to_fields(questions: &[Question]) -> Vec<Field> {
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| q.to_field(i))
        .collect()
}

/// Checks `questions`: count, unique question texts, and each expanded field.
pub(crate) fn check_questions(c: &mut Check, questions: &[Question]) {
    if questions.len() > MAX_QUESTIONS {
        c.fail("questions", format!("at most {MAX_QUESTIONS} questions"));
    }
    let mut texts = HashSet::new();
    for (i, q) in questions.iter().enumerate() {
        if !texts.insert(q.question.as_str()) {
            c.fail(format!("questions[{i}].question"), "duplicate question");
        }
        check_field(c, Source::Question(i), &q.to_field(i));
    }
}

/// The answer keyed by question text (`questionAnswers`): a choice's value as is, a
/// multiselect's values joined by `", "`. Unanswered questions (and content without
/// `questions`) are left out. Works for action answers too, since they carry the values.
pub fn question_answers(
    content: &MessageContent,
    answer: &AnswerContent,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (i, q) in content.questions.iter().enumerate() {
        let text = match answer.values.get(&format!("q{}", i + 1)) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            _ => continue,
        };
        out.insert(q.question.clone(), text);
    }
    out
}
