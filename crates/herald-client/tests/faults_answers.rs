//! Answer faults (docs/faults.md, "Device faults"): an answer given while the relay is down is
//! queued and delivered exactly once when it is back (across a restart of the device too),
//! and one request answered at once from two devices and a notification gets exactly one
//! decision. A real relay (herald-testkit) that is stopped and started on the same address,
//! real device cores, real crypto.

mod fault_support;

use std::time::Duration;

use fault_support::*;
use herald_client::agent::{SendOptions, WaitOutcome};
use herald_client::view::{AnswerInput, MessageStatus};
use herald_client::Core;
use herald_protocol::content::MessageContent;
use herald_testkit::TestRelay;
use serde_json::json;

fn action(id: &str) -> AnswerInput {
    AnswerInput {
        action_id: Some(id.into()),
        values_json: None,
        files: Default::default(),
    }
}

/// `(answered_by, answered_at_ms)` of a message, from the relay's own database.
fn relay_answer(relay: &TestRelay, id: &str) -> (Option<String>, Option<i64>) {
    let c = rusqlite::Connection::open(relay.db_path()).expect("relay db");
    c.query_row(
        "SELECT answered_by, answered_at_ms FROM messages WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .expect("the request is on the relay")
}

async fn wait_action(world_agent: &herald_client::agent::AgentClient, id: &str) -> String {
    let id = herald_protocol::MessageId::parse(id).unwrap();
    match world_agent
        .wait(&id, Some(Duration::from_secs(30)))
        .await
        .expect("wait")
    {
        WaitOutcome::Answered(a) => a.action_id.expect("an action"),
        other => panic!("expected an answer, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_given_offline_is_queued_and_delivered_once_on_reconnect() {
    let World {
        relay,
        dir,
        core,
        agent,
        ..
    } = World::start(TestRelay::start().await).await;
    let first = agent
        .send(&approve_reject("Deploy?"), SendOptions::default())
        .await
        .unwrap();
    let second = agent
        .send(&approve_reject("Rotate keys?"), SendOptions::default())
        .await
        .unwrap();
    let third = agent
        .send(&approve_reject("Merge?"), SendOptions::default())
        .await
        .unwrap();
    core.sync_once().await.expect("synced while online");
    let device_id = core.setup_state().device_id.expect("device id");

    // The relay goes down (same address when it comes back).
    let stopped = relay.stop().await;
    let queued = core.answer(first.id.as_str(), action("approve")).await;
    assert_eq!(
        queued.err().map(|e| e.code()).as_deref(),
        Some("answer_queued"),
        "out of reach: queued"
    );
    let again = core.answer(first.id.as_str(), action("reject")).await;
    assert_eq!(
        again.err().map(|e| e.code()).as_deref(),
        Some("answer_queued"),
        "a second answer (the notification's) does not replace the queued one"
    );
    let view = core.message(first.id.as_str()).await.unwrap();
    assert_eq!(
        view.summary.status,
        MessageStatus::Pending,
        "not answered yet"
    );
    assert!(
        view.answer_queued,
        "the view says the answer waits to be sent"
    );

    // The app restarts while still offline: the queue survives, and takes one more.
    drop(core);
    let core = open_core(dir.path(), "Laptop");
    assert_eq!(
        core.queued_answers().await.unwrap(),
        [first.id.to_string()],
        "the queue survived the restart"
    );
    let queued = core.answer(second.id.as_str(), action("reject")).await;
    assert_eq!(
        queued.err().map(|e| e.code()).as_deref(),
        Some("answer_queued")
    );
    let queued = core.answer(third.id.as_str(), action("approve")).await;
    assert_eq!(
        queued.err().map(|e| e.code()).as_deref(),
        Some("answer_queued")
    );
    assert!(
        core.sync_once().await.is_err(),
        "a catch-up while offline fails"
    );
    assert_eq!(core.queued_answers().await.unwrap().len(), 3, "all kept");

    // A copy of this device as it is now (same keys, same queue): below, it plays the device
    // that crashed after the relay took its answers but before it removed them from the
    // queue.
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file()
            && !entry.file_name().to_string_lossy().ends_with("-shm")
        {
            std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
        }
    }

    // The relay comes back; the running sync task reconnects (backoff) and flushes.
    let mut events = core.subscribe();
    core.start_sync().expect("sync starts (relay still down)");
    let relay = stopped.start().await;
    for (id, action) in [(&first.id, "approve"), (&second.id, "reject")] {
        next_upsert(&mut events, |m| {
            m.id == id.as_str() && m.status == MessageStatus::Answered
        })
        .await;
        let view = core.message(id.as_str()).await.unwrap();
        assert!(!view.answer_queued, "delivered: no longer pending");
        assert_eq!(
            view.answer.and_then(|a| a.action_id).as_deref(),
            Some(action),
            "the queued answer is shown as given"
        );
    }
    tokio::time::timeout(Duration::from_secs(60), async {
        while !core.queued_answers().await.unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the queue empties");
    core.stop_sync();

    for (id, action) in [
        (&first.id, "approve"),
        (&second.id, "reject"),
        (&third.id, "approve"),
    ] {
        assert_eq!(
            wait_action(&agent, id.as_str()).await,
            action,
            "agent sees it"
        );
        let (by, at) = relay_answer(&relay, id.as_str());
        assert_eq!(
            by.as_deref(),
            Some(device_id.as_str()),
            "answered by this device"
        );
        assert!(at.is_some(), "answered once, with its time");
        let view = core.message(id.as_str()).await.unwrap();
        assert_eq!(view.summary.status, MessageStatus::Answered);
    }
    // Nothing is posted twice: a later catch-up has nothing left to send.
    assert_eq!(core.sync_once().await.expect("online again"), 0);

    // The crashed copy comes back with all three still queued: the relay refuses each as
    // already answered — by this device — so they count as delivered, nothing changes.
    let before: Vec<_> = [&first.id, &second.id, &third.id]
        .iter()
        .map(|id| relay_answer(&relay, id.as_str()))
        .collect();
    let twin = open_core(copy.path(), "Laptop");
    assert_eq!(twin.queued_answers().await.unwrap().len(), 3);
    twin.sync_once().await.expect("the twin's catch-up");
    assert!(twin.queued_answers().await.unwrap().is_empty(), "delivered");
    for ((id, action), was) in [
        (&first.id, "approve"),
        (&second.id, "reject"),
        (&third.id, "approve"),
    ]
    .iter()
    .zip(before)
    {
        assert_eq!(relay_answer(&relay, id.as_str()), was, "answered once");
        let view = twin.message(id.as_str()).await.unwrap();
        assert_eq!(
            view.answer.and_then(|a| a.action_id).as_deref(),
            Some(*action)
        );
    }
}

/// Three answers race for one request: the desktop window and the desktop's notification
/// button (both `Core::answer` on the same core — in the app they also pass `AnswerGate`,
/// crates/herald-client/src/gate.rs, which turns the later one away before it posts) and a second
/// device. Five rounds, each with a fresh request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_request_answered_from_two_devices_and_a_notification_gets_one_decision() {
    let world = World::start(TestRelay::start().await).await;
    let desk = &world.core;
    let phone_dir = tempfile::tempdir().unwrap();
    let phone = open_core(phone_dir.path(), "Phone");
    phone
        .unlock_with_recovery_key(&world.relay.url, &world.recovery_key, "Phone")
        .await
        .expect("the phone unlocks");
    let three: MessageContent = serde_json::from_value(json!({
        "title": "Which way?", "body": "Pick one.", "actions": [
            {"id": "window", "label": "Left", "values": {}},
            {"id": "banner", "label": "Middle", "values": {}},
            {"id": "phone", "label": "Right", "values": {}}]}))
    .unwrap();

    let mut winners = std::collections::BTreeSet::new();
    for round in 0..5 {
        let sent = world
            .agent
            .send(&three, SendOptions::default())
            .await
            .unwrap();
        let id = sent.id.as_str();
        desk.sync_once().await.unwrap();
        phone.sync_once().await.unwrap();
        let race = |core: &Core, a: &'static str| {
            let core = core.clone();
            let id = id.to_owned();
            tokio::spawn(async move { (a, core.answer(&id, action(a)).await) })
        };
        let (window, banner, from_phone) = (
            race(desk, "window"),
            race(desk, "banner"),
            race(&phone, "phone"),
        );
        let results = [
            window.await.unwrap(),
            banner.await.unwrap(),
            from_phone.await.unwrap(),
        ];
        let won: Vec<&str> = results
            .iter()
            .filter(|(_, r)| r.is_ok())
            .map(|(a, _)| *a)
            .collect();
        assert_eq!(
            won.len(),
            1,
            "round {round}: exactly one decision wins: {won:?}"
        );
        let winner = won[0];
        winners.insert(winner);
        for (a, r) in &results {
            if let Err(e) = r {
                assert_eq!(e.code(), "already_answered", "round {round}: {a} is told");
                assert!(
                    e.to_string().contains("already answered"),
                    "a clear message: {e}"
                );
            }
        }
        // What each screen shows: the winner's answer, on both devices.
        phone.sync_once().await.unwrap();
        desk.sync_once().await.unwrap();
        for core in [desk, &phone] {
            let view = core.message(id).await.unwrap();
            assert_eq!(view.summary.status, MessageStatus::Answered);
            assert_eq!(
                view.answer.and_then(|a| a.action_id).as_deref(),
                Some(winner),
                "round {round}: the winner's answer is shown"
            );
        }
        assert_eq!(
            wait_action(&world.agent, id).await,
            winner,
            "the agent gets it"
        );
    }
    eprintln!("winners over 5 rounds: {winners:?}");
}
