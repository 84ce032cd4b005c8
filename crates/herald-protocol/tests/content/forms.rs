//! Questions, answers by field type, actions with secrets and files, blocks and review.

use serde_json::{json, Value};

use crate::attachments::{attachment, file_id};
use herald_protocol::content::*;

fn content(v: Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

fn answer(v: Value) -> AnswerContent {
    AnswerContent {
        action_id: None,
        values: v.as_object().expect("values object").clone(),
        attachments: vec![],
    }
}

fn paths(r: Result<(), Vec<Violation>>) -> Vec<String> {
    r.expect_err("expected violations")
        .into_iter()
        .map(|v| v.path)
        .collect()
}

fn sign_in_plan() -> MessageContent {
    content(json!({"title": "Plan the sign-in refactor", "questions": [
        {"question": "Which sign-in method should the app use?", "header": "Auth method",
         "options": [{"label": "Passkeys", "description": "Phishing-resistant; needs a fallback."},
                     {"label": "Magic links", "description": "Simple, but depends on email."}]},
        {"question": "Which platforms ship first?", "header": "Platforms", "multiSelect": true,
         "options": [{"label": "Web"}, {"label": "macOS"}, {"label": "Android"}]}]}))
}

#[test]
fn questions_expand_to_required_choices_with_other() {
    let c = sign_in_plan();
    assert_eq!(c.validate(), Ok(()), "the published example is valid");
    assert!(c.expects_answer(), "questions ask for an answer");
    let fields = c.effective_fields();
    assert_eq!(fields.len(), 2, "one field per question");
    let q1 = &fields[0];
    assert_eq!(
        (q1.id.as_str(), q1.label.as_str()),
        ("q1", "Which sign-in method should the app use?"),
        "id q1, label the question"
    );
    assert!(q1.required, "questions are required");
    assert_eq!(q1.header.as_deref(), Some("Auth method"), "header kept");
    let Some((options, other)) = q1.kind.options() else {
        panic!("q1 is a choice")
    };
    assert!(
        matches!(q1.kind, FieldKind::Choice { .. }) && other,
        "single choice with Other"
    );
    assert_eq!(
        (options[1].value.as_str(), options[1].description.as_deref()),
        ("Magic links", Some("Simple, but depends on email.")),
        "values are labels"
    );
    assert!(
        matches!(fields[1].kind, FieldKind::Multiselect { other: true, .. }),
        "multiSelect → multiselect with Other"
    );
}

#[test]
fn question_answers_map_back_by_question_text() {
    let c = sign_in_plan();
    let a = answer(json!({"q1": "Something else entirely", "q2": ["Web", "Android", "Linux"]}));
    assert_eq!(
        c.validate_answer(&a),
        Ok(()),
        "Other text in each, one extra item in the multiselect"
    );
    let map = question_answers(&c, &a);
    assert_eq!(
        map.get("Which sign-in method should the app use?")
            .map(String::as_str),
        Some("Something else entirely"),
        "choice as is"
    );
    assert_eq!(
        map.get("Which platforms ship first?").map(String::as_str),
        Some("Web, Android, Linux"),
        "joined by comma-space"
    );
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"q1": "Passkeys"})))),
        ["q2"],
        "every question is required"
    );
    assert!(
        question_answers(&content(json!({"title": "T"})), &a).is_empty(),
        "no questions, no answers"
    );
}

#[test]
fn question_rules_name_their_paths() {
    let dup = content(json!({"title": "T", "questions": [
        {"question": "Same?", "options": [{"label": "A"}, {"label": "A"}]},
        {"question": "Same?", "options": []}]}));
    assert_eq!(
        paths(dup.validate()),
        [
            "questions[0].options[1].label",
            "questions[1].question",
            "questions[1].options"
        ],
        "duplicates and empty options"
    );
}

#[test]
fn one_form_per_message() {
    let c = content(
        json!({"title": "T", "fields": [{"id": "a", "label": "A", "type": "text"}],
        "questions": [{"question": "Q?", "options": [{"label": "A"}]}],
        "schema": {"type": "object", "properties": {"b": {"type": "string"}}}}),
    );
    let got = paths(c.validate());
    assert!(
        got.starts_with(&["questions".to_owned(), "schema".to_owned()]),
        "second and third forms named: {got:?}"
    );
    assert_eq!(c.effective_fields()[0].id, "a", "fields win");
}

