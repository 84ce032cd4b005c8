//! Clock skew and secret offers (docs/faults.md, "Device faults", "Relay time only"): the
//! device that opens an offer and the sending agent disagree by 20 minutes (each ±10 off).
//! The one-time key's expiry is the relay's (a manual clock here), so a key whose signed
//! expiry is already in the sender's past is still used while the relay calls it live, and
//! one whose signed expiry is far ahead is not used once the relay's 15 minutes are over.
//! The device core learns the relay's time from its `Date` headers. A real relay
//! (herald-testkit), a real device core, real crypto.

mod fault_support;

use std::time::Duration;

use chrono::TimeDelta;
use fault_support::*;
use herald_client::agent::{AgentClient, OfferOutcome, SendOptions};
use herald_client::Core;
use herald_protocol::MessageId;
use herald_testkit::herald_relay::Clock;
use herald_testkit::TestRelay;

const SECRET: &str = "correct horse battery staple";
/// A bound for each wait, not a delay.
const BOUND: Duration = Duration::from_secs(60);

async fn offer(core: &Core, agent: &AgentClient) -> MessageId {
    let content = serde_json::from_value(
        serde_json::json!({"title": "Staging password", "body": "For the deploy."}),
    )
    .unwrap();
    let offered = agent
        .send_secret_offer(&content, SECRET.as_bytes(), SendOptions::default())
        .await
        .expect("offer sent");
    core.sync_once().await.expect("sync");
    offered.id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_offer_expiry_follows_the_relay_not_the_devices_or_senders_clock() {
    let world = World::start(TestRelay::start_with_manual_clock().await).await;
    let (core, agent) = (&world.core, &world.agent);

    // The device's clock is 20 minutes behind the sender's: by the sender's clock the key it
    // signs expired 5 minutes ago, but the relay opened it just now.
    let id = offer(core, agent).await;
    core.open_secret_offer_with_clock_skew(id.as_str(), -TimeDelta::minutes(20))
        .await
        .expect("opened");
    let delivery = agent.deliver_secret(&id, SECRET.as_bytes(), Some(BOUND));
    let reveal = tokio::time::timeout(BOUND, async {
        loop {
            if let Some(r) = core.reveal_secret_offer(id.as_str()).await.expect("reveal") {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let (delivered, revealed) = tokio::join!(delivery, reveal);
    assert_eq!(
        revealed.expect("revealed in time").text,
        SECRET,
        "the secret reached the device"
    );
    match delivered {
        Ok(OfferOutcome::Delivered(_)) => {}
        other => panic!("the relay's clock says the key is live: expected delivery, got {other:?}"),
    }

    // The device's clock is 20 minutes ahead: its signed expiry is 35 minutes away, but the
    // relay's 15 minutes pass first and nothing is sent.
    let id = offer(core, agent).await;
    core.open_secret_offer_with_clock_skew(id.as_str(), TimeDelta::minutes(20))
        .await
        .expect("opened");
    world.relay.clock().advance(TimeDelta::minutes(16));
    match agent
        .deliver_secret(&id, SECRET.as_bytes(), Some(BOUND))
        .await
    {
        Ok(OfferOutcome::Expired(state)) => {
            assert!(state.sent_at.is_none(), "nothing was sent")
        }
        other => panic!("expected the relay's expiry, got {other:?}"),
    }
    assert!(
        core.reveal_secret_offer(id.as_str()).await.is_err(),
        "the device cannot reveal an expired offer"
    );

    // The core's idea of the relay's time follows the relay's clock (16 minutes ahead of
    // this machine's now), not the local clock.
    core.sync_once().await.expect("sync");
    let off = core.relay_now() - world.relay.clock().now();
    assert!(
        off.abs() < TimeDelta::minutes(1),
        "relay time as the core sees it is {off} off the relay's clock"
    );
}
