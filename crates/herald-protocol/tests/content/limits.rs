//! Every content limit at the limit (accepted) and one past it (refused, path named), and every
//! answer limit the same way.

use serde_json::{json, Value};

use crate::attachments::{attachment, file_id};
use herald_protocol::content::*;

fn content(v: Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

/// `n` characters; multi-byte so limits are proven to count characters, not bytes.
fn s(n: usize) -> String {
    "é".repeat(n)
}

fn opts(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"value": format!("v{i}"), "label": format!("V{i}")}))
        .collect()
}

fn form(field: Value) -> Value {
    json!({"title": "T", "fields": [field]})
}

fn choice_with(key: &'static str, n: usize) -> Value {
    let mut option = json!({"value": "a", "label": "A"});
    option[key] = json!(s(n));
    form(json!({"id": "c", "label": "C", "type": "choice", "options": [option]}))
}

fn question(q: Value) -> Value {
    json!({"title": "T", "questions": [q]})
}

fn schema_prop(p: Value) -> Value {
    json!({"title": "T", "schema": {"type": "object", "properties": {"p": p}}})
}

fn block(b: Value) -> Value {
    json!({"title": "T", "blocks": [b]})
}

/// (what, limit, content with `n` of the thing, path refused at `limit + 1`).
type Case = (&'static str, usize, fn(usize) -> Value, &'static str);

