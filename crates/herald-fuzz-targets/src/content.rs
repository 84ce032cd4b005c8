//! `content`: message content as a device opens it (docs/content.md), and answers to it.
//!
//! Input: the content JSON, optionally followed by `NUL` and an answer JSON.
//!
//! Properties:
//! - parsing, [`MessageContent::validate`] and every accessor never panic;
//! - valid content round-trips through its JSON to an equal value that is still valid;
//! - valid content asks for an answer exactly when it has fields or actions;
//! - each action of valid content is itself an accepted answer;
//! - [`MessageContent::validate_answer`] never panics, refuses everything for content that
//!   asks nothing, and what it accepts obeys the documented rules ([`check_accepted`]) and
//!   round-trips.

use std::collections::HashSet;

use herald_protocol::content::{AnswerContent, MessageContent};
use serde_json::Value;

use crate::json::assert_round_trip;
use crate::split_nul;

/// The `content` target.
pub fn content(data: &[u8]) {
    let (content, answer) = split_nul(data);
    let Ok(content) = serde_json::from_slice::<MessageContent>(content) else {
        return;
    };
    let answer = answer.and_then(|a| serde_json::from_slice::<AnswerContent>(a).ok());
    check_content(&content, answer.as_ref());
}

/// The content properties, for any parsed content (shared with `schema_form`).
pub(crate) fn check_content(content: &MessageContent, answer: Option<&AnswerContent>) {
    let verdict = content.validate();
    let fields = content.effective_fields();
    let _ = content.requires_review();
    let expects = content.expects_answer();
    if let Err(violations) = &verdict {
        assert!(
            !violations.is_empty(),
            "an error names at least one violation"
        );
    }
    if verdict.is_ok() {
        assert_round_trip("valid content", content);
        let ids: HashSet<&str> = fields.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(
            ids.len(),
            fields.len(),
            "valid content has unique field ids"
        );
        assert_eq!(
            expects,
            !fields.is_empty() || !content.actions.is_empty(),
            "valid content asks for an answer exactly when it has fields or actions"
        );
        for action in &content.actions {
            let tap = AnswerContent {
                action_id: Some(action.id.clone()),
                values: action.values.clone(),
                attachments: vec![],
            };
            if let Err(v) = content.validate_answer(&tap) {
                panic!("action {:?} of valid content is refused: {v:?}", action.id);
            }
        }
    }
    let Some(answer) = answer else { return };
    let accepted = content.validate_answer(answer);
    if !expects {
        assert!(
            accepted.is_err(),
            "content that asks nothing accepts no answer"
        );
    }
    if accepted.is_ok() && verdict.is_ok() {
        check_accepted(content, answer);
        assert_round_trip("an accepted answer", answer);
    }
}

/// What docs/content.md promises about an accepted answer: an action answer names an action
/// and carries exactly its values, and no attachments; otherwise no unknown field, every
/// required field answered (non-null unless nullable), and every attachment named by a file
/// answer.
pub(crate) fn check_accepted(content: &MessageContent, answer: &AnswerContent) {
    if let Some(action_id) = &answer.action_id {
        let action = content.actions.iter().find(|a| &a.id == action_id);
        let action = action.unwrap_or_else(|| panic!("accepted unknown action {action_id:?}"));
        assert_eq!(
            action.values, answer.values,
            "an action answer is its values"
        );
        assert!(
            answer.attachments.is_empty(),
            "an action answer has no files"
        );
        return;
    }
    let fields = content.effective_fields();
    assert!(!fields.is_empty(), "a value answer needs a form");
    for key in answer.values.keys() {
        assert!(
            fields.iter().any(|f| &f.id == key),
            "accepted a value for unknown field {key:?}"
        );
    }
    let mut named = HashSet::new();
    for field in fields.iter() {
        let value = answer.values.get(&field.id).unwrap_or(&Value::Null);
        if field.required && !field.nullable {
            assert!(
                !value.is_null(),
                "accepted no value for required {:?}",
                field.id
            );
        }
        if field.kind.is_file() && !value.is_null() {
            let id = value.get("attachmentId").and_then(Value::as_str);
            let id = id.unwrap_or_else(|| panic!("file answer {:?} has no id", field.id));
            assert!(
                answer.attachments.iter().any(|a| a.id == id),
                "a file answer names one of the answer's attachments"
            );
            named.insert(id);
        }
    }
    for a in &answer.attachments {
        assert!(
            named.contains(a.id.as_str()),
            "an attachment is some answer"
        );
    }
}
