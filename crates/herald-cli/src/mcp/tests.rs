//! Unit tests of the tool shapes: strict schemas, refusals that name their fields, and the
//! content each call sends. The end-to-end behaviour is in tests/integration/mcp_stdio.rs.

use serde_json::{json, Value};

use super::input::{self, AskInput, SendInput, WaitInput};
use super::tools;

fn args(value: Value) -> Option<rmcp::model::JsonObject> {
    match value {
        Value::Object(map) => Some(map),
        _ => panic!("arguments are an object"),
    }
}

/// Every object schema in `schema` (nested ones included) says `additionalProperties: false`.
fn assert_strict(schema: &Value, path: &str) {
    match schema {
        Value::Object(map) => {
            if map.get("type") == Some(&json!("object")) || map.contains_key("properties") {
                assert_eq!(
                    map.get("additionalProperties"),
                    Some(&json!(false)),
                    "{path} is strict"
                );
            }
            for (key, value) in map {
                assert_strict(value, &format!("{path}.{key}"));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                assert_strict(item, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}

#[test]
fn every_tool_schema_is_strict_and_self_contained() {
    let list = tools::list();
    let names: Vec<&str> = list.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["ask", "send", "wait"], "the three tools");
    for tool in &list {
        let schema = Value::Object(tool.input_schema.as_ref().clone());
        assert_eq!(schema["type"], "object", "{} takes an object", tool.name);
        assert_strict(&schema, &tool.name);
        let text = schema.to_string();
        assert!(
            !text.contains("$ref"),
            "{} inlines its parts (clients differ on $ref): {text}",
            tool.name
        );
        assert!(tool.annotations.is_some(), "{} has annotations", tool.name);
        assert!(
            !text.contains("null"),
            "{} lists no null types: {text}",
            tool.name
        );
    }
    let ask = Value::Object(list[0].input_schema.as_ref().clone());
    assert_eq!(
        ask["required"],
        json!(["questions"]),
        "only questions required"
    );
    let question = &ask["properties"]["questions"]["items"];
    assert_eq!(
        question["required"],
        json!(["question", "options"]),
        "question and options required"
    );
    assert_eq!(
        question["properties"]["header"]["maxLength"], 12,
        "the content model's header limit"
    );
    assert_eq!(
        ask["properties"]["timeoutSeconds"]["maximum"],
        input::MAX_WAIT_SECS,
        "waits are bounded"
    );
}

#[test]
fn ask_refuses_secret_and_file_fields_naming_every_one() {
    let body = input::parse::<AskInput>(args(json!({
        "questions": [{"question": "Which?", "options": [{"label": "A"}], "type": "secret"}],
        "fields": [{"id": "pw", "type": "secret"}],
        "schema": {"type": "object"},
    })))
    .expect_err("unknown keys are refused");
    assert_eq!(body.error, "forbidden_fields", "code");
    let mut fields = body.fields.clone();
    fields.sort();
    assert_eq!(
        fields,
        ["fields", "questions[0].type", "schema"],
        "every rejected key, with its path"
    );
}

#[test]
fn shape_errors_name_the_path() {
    let missing = input::parse::<AskInput>(args(json!({"title": "t"}))).expect_err("missing");
    assert_eq!(missing.error, "invalid_request", "code");
    assert_eq!(missing.fields, ["questions"], "the missing key");

    let wrong = input::parse::<AskInput>(args(json!({
        "questions": [{"question": "Q", "options": [{"label": 5}]}],
    })))
    .expect_err("wrong type");
    assert_eq!(
        wrong.fields,
        ["questions[0].options[0].label"],
        "the wrong value's path"
    );

    let none = input::parse::<WaitInput>(None).expect_err("no arguments");
    assert_eq!(none.fields, ["messageId"], "missing messageId");
}

#[test]
fn ask_builds_questions_content_with_a_default_title() {
    let input: AskInput = input::parse(args(json!({
        "questions": [
            {"question": "Which database?", "header": "DB", "options": [
                {"label": "Postgres", "description": "managed"}, {"label": "SQLite"}]},
            {"question": "Which regions?", "options": [{"label": "eu"}, {"label": "us"}],
             "multiSelect": true},
        ],
    })))
    .expect("valid ask");
    let content = input.content();
    assert_eq!(content.title, "Which database? (+1 more)", "default title");
    assert!(content.validate().is_ok(), "valid content");
    assert!(content.questions[1].multi_select, "multiSelect kept");
    assert_eq!(input.wait_secs().expect("default"), input::MAX_WAIT_SECS);

    let long = "x".repeat(200);
    let input: AskInput = input::parse(args(json!({
        "questions": [{"question": long, "options": [{"label": "a"}]}],
    })))
    .expect("valid ask");
    let title = input.content().title;
    assert_eq!(title.chars().count(), 180, "shortened to the title limit");
    assert!(title.ends_with('…'), "marked as shortened");
}

#[test]
fn bounds_outside_the_schema_are_refused() {
    let input: AskInput = input::parse(args(json!({
        "questions": [{"question": "Q", "options": [{"label": "a"}]}],
        "timeoutSeconds": 56, "deadlineSeconds": 0,
    })))
    .expect("shape is fine");
    assert_eq!(
        input.wait_secs().expect_err("too long").fields,
        ["timeoutSeconds"]
    );
    assert_eq!(
        input.expires_in().expect_err("zero").fields,
        ["deadlineSeconds"]
    );

    let send: SendInput =
        input::parse(args(json!({"title": "t", "deadlineSeconds": 60}))).expect("shape is fine");
    assert_eq!(
        send.expires_in().expect_err("no actions").fields,
        ["deadlineSeconds"],
        "a deadline needs actions"
    );
    let send: SendInput = input::parse(args(json!({
        "title": "Deploy?", "actions": [{"id": "approve", "label": "Approve"}],
    })))
    .expect("valid send");
    let content = send.content();
    assert!(content.expects_answer(), "actions make a request");
    assert!(content.validate().is_ok(), "valid content");

    let wait: WaitInput = input::parse(args(json!({"messageId": "nope"}))).expect("shape is fine");
    assert_eq!(wait.id().expect_err("bad id").fields, ["messageId"]);
}
