//! The device core against a real relay on 127.0.0.1:0: onboarding, live sync over the real
//! websocket, answering, restart, and a sender whose content is broken. Real SQLite files and
//! real crypto throughout.

mod core_setup;

use std::time::Duration;

use herald_client::agent::{AgentClient, SendOptions, WaitOutcome};
use herald_client::view::{AnswerInput, CoreEvent, MessageStatus, SetupStatus};
use herald_client::Core;
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use serde_json::json;
use tokio::sync::broadcast::Receiver;

struct Env {
    relay: herald_relay::RunningRelay,
    _relay_dir: tempfile::TempDir,
    device_dir: tempfile::TempDir,
}

async fn env() -> Env {
    let relay_dir = tempfile::tempdir().unwrap();
    let relay = core_setup::spawn_relay(relay_dir.path()).await;
    Env {
        relay,
        _relay_dir: relay_dir,
        device_dir: tempfile::tempdir().unwrap(),
    }
}

fn open(dir: &std::path::Path) -> Core {
    core_setup::open_core(dir, "Test laptop")
}

fn content(v: serde_json::Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

fn approve_reject(title: &str) -> MessageContent {
    content(json!({"title": title, "body": "Ship **it**?", "actions": [
        {"id": "approve", "label": "Approve", "values": {}},
        {"id": "reject", "label": "Reject", "values": {}}]}))
}

/// Waits (bounded) for an upsert of message `id` matching `pred`.
async fn next_upsert(
    events: &mut Receiver<CoreEvent>,
    pred: impl Fn(&herald_client::view::MessageSummary, bool) -> bool,
) -> herald_client::view::MessageSummary {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let CoreEvent::MessageUpserted { message, is_new } =
                events.recv().await.expect("event stream open")
            {
                if pred(&message, is_new) {
                    return message;
                }
            }
        }
    })
    .await
    .expect("the expected event arrived in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_arrives_live_is_answered_and_survives_restart() {
    let env = env().await;
    let core = open(env.device_dir.path());
    assert_eq!(
        core.setup_state().status,
        SetupStatus::NeedsSetup,
        "fresh device"
    );
    let onboard = core
        .create_account(&env.relay.url())
        .await
        .expect("account created");
    assert_eq!(
        onboard.safety_code.split(' ').count(),
        6,
        "safety code in 6 groups"
    );
    assert!(
        onboard
            .safety_code
            .replace(' ', "")
            .chars()
            .all(|c| c.is_ascii_digit()),
        "digits only"
    );
    assert_eq!(
        core.setup_state().safety_code.as_deref(),
        Some(onboard.safety_code.as_str()),
        "same code later"
    );

    let connection = core
        .create_connection("deploy-bot", None)
        .await
        .expect("connection");
    assert_eq!(core.list_connections().await.unwrap().len(), 1, "listed");
    let agent = AgentClient::new(
        &connection.relay_url,
        ConnectionToken::parse(&connection.token).unwrap(),
    )
    .unwrap();

    let mut events = core.subscribe();
    core.start_sync().expect("sync starts");
    let sent = agent
        .send(&approve_reject("Deploy?"), SendOptions::default())
        .await
        .expect("sent");
    let summary = next_upsert(&mut events, |m, is_new| m.id == sent.id.as_str() && is_new).await;
    assert_eq!(summary.title, "Deploy?", "decrypted title");
    assert_eq!(summary.sender_name, "deploy-bot", "verified sender name");
    assert_eq!(
        summary.sender_id.as_deref(),
        Some(connection.id.as_str()),
        "the signing connection's id, which Settings mutes by"
    );
    assert_eq!(summary.status, MessageStatus::Pending, "pending request");
    assert!(summary.unread, "new is unread");

    let view = core.message(sent.id.as_str()).await.unwrap();
    assert!(
        view.body_html.contains("<strong>it</strong>"),
        "rendered Markdown: {}",
        view.body_html
    );
    assert_eq!(view.actions.len(), 2, "both actions");

    let bad = core
        .answer(
            sent.id.as_str(),
            AnswerInput {
                action_id: Some("deploy".into()),
                values_json: None,
                files: Default::default(),
            },
        )
        .await;
    assert_eq!(
        bad.err().map(|e| e.code()),
        Some("invalid_input".to_owned()),
        "unknown action refused locally"
    );

    let waiter = tokio::spawn({
        let id = sent.id.clone();
        async move { agent.wait(&id, Some(Duration::from_secs(20))).await }
    });
    let answered = core
        .answer(
            sent.id.as_str(),
            AnswerInput {
                action_id: Some("approve".into()),
                values_json: None,
                files: Default::default(),
            },
        )
        .await
        .expect("answered");
    assert_eq!(
        answered.summary.status,
        MessageStatus::Answered,
        "status answered"
    );
    assert_eq!(
        answered
            .answer
            .as_ref()
            .and_then(|a| a.action_id.as_deref()),
        Some("approve"),
        "answer shown"
    );
    match waiter.await.unwrap().expect("wait ok") {
        WaitOutcome::Answered(a) => {
            assert_eq!(
                a.action_id.as_deref(),
                Some("approve"),
                "agent sees approve"
            );
            assert_eq!(
                a.answered_by, "Test laptop",
                "answered by the certified device"
            );
        }
        other => panic!("expected an answer, got {other:?}"),
    }
    let twice = core
        .answer(
            sent.id.as_str(),
            AnswerInput {
                action_id: Some("reject".into()),
                values_json: None,
                files: Default::default(),
            },
        )
        .await;
    assert_eq!(
        twice.err().map(|e| e.code()),
        Some("already_answered".to_owned()),
        "answers are accepted once"
    );

    core.mark_read(sent.id.as_str()).await.unwrap();
    core.stop_sync();
    drop(core);

    // Restart: keys, cache, read state and cursor survive.
    let core = open(env.device_dir.path());
    let state = core.setup_state();
    assert_eq!(
        state.status,
        SetupStatus::Ready,
        "still set up after restart"
    );
    assert_eq!(
        state.safety_code.as_deref(),
        Some(onboard.safety_code.as_str()),
        "same safety code"
    );
    let inbox = core.inbox().await.unwrap();
    assert_eq!(inbox.len(), 1, "cached message still there");
    assert!(!inbox[0].unread, "read state kept");
    assert_eq!(
        inbox[0].status,
        MessageStatus::Answered,
        "answered state kept"
    );
    assert_eq!(
        core.sync_once().await.unwrap(),
        0,
        "nothing new after restart: the cursor was stored"
    );
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_content_becomes_an_error_card_and_the_inbox_keeps_working() {
    let env = env().await;
    let core = open(env.device_dir.path());
    core.create_account(&env.relay.url()).await.unwrap();
    let connection = core.create_connection("buggy-bot", None).await.unwrap();
    let agent = AgentClient::new(
        &connection.relay_url,
        ConnectionToken::parse(&connection.token).unwrap(),
    )
    .unwrap();

    // A buggy sender: content valid enough to seal but breaking the published limits. The SDK
    // refuses it, so seal it by hand the way a broken SDK would.
    let mut bad = approve_reject("Too many buttons");
    for i in 0..9 {
        bad.actions.push(herald_protocol::content::Action {
            id: format!("x{i}"),
            label: "X".into(),
            values: Default::default(),
        });
    }
    assert!(
        agent.send(&bad, SendOptions::default()).await.is_err(),
        "the SDK validates before sealing"
    );
    herald_client::agent::testing::send_unchecked(&agent, &bad)
        .await
        .expect("a broken sender can still post");
    agent
        .send(&approve_reject("Fine"), SendOptions::default())
        .await
        .unwrap();

    assert_eq!(core.sync_once().await.unwrap(), 2, "both records stored");
    let inbox = core.inbox().await.unwrap();
    let broken = inbox
        .iter()
        .find(|m| m.title == "Too many buttons")
        .expect("bad message listed with its title");
    assert!(
        broken
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("actions"),
        "error names the broken rule: {:?}",
        broken.error
    );
    assert!(
        inbox.iter().any(|m| m.title == "Fine" && m.error.is_none()),
        "the next message is fine"
    );
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_title_breaking_the_title_rule_is_refused_and_shown_inert() {
    let env = env().await;
    let core = open(env.device_dir.path());
    core.create_account(&env.relay.url()).await.unwrap();
    let connection = core.create_connection("buggy-bot", None).await.unwrap();
    let agent = AgentClient::new(
        &connection.relay_url,
        ConnectionToken::parse(&connection.token).unwrap(),
    )
    .unwrap();
    // A bidi override that makes "Approve: fdp.exe" read differently, a second line, and a
    // title of zero-width spaces only.
    let bad_titles = [
        "Approve \u{202E}fdp.exe",
        "Deploy\nReject",
        "\u{200B}\u{200B}",
    ];
    for title in bad_titles {
        let err = agent
            .send(&approve_reject(title), SendOptions::default())
            .await
            .expect_err("the SDK refuses the title before sealing");
        assert!(err.to_string().contains("title"), "{title:?}: {err}");
        herald_client::agent::testing::send_unchecked(&agent, &approve_reject(title))
            .await
            .expect("a broken sender can still post");
    }
    assert_eq!(core.sync_once().await.unwrap(), 3, "all records stored");
    let inbox = core.inbox().await.unwrap();
    let shown: Vec<&str> = inbox.iter().map(|m| m.title.as_str()).collect();
    for want in [
        "Approve \\u{202e}fdp.exe",
        "Deploy\\u{a}Reject",
        "\\u{200b}\\u{200b}",
    ] {
        let m = inbox
            .iter()
            .find(|m| m.title == want)
            .unwrap_or_else(|| panic!("{want:?} listed inert: {shown:?}"));
        assert!(
            m.error.as_deref().unwrap_or_default().contains("title"),
            "the error card names the title: {:?}",
            m.error
        );
    }
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_cache_is_rebuilt_from_the_relay_and_keys_are_untouched() {
    let env = env().await;
    let core = open(env.device_dir.path());
    let onboard = core.create_account(&env.relay.url()).await.unwrap();
    let connection = core.create_connection("bot", None).await.unwrap();
    let agent = AgentClient::new(
        &connection.relay_url,
        ConnectionToken::parse(&connection.token).unwrap(),
    )
    .unwrap();
    agent
        .send(&approve_reject("One"), SendOptions::default())
        .await
        .unwrap();
    agent
        .send(&content(json!({"title": "Two"})), SendOptions::default())
        .await
        .unwrap();
    core.sync_once().await.unwrap();
    drop(core);

    let db = env.device_dir.path().join(herald_client::cache::CACHE_FILE);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let bytes = std::fs::read(&db).unwrap();
    std::fs::write(&db, &bytes[..bytes.len() / 3]).unwrap(); // truncated

    let core = open(env.device_dir.path());
    assert_eq!(
        core.setup_state().safety_code.as_deref(),
        Some(onboard.safety_code.as_str()),
        "keys untouched"
    );
    core.sync_once().await.expect("re-sync");
    let mut titles: Vec<_> = core
        .inbox()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.title)
        .collect();
    titles.sort();
    assert_eq!(titles, ["One", "Two"], "everything back from the relay");
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gallery_renders_every_block_and_field_type() {
    let env = env().await;
    let core = open(env.device_dir.path());
    core.create_account(&env.relay.url()).await.unwrap();
    let connection = core.create_connection("gallery-bot", None).await.unwrap();
    let agent = AgentClient::new(
        &connection.relay_url,
        ConnectionToken::parse(&connection.token).unwrap(),
    )
    .unwrap();
    let mut gallery = herald_client::demo::demo_messages()
        .into_iter()
        .find(|m| m.title.starts_with("Gallery"))
        .expect("the demo has a gallery");
    herald_client::demo::attach_demo_image(&agent, &mut gallery)
        .await
        .expect("the gallery's image is uploaded");
    let sent = agent
        .send(&gallery, SendOptions::default())
        .await
        .expect("gallery is valid and sealed");
    core.sync_once().await.unwrap();
    let view = core.message(sent.id.as_str()).await.unwrap();
    assert!(
        view.summary.error.is_none(),
        "the gallery opens cleanly: {:?}",
        view.summary.error
    );
    use herald_client::view::{BlockKind, FieldKind};
    let kinds: Vec<_> = view.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [
            BlockKind::Code,
            BlockKind::Diff,
            BlockKind::Json,
            BlockKind::Table,
            BlockKind::Image
        ],
        "every block, in order"
    );
    assert!(
        view.blocks[0].html.contains("hl-"),
        "code is highlighted: {}",
        view.blocks[0].html
    );
    assert!(
        view.blocks[1].html.contains("diff-added") && view.blocks[1].html.contains("diff-removed"),
        "diff rows classed"
    );
    assert!(view.blocks[2].html.contains('\n'), "json pretty-printed");
    assert!(
        view.blocks[3].html.contains("data-table") && view.blocks[3].html.contains("degraded"),
        "table rendered"
    );
    assert!(
        !view.blocks[4].html.contains("<img"),
        "no remote or missing image is loaded"
    );
    let image_id = view.blocks[4]
        .attachment_id
        .clone()
        .expect("the image block names its attachment");
    let (mime, bytes) = core
        .attachment_bytes_for_image(sent.id.as_str(), &image_id)
        .await
        .expect("the image loads");
    assert_eq!(
        (mime.as_str(), &bytes[..]),
        ("image/png", herald_client::demo::DEMO_IMAGE),
        "the gallery's image, decrypted"
    );
    let field_kinds: Vec<_> = view.fields.iter().map(|f| f.kind).collect();
    for kind in [
        FieldKind::Text,
        FieldKind::Textarea,
        FieldKind::Number,
        FieldKind::Integer,
        FieldKind::Boolean,
        FieldKind::Date,
        FieldKind::DateTime,
        FieldKind::Choice,
        FieldKind::Multiselect,
    ] {
        assert!(field_kinds.contains(&kind), "{kind:?} is in the gallery");
    }
    let answer = herald_client::view::AnswerInput {
        action_id: None,
        values_json: Some(r#"{"summary":"ship","budget":12.5,"replicas":3,"notify":true,"day":"2026-12-01","window":"2026-12-01T22:00:00Z","strategy":"slow and steady","regions":["eu","us"]}"#.into()),
        files: Default::default(),
    };
    let answered = core
        .answer(sent.id.as_str(), answer)
        .await
        .expect("typed values validate and seal");
    assert_eq!(answered.summary.status, MessageStatus::Answered, "answered");
    env.relay.shutdown().await;
}