const CASES: &[Case] = &[
    (
        "field id",
        MAX_ID_CHARS,
        |n| form(json!({"id": "i".repeat(n), "label": "L", "type": "text"})),
        "fields[0].id",
    ),
    (
        "field label",
        MAX_LABEL_CHARS,
        |n| form(json!({"id": "f", "label": s(n), "type": "text"})),
        "fields[0].label",
    ),
    (
        "field header",
        MAX_HEADER_CHARS,
        |n| form(json!({"id": "f", "label": "L", "type": "text", "header": s(n)})),
        "fields[0].header",
    ),
    (
        "field help",
        MAX_HELP_CHARS,
        |n| form(json!({"id": "f", "label": "L", "type": "text", "help": s(n)})),
        "fields[0].help",
    ),
    (
        "field maxLength",
        MAX_TEXT_ANSWER_CHARS,
        |n| form(json!({"id": "f", "label": "L", "type": "textarea", "maxLength": n})),
        "fields[0].maxLength",
    ),
    (
        "options",
        MAX_OPTIONS,
        |n| form(json!({"id": "c", "label": "C", "type": "multiselect", "options": opts(n)})),
        "fields[0].options",
    ),
    (
        "option value",
        MAX_LABEL_CHARS,
        |n| {
            form(
                json!({"id": "c", "label": "C", "type": "choice", "options": [{"value": s(n), "label": "A"}]}),
            )
        },
        "fields[0].options[0].value",
    ),
    (
        "option label",
        MAX_LABEL_CHARS,
        |n| choice_with("label", n),
        "fields[0].options[0].label",
    ),
    (
        "option description",
        MAX_DESCRIPTION_CHARS,
        |n| choice_with("description", n),
        "fields[0].options[0].description",
    ),
    (
        "option preview",
        MAX_PREVIEW_CHARS,
        |n| choice_with("preview", n),
        "fields[0].options[0].preview",
    ),
    (
        "action id",
        MAX_ID_CHARS,
        |n| json!({"title": "T", "actions": [{"id": "a".repeat(n), "label": "A"}]}),
        "actions[0].id",
    ),
    (
        "action label",
        MAX_LABEL_CHARS,
        |n| json!({"title": "T", "actions": [{"id": "a", "label": s(n)}]}),
        "actions[0].label",
    ),
    (
        "questions",
        MAX_QUESTIONS,
        |n| json!({"title": "T", "questions": (0..n).map(|i| json!({"question": format!("Q{i}?"), "options": [{"label": "A"}]})).collect::<Vec<_>>()}),
        "questions",
    ),
    (
        "question text",
        MAX_LABEL_CHARS,
        |n| question(json!({"question": s(n), "options": [{"label": "A"}]})),
        "questions[0].question",
    ),
    (
        "question header",
        MAX_HEADER_CHARS,
        |n| question(json!({"question": "Q?", "header": s(n), "options": [{"label": "A"}]})),
        "questions[0].header",
    ),
    (
        "question options",
        MAX_OPTIONS,
        |n| {
            question(
                json!({"question": "Q?", "options": (0..n).map(|i| json!({"label": format!("L{i}")})).collect::<Vec<_>>()}),
            )
        },
        "questions[0].options",
    ),
    (
        "question option label",
        MAX_LABEL_CHARS,
        |n| question(json!({"question": "Q?", "options": [{"label": s(n)}]})),
        "questions[0].options[0].label",
    ),
    (
        "question option description",
        MAX_DESCRIPTION_CHARS,
        |n| question(json!({"question": "Q?", "options": [{"label": "A", "description": s(n)}]})),
        "questions[0].options[0].description",
    ),
    (
        "schema properties",
        MAX_FIELDS,
        |n| json!({"title": "T", "schema": {"type": "object", "properties": (0..n).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect::<serde_json::Map<_, _>>()}}),
        "schema.properties",
    ),
    (
        "schema property name",
        MAX_ID_CHARS,
        |n| json!({"title": "T", "schema": {"type": "object", "properties": {"p".repeat(n): {"type": "boolean"}}}}),
        "schema.properties.ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp",
    ),
    (
        "schema title",
        MAX_LABEL_CHARS,
        |n| schema_prop(json!({"type": "string", "title": s(n)})),
        "schema.properties.p.title",
    ),
    (
        "schema description",
        MAX_HELP_CHARS,
        |n| schema_prop(json!({"type": "string", "description": s(n)})),
        "schema.properties.p.description",
    ),
    (
        "schema enum",
        MAX_OPTIONS,
        |n| {
            schema_prop(
                json!({"type": "string", "enum": (0..n).map(|i| format!("e{i}")).collect::<Vec<_>>()}),
            )
        },
        "schema.properties.p.enum",
    ),
    (
        "schema enum value",
        MAX_LABEL_CHARS,
        |n| schema_prop(json!({"type": "string", "enum": [s(n)]})),
        "schema.properties.p.enum[0]",
    ),
    (
        "schema array enum",
        MAX_OPTIONS,
        |n| {
            schema_prop(
                json!({"type": "array", "items": {"type": "string", "enum": (0..n).map(|i| format!("e{i}")).collect::<Vec<_>>()}}),
            )
        },
        "schema.properties.p.items.enum",
    ),
    (
        "schema maxLength",
        MAX_TEXT_ANSWER_CHARS,
        |n| schema_prop(json!({"type": "string", "maxLength": n})),
        "schema.properties.p.maxLength",
    ),
    (
        "blocks",
        MAX_BLOCKS,
        |n| json!({"title": "T", "blocks": vec![json!({"type": "code", "text": "x"}); n]}),
        "blocks",
    ),
    (
        "block text",
        MAX_BLOCK_TEXT_CHARS,
        |n| block(json!({"type": "diff", "text": s(n)})),
        "blocks[0].text",
    ),
    (
        "block title",
        MAX_BLOCK_TITLE_CHARS,
        |n| block(json!({"type": "code", "text": "x", "title": s(n)})),
        "blocks[0].title",
    ),
    (
        "table columns",
        MAX_TABLE_COLUMNS,
        |n| {
            block(
                json!({"type": "table", "columns": (0..n).map(|i| format!("c{i}")).collect::<Vec<_>>(), "rows": []}),
            )
        },
        "blocks[0].columns",
    ),
    (
        "table column name",
        MAX_LABEL_CHARS,
        |n| block(json!({"type": "table", "columns": [s(n)], "rows": []})),
        "blocks[0].columns[0]",
    ),
    (
        "table rows",
        MAX_TABLE_ROWS,
        |n| block(json!({"type": "table", "columns": ["c"], "rows": vec![json!(["x"]); n]})),
        "blocks[0].rows",
    ),
    (
        "table cell",
        MAX_TABLE_CELL_CHARS,
        |n| block(json!({"type": "table", "columns": ["c"], "rows": [[s(n)]]})),
        "blocks[0].rows[0][0]",
    ),
    (
        "image alt",
        MAX_ALT_CHARS,
        |n| {
            let id = file_id('a');
            json!({"title": "T", "attachments": [attachment(&id, "image/png")],
                "blocks": [{"type": "image", "attachmentId": id, "alt": s(n)}]})
        },
        "blocks[0].alt",
    ),
    (
        "attachment name",
        MAX_ATTACHMENT_NAME_CHARS,
        |n| {
            let mut a = attachment(&file_id('a'), "text/plain");
            a["name"] = json!(s(n));
            json!({"title": "T", "attachments": [a]})
        },
        "attachments[0].name",
    ),
    (
        "attachments",
        MAX_ATTACHMENTS,
        |n| {
            let files: Vec<Value> = (0..n)
                .map(|i| attachment(&file_id((b'a' + i as u8) as char), "text/plain"))
                .collect();
            json!({"title": "T", "attachments": files})
        },
        "attachments",
    ),
];

