//! The change feed (`GET /messages?after=`) and live updates (`GET /ws`) as named cases:
//! empty feed, exact page, page + 1, gap after reconnect, duplicate nudge, per-connection
//! visibility, and shutdown.

use crate::common;

use std::collections::HashSet;

use common::*;
use futures_util::StreamExt;
use herald_protocol::wire::MessagePage;
use herald_protocol::{ErrorCode, Revision};
use herald_testkit::fixtures;
use herald_testkit::TestRelay;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn empty_feed_keeps_the_cursor() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let page = feed(&relay.url, &account.device_token, Revision(0), None).await;
    assert!(page.records.is_empty(), "a new account has no messages");
    assert_eq!(
        page.cursor,
        Revision(0),
        "the cursor stays at `after` when empty"
    );
    assert!(!page.has_more, "nothing more");
    let page = feed(&relay.url, &account.device_token, Revision(41), None).await;
    assert_eq!(
        page.cursor,
        Revision(41),
        "an empty page echoes any `after`"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn exact_page_has_no_more() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let mut sent = Vec::new();
    for _ in 0..3 {
        sent.push(send_from_device(&relay.url, &account, false).await);
    }
    let page = feed(&relay.url, &account.device_token, Revision(0), Some(3)).await;
    assert_eq!(page.records.len(), 3, "exactly one full page");
    assert!(!page.has_more, "an exact page has nothing after it");
    assert_eq!(
        page.cursor, sent[2].revision,
        "cursor = last record's revision"
    );
    let ids: Vec<_> = page.records.iter().map(|r| r.id.clone()).collect();
    let sent_ids: Vec<_> = sent.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids, sent_ids, "records come in revision (send) order");
    relay.shutdown().await;
}

#[tokio::test]
async fn page_plus_one_continues_from_the_cursor() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let mut sent = Vec::new();
    for _ in 0..4 {
        sent.push(send_from_device(&relay.url, &account, false).await);
    }
    let first = feed(&relay.url, &account.device_token, Revision(0), Some(3)).await;
    assert_eq!(first.records.len(), 3, "a full first page");
    assert!(first.has_more, "one record remains");
    let second = feed(&relay.url, &account.device_token, first.cursor, Some(3)).await;
    assert_eq!(second.records.len(), 1, "the remaining record");
    assert_eq!(
        second.records[0].id, sent[3].id,
        "the fourth message, not a repeat"
    );
    assert!(!second.has_more, "done");
    relay.shutdown().await;
}

#[tokio::test]
async fn feed_query_is_validated() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    for (query, field) in [
        ("after=x", "after"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("sender=con_", "sender"),
        ("sender=msg_aaaaaaaaaaaaaaaaaaaaaaaaaa", "sender"),
    ] {
        let body = relay
            .api()
            .device(&account)
            .get(&format!("/messages?{query}"))
            .await
            .error(ErrorCode::InvalidRequest, query);
        assert_eq!(body.fields, vec![field], "{query} names {field}");
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn connection_feed_has_only_its_own_messages() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let a = fixtures::create_connection(&relay.url, &account, "A").await;
    let b = fixtures::create_connection(&relay.url, &account, "B").await;
    let from_a = send(
        &relay.url,
        &a.bearer,
        &fixtures::message_request(&account.account_id, a.principal(), true),
    )
    .await;
    send(
        &relay.url,
        &b.bearer,
        &fixtures::message_request(&account.account_id, b.principal(), false),
    )
    .await;
    send_from_device(&relay.url, &account, false).await;

    let page = feed(&relay.url, &a.bearer, Revision(0), None).await;
    let ids: Vec<_> = page.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids, vec![from_a.id.clone()], "A sees only what A sent");
    let all = feed(&relay.url, &account.device_token, Revision(0), None).await;
    assert_eq!(
        all.records.len(),
        3,
        "the device sees every message of the account"
    );
    relay
        .api()
        .connection(&b)
        .get(&format!("/messages/{}", from_a.id))
        .await
        .error(ErrorCode::NotFound, "B cannot read A's message");
    relay.shutdown().await;
}

