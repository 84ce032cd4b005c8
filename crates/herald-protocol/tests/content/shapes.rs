//! Frozen JSON shapes: every field type, option, question, schema, block and answer
//! round-trips to exactly this JSON.

use serde_json::{json, Value};

use herald_protocol::content::*;
use serde::Serialize;

/// Parses `v`, then checks it serializes back to exactly `v`.
fn round_trip<T: serde::de::DeserializeOwned + Serialize>(what: &str, v: Value) -> T {
    let parsed: T =
        serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{what} parses: {e}"));
    assert_eq!(
        serde_json::to_value(&parsed).expect("serializes"),
        v,
        "frozen shape of {what}"
    );
    parsed
}

#[test]
fn field_shapes() {
    let shapes = [
        json!({"id": "a", "label": "A", "type": "text", "required": true, "nullable": false, "maxLength": 80}),
        json!({"id": "a", "label": "A", "type": "textarea", "required": false, "help": "h", "nullable": true, "minLength": 1}),
        json!({"id": "a", "label": "A", "type": "number", "required": false, "nullable": false, "minimum": 0.5, "maximum": 10}),
        json!({"id": "a", "label": "A", "type": "integer", "required": false, "default": 3, "nullable": false, "minimum": -1}),
        json!({"id": "a", "label": "A", "type": "boolean", "required": false, "default": true, "nullable": false}),
        json!({"id": "a", "label": "A", "type": "date", "required": false, "nullable": false}),
        json!({"id": "a", "label": "A", "type": "date-time", "required": false, "nullable": false}),
        json!({"id": "a", "label": "A", "type": "choice", "options": [
            {"value": "v", "label": "V", "description": "d", "preview": "```sql\nselect 1\n```"}],
            "other": true, "required": false, "nullable": false, "header": "Pick"}),
        json!({"id": "a", "label": "A", "type": "multiselect", "options": [{"value": "v", "label": "V"}],
            "other": false, "required": false, "nullable": false}),
        json!({"id": "a", "label": "A", "type": "secret", "required": true, "nullable": false}),
        json!({"id": "a", "label": "A", "type": "file", "required": false, "nullable": false}),
        json!({"id": "a", "label": "A", "type": "file", "secret": true, "required": false, "nullable": false}),
        json!({"id": "a", "label": "A", "type": "secret-file", "required": false, "nullable": false}),
    ];
    for shape in shapes {
        let what = format!("a {} field", shape["type"]);
        round_trip::<Field>(&what, shape);
    }
}

#[test]
fn legacy_field_shape_gains_defaults_only() {
    let field: Field = serde_json::from_value(json!({"id": "a", "label": "A", "type": "choice",
        "options": [{"value": "v", "label": "V"}]}))
    .expect("the first shape still parses");
    assert_eq!(
        serde_json::to_value(field).expect("serializes"),
        json!({"id": "a", "label": "A", "type": "choice", "options": [{"value": "v", "label": "V"}],
            "other": false, "required": false, "nullable": false}),
        "unchanged from the first release"
    );
}

#[test]
fn questions_shape() {
    round_trip::<MessageContent>(
        "questions",
        json!({"title": "T", "body": "", "questions": [
        {"question": "Q?", "header": "H", "options": [{"label": "A", "description": "d"}, {"label": "B"}]},
        {"question": "R?", "options": [{"label": "C"}], "multiSelect": true}]}),
    );
}

#[test]
fn schema_shape_keeps_property_order() {
    // Property order is kept; keywords inside a property serialize sorted.
    let text = r#"{"title":"T","body":"","schema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"minimum":1,"type":"integer"}},"required":["zeta"]}}"#;
    let c: MessageContent = serde_json::from_str(text).expect("parses");
    assert_eq!(
        serde_json::to_string(&c).expect("serializes"),
        text,
        "frozen, order kept"
    );
}

#[test]
fn block_shapes() {
    round_trip::<MessageContent>(
        "blocks",
        json!({"title": "T", "body": "", "requiresReview": true, "blocks": [
        {"type": "code", "text": "select 1", "language": "sql", "title": "Query"},
        {"type": "diff", "text": "-a\n+b", "requiresReview": true},
        {"type": "json", "text": "{}"},
        {"type": "table", "columns": ["a"], "rows": [["1"]]},
        {"type": "image", "attachmentId": "file_1", "alt": "Chart"}]}),
    );
}

#[test]
fn answer_shapes() {
    round_trip::<AnswerContent>(
        "an action answer",
        json!({"actionId": "approve", "values": {}}),
    );
    round_trip::<AnswerContent>(
        "a form answer",
        json!({"values": {
        "n": 1.5, "b": true, "d": "2025-04-01", "tags": ["a", "b"], "upload": {"attachmentId": "file_1"}}}),
    );
}
