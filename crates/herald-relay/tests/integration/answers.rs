//! Answers (exactly once), cancellation and expiry by the relay's clock, through the real
//! HTTP API of a relay on 127.0.0.1:0.

use crate::common;

use std::collections::HashSet;

use chrono::Duration;
use common::*;
use herald_protocol::wire::{MessageRecord, MessageStatus};
use herald_protocol::{ErrorCode, Revision};
use herald_relay::Clock;
use herald_testkit::fixtures::{self, TestAccount};
use herald_testkit::{Reply, TestRelay};

async fn setup() -> (TestRelay, TestAccount) {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    (relay, account)
}

/// The account's device answers message `id`; the reply unchecked.
async fn answer(
    relay: &TestRelay,
    account: &TestAccount,
    id: &herald_protocol::MessageId,
) -> Reply {
    let body = fixtures::answer_request(account, id);
    relay
        .api()
        .device(account)
        .post(&format!("/messages/{id}/answer"), &body)
        .await
}

#[tokio::test]
async fn answer_is_accepted_exactly_once() {
    let (relay, account) = setup().await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;
    let request = send(
        &relay.url,
        &conn.bearer,
        &fixtures::message_request(&account.account_id, conn.principal(), true),
    )
    .await;

    let answered: MessageRecord = answer(&relay, &account, &request.id)
        .await
        .ok(200, "the first answer is accepted");
    assert_eq!(
        answered.status,
        MessageStatus::Answered,
        "status becomes answered"
    );
    assert!(
        answered.revision > request.revision,
        "the answer takes a new revision"
    );
    let stored = answered.answer.as_ref().expect("the answer is attached");
    assert_eq!(
        stored.device_id, account.device_id,
        "answered by this device"
    );

    answer(&relay, &account, &request.id)
        .await
        .error(ErrorCode::AlreadyAnswered, "a second answer");

    let seen: MessageRecord = relay
        .api()
        .connection(&conn)
        .get(&format!("/messages/{}", request.id))
        .await
        .ok(200, "the sender reads its request");
    assert_eq!(seen, answered, "the sender reads the answered record");
    relay.shutdown().await;
}