#[tokio::test]
async fn feed_filtered_by_sender_and_records_sealed() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let a = fixtures::create_connection(&relay.url, &account, "A").await;
    let b = fixtures::create_connection(&relay.url, &account, "B").await;
    let mut from_a = Vec::new();
    for expects_answer in [true, false] {
        let request = fixtures::message_request(&account.account_id, a.principal(), expects_answer);
        from_a.push(send(&relay.url, &a.bearer, &request).await.id);
        let request = fixtures::message_request(&account.account_id, b.principal(), false);
        send(&relay.url, &b.bearer, &request).await;
    }
    let from_device = send_from_device(&relay.url, &account, false).await;

    let device = relay.api().device(&account);
    let page: MessagePage = device
        .get(&format!("/messages?sender={}", a.connection_id))
        .await
        .ok(200, "a sender filter");
    let ids: Vec<_> = page.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids, from_a, "only A's messages, in revision order");
    let page: MessagePage = device
        .get(&format!("/messages?sender={}", from_device.sender.id))
        .await
        .ok(200, "a device as sender");
    assert_eq!(page.records, vec![from_device.clone()], "only the device's");
    let page: MessagePage = relay
        .api()
        .connection(&b)
        .get(&format!("/messages?sender={}", a.connection_id))
        .await
        .ok(200, "B asks for A's messages");
    assert!(page.records.is_empty(), "B still sees only its own");

    // As published: every record says it is sealed and shows no title of its own.
    let raw: serde_json::Value = device
        .get(&format!("/messages/{}", from_device.id))
        .await
        .ok(200, "one record");
    assert_eq!(raw["sealed"], serde_json::json!(true), "sealed: {raw}");
    assert_eq!(
        raw["title"],
        serde_json::json!("Encrypted message"),
        "title: {raw}"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn ws_sends_sync_on_connect_and_after_each_change() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let first = send_from_device(&relay.url, &account, true).await;
    let mut socket = connect_ws(&relay.ws_url(), &account.device_token).await;
    assert_eq!(
        next_sync(&mut socket).await,
        first.revision,
        "on connect: the current revision"
    );

    let second = send_from_device(&relay.url, &account, false).await;
    assert_eq!(
        next_sync(&mut socket).await,
        second.revision,
        "after a POST: its revision"
    );

    let body = fixtures::answer_request(&account, &first.id);
    relay
        .api()
        .device(&account)
        .post(&format!("/messages/{}/answer", first.id), &body)
        .await
        .expect_status(200, "answer accepted");
    let answered_rev = next_sync(&mut socket).await;
    assert!(
        answered_rev > second.revision,
        "an answer is a change and nudges too"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn ws_of_a_connection_hears_only_its_own_messages() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let a = fixtures::create_connection(&relay.url, &account, "A").await;
    let mut socket = connect_ws(&relay.ws_url(), &a.bearer).await;
    assert_eq!(
        next_sync(&mut socket).await,
        Revision(0),
        "A has no messages yet"
    );

    // A device message first (A must not hear it), then A's own request.
    send_from_device(&relay.url, &account, false).await;
    let own = send(
        &relay.url,
        &a.bearer,
        &fixtures::message_request(&account.account_id, a.principal(), true),
    )
    .await;
    assert_eq!(
        next_sync(&mut socket).await,
        own.revision,
        "the first frame A hears is its own message"
    );

    let body = fixtures::answer_request(&account, &own.id);
    let answered: herald_protocol::wire::MessageRecord = relay
        .api()
        .device(&account)
        .post(&format!("/messages/{}/answer", own.id), &body)
        .await
        .ok(200, "the device answers A's request");
    assert_eq!(
        next_sync(&mut socket).await,
        answered.revision,
        "A hears the answer to its request"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn gap_after_reconnect_is_fetched_without_a_skip() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;
    send_from_device(&relay.url, &account, false).await;

    // Connected: read up to the nudge.
    let mut socket = connect_ws(&relay.ws_url(), &account.device_token).await;
    let nudged = next_sync(&mut socket).await;
    let (seen, cursor) = drain_feed(&relay.url, &account.device_token, Revision(0), 2).await;
    assert_eq!(cursor, nudged, "the cursor reaches the nudged revision");
    assert_eq!(seen.len(), 1, "one message so far");
    drop(socket);

    // While the socket is down: new messages, a request and its answer.
    let mut written = HashSet::new();
    for _ in 0..4 {
        let r = send(
            &relay.url,
            &conn.bearer,
            &fixtures::message_request(&account.account_id, conn.principal(), false),
        )
        .await;
        written.insert(r.id);
    }
    let request = send_from_device(&relay.url, &account, true).await;
    written.insert(request.id.clone());
    let body = fixtures::answer_request(&account, &request.id);
    relay
        .api()
        .device(&account)
        .post(&format!("/messages/{}/answer", request.id), &body)
        .await
        .expect_status(200, "answered while the socket was down");

    // Reconnect: the sync frame names the head; paging from the old cursor fetches it all.
    let mut socket = connect_ws(&relay.ws_url(), &account.device_token).await;
    let head = next_sync(&mut socket).await;
    let (records, end) = drain_feed(&relay.url, &account.device_token, cursor, 2).await;
    assert_eq!(
        end, head,
        "paging ends exactly at the revision the socket announced"
    );
    let ids: HashSet<_> = records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(
        ids, written,
        "every record written during the gap is fetched, none skipped"
    );
    let revisions: Vec<_> = records.iter().map(|r| r.revision).collect();
    assert!(
        revisions.windows(2).all(|w| w[0] < w[1]),
        "strictly increasing revisions: {revisions:?}"
    );
    let answered = records
        .iter()
        .find(|r| r.id == request.id)
        .expect("the request");
    assert!(
        answered.answer.is_some(),
        "the request is fetched in its latest (answered) state"
    );

    // Duplicate nudge: reading again from the same cursor changes nothing.
    let again: MessagePage = feed(&relay.url, &account.device_token, end, None).await;
    assert!(
        again.records.is_empty(),
        "a duplicate nudge yields no records"
    );
    assert_eq!(again.cursor, end, "and leaves the cursor where it was");
    relay.shutdown().await;
}

#[tokio::test]
async fn ws_of_a_revoked_connection_is_closed() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;
    let mut socket = connect_ws(&relay.ws_url(), &conn.bearer).await;
    next_sync(&mut socket).await;
    relay
        .api()
        .device(&account)
        .delete(&format!("/connections/{}", conn.connection_id))
        .await
        .expect_status(204, "revoked");
    match next_message(&mut socket).await {
        Some(Ok(Message::Close(Some(frame)))) => {
            assert_eq!(
                u16::from(frame.code),
                1008,
                "closed for policy: credential revoked"
            );
        }
        other => panic!("expected a Close frame after revocation, got {other:?}"),
    }
    let refused = try_connect_ws(&relay.ws_url(), Some(&conn.bearer)).await;
    assert_eq!(
        refused.err(),
        Some(401),
        "the revoked bearer cannot reconnect"
    );
    relay.shutdown().await;
}

/// The next websocket message that is not a ping or pong.
async fn next_message(
    socket: &mut Socket,
) -> Option<Result<Message, tokio_tungstenite::tungstenite::Error>> {
    loop {
        let msg = tokio::time::timeout(FRAME_TIMEOUT, socket.next())
            .await
            .expect("a frame arrives in time");
        match msg {
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            other => return other,
        }
    }
}

#[tokio::test]
async fn ws_closes_cleanly_on_shutdown() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let mut socket = connect_ws(&relay.ws_url(), &account.device_token).await;
    next_sync(&mut socket).await;
    let shutdown = tokio::spawn(relay.shutdown());
    match next_message(&mut socket).await {
        Some(Ok(Message::Close(Some(frame)))) => {
            assert_eq!(u16::from(frame.code), 1001, "closed as going away");
        }
        other => panic!("expected a Close frame on shutdown, got {other:?}"),
    }
    assert!(
        next_frame(&mut socket).await.is_none(),
        "nothing follows the close"
    );
    shutdown
        .await
        .expect("shutdown completes with a socket open");
}