#[test]
fn every_content_limit_at_and_one_past() {
    for (what, limit, build, path) in CASES {
        let at = content(build(*limit));
        assert_eq!(at.validate(), Ok(()), "{what}: {limit} is allowed");
        let past = content(build(limit + 1));
        let got: Vec<String> = past
            .validate()
            .expect_err(&format!("{what}: {} is refused", limit + 1))
            .into_iter()
            .map(|v| v.path)
            .collect();
        assert_eq!(got, [*path], "{what}: one past the limit names its path");
    }
}

fn answer(v: Value) -> AnswerContent {
    AnswerContent {
        action_id: None,
        values: v.as_object().expect("values object").clone(),
        attachments: vec![],
    }
}

/// (what, field, limit, answer value of size `n`).
type AnswerCase = (&'static str, Value, usize, fn(usize) -> Value);

#[test]
fn every_answer_limit_at_and_one_past() {
    let cases: &[AnswerCase] = &[
        (
            "text answer",
            json!({"type": "text"}),
            MAX_TEXT_ANSWER_CHARS,
            |n| json!(s(n)),
        ),
        (
            "secret answer",
            json!({"type": "secret"}),
            MAX_TEXT_ANSWER_CHARS,
            |n| json!(s(n)),
        ),
        (
            "maxLength",
            json!({"type": "textarea", "maxLength": 5}),
            5,
            |n| json!(s(n)),
        ),
        (
            "Other in a choice",
            json!({"type": "choice", "other": true, "options": [{"value": "a", "label": "A"}]}),
            MAX_OTHER_CHARS,
            |n| json!(s(n)),
        ),
        (
            "Other in a multiselect",
            json!({"type": "multiselect", "other": true, "options": [{"value": "a", "label": "A"}]}),
            MAX_OTHER_CHARS,
            |n| json!(["a", s(n)]),
        ),
        (
            "number maximum",
            json!({"type": "number", "maximum": 10}),
            10,
            |n| json!(n),
        ),
        (
            "integer maximum",
            json!({"type": "integer", "minimum": -3, "maximum": 7}),
            7,
            |n| json!(n),
        ),
    ];
    for (what, kind, limit, value) in cases {
        let mut field = json!({"id": "f", "label": "F"});
        for (k, v) in kind.as_object().expect("kind object") {
            field[k] = v.clone();
        }
        let c = content(form(field));
        assert_eq!(c.validate(), Ok(()), "{what}: the form is valid");
        let ok = answer(json!({ "f": value(*limit) }));
        assert_eq!(c.validate_answer(&ok), Ok(()), "{what}: {limit} is allowed");
        let bad = answer(json!({ "f": value(limit + 1) }));
        let got: Vec<String> = c
            .validate_answer(&bad)
            .expect_err(&format!("{what}: one past is refused"))
            .into_iter()
            .map(|v| v.path)
            .collect();
        assert_eq!(got, ["f"], "{what}: the field is named");
    }
}

#[test]
fn lower_bounds_at_and_one_below() {
    let c = content(form(
        json!({"id": "f", "label": "F", "type": "integer", "minimum": 2}),
    ));
    assert!(
        c.validate_answer(&answer(json!({"f": 2}))).is_ok(),
        "minimum is inclusive"
    );
    assert!(
        c.validate_answer(&answer(json!({"f": 1}))).is_err(),
        "below minimum"
    );
    let c = content(form(
        json!({"id": "f", "label": "F", "type": "text", "minLength": 3}),
    ));
    assert!(
        c.validate_answer(&answer(json!({"f": "abc"}))).is_ok(),
        "minLength is inclusive"
    );
    assert!(
        c.validate_answer(&answer(json!({"f": "ab"}))).is_err(),
        "below minLength"
    );
    let c = content(schema_prop(json!({"type": "number", "minimum": 0.5})));
    assert!(
        c.validate_answer(&answer(json!({"p": 0.5}))).is_ok(),
        "schema minimum inclusive"
    );
    assert!(
        c.validate_answer(&answer(json!({"p": 0.4}))).is_err(),
        "below schema minimum"
    );
}