#[tokio::test]
async fn concurrent_answers_exactly_one_wins() {
    let (relay, account) = setup().await;
    for round in 0..5 {
        let request = send_from_device(&relay.url, &account, true).await;
        let tasks: Vec<_> = (0..2)
            .map(|_| {
                let (device, account, id) = (
                    relay.api().device(&account),
                    account.clone(),
                    request.id.clone(),
                );
                tokio::spawn(async move {
                    let body = fixtures::answer_request(&account, &id);
                    device
                        .post(&format!("/messages/{id}/answer"), &body)
                        .await
                        .status()
                })
            })
            .collect();
        let mut statuses = Vec::new();
        for t in tasks {
            statuses.push(t.await.unwrap());
        }
        statuses.sort();
        assert_eq!(
            statuses,
            vec![200, 409],
            "round {round}: exactly one answer wins, the other gets 409"
        );
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn answers_refused_for_messages_cancelled_requests_and_connections() {
    let (relay, account) = setup().await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;

    let plain = send_from_device(&relay.url, &account, false).await;
    answer(&relay, &account, &plain.id)
        .await
        .error(ErrorCode::NotARequest, "a message without a question");

    let request = send(
        &relay.url,
        &conn.bearer,
        &fixtures::message_request(&account.account_id, conn.principal(), true),
    )
    .await;
    let sender = relay.api().connection(&conn);
    let cancelled: MessageRecord = sender
        .post_empty(&format!("/messages/{}/cancel", request.id))
        .await
        .ok(200, "the sender cancels its request");
    assert_eq!(
        cancelled.status,
        MessageStatus::Cancelled,
        "status becomes cancelled"
    );
    assert!(
        cancelled.revision > request.revision,
        "cancelling takes a revision"
    );
    answer(&relay, &account, &request.id)
        .await
        .error(ErrorCode::RequestCancelled, "answer after cancel");
    sender
        .post_empty(&format!("/messages/{}/cancel", request.id))
        .await
        .error(ErrorCode::RequestCancelled, "cancel twice");

    let answered = send_from_device(&relay.url, &account, true).await;
    answer(&relay, &account, &answered.id)
        .await
        .expect_status(200, "answered");
    relay
        .api()
        .device(&account)
        .post_empty(&format!("/messages/{}/cancel", answered.id))
        .await
        .error(ErrorCode::AlreadyAnswered, "cancel after the answer");

    // The answer route is for devices only.
    let request = send(
        &relay.url,
        &conn.bearer,
        &fixtures::message_request(&account.account_id, conn.principal(), true),
    )
    .await;
    let body = fixtures::answer_request(&account, &request.id);
    sender
        .post(&format!("/messages/{}/answer", request.id), &body)
        .await
        .error(ErrorCode::Forbidden, "a connection may not answer");

    // The answer envelope must name this message and this device.
    let other = fixtures::new_message_id();
    let body = fixtures::answer_request(&account, &other);
    let err = relay
        .api()
        .device(&account)
        .post(&format!("/messages/{}/answer", request.id), &body)
        .await
        .error(
            ErrorCode::InvalidRequest,
            "answer envelope for another message",
        );
    assert_eq!(
        err.fields,
        vec!["envelope.header.messageId"],
        "names the header message id"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn expired_request_refuses_answers_by_the_relay_clock() {
    let relay = TestRelay::start_with_manual_clock().await;
    let account = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;
    let mut req = fixtures::message_request(&account.account_id, conn.principal(), true);
    req.expires_in = Some(60);
    let request = send(&relay.url, &conn.bearer, &req).await;
    let by_expires_at = {
        let mut r = fixtures::message_request(&account.account_id, conn.principal(), true);
        r.expires_at = Some(herald_relay::clock::format_time(
            relay.clock().now() + Duration::seconds(30),
        ));
        send(&relay.url, &conn.bearer, &r).await
    };

    relay.clock().advance(Duration::seconds(59));
    let path = format!("/messages/{}", request.id);
    let sender = relay.api().connection(&conn);
    let live: MessageRecord = sender
        .get(&path)
        .await
        .ok(200, "the sender reads its request");
    assert_eq!(
        live.status,
        MessageStatus::Pending,
        "one second before the deadline it is still pending"
    );

    relay.clock().advance(Duration::seconds(1));
    // Before any sweep: reads already say expired, answers are refused.
    let read: MessageRecord = relay
        .api()
        .device(&account)
        .get(&path)
        .await
        .ok(200, "the device reads the request");
    assert_eq!(
        read.status,
        MessageStatus::Expired,
        "at the deadline the read reports expired"
    );
    answer(&relay, &account, &request.id)
        .await
        .error(ErrorCode::RequestExpired, "answer at the deadline");
    answer(&relay, &account, &by_expires_at.id)
        .await
        .error(ErrorCode::RequestExpired, "answer after expiresAt");
    sender
        .post_empty(&format!("{path}/cancel"))
        .await
        .error(ErrorCode::RequestExpired, "cancel after the deadline");

    // The sweep writes the expiry as a change: new revisions in the feed.
    let before = feed(&relay.url, &account.device_token, Revision(0), None)
        .await
        .cursor;
    relay.state.sweep_expired().await.expect("sweep");
    let after = feed(&relay.url, &account.device_token, before, None).await;
    let ids: HashSet<_> = after.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(
        ids,
        HashSet::from([request.id.clone(), by_expires_at.id.clone()]),
        "both expiries appear after the old cursor"
    );
    assert!(
        after
            .records
            .iter()
            .all(|r| r.status == MessageStatus::Expired),
        "as expired"
    );
    answer(&relay, &account, &request.id)
        .await
        .error(ErrorCode::RequestExpired, "answer after the sweep");
    relay.shutdown().await;
}

#[tokio::test]
async fn cancel_visibility() {
    let (relay, account) = setup().await;
    let a = fixtures::create_connection(&relay.url, &account, "A").await;
    let b = fixtures::create_connection(&relay.url, &account, "B").await;
    let request = send(
        &relay.url,
        &a.bearer,
        &fixtures::message_request(&account.account_id, a.principal(), true),
    )
    .await;
    let cancel = format!("/messages/{}/cancel", request.id);
    relay.api().connection(&b).post_empty(&cancel).await.error(
        ErrorCode::NotFound,
        "another connection cannot see, so cannot cancel",
    );
    relay
        .api()
        .device(&account)
        .post_empty(&cancel)
        .await
        .expect_status(200, "a device of the account may cancel");
    relay.shutdown().await;
}
