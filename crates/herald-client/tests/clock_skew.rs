//! Clock skew (docs/faults.md, "Device faults"): senders whose clocks are 10 minutes ahead or
//! behind. The inbox is ordered by the relay's times and revisions, and deadlines are judged
//! by the relay's clock alone (a manual clock here), whatever the sender wrote into its
//! envelope. A real relay (herald-testkit), a real device core, real crypto.

mod fault_support;

use chrono::TimeDelta;
use fault_support::*;
use herald_client::agent::testing::send_with_clock_skew;
use herald_client::agent::SendOptions;
use herald_client::view::{AnswerInput, MessageStatus};
use herald_testkit::TestRelay;

const TEN_MINUTES: TimeDelta = TimeDelta::minutes(10);

/// The `createdAt` the sender wrote into its (signed) envelope header.
fn envelope_created_at(record: &herald_protocol::wire::MessageRecord) -> String {
    let header = herald_protocol::envelope::b64_decode(&record.envelope.header).unwrap();
    let header: serde_json::Value = serde_json::from_slice(&header).unwrap();
    header["createdAt"].as_str().unwrap().to_owned()
}

fn approve() -> AnswerInput {
    AnswerInput {
        action_id: Some("approve".into()),
        values_json: None,
        files: Default::default(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_and_expiry_follow_the_relay_not_the_senders_clock() {
    let world = World::start(TestRelay::start_with_manual_clock().await).await;
    let clock = world.relay.clock();
    let agent = &world.agent;

    // Three messages, one relay second apart, from a sender whose clock jumps around.
    let mut sent = vec![];
    for (title, skew) in [
        ("ahead", TEN_MINUTES),
        ("behind", -TEN_MINUTES),
        ("on time", TimeDelta::zero()),
    ] {
        let content = serde_json::from_value(serde_json::json!({"title": title})).unwrap();
        let record = send_with_clock_skew(agent, &content, SendOptions::default(), skew)
            .await
            .expect("sent");
        sent.push((title, record));
        clock.advance(TimeDelta::seconds(1));
    }
    let (_, ahead) = &sent[0];
    assert!(
        envelope_created_at(ahead) > ahead.created_at,
        "the sender did write a time 10 minutes ahead"
    );

    // Two requests: one with a long deadline from a clock ahead (its own clock would call it
    // nearly over), one with a short deadline from a clock behind (its own clock would give
    // it 10 more minutes).
    let long = send_with_clock_skew(
        agent,
        &approve_reject("Long deadline"),
        SendOptions {
            expires_in: Some(600),
            ..Default::default()
        },
        TEN_MINUTES,
    )
    .await
    .unwrap();
    clock.advance(TimeDelta::seconds(1));
    let short = send_with_clock_skew(
        agent,
        &approve_reject("Short deadline"),
        SendOptions {
            expires_in: Some(60),
            ..Default::default()
        },
        -TEN_MINUTES,
    )
    .await
    .unwrap();

    let core = &world.core;
    core.sync_once().await.expect("sync");
    let inbox = core.inbox().await.unwrap();
    let titles: Vec<&str> = inbox.iter().map(|m| m.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Short deadline",
            "Long deadline",
            "on time",
            "behind",
            "ahead"
        ],
        "newest first by the relay's time, not the sender's"
    );
    let revisions: Vec<u64> = inbox.iter().map(|m| m.revision).collect();
    assert!(
        revisions.windows(2).all(|w| w[0] > w[1]),
        "and by the relay's revisions: {revisions:?}"
    );
    for (title, record) in &sent {
        let shown = inbox.iter().find(|m| m.id == record.id.as_str()).unwrap();
        assert_eq!(shown.created_at, record.created_at, "the relay's createdAt");
        if *title != "on time" {
            assert_ne!(
                shown.created_at,
                envelope_created_at(record),
                "not the sender's"
            );
        }
    }
    let shown = inbox.iter().find(|m| m.id == short.id.as_str()).unwrap();
    assert_eq!(
        shown.expires_at, short.expires_at,
        "the relay's deadline is shown"
    );

    // Two relay minutes later: the short request is over by the relay's clock (its sender's
    // clock would still give it 8 minutes), the long one is open (its sender's clock would
    // have called it over).
    clock.advance(TimeDelta::minutes(2));
    let late = core.answer(short.id.as_str(), approve()).await;
    assert_eq!(
        late.err().map(|e| e.code()).as_deref(),
        Some("request_expired"),
        "the relay refuses by its own clock, before any sweep"
    );
    let answered = core
        .answer(long.id.as_str(), approve())
        .await
        .expect("still open by the relay's clock");
    assert_eq!(answered.summary.status, MessageStatus::Answered);

    world.relay.state.sweep_expired().await.expect("sweep");
    core.sync_once().await.unwrap();
    let view = core.message(short.id.as_str()).await.unwrap();
    assert_eq!(
        view.summary.status,
        MessageStatus::Expired,
        "expired by the relay"
    );
    let view = core.message(long.id.as_str()).await.unwrap();
    assert_eq!(view.summary.status, MessageStatus::Answered);
}
