//! The content flags of `herald ask`/`send` end to end: questions (with `questionAnswers`),
//! JSON Schema forms, blocks, `--json`, threads with `--reply-to`, and `herald cancel`.

use crate::common;

use std::process::Stdio;

use common::*;

#[test]
fn questions_come_back_as_question_answers() {
    let s = setup();
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Plan the sign-in refactor",
            "--question",
            "Auth method|Which sign-in method should the app use?|Passkeys,Magic links",
            "--question",
            "Platforms|Which platforms ship first?|Web,macOS,Android|multi",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = wait_for_title(&s, "Plan the sign-in refactor")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let missing =
        run(herald(s.home.path()).args(["inbox", "answer", &id, "--json", r#"{"q1":"Passkeys"}"#]));
    assert_eq!(missing.status.code(), Some(1), "every question is required");
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("q2"),
        "names the unanswered question"
    );
    ok_stdout(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        r#"{"q1":"Passkeys","q2":["Web","Linux desktop"]}"#,
    ]));
    let out = finish(child);
    assert_eq!(out.status.code(), Some(0), "answered");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["questionAnswers"],
        serde_json::json!({
            "Which sign-in method should the app use?": "Passkeys",
            "Which platforms ship first?": "Web, Linux desktop"
        }),
        "answers map back by question text, several joined by \", \", Other included"
    );
}

