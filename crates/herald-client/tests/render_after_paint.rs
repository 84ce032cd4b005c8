//! Colour after first paint: a message with more code than the highlighting budget is first
//! shown with plain `highlight-skipped` blocks, then the core renders it fully in the
//! background, emits `MessageRendered`, and later opens return the full render from memory.
//! Real relay on 127.0.0.1:0, real SQLite cache, real crypto.

mod core_setup;

use std::time::Duration;

use herald_client::agent::SendOptions;
use herald_client::view::CoreEvent;
use herald_protocol::content::MessageContent;
use serde_json::json;

/// A report whose code is several times the per-message highlighting budget.
fn long_code_body() -> String {
    let blocks = 4 * herald_render::MAX_HIGHLIGHT_BYTES_PER_MESSAGE / 48;
    (0..blocks)
        .map(|i| format!("Step {i}.\n\n```python\ndef step_{i}(x):\n    return x + {i}\n```\n\n"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_code_is_coloured_after_the_first_paint_and_cached() {
    let relay_dir = tempfile::tempdir().unwrap();
    let device_dir = tempfile::tempdir().unwrap();
    let relay = core_setup::spawn_relay(relay_dir.path()).await;
    let core = core_setup::open_core(device_dir.path(), "Test laptop");
    core.create_account(&relay.url()).await.expect("account");
    let agent = core_setup::connect_agent(&core, &relay.url(), "report-bot").await;

    let body = long_code_body();
    let long: MessageContent =
        serde_json::from_value(json!({"title": "Report", "body": body})).unwrap();
    let short: MessageContent = serde_json::from_value(
        json!({"title": "Note", "body": "Try:\n\n```python\nprint(1)\n```\n"}),
    )
    .unwrap();
    let long_id = agent.send(&long, SendOptions::default()).await.unwrap().id;
    let short_id = agent.send(&short, SendOptions::default()).await.unwrap().id;
    core.sync_once().await.expect("synced");

    let mut events = core.subscribe();
    let first = core.message(long_id.as_str()).await.unwrap();
    assert!(
        first.body_html.contains("highlight-skipped"),
        "first paint stays within the budget"
    );
    assert_eq!(first.body_html, herald_render::markdown_to_html(&body));

    // The short message needs no second render and is already final.
    let note = core.message(short_id.as_str()).await.unwrap();
    assert!(
        note.body_html.contains("class=\"hl-"),
        "short code is coloured"
    );
    assert!(!note.body_html.contains("highlight-skipped"));

    let rendered = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match events.recv().await.expect("event stream open") {
                CoreEvent::MessageRendered { id } => return id,
                _ => continue,
            }
        }
    })
    .await
    .expect("the full render finished in time");
    assert_eq!(
        rendered,
        long_id.as_str(),
        "only the long message is re-rendered"
    );

    let full = herald_render::markdown_to_html_full(&body);
    let second = core.message(long_id.as_str()).await.unwrap();
    assert!(
        !second.body_html.contains("highlight-skipped"),
        "all coloured"
    );
    assert_eq!(second.body_html, full, "identical to a full render");
    // Everything but the body is the same view.
    assert_eq!(
        serde_json::to_value(&first.summary).unwrap(),
        serde_json::to_value(&second.summary).unwrap()
    );
    assert_eq!(
        core.message(long_id.as_str()).await.unwrap().body_html,
        full
    );

    relay.shutdown().await;
}
