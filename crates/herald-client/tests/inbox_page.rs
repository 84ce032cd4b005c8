//! The inbox a page at a time (`Core::inbox_page`, docs/benchmarks.md "Desktop") against a real
//! relay and a real cache: the pages walk the whole inbox in `Core::inbox` order with the
//! decrypted titles, and count the unread messages older than each page.

mod core_setup;

use herald_client::agent::SendOptions;
use herald_protocol::content::MessageContent;

fn note(title: &str) -> MessageContent {
    MessageContent {
        title: title.into(),
        body: "body".into(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_walk_the_inbox_with_titles_and_unread_counts() {
    let relay_dir = tempfile::tempdir().unwrap();
    let relay = core_setup::spawn_relay(relay_dir.path()).await;
    let device_dir = tempfile::tempdir().unwrap();
    let core = core_setup::open_core(device_dir.path(), "d");
    core.create_account(&relay.url()).await.expect("account");
    let agent = core_setup::connect_agent(&core, &relay.url(), "bot").await;
    let n = 23;
    for i in 0..n {
        agent
            .send(&note(&format!("m{i}")), SendOptions::default())
            .await
            .unwrap();
    }
    assert_eq!(core.sync_once().await.unwrap(), n);
    let all = core.inbox().await.unwrap();
    assert_eq!(all.len(), n);
    // Read three messages on this device: the oldest, one in the middle, the newest.
    for i in [0, 11, n - 1] {
        core.mark_read(&all[i].id).await.unwrap();
    }
    let all = core.inbox().await.unwrap();

    let mut walked = Vec::new();
    let mut before: Option<String> = None;
    loop {
        let page = core.inbox_page(before.as_deref(), 5).await.unwrap();
        assert!(!page.messages.is_empty() && page.messages.len() <= 5);
        walked.extend(page.messages.iter().cloned());
        let older_unread = all[walked.len()..].iter().filter(|m| m.unread).count() as u32;
        assert_eq!(
            page.unread_older,
            older_unread,
            "after {} rows",
            walked.len()
        );
        assert_eq!(page.more, walked.len() < n);
        if !page.more {
            break;
        }
        before = walked.last().map(|m| m.id.clone());
    }
    assert_eq!(walked, all, "the pages are the inbox, rows and order");
    assert!(
        walked
            .iter()
            .all(|m| m.title.starts_with('m') && m.error.is_none()),
        "titles are decrypted"
    );
    assert_eq!(walked.iter().filter(|m| !m.unread).count(), 3);

    let err = core.inbox_page(Some("msg_unknown"), 5).await.unwrap_err();
    assert_eq!(err.code(), "not_found");
    relay.shutdown().await;
}
