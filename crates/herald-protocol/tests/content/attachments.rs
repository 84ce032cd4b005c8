//! Attachments: every rule at and past its limit, image blocks that must name an image
//! attachment of the same message, and file answers that must name an attachment of the
//! answer.

use serde_json::{json, Value};

use herald_protocol::content::*;

/// A valid file id with a distinguishing letter.
pub(crate) fn file_id(c: char) -> String {
    format!("fil_{}", c.to_string().repeat(26))
}

/// A valid attachment (shape only: the key and hash are well-formed, not real).
pub(crate) fn attachment(id: &str, mime: &str) -> Value {
    json!({
        "id": id,
        "name": "diagram.png",
        "type": mime,
        "size": 1234,
        "sha256": "A".repeat(43),
        "key": format!("AGE-SECRET-KEY-1{}", "Q".repeat(58)),
    })
}

fn content(v: Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

fn paths(r: Result<(), Vec<Violation>>) -> Vec<String> {
    r.err()
        .unwrap_or_default()
        .into_iter()
        .map(|v| v.path)
        .collect()
}

fn with(key: &str, value: Value) -> MessageContent {
    let mut a = attachment(&file_id('a'), "application/pdf");
    a[key] = value;
    content(json!({"title": "T", "attachments": [a]}))
}

#[test]
fn each_attachment_rule_names_its_path() {
    let n = |k: usize| "é".repeat(k);
    // (what, key, accepted value, refused value)
    let cases: &[(&str, &str, Value, Value)] = &[
        (
            "name at its limit",
            "name",
            json!(n(MAX_ATTACHMENT_NAME_CHARS)),
            json!(n(MAX_ATTACHMENT_NAME_CHARS + 1)),
        ),
        ("empty name", "name", json!("a"), json!("")),
        (
            "a path as name",
            "name",
            json!("report.final.pdf"),
            json!("../etc/passwd"),
        ),
        (
            "a backslash path",
            "name",
            json!("a b.txt"),
            json!("dir\\x"),
        ),
        ("dot dot", "name", json!(".hidden"), json!("..")),
        (
            "control character",
            "name",
            json!("tab-less"),
            json!("a\u{7}b"),
        ),
        (
            "size at its limit",
            "size",
            json!(MAX_ATTACHMENT_BYTES),
            json!(MAX_ATTACHMENT_BYTES + 1),
        ),
        ("type shape", "type", json!("text/plain"), json!("text")),
        (
            "type parameters",
            "type",
            json!("application/vnd.api+json"),
            json!("text/plain; charset=utf-8"),
        ),
        (
            "type at its limit",
            "type",
            json!(format!("a/{}", "b".repeat(MAX_ATTACHMENT_TYPE_CHARS - 2))),
            json!(format!("a/{}", "b".repeat(MAX_ATTACHMENT_TYPE_CHARS - 1))),
        ),
        ("id shape", "id", json!(file_id('b')), json!("att_1")),
        (
            "sha256 length",
            "sha256",
            json!("_".repeat(42) + "w"),
            json!("A".repeat(42)),
        ),
        (
            "sha256 alphabet",
            "sha256",
            json!("-".repeat(42) + "A"),
            json!("+".repeat(43)),
        ),
        (
            "key shape",
            "key",
            json!(format!("AGE-SECRET-KEY-1{}", "7".repeat(58))),
            json!(format!("AGE-SECRET-KEY-1{}", "B".repeat(58))),
        ),
        (
            "key length",
            "key",
            json!(format!("AGE-SECRET-KEY-1{}", "L".repeat(58))),
            json!(format!("AGE-SECRET-KEY-1{}", "L".repeat(57))),
        ),
    ];
    for (what, key, ok, bad) in cases {
        assert_eq!(
            with(key, ok.clone()).validate(),
            Ok(()),
            "{what}: {ok} is accepted"
        );
        assert_eq!(
            paths(with(key, bad.clone()).validate()),
            [format!("attachments[0].{key}")],
            "{what}: {bad} is refused and named"
        );
    }
}

#[test]
fn attachment_count_and_duplicates() {
    let many = |k: usize| -> Vec<Value> {
        (0..k)
            .map(|i| attachment(&file_id((b'a' + i as u8) as char), "text/plain"))
            .collect()
    };
    let at = content(json!({"title": "T", "attachments": many(MAX_ATTACHMENTS)}));
    assert_eq!(at.validate(), Ok(()), "{MAX_ATTACHMENTS} attachments");
    let past = content(json!({"title": "T", "attachments": many(MAX_ATTACHMENTS + 1)}));
    assert_eq!(
        paths(past.validate()),
        ["attachments"],
        "one more is refused"
    );
    let twice = content(json!({"title": "T", "attachments": [
        attachment(&file_id('a'), "text/plain"), attachment(&file_id('a'), "text/plain")]}));
    assert_eq!(
        paths(twice.validate()),
        ["attachments[1].id"],
        "the same file twice"
    );
}

#[test]
fn image_blocks_name_an_image_attachment_of_the_message() {
    let image = |id: &str, mime: &str| {
        content(json!({"title": "T",
            "attachments": [attachment(&file_id('a'), mime)],
            "blocks": [{"type": "image", "attachmentId": id, "alt": "A chart"}]}))
    };
    for mime in IMAGE_TYPES {
        assert_eq!(
            image(&file_id('a'), mime).validate(),
            Ok(()),
            "{mime} can be shown"
        );
    }
    for mime in ["image/svg+xml", "image/bmp", "application/pdf"] {
        assert_eq!(
            paths(image(&file_id('a'), mime).validate()),
            ["blocks[0].attachmentId"],
            "{mime} is not an image block's type"
        );
    }
    assert_eq!(
        paths(image(&file_id('b'), "image/png").validate()),
        ["blocks[0].attachmentId"],
        "an attachment of another message"
    );
}

#[test]
fn file_answers_name_an_attachment_of_the_answer() {
    let form = content(json!({"title": "T", "fields": [
        {"id": "f", "label": "F", "type": "file"},
        {"id": "k", "label": "K", "type": "secret-file"}]}));
    let answer = |values: Value, files: Vec<Value>| -> AnswerContent {
        serde_json::from_value(json!({"values": values, "attachments": files})).expect("answer")
    };
    let (a, b) = (file_id('a'), file_id('b'));
    let ok = answer(
        json!({"f": {"attachmentId": a}, "k": {"attachmentId": b}}),
        vec![attachment(&a, "text/plain"), attachment(&b, "text/plain")],
    );
    assert_eq!(form.validate_answer(&ok), Ok(()), "both files attached");
    let missing = answer(json!({"f": {"attachmentId": a}}), vec![]);
    assert_eq!(
        paths(form.validate_answer(&missing)),
        ["f"],
        "a file answer without its attachment"
    );
    let stray = answer(
        json!({"f": {"attachmentId": a}}),
        vec![attachment(&a, "text/plain"), attachment(&b, "text/plain")],
    );
    assert_eq!(
        paths(form.validate_answer(&stray)),
        ["attachments[1].id"],
        "an attachment no field names"
    );
    let broken = answer(
        json!({"f": {"attachmentId": a}}),
        vec![{
            let mut x = attachment(&a, "text/plain");
            x["key"] = json!("nope");
            x
        }],
    );
    assert_eq!(
        paths(form.validate_answer(&broken)),
        ["attachments[0].key"],
        "answer attachments are checked like message attachments"
    );
    let approve = content(json!({"title": "T", "actions": [{"id": "ok", "label": "OK"}]}));
    let with_file = answer(json!({}), vec![attachment(&a, "text/plain")]);
    let with_file = AnswerContent {
        action_id: Some("ok".into()),
        ..with_file
    };
    assert_eq!(
        paths(approve.validate_answer(&with_file)),
        ["attachments"],
        "an action carries no files"
    );
}

#[test]
fn attachment_snapshot_and_redacted_debug() {
    let a: Attachment = serde_json::from_value(attachment(&file_id('a'), "image/png")).unwrap();
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        attachment(&file_id('a'), "image/png"),
        "the published attachment shape round-trips"
    );
    let debug = format!("{a:?}");
    assert!(
        !debug.contains("AGE-SECRET-KEY"),
        "Debug never prints the key: {debug}"
    );
    assert!(a.is_image(), "image/png is an image");
}