#[test]
fn answers_by_field_type() {
    let c = content(json!({"title": "T", "fields": [
        {"id": "n", "label": "N", "type": "number"},
        {"id": "i", "label": "I", "type": "integer"},
        {"id": "b", "label": "B", "type": "boolean"},
        {"id": "d", "label": "D", "type": "date"},
        {"id": "t", "label": "T", "type": "date-time"},
        {"id": "s", "label": "S", "type": "secret", "required": true},
        {"id": "f", "label": "F", "type": "file"},
        {"id": "k", "label": "K", "type": "secret-file"},
        {"id": "z", "label": "Z", "type": "text", "required": true, "nullable": true}]}));
    assert_eq!(c.validate(), Ok(()), "every type is a valid field");
    let cases: &[(&str, Value, bool)] = &[
        ("n", json!(-1.5), true),
        ("n", json!("1"), false),
        ("i", json!(3), true),
        ("i", json!(3.0), true),
        ("i", json!(2.5), false),
        ("i", json!(true), false),
        ("b", json!(false), true),
        ("b", json!("true"), false),
        ("b", json!(0), false),
        ("d", json!("2024-02-29"), true),
        ("d", json!("2023-02-29"), false),
        ("d", json!("2024-1-01"), false),
        ("d", json!("2024-13-01"), false),
        ("d", json!("2024-04-31"), false),
        ("t", json!("2025-04-01T09:30:00Z"), true),
        ("t", json!("2025-04-01t09:30:00.123+02:00"), true),
        ("t", json!("2016-12-31T23:59:60Z"), true),
        ("t", json!("2025-04-01T09:30:00"), false),
        ("t", json!("2025-04-01 09:30:00Z"), false),
        ("t", json!("2025-04-01T24:00:00Z"), false),
        ("t", json!("2025-04-01T09:30:00.Z"), false),
        ("t", json!("2025-04-01T09:30:00+0200"), false),
        ("s", json!("hunter2"), true),
        ("s", json!(" "), false),
        ("s", json!(42), false),
        ("f", json!({"attachmentId": file_id('a')}), true),
        ("f", json!("file_1"), false),
        ("f", json!({"attachmentId": ""}), false),
        ("f", json!({"attachmentId": "a b"}), false),
        ("f", json!({"attachmentId": "x", "name": "y"}), false),
        ("f", json!({}), false),
        ("k", json!({"attachmentId": file_id('b')}), true),
        ("k", json!(["file_2"]), false),
        ("z", Value::Null, true),
    ];
    for (id, value, ok) in cases {
        let mut values = json!({"s": "x"});
        values[*id] = value.clone();
        let mut answer = answer(values);
        // A file answer carries its attachment.
        let named = value.get("attachmentId").and_then(Value::as_str);
        if let Some(file) = named.filter(|f| f.starts_with("fil_")) {
            answer.attachments =
                vec![serde_json::from_value(attachment(file, "text/plain"))
                    .expect("attachment parses")];
        }
        let r = c.validate_answer(&answer);
        if *ok {
            assert_eq!(r, Ok(()), "{id} = {value} is accepted");
        } else {
            assert_eq!(paths(r), [*id], "{id} = {value} is refused");
        }
    }
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"z": "x"})))),
        ["s"],
        "required secret"
    );
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"s": "x", "extra": 1})))),
        ["extra"],
        "unknown field"
    );
}

#[test]
fn secret_and_file_fields_refuse_actions() {
    let c = content(json!({"title": "T",
        "fields": [{"id": "a", "label": "A", "type": "text"}, {"id": "tok", "label": "Token", "type": "secret"},
                   {"id": "f", "label": "F", "type": "file", "secret": true}],
        "actions": [{"id": "skip", "label": "Skip", "values": {}}]}));
    assert_eq!(
        c.effective_fields()[2].kind,
        FieldKind::File { secret: true },
        "file with secret: true"
    );
    assert_eq!(
        c.effective_fields()[2].kind.type_name(),
        "secret-file",
        "is a secret file"
    );
    assert_eq!(
        paths(c.validate()),
        ["fields[1].type", "fields[2].type"],
        "each secret or file field is named"
    );
    let s = content(
        json!({"title": "T", "actions": [{"id": "skip", "label": "Skip", "values": {}}],
        "schema": {"type": "object", "properties": {"key": {"type": "string", "x-herald-type": "secret-file"}}}}),
    );
    assert_eq!(
        paths(s.validate()),
        ["schema.properties.key.x-herald-type"],
        "named where the schema says it"
    );
}

#[test]
fn new_field_settings_are_checked() {
    let c = content(json!({"title": "T", "fields": [
        {"id": "a", "label": "A", "type": "boolean", "minimum": 1},
        {"id": "b", "label": "B", "type": "integer", "minimum": 0.5},
        {"id": "c", "label": "C", "type": "choice", "maxLength": 3, "options": [{"value": "x", "label": "X"}]},
        {"id": "d", "label": "D", "type": "date", "default": "tomorrow"},
        {"id": "e", "label": "E", "type": "number", "minimum": 5, "maximum": 1}]}));
    assert_eq!(
        paths(c.validate()),
        [
            "fields[0].minimum",
            "fields[1].minimum",
            "fields[2].maxLength",
            "fields[3].default",
            "fields[4].maximum"
        ],
        "bounds only where they apply"
    );
}