#[test]
fn schema_forms_blocks_and_json_content() {
    let s = setup();
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"type":"object","required":["channel"],"properties":{
            "channel":{"type":"string","enum":["beta","stable"]},
            "replicas":{"type":"integer","minimum":1,"maximum":5},
            "notes":{"type":"string","x-herald-type":"textarea"}}}"#,
    )
    .unwrap();
    let diff = dir.path().join("change.diff");
    std::fs::write(&diff, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n").unwrap();
    let child = agent(&s)
        .args(["ask", "--title", "Configure the release", "--schema"])
        .arg(&schema)
        .arg("--block")
        .arg(format!("diff:{}", diff.display()))
        .arg("--requires-review")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = wait_for_title(&s, "Configure the release")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let unread = run(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        r#"{"channel":"beta","replicas":2}"#,
    ]));
    assert_eq!(
        unread.status.code(),
        Some(1),
        "a request that asks for review is shown before it is answered"
    );
    assert!(
        String::from_utf8_lossy(&unread.stderr).contains("inbox show"),
        "says how"
    );
    let shown = ok_stdout(herald(s.home.path()).args(["inbox", "show", &id]));
    assert!(
        shown.contains("+new") && shown.contains("-old"),
        "the diff block is printed: {shown}"
    );
    assert!(
        shown.contains("read all of this"),
        "the review request is printed: {shown}"
    );
    assert!(
        shown.contains("• beta") && shown.contains("• stable"),
        "choices are listed: {shown}"
    );
    let view: serde_json::Value = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["inbox", "show", &id, "--json"]),
    ))
    .unwrap();
    assert_eq!(view["formSource"], "schema", "the form came from a schema");
    assert_eq!(view["requiresReview"], true, "review requested");
    assert_eq!(view["blocks"][0]["kind"], "diff", "the diff block arrived");
    let fields: Vec<_> = view["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        fields,
        ["channel", "replicas", "notes"],
        "schema properties in order"
    );
    let bad = run(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        r#"{"channel":"beta","replicas":9}"#,
    ]));
    assert_eq!(
        bad.status.code(),
        Some(1),
        "bounds are enforced before sealing"
    );
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("replicas"),
        "names the field"
    );
    ok_stdout(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        r#"{"channel":"beta","replicas":2}"#,
    ]));
    let answer: serde_json::Value = serde_json::from_slice(&finish(child).stdout).unwrap();
    assert_eq!(
        answer["values"],
        serde_json::json!({"channel": "beta", "replicas": 2}),
        "typed values"
    );

    // A schema keyword that would be silently dropped is refused before anything is sent.
    std::fs::write(
        &schema,
        r#"{"type":"object","properties":{"tag":{"type":"string","pattern":"^v"}}}"#,
    )
    .unwrap();
    let out = run(agent(&s)
        .args(["ask", "--title", "Tag?", "--schema"])
        .arg(&schema));
    assert_eq!(out.status.code(), Some(1), "pattern is refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pattern"),
        "names the keyword"
    );

    // `send` never asks; secrets and files are refused until encrypted delivery exists.
    let asks = dir.path().join("asks.json");
    std::fs::write(
        &asks,
        r#"{"title":"Asks","fields":[{"id":"a","label":"A","type":"text"}]}"#,
    )
    .unwrap();
    let out = run(agent(&s).args(["send", "--json"]).arg(&asks));
    assert_eq!(out.status.code(), Some(1), "send refuses content that asks");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("herald ask"),
        "points to ask"
    );
    std::fs::write(
        &asks,
        r#"{"title":"Secret","fields":[{"id":"t","label":"T","type":"secret"}]}"#,
    )
    .unwrap();
    let out = run(agent(&s).args(["ask", "--json"]).arg(&asks));
    assert_eq!(
        out.status.code(),
        Some(1),
        "secret fields are refused for now, also through --json"
    );

    // --json gives the whole content; --title overrides it.
    let content = dir.path().join("content.json");
    std::fs::write(&content, r#"{"title":"From JSON","body":"**hi**","blocks":[{"type":"table","columns":["a"],"rows":[["1"]]}]}"#).unwrap();
    ok_stdout(agent(&s).args(["send", "--json"]).arg(&content));
    ok_stdout(
        agent(&s)
            .args(["send", "--title", "Overridden", "--json"])
            .arg(&content),
    );
    let titles: Vec<_> = inbox_list(&s)
        .into_iter()
        .map(|m| m["title"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        titles.contains(&"From JSON".to_owned()) && titles.contains(&"Overridden".to_owned()),
        "{titles:?}"
    );
}

#[test]
fn replies_form_a_thread_and_requests_can_be_cancelled() {
    let s = setup();
    let root: serde_json::Value =
        serde_json::from_str(&ok_stdout(agent(&s).args(["send", "--title", "Root"]))).unwrap();
    let root_id = root["id"].as_str().unwrap();
    let reply: serde_json::Value = serde_json::from_str(&ok_stdout(agent(&s).args([
        "send",
        "--title",
        "Reply",
        "--reply-to",
        root_id,
    ])))
    .unwrap();
    assert_eq!(reply["status"], "delivered", "reply delivered");
    let bad = run(agent(&s).args(["send", "--title", "x", "--reply-to", "nope"]));
    assert_eq!(
        bad.status.code(),
        Some(1),
        "a malformed reply-to is refused"
    );

    let waiter = agent(&s)
        .args(["ask", "--title", "Cancel me", "--action", "ok:OK"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = wait_for_title(&s, "Cancel me")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cancelled: serde_json::Value =
        serde_json::from_str(&ok_stdout(agent(&s).args(["cancel", &id]))).unwrap();
    assert_eq!(
        cancelled["status"], "cancelled",
        "cancel prints the new status"
    );
    let out = finish(waiter);
    assert_eq!(out.status.code(), Some(2), "the waiting ask ends as closed");
    let late = run(herald(s.home.path()).args(["inbox", "answer", &id, "--action", "ok"]));
    assert!(
        String::from_utf8_lossy(&late.stderr).contains("request_cancelled"),
        "a late answer gets its own code"
    );
}

#[test]
fn a_retry_with_the_same_idempotency_key_returns_the_original() {
    let s = setup();
    let send = |title: &str| {
        run(agent(&s).args([
            "send",
            "--title",
            title,
            "--body",
            "b",
            "--idempotency-key",
            "retry-1",
        ]))
    };
    let first = send("Same");
    let again = send("Same");
    assert_eq!(
        again.status.code(),
        Some(0),
        "a retry succeeds: {}",
        String::from_utf8_lossy(&again.stderr)
    );
    let a: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(a["id"], b["id"], "the same message, not a second one");
    assert_eq!(inbox_list(&s).len(), 1, "one message in the inbox");
    let changed = send("Different");
    assert_eq!(
        changed.status.code(),
        Some(1),
        "same key, other content is refused"
    );
    assert!(
        String::from_utf8_lossy(&changed.stderr).contains("idempotency_conflict"),
        "with its code"
    );
}
