//! File fields answered end to end on a real relay (127.0.0.1:0, real SQLite, real crypto):
//! the device core uploads the chosen file and names it in the answer; the asking connection
//! downloads it and gets the same bytes; another connection gets 404; bad file answers are
//! refused before anything is uploaded; a hostile file name cannot escape the output folder.

mod core_setup;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use herald_client::agent::{AgentClient, AnswerOutput, SendOptions, WaitOutcome};
use herald_client::http::RelayHttp;
use herald_client::view::AnswerInput;
use herald_client::{files, Core, Error};
use herald_crypto::ConnectionToken;
use herald_protocol::content::{AnswerContent, MessageContent};
use herald_protocol::MessageId;
use serde_json::json;

struct Env {
    relay: herald_relay::RunningRelay,
    relay_dir: PathBuf,
    core: Core,
    agent: AgentClient,
    dir: tempfile::TempDir,
}

async fn env() -> Env {
    let dir = tempfile::tempdir().expect("temp dir");
    let relay_dir = dir.path().join("relay");
    let relay = core_setup::spawn_relay(&relay_dir).await;
    let core = core_setup::open_core(&dir.path().join("device"), "Test laptop");
    core.create_account(&relay.url()).await.expect("account");
    let agent = connection(&core, &relay, "Asking agent").await.0;
    Env {
        relay,
        relay_dir,
        core,
        agent,
        dir,
    }
}

async fn connection(
    core: &Core,
    relay: &herald_relay::RunningRelay,
    name: &str,
) -> (AgentClient, ConnectionToken) {
    let created = core
        .create_connection(name, None)
        .await
        .expect("connection");
    let token = ConnectionToken::parse(&created.token).expect("token parses");
    (
        AgentClient::new(&relay.url(), token.clone()).expect("agent"),
        token,
    )
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test file");
    path
}

