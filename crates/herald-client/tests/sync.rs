//! Sync engine named cases against a real relay: multi-page catch-up, a relay restart with
//! messages sent while the device was away (reconnect with backoff, no gap), and repeated
//! catch-ups that change nothing.

mod core_setup;

use std::time::Duration;

use herald_client::agent::{AgentClient, SendOptions};
use herald_client::view::CoreEvent;
use herald_client::Core;
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;

async fn start_relay(dir: &std::path::Path, addr: &str) -> herald_relay::RunningRelay {
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    herald_relay::spawn(
        herald_relay::RelayConfig {
            data_dir: dir.to_path_buf(),
            public_url: None,
            ..Default::default()
        },
        listener,
    )
    .await
    .expect("relay starts")
}

fn open(dir: &std::path::Path) -> Core {
    core_setup::open_core(dir, "d")
}

fn note(title: &str) -> MessageContent {
    MessageContent {
        title: title.into(),
        body: String::new(),
        ..Default::default()
    }
}

async fn setup(relay_url: &str, device_dir: &std::path::Path) -> (Core, AgentClient) {
    let core = open(device_dir);
    core.create_account(relay_url).await.expect("account");
    let c = core
        .create_connection("bot", None)
        .await
        .expect("connection");
    let agent = AgentClient::new(&c.relay_url, ConnectionToken::parse(&c.token).unwrap()).unwrap();
    (core, agent)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_plus_one_is_fetched_completely_and_a_second_pass_is_a_no_op() {
    let relay_dir = tempfile::tempdir().unwrap();
    let relay = start_relay(relay_dir.path(), "127.0.0.1:0").await;
    let device_dir = tempfile::tempdir().unwrap();
    let (core, agent) = setup(&relay.url(), device_dir.path()).await;
    let n = herald_protocol::wire::DEFAULT_PAGE_LIMIT as usize + 1;
    for i in 0..n {
        agent
            .send(&note(&format!("m{i}")), SendOptions::default())
            .await
            .unwrap();
    }
    assert_eq!(
        core.sync_once().await.unwrap(),
        n,
        "one full page and one more record"
    );
    assert_eq!(core.inbox().await.unwrap().len(), n, "all cached");
    assert_eq!(
        core.sync_once().await.unwrap(),
        0,
        "a repeated catch-up stores nothing"
    );
    relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_restart_device_reconnects_and_misses_nothing() {
    let relay_dir = tempfile::tempdir().unwrap();
    let relay = start_relay(relay_dir.path(), "127.0.0.1:0").await;
    let addr = relay.local_addr();
    let device_dir = tempfile::tempdir().unwrap();
    let (core, agent) = setup(&relay.url(), device_dir.path()).await;
    let mut events = core.subscribe();
    core.start_sync().unwrap();
    agent
        .send(&note("before"), SendOptions::default())
        .await
        .unwrap();

    let mut seen = Vec::new();
    let mut saw_disconnect = false;
    let deadline = Duration::from_secs(30);
    tokio::time::timeout(deadline, async {
        while !seen.contains(&"before".to_string()) {
            if let CoreEvent::MessageUpserted { message, .. } = events.recv().await.unwrap() {
                seen.push(message.title);
            }
        }
    })
    .await
    .expect("first message arrives live");

    relay.shutdown().await;
    let relay = start_relay(relay_dir.path(), &addr.to_string()).await;
    for t in ["during-1", "during-2"] {
        agent.send(&note(t), SendOptions::default()).await.unwrap();
    }
    tokio::time::timeout(deadline, async {
        while !(seen.contains(&"during-1".to_string()) && seen.contains(&"during-2".to_string())) {
            match events.recv().await.unwrap() {
                CoreEvent::MessageUpserted { message, .. } => seen.push(message.title),
                CoreEvent::SyncState {
                    connected: false, ..
                } => saw_disconnect = true,
                CoreEvent::SyncState { .. }
                | CoreEvent::NotificationUpserted { .. }
                | CoreEvent::MessageRendered { .. } => {}
            }
        }
    })
    .await
    .expect("messages sent after the restart arrive after reconnecting");
    assert!(saw_disconnect, "the UI was told the connection dropped");
    let titles: Vec<_> = core
        .inbox()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.title)
        .collect();
    assert_eq!(
        titles.len(),
        3,
        "each message stored exactly once: {titles:?}"
    );
    core.stop_sync();
    relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_are_cached_as_one_conversation() {
    let relay_dir = tempfile::tempdir().unwrap();
    let relay = start_relay(relay_dir.path(), "127.0.0.1:0").await;
    let device_dir = tempfile::tempdir().unwrap();
    let (core, agent) = setup(&relay.url(), device_dir.path()).await;
    let root = agent
        .send(&note("Root"), SendOptions::default())
        .await
        .unwrap();
    agent
        .send(&note("Unrelated"), SendOptions::default())
        .await
        .unwrap();
    let reply = agent
        .send(
            &note("Reply"),
            SendOptions {
                reply_to: Some(root.id.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    core.sync_once().await.unwrap();
    let thread = core.thread(reply.id.as_str()).await.unwrap();
    let titles: Vec<_> = thread.iter().map(|m| m.title.as_str()).collect();
    assert_eq!(
        titles,
        ["Root", "Reply"],
        "the conversation, oldest first, without unrelated messages"
    );
    assert_eq!(
        thread[1].reply_to.as_deref(),
        Some(root.id.as_str()),
        "the reply knows its parent"
    );
    assert_eq!(
        thread[1].thread_id,
        root.id.as_str(),
        "thread id is the first message"
    );
    relay.shutdown().await;
}