#[test]
fn blocks_and_review() {
    let c = content(json!({"title": "T", "blocks": [
        {"type": "code", "text": "select 1", "language": "sql", "title": "Query"},
        {"type": "json", "text": "{\"a\": 1}", "requiresReview": true},
        {"type": "table", "columns": ["a", "b"], "rows": [["1", "2"]]},
        {"type": "image", "attachmentId": file_id('c'), "alt": "Chart"}],
        "attachments": [attachment(&file_id('c'), "image/png")]}));
    assert_eq!(c.validate(), Ok(()), "valid blocks");
    assert!(c.requires_review(), "a block asks for review");
    assert!(!c.expects_answer(), "blocks alone ask nothing");
    let mut plain = c.clone();
    plain.blocks.remove(1);
    assert!(!plain.requires_review(), "no block asks for review");
    plain.requires_review = true;
    assert!(plain.requires_review(), "the message asks for review");
    let bad = content(json!({"title": "T", "blocks": [
        {"type": "code", "text": "x", "language": "rust"},
        {"type": "json", "text": "{nope"},
        {"type": "table", "columns": ["a", "b"], "rows": [["1"]]},
        {"type": "table", "columns": [], "rows": []},
        {"type": "image", "attachmentId": "", "alt": ""}]}));
    assert_eq!(
        paths(bad.validate()),
        [
            "blocks[0].language",
            "blocks[1].text",
            "blocks[2].rows[0]",
            "blocks[3].columns",
            "blocks[4].attachmentId",
            "blocks[4].alt"
        ],
        "each broken block names its path"
    );
    let unknown: Result<MessageContent, _> =
        serde_json::from_value(json!({"title": "T", "blocks": [{"type": "video"}]}));
    assert!(unknown.is_err(), "an unknown block type does not parse");
}

#[test]
fn question_option_previews_carry_over_and_are_bounded() {
    let mut c = content(json!({"title": "Pick", "questions": [{
        "question": "Which layout?", "header": "Layout",
        "options": [{"label": "Grid", "preview": "```\n[][]\n```"}, {"label": "List"}]
    }]}));
    assert!(
        c.validate().is_ok(),
        "a preview is allowed: {:?}",
        c.validate()
    );
    let fields = c.effective_fields();
    let FieldKind::Choice { options, .. } = &fields[0].kind else {
        panic!("a single-choice question becomes a choice field");
    };
    assert_eq!(
        options[0].preview.as_deref(),
        Some("```\n[][]\n```"),
        "the preview reaches the field"
    );
    c.questions[0].options[0].preview = Some("x".repeat(MAX_PREVIEW_CHARS + 1));
    let p = paths(c.validate());
    assert_eq!(p.len(), 1, "one violation: {p:?}");
    assert!(
        p[0].starts_with("questions[0].options[0]"),
        "named where the sender wrote it: {p:?}"
    );
}

#[test]
fn choice_refusals_say_what_is_wrong() {
    let c = content(json!({"title": "Pick", "fields": [
        {"id": "c", "label": "C", "type": "choice", "other": true, "options": [{"value": "a", "label": "A"}]},
        {"id": "m", "label": "M", "type": "multiselect", "other": true, "options": [{"value": "a", "label": "A"}]},
        {"id": "n", "label": "N", "type": "choice", "options": [{"value": "a", "label": "A"}]}
    ]}));
    let reason = |v: Value| {
        c.validate_answer(&answer(v)).expect_err("refused")[0]
            .message
            .clone()
    };
    let long = "x".repeat(MAX_OTHER_CHARS + 1);
    assert!(
        reason(json!({"c": long})).contains("at most 100"),
        "an over-long Other says so"
    );
    assert!(
        reason(json!({"c": "  "})).contains("blank"),
        "a blank Other says so"
    );
    assert!(
        reason(json!({"m": ["x", "y"]})).contains("only one Other"),
        "two extra items say so"
    );
    let essay = "y".repeat(500);
    let msg = reason(json!({"n": essay}));
    assert!(
        msg.contains("not one of the options") && msg.len() < 100,
        "long values are not echoed whole: {msg}"
    );
}

#[test]
fn one_line_labels_follow_the_title_rule() {
    // Headers, option values and labels, table column headers: one-line text a person reads
    // to decide, under check_label (no controls, line breaks, bidi or zero-width-only text).
    for bad in ["a\nb\u{200b}\u{0}", "H\u{202e}", "\u{200b}", " ", "a\tb"] {
        let q = content(json!({"title": "T", "questions": [
            {"question": "Q?", "header": bad, "options": [{"label": "a"}, {"label": bad}]}]}));
        assert_eq!(
            paths(q.validate()),
            ["questions[0].header", "questions[0].options[1].label"],
            "{bad:?}"
        );
        let f = content(json!({"title": "T", "fields": [
            {"id": "a", "type": "choice", "label": "A", "header": bad,
             "options": [{"value": bad, "label": "ok"}]}]}));
        assert_eq!(
            paths(f.validate()),
            ["fields[0].header", "fields[0].options[0].value"],
            "{bad:?}"
        );
        let t = content(json!({"title": "T", "blocks": [
            {"type": "table", "columns": ["ok", bad], "rows": [["1", "2"]]}]}));
        assert_eq!(paths(t.validate()), ["blocks[0].columns[1]"], "{bad:?}");
    }
    let ok = content(json!({"title": "T", "questions": [
        {"question": "Q?", "header": "Auth 🔐", "options": [{"label": "a b"}, {"label": "c"}]}]}));
    assert_eq!(ok.validate(), Ok(()));
}