fn content(v: serde_json::Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

/// A request with a required file field `report`, an optional one `logs` and a text field.
async fn ask(env: &Env, title: &str) -> MessageId {
    let request = content(json!({"title": title, "fields": [
        {"id": "report", "label": "Report", "type": "file", "required": true},
        {"id": "logs", "label": "Logs", "type": "file"},
        {"id": "note", "label": "Note", "type": "text"}]}));
    let record = env
        .agent
        .send(&request, SendOptions::default())
        .await
        .expect("request sent");
    env.core.sync_once().await.expect("sync");
    record.id
}

async fn answered(agent: &AgentClient, id: &MessageId) -> AnswerOutput {
    match agent.check(id).await.expect("check") {
        Some(WaitOutcome::Answered(out)) => out,
        other => panic!("expected an answer, got {other:?}"),
    }
}

fn files(entries: &[(&str, &Path)]) -> BTreeMap<String, PathBuf> {
    entries
        .iter()
        .map(|(id, p)| ((*id).to_owned(), p.to_path_buf()))
        .collect()
}

/// Entries in the relay's file store (uploads and `.part` files).
fn relay_files(env: &Env) -> usize {
    std::fs::read_dir(env.relay_dir.join("files"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_answer_reaches_the_asking_connection_only() {
    let env = env().await;
    let (other, other_token) = connection(&env.core, &env.relay, "Other agent").await;
    let id = ask(&env, "Send the report").await;
    let report: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let report_path = write(env.dir.path(), "q3 report.csv", &report);

    let view = env
        .core
        .answer(
            id.as_str(),
            AnswerInput {
                values_json: Some(r#"{"note":"see attached"}"#.into()),
                files: files(&[("report", &report_path)]),
                ..Default::default()
            },
        )
        .await
        .expect("answered with a file");
    let answer_view = view.answer.expect("the device shows its answer");
    assert_eq!(
        answer_view.attachments.len(),
        1,
        "the answer lists its file"
    );
    assert_eq!(answer_view.attachments[0].name, "q3 report.csv");

    let mut out = answered(&env.agent, &id).await;
    assert_eq!(out.files.len(), 1, "one answered file: {:?}", out.files);
    let file = out.files[0].clone();
    assert_eq!(file.field_id, "report");
    assert_eq!(file.name, "q3 report.csv");
    assert_eq!(file.mime_type, "text/csv");
    assert_eq!(file.size, report.len() as u64);
    assert_eq!(
        out.values["report"],
        json!({"attachmentId": file.attachment_id}),
        "the field's value names the attachment"
    );
    assert_eq!(out.values["note"], "see attached");
    let printed = serde_json::to_string(&out).expect("serializes");
    assert!(
        !printed.contains("AGE-SECRET-KEY"),
        "the file key is never printed: {printed}"
    );

    let saved_dir = tempfile::tempdir().expect("out dir");
    env.agent
        .save_answer_files(&mut out, saved_dir.path())
        .await
        .expect("the asking connection downloads");
    let saved = out.files[0].path.clone().expect("path recorded");
    assert_eq!(saved, saved_dir.path().join("q3 report.csv"));
    assert_eq!(std::fs::read(&saved).unwrap(), report, "same bytes");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "owner-only");
    }
    // Saving again never replaces the first copy.
    env.agent
        .save_answer_files(&mut out, saved_dir.path())
        .await
        .expect("saved again");
    assert_eq!(
        out.files[0].path.as_deref(),
        Some(saved_dir.path().join("q3 report (2).csv").as_path())
    );

    // Another connection of the same account cannot fetch it, even with the key.
    let other_http = RelayHttp::new(&env.relay.url())
        .unwrap()
        .with_bearer(&other_token.bearer);
    let err = files::download_file(
        &other_http,
        file.attachment(),
        &saved_dir.path().join("stolen"),
    )
    .await
    .expect_err("another connection is refused");
    assert_eq!(err.code(), "not_found", "{err}");
    assert!(!saved_dir.path().join("stolen").exists());
    drop(other);

    // The answering device (the account) can save it too.
    let device_copy = saved_dir.path().join("device copy.csv");
    env.core
        .save_attachment(id.as_str(), &file.attachment_id, &device_copy)
        .await
        .expect("the device saves the answer's file");
    assert_eq!(std::fs::read(&device_copy).unwrap(), report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_file_answers_are_refused_before_any_upload() {
    let env = env().await;
    let id = ask(&env, "Files please").await;
    let small = write(env.dir.path(), "small.txt", b"hello");
    let huge = env.dir.path().join("huge.bin");
    // Sparse: 1 byte over 100 MB without writing 100 MB.
    std::fs::File::create(&huge)
        .and_then(|f| f.set_len(100_000_001))
        .expect("sparse file");
    let missing = env.dir.path().join("nope.txt");

    let refused = |input: AnswerInput, path: &'static str, says: &'static str| {
        let core = env.core.clone();
        let dir_text = env.dir.path().display().to_string();
        let id = id.clone();
        async move {
            let err = core.answer(id.as_str(), input).await.expect_err("refused");
            let Error::Validation(violations) = &err else {
                panic!("expected validation_failed, got {err}");
            };
            assert!(
                violations
                    .iter()
                    .any(|v| v.path == path && v.message.contains(says)),
                "{path}: {says:?} in {violations:?}"
            );
            // The desktop shows this to the webview, which never learns where a file lives.
            assert!(
                !err.to_string().contains(&dir_text),
                "no path in the error: {err}"
            );
        }
    };
    // Required file field without a file.
    refused(
        AnswerInput {
            values_json: Some(r#"{"note":"x"}"#.into()),
            ..Default::default()
        },
        "report",
        "required",
    )
    .await;
    // A missing path.
    refused(
        AnswerInput {
            files: files(&[("report", &missing)]),
            ..Default::default()
        },
        "report",
        "no file at",
    )
    .await;
    // Over 100 MB: refused with the limit, before encrypting or uploading.
    refused(
        AnswerInput {
            files: files(&[("report", &huge)]),
            ..Default::default()
        },
        "report",
        "at most 100 MB",
    )
    .await;
    // A file for a text field, or for no field.
    refused(
        AnswerInput {
            files: files(&[("report", &small), ("note", &small)]),
            ..Default::default()
        },
        "note",
        "not a file field",
    )
    .await;
    refused(
        AnswerInput {
            files: files(&[("report", &small), ("nosuch", &small)]),
            ..Default::default()
        },
        "nosuch",
        "no such field",
    )
    .await;
    // A field answered twice.
    refused(
        AnswerInput {
            values_json: Some(r#"{"report":{"attachmentId":"fil_x"}}"#.into()),
            files: files(&[("report", &small)]),
            ..Default::default()
        },
        "report",
        "both",
    )
    .await;
    // The file is fine but another value is not: still nothing uploaded.
    refused(
        AnswerInput {
            values_json: Some(r#"{"note":7}"#.into()),
            files: files(&[("report", &small)]),
            ..Default::default()
        },
        "note",
        "string",
    )
    .await;
    assert_eq!(relay_files(&env), 0, "no refused answer uploaded anything");
    assert!(
        env.agent.check(&id).await.unwrap().is_none(),
        "still pending"
    );

    // The optional file field may stay empty.
    env.core
        .answer(
            id.as_str(),
            AnswerInput {
                files: files(&[("report", &small)]),
                ..Default::default()
            },
        )
        .await
        .expect("required file only");
    let out = answered(&env.agent, &id).await;
    assert_eq!(out.files.len(), 1);
    assert!(!out.values.contains_key("logs"), "{:?}", out.values);
    assert_eq!(relay_files(&env), 1, "exactly one upload");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_answer_carries_no_files() {
    let env = env().await;
    let request = content(json!({"title": "Ship?", "actions": [
        {"id": "approve", "label": "Approve", "values": {}}]}));
    let id = env
        .agent
        .send(&request, SendOptions::default())
        .await
        .expect("sent")
        .id;
    env.core.sync_once().await.expect("sync");
    let small = write(env.dir.path(), "small.txt", b"hello");
    let err = env
        .core
        .answer(
            id.as_str(),
            AnswerInput {
                action_id: Some("approve".into()),
                files: files(&[("report", &small)]),
                ..Default::default()
            },
        )
        .await
        .expect_err("refused");
    assert_eq!(err.code(), "invalid_input", "{err}");
    assert_eq!(relay_files(&env), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_file_name_cannot_leave_the_output_folder() {
    let env = env().await;
    let id = ask(&env, "Report?").await;
    let path = write(env.dir.path(), "innocent.txt", b"payload");
    let mut attachment = env.core.upload_file_unchecked(&path).await.expect("upload");
    // A hostile device names the file with a path; content validation would refuse it, so
    // the answer is sealed without it.
    attachment.name = "../../escaped.txt".into();
    let answer = AnswerContent {
        action_id: None,
        values: serde_json::from_value(json!({"report": {"attachmentId": attachment.id}})).unwrap(),
        attachments: vec![attachment],
    };
    env.core
        .answer_unchecked(id.as_str(), answer)
        .await
        .expect("posted");

    let mut out = answered(&env.agent, &id).await;
    assert_eq!(out.files[0].name, "../../escaped.txt", "reported as given");
    let root = tempfile::tempdir().expect("root");
    let inner = root.path().join("a").join("b");
    std::fs::create_dir_all(&inner).unwrap();
    env.agent
        .save_answer_files(&mut out, &inner)
        .await
        .expect("saved");
    let saved = out.files[0].path.clone().expect("path");
    assert_eq!(saved.parent(), Some(inner.as_path()), "inside the folder");
    assert_eq!(saved.file_name().unwrap(), "_.._escaped.txt");
    assert_eq!(std::fs::read(&saved).unwrap(), b"payload");
    assert!(!root.path().join("escaped.txt").exists());
    assert!(!root.path().join("a").join("escaped.txt").exists());
}
