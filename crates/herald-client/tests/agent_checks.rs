//! The SDK validates completely before anything leaves the machine: `AgentClient::ask` refuses
//! content that asks nothing (an empty `questions` list) before uploading its files or posting,
//! and a device's answer values are read strictly (a field given twice is refused). A real
//! relay on 127.0.0.1:0 and a real device core; the relay's file directory and the device's
//! inbox show that nothing arrived.

mod core_setup;

use herald_client::agent::{AgentClient, SendOptions};
use herald_client::view::AnswerInput;
use herald_client::Error;
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use herald_relay::RelayConfig;
use serde_json::json;

fn content(v: serde_json::Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

fn uploads(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("relay").join("files"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_refuses_before_uploading_or_sending() {
    let dir = tempfile::tempdir().expect("temp dir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let relay = herald_relay::spawn(
        RelayConfig {
            data_dir: dir.path().join("relay"),
            public_url: None,
            ..Default::default()
        },
        listener,
    )
    .await
    .expect("relay starts");
    let core = core_setup::open_core(&dir.path().join("device"), "Test laptop");
    core.create_account(&relay.url()).await.expect("account");
    let created = core
        .create_connection("Agent", None)
        .await
        .expect("connection");
    let token = ConnectionToken::parse(&created.token).expect("token parses");
    let agent = AgentClient::new(&relay.url(), token).expect("agent");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "notes").expect("write");

    let empty = content(json!({"title": "Questions", "questions": []}));
    let options = SendOptions {
        attachments: vec![file.clone()],
        ..SendOptions::default()
    };
    match agent.ask(&empty, options.clone()).await {
        Err(Error::Validation(v)) => assert!(
            v.iter()
                .any(|v| v.message.contains("must ask for something")),
            "{v:?}"
        ),
        other => panic!("refused by validation: {other:?}"),
    }
    let blank = content(json!({"title": "  ", "actions": [{"id": "ok", "label": "OK"}]}));
    assert!(matches!(
        agent.ask(&blank, options.clone()).await,
        Err(Error::Validation(_))
    ));
    assert_eq!(uploads(dir.path()), 0, "no file was uploaded");
    core.sync_once().await.expect("sync");
    assert!(
        core.inbox().await.expect("inbox").is_empty(),
        "nothing sent"
    );

    // A request that asks: sent; an answer naming a field twice is refused on the device.
    let request =
        content(json!({"title": "Env", "fields": [{"id": "env", "label": "Env", "type": "text"}]}));
    let record = agent
        .ask(&request, SendOptions::default())
        .await
        .expect("sent");
    core.sync_once().await.expect("sync");
    let refused = core
        .answer(
            record.id.as_str(),
            AnswerInput {
                action_id: None,
                values_json: Some(r#"{"env":"prod","env":"dev"}"#.into()),
                files: Default::default(),
            },
        )
        .await;
    match refused {
        Err(Error::InvalidInput(message)) => {
            assert!(
                message.contains("env") && message.contains("twice"),
                "{message}"
            )
        }
        other => panic!("a duplicate key is refused: {other:?}"),
    }
    relay.shutdown().await;
}
