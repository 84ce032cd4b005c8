use serde_json::json;

use herald_protocol::content::*;
use serde_json::Map;

fn approve_reject() -> MessageContent {
    serde_json::from_value(json!({
        "title": "Deploy?",
        "body": "**v1.2** to production",
        "actions": [
            {"id": "approve", "label": "Approve", "values": {}},
            {"id": "reject", "label": "Reject", "values": {}}
        ]
    }))
    .expect("example content parses")
}

fn paths(r: Result<(), Vec<Violation>>) -> Vec<String> {
    r.expect_err("expected violations")
        .into_iter()
        .map(|v| v.path)
        .collect()
}

#[test]
fn title_limit_at_and_past() {
    let mut c = approve_reject();
    c.title = "t".repeat(MAX_TITLE_CHARS);
    assert!(c.validate().is_ok(), "180 characters is allowed");
    c.title = "é".repeat(MAX_TITLE_CHARS + 1);
    assert_eq!(paths(c.validate()), ["title"], "181 characters is refused");
    c.title = "  ".into();
    assert_eq!(paths(c.validate()), ["title"], "blank title is refused");
}

#[test]
fn body_limit_at_and_past() {
    let mut c = approve_reject();
    c.body = "x".repeat(MAX_BODY_CHARS);
    assert!(c.validate().is_ok(), "50,000 characters is allowed");
    c.body.push('x');
    assert_eq!(paths(c.validate()), ["body"], "50,001 is refused");
}

#[test]
fn action_count_limit() {
    let mut c = approve_reject();
    c.actions = (0..MAX_ACTIONS)
        .map(|i| Action {
            id: format!("a{i}"),
            label: "A".into(),
            values: Map::new(),
        })
        .collect();
    assert!(c.validate().is_ok(), "8 actions allowed");
    c.actions.push(Action {
        id: "a9".into(),
        label: "A".into(),
        values: Map::new(),
    });
    assert_eq!(paths(c.validate()), ["actions"], "9 actions refused");
}

#[test]
fn field_count_limit() {
    let field = |i: usize| Field {
        id: format!("f{i}"),
        label: "F".into(),
        kind: FieldKind::Text,
        required: false,
        help: None,
        default: None,
        nullable: false,
        ..Default::default()
    };
    let mut c = approve_reject();
    c.actions.clear();
    c.fields = (0..MAX_FIELDS).map(field).collect();
    assert!(c.validate().is_ok(), "30 fields allowed");
    c.fields.push(field(99));
    assert_eq!(paths(c.validate()), ["fields"], "31 fields refused");
}

#[test]
fn answers_are_checked_against_the_form() {
    let c = approve_reject();
    let ok = AnswerContent {
        action_id: Some("approve".into()),
        values: Map::new(),
        attachments: vec![],
    };
    assert!(c.validate_answer(&ok).is_ok(), "known action");
    let bad = AnswerContent {
        action_id: Some("deploy".into()),
        values: Map::new(),
        attachments: vec![],
    };
    assert_eq!(
        paths(c.validate_answer(&bad)),
        ["actionId"],
        "unknown action"
    );
    let none = AnswerContent {
        action_id: None,
        values: Map::new(),
        attachments: vec![],
    };
    assert_eq!(
        paths(c.validate_answer(&none)),
        ["actionId"],
        "actions-only form needs an action"
    );
}

#[test]
fn choice_and_text_fields() {
    let c: MessageContent = serde_json::from_value(json!({
        "title": "Pick",
        "fields": [
            {"id": "env", "label": "Environment", "type": "choice", "required": true,
             "options": [{"value": "prod", "label": "Production"}, {"value": "dev", "label": "Dev"}]},
            {"id": "why", "label": "Why", "type": "text"},
            {"id": "tags", "label": "Tags", "type": "multiselect", "other": true,
             "options": [{"value": "a", "label": "A"}]}
        ]
    }))
    .unwrap();
    assert!(c.validate().is_ok(), "valid form: {:?}", c.validate());
    let answer = |v: serde_json::Value| AnswerContent {
        action_id: None,
        values: v.as_object().unwrap().clone(),
        attachments: vec![],
    };
    assert!(
        c.validate_answer(&answer(json!({"env": "prod", "tags": ["a", "custom"]})))
            .is_ok(),
        "valid answer"
    );
    assert_eq!(
        paths(c.validate_answer(&answer(json!({})))),
        ["env"],
        "required field missing"
    );
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"env": "staging"})))),
        ["env"],
        "not an option"
    );
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"env": "dev", "x": 1})))),
        ["x"],
        "unknown field"
    );
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"env": "dev", "tags": ["b", "c"]})))),
        ["tags"],
        "only one Other item in a multiselect"
    );
    let other = "o".repeat(MAX_OTHER_CHARS + 1);
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"env": "dev", "tags": [other]})))),
        ["tags"],
        "Other text past 100 characters"
    );
}

#[test]
fn content_snapshot() {
    assert_eq!(
        serde_json::to_value(approve_reject()).unwrap(),
        json!({"title": "Deploy?", "body": "**v1.2** to production", "actions": [
            {"id": "approve", "label": "Approve", "values": {}},
            {"id": "reject", "label": "Reject", "values": {}}]}),
        "frozen content shape"
    );
}

#[test]
fn a_request_must_ask_for_something() {
    let empty = MessageContent {
        title: "Questions".into(),
        questions: vec![],
        ..MessageContent::default()
    };
    assert!(empty.validate().is_ok(), "as a message it is fine");
    let err = empty.validate_request().unwrap_err();
    assert_eq!(err.len(), 1, "{err:?}");
    assert!(err[0].message.contains("must ask for something"), "{err:?}");
    assert!(approve_reject().validate_request().is_ok());
}

#[test]
fn blank_and_empty_titles_say_so() {
    for (title, want) in [("", "title: is empty"), ("   ", "title: is blank")] {
        let content = MessageContent {
            title: title.into(),
            ..MessageContent::default()
        };
        let err = content.validate().unwrap_err();
        assert!(err[0].to_string().starts_with(want), "{title:?}: {err:?}");
    }
}

#[test]
fn a_required_field_with_actions_says_why() {
    let mut content = approve_reject();
    content.fields.push(Field {
        id: "reason".into(),
        label: "Reason".into(),
        required: true,
        ..Field::default()
    });
    let err = content.validate().unwrap_err();
    assert!(
        err.iter()
            .any(|v| v.path == "actions[0].values.reason" && v.message.contains("fixed when")),
        "{err:?}"
    );
}
