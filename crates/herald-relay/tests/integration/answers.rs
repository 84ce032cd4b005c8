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
use herald_testkit::TestRelay;
use reqwest::Method;

async fn setup() -> (TestRelay, TestAccount) {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    (relay, account)
}

async fn answer(
    relay: &TestRelay,
    account: &TestAccount,
    id: &herald_protocol::MessageId,
) -> reqwest::Response {
    let body = fixtures::answer_request(account, id);
    call(
        &relay.url,
        Method::POST,
        &format!("/messages/{id}/answer"),
        Some(&account.device_token),
        Some(serde_json::to_value(&body).unwrap()),
    )
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

    let first = answer(&relay, &account, &request.id).await;
    assert_eq!(first.status().as_u16(), 200, "the first answer is accepted");
    let answered: MessageRecord = first.json().await.unwrap();
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

    let second = answer(&relay, &account, &request.id).await;
    expect_error(second, ErrorCode::AlreadyAnswered, "a second answer").await;

    let seen_by_sender = call(
        &relay.url,
        Method::GET,
        &format!("/messages/{}", request.id),
        Some(&conn.bearer),
        None,
    )
    .await;
    let seen: MessageRecord = seen_by_sender.json().await.unwrap();
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
                let (url, account, id) = (relay.url.clone(), account.clone(), request.id.clone());
                tokio::spawn(async move {
                    let body = fixtures::answer_request(&account, &id);
                    client()
                        .post(format!("{url}/messages/{id}/answer"))
                        .bearer_auth(&account.device_token)
                        .json(&body)
                        .send()
                        .await
                        .unwrap()
                        .status()
                        .as_u16()
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
    expect_error(
        answer(&relay, &account, &plain.id).await,
        ErrorCode::NotARequest,
        "a message without a question",
    )
    .await;

    let request = send(
        &relay.url,
        &conn.bearer,
        &fixtures::message_request(&account.account_id, conn.principal(), true),
    )
    .await;
    let cancel = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/cancel", request.id),
        Some(&conn.bearer),
        None,
    )
    .await;
    assert_eq!(
        cancel.status().as_u16(),
        200,
        "the sender cancels its request"
    );
    let cancelled: MessageRecord = cancel.json().await.unwrap();
    assert_eq!(
        cancelled.status,
        MessageStatus::Cancelled,
        "status becomes cancelled"
    );
    assert!(
        cancelled.revision > request.revision,
        "cancelling takes a revision"
    );
    expect_error(
        answer(&relay, &account, &request.id).await,
        ErrorCode::RequestCancelled,
        "answer after cancel",
    )
    .await;
    let again = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/cancel", request.id),
        Some(&conn.bearer),
        None,
    )
    .await;
    expect_error(again, ErrorCode::RequestCancelled, "cancel twice").await;

    let answered = send_from_device(&relay.url, &account, true).await;
    assert_eq!(
        answer(&relay, &account, &answered.id)
            .await
            .status()
            .as_u16(),
        200,
        "answered"
    );
    let cancel = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/cancel", answered.id),
        Some(&account.device_token),
        None,
    )
    .await;
    expect_error(
        cancel,
        ErrorCode::AlreadyAnswered,
        "cancel after the answer",
    )
    .await;

    // The answer route is for devices only.
    let request = send(
        &relay.url,
        &conn.bearer,
        &fixtures::message_request(&account.account_id, conn.principal(), true),
    )
    .await;
    let body = fixtures::answer_request(&account, &request.id);
    let resp = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/answer", request.id),
        Some(&conn.bearer),
        Some(serde_json::to_value(&body).unwrap()),
    )
    .await;
    expect_error(resp, ErrorCode::Forbidden, "a connection may not answer").await;

    // The answer envelope must name this message and this device.
    let other = fixtures::new_message_id();
    let body = fixtures::answer_request(&account, &other);
    let resp = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/answer", request.id),
        Some(&account.device_token),
        Some(serde_json::to_value(&body).unwrap()),
    )
    .await;
    let err = expect_error(
        resp,
        ErrorCode::InvalidRequest,
        "answer envelope for another message",
    )
    .await;
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
    let live: MessageRecord = call(
        &relay.url,
        Method::GET,
        &format!("/messages/{}", request.id),
        Some(&conn.bearer),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(
        live.status,
        MessageStatus::Pending,
        "one second before the deadline it is still pending"
    );

    relay.clock().advance(Duration::seconds(1));
    // Before any sweep: reads already say expired, answers are refused.
    let read: MessageRecord = call(
        &relay.url,
        Method::GET,
        &format!("/messages/{}", request.id),
        Some(&account.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(
        read.status,
        MessageStatus::Expired,
        "at the deadline the read reports expired"
    );
    expect_error(
        answer(&relay, &account, &request.id).await,
        ErrorCode::RequestExpired,
        "answer at the deadline",
    )
    .await;
    expect_error(
        answer(&relay, &account, &by_expires_at.id).await,
        ErrorCode::RequestExpired,
        "answer after expiresAt",
    )
    .await;
    let cancel = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/cancel", request.id),
        Some(&conn.bearer),
        None,
    )
    .await;
    expect_error(
        cancel,
        ErrorCode::RequestExpired,
        "cancel after the deadline",
    )
    .await;

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
    expect_error(
        answer(&relay, &account, &request.id).await,
        ErrorCode::RequestExpired,
        "answer after the sweep",
    )
    .await;
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
    let resp = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/cancel", request.id),
        Some(&b.bearer),
        None,
    )
    .await;
    expect_error(
        resp,
        ErrorCode::NotFound,
        "another connection cannot see, so cannot cancel",
    )
    .await;
    let resp = call(
        &relay.url,
        Method::POST,
        &format!("/messages/{}/cancel", request.id),
        Some(&account.device_token),
        None,
    )
    .await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "a device of the account may cancel"
    );
    relay.shutdown().await;
}
