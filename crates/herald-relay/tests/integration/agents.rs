//! The agent endpoints over real HTTP (docs/agents.md): the notify whitelist, duplicates,
//! receipts and their 24-hour life, replies (long-poll), status, quiet hours, budgets, the
//! device routes, and that the relay stores no plaintext.

use crate::agent_common;
use crate::common;

use agent_common::*;
use common::*;
use herald_protocol::notify::{NotificationContent, NotificationPage};
use herald_protocol::{ErrorCode, Revision};
use herald_relay::{AgentLimits, Clock};
use herald_testkit::fixtures;
use reqwest::Method;
use serde_json::{json, Value};

async fn setup() -> (AgentRelay, fixtures::TestAccount, String) {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let account = fixtures::create_account(&relay.url).await;
    let key = agent_key(&relay.url, &account.device_token, "CI bot")
        .await
        .key;
    (relay, account, key)
}

async fn json_of(resp: reqwest::Response, status: u16, why: &str) -> Value {
    let got = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    assert_eq!(got, status, "{why}: {text}");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("{why}: JSON body: {text}"))
}

#[tokio::test]
async fn notify_accepts_the_whitelist_and_refuses_everything_else() {
    let (relay, _account, key) = setup().await;
    let url = &relay.url;
    /// A body and what it gets: stored, or the error code with the offending fields.
    type Case = (Value, Result<(), (ErrorCode, Vec<&'static str>)>);
    let cases: Vec<Case> = vec![
        (json!({"title": "Build finished"}), Ok(())),
        (
            json!({"title": "t", "subtitle": "s", "body": "All 214 tests passed.\nDone.",
                   "speak": true, "expectReply": true, "priority": "high", "sound": false,
                   "group": "ci", "threadId": "run-7"}),
            Ok(()),
        ),
        (
            json!({"title": "t", "command": "rm -rf /"}),
            Err((ErrorCode::ForbiddenFields, vec!["command"])),
        ),
        (
            json!({"title": "t", "buttons": [{"id": "ok"}], "actions": [], "callback": "x",
                   "url": "https://x", "script": "alert(1)", "html": "<b>"}),
            Err((
                ErrorCode::ForbiddenFields,
                vec!["actions", "buttons", "callback", "html", "script", "url"],
            )),
        ),
        (
            json!({"body": "no title"}),
            Err((ErrorCode::InvalidRequest, vec!["title"])),
        ),
        (
            json!({"title": "x".repeat(181)}),
            Err((ErrorCode::InvalidRequest, vec!["title"])),
        ),
        (
            json!({"title": "t", "body": "x".repeat(4_001)}),
            Err((ErrorCode::InvalidRequest, vec!["body"])),
        ),
        (
            json!({"title": "t", "notificationId": "has space"}),
            Err((ErrorCode::InvalidRequest, vec!["notificationId"])),
        ),
        (
            json!({"title": "t", "priority": "urgent"}),
            Err((ErrorCode::InvalidRequest, vec!["priority"])),
        ),
        (json!(["title"]), Err((ErrorCode::BadRequest, vec![]))),
    ];
    for (body, want) in cases {
        let resp = notify(url, &key, body.clone()).await;
        match want {
            Ok(()) => {
                let receipt = json_of(resp, 201, &format!("{body}")).await;
                assert_eq!(receipt["duplicate"], json!(false), "{body}: new");
                assert_eq!(receipt["received"], json!(true), "{body}: received");
                assert_eq!(receipt["queued"], json!(true), "{body}: queued");
            }
            Err((code, fields)) => {
                let err = expect_error(resp, code, &format!("{body}")).await;
                assert_eq!(err.fields, fields, "{body}: the offending fields");
                if code == ErrorCode::ForbiddenFields {
                    assert_eq!(
                        err.message,
                        format!("rejected fields: {}.", fields.join(", ")),
                        "{body}: the message lists them"
                    );
                }
            }
        }
    }
    // The spec's example, byte for byte.
    let resp = notify(url, &key, json!({"title": "t", "command": "x"})).await;
    let text = resp.text().await.unwrap();
    assert_eq!(
        text,
        r#"{"error":"forbidden_fields","message":"rejected fields: command.","fields":["command"]}"#,
        "the error body of the spec's example"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn a_repeated_notification_id_is_not_queued_again() {
    let (relay, account, key) = setup().await;
    let url = &relay.url;
    let other_key = agent_key(url, &account.device_token, "Other bot").await.key;
    let first = notify_ok(
        url,
        &key,
        json!({"title": "Deploy", "notificationId": "deploy-1"}),
    )
    .await;
    assert_eq!(first["notificationId"], json!("deploy-1"));
    for (bearer, why) in [
        (&key, "same key"),
        (&other_key, "another key of the account"),
    ] {
        let again = json_of(
            notify(
                url,
                bearer,
                json!({"title": "Changed", "notificationId": "deploy-1"}),
            )
            .await,
            200,
            why,
        )
        .await;
        assert_eq!(again["duplicate"], json!(true), "{why}: duplicate");
        assert_eq!(
            again["receivedAt"], first["receivedAt"],
            "{why}: the first receipt"
        );
    }
    let page: NotificationPage = call(
        url,
        Method::GET,
        "/notifications?after=0",
        Some(&account.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(page.records.len(), 1, "queued once");
    // Another account may use the same id.
    let b = fixtures::create_account(url).await;
    let b_key = agent_key(url, &b.device_token, "B bot").await.key;
    notify_ok(
        url,
        &b_key,
        json!({"title": "B", "notificationId": "deploy-1"}),
    )
    .await;
    // Without an id the relay makes one.
    let made = notify_ok(url, &key, json!({"title": "No id"})).await;
    let id = made["notificationId"].as_str().expect("an id");
    assert!(
        id.starts_with("ntf_"),
        "generated ids are the relay's: {id}"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn receipts_follow_the_device_and_expire_after_24_hours() {
    let (relay, account, key) = setup().await;
    let url = &relay.url;
    let device = &account.device_token;
    let sent = notify_ok(
        url,
        &key,
        json!({"title": "t", "notificationId": "n-1", "expectReply": true}),
    )
    .await;
    let received_at = relay.clock.now();
    assert_eq!(
        sent["receivedAt"],
        json!(herald_relay::clock::format_time(received_at))
    );
    let get = || call(url, Method::GET, "/v1/receipts/n-1", Some(&key), None);
    let r = json_of(get().await, 200, "receipt").await;
    assert!(r.get("duplicate").is_none(), "GET has no duplicate member");
    assert_eq!(r["queued"], json!(true));
    assert_eq!(r["displayed"], json!(false));
    assert!(r.get("displayedAt").is_none(), "no time before it happens");

    let page: NotificationPage = call(url, Method::GET, "/notifications", Some(device), None)
        .await
        .json()
        .await
        .unwrap();
    let id = page.records[0].id.clone();
    relay.clock.advance(chrono::TimeDelta::seconds(2));
    let displayed_at = relay.clock.now();
    let path = format!("/notifications/{id}/receipt");
    let rec = json_of(
        call(
            url,
            Method::POST,
            &path,
            Some(device),
            Some(json!({"displayed": true})),
        )
        .await,
        200,
        "displayed",
    )
    .await;
    assert!(
        rec["revision"].as_u64() > Some(page.records[0].revision.0),
        "a receipt takes a new revision"
    );
    relay.clock.advance(chrono::TimeDelta::seconds(3));
    let again = json_of(
        call(
            url,
            Method::POST,
            &path,
            Some(device),
            Some(json!({"displayed": true, "spoken": true})),
        )
        .await,
        200,
        "displayed again, and spoken",
    )
    .await;
    assert_eq!(
        again["receipt"]["displayedAt"],
        json!(herald_relay::clock::format_time(displayed_at)),
        "the first time is kept"
    );
    let r = json_of(get().await, 200, "receipt").await;
    assert_eq!(r["displayed"], json!(true));
    assert_eq!(r["spoken"], json!(true));
    assert_eq!(r["queued"], json!(false), "a device took it");
    for (body, why) in [
        (json!({"displayed": false}), "taking a receipt back"),
        (json!({}), "nothing set"),
        (json!({"replied": true}), "an unknown receipt"),
    ] {
        let resp = call(url, Method::POST, &path, Some(device), Some(body)).await;
        assert_eq!(resp.status().as_u16(), 400, "{why}");
    }
    // Still there just before 24 hours, gone at 24 hours (and swept).
    relay
        .clock
        .set(received_at + chrono::TimeDelta::hours(24) - chrono::TimeDelta::milliseconds(1));
    json_of(get().await, 200, "just before 24 hours").await;
    relay.clock.set(received_at + chrono::TimeDelta::hours(24));
    expect_error(get().await, ErrorCode::NotFound, "24 hours after arrival").await;
    relay.state.sweep_agents().await.expect("sweep");
    let page: NotificationPage = call(url, Method::GET, "/notifications", Some(device), None)
        .await
        .json()
        .await
        .unwrap();
    assert!(page.records.is_empty(), "the sweeper deleted it");
    let resp = call(
        url,
        Method::POST,
        &path,
        Some(device),
        Some(json!({"spoken": true})),
    )
    .await;
    expect_error(
        resp,
        ErrorCode::NotFound,
        "a receipt for a deleted notification",
    )
    .await;
    expect_error(
        call(
            url,
            Method::GET,
            "/v1/receipts/never-sent",
            Some(&key),
            None,
        )
        .await,
        ErrorCode::NotFound,
        "unknown id",
    )
    .await;
    relay.shutdown().await;
}

#[tokio::test]
async fn replies_wait_for_the_typed_answer() {
    let (relay, account, key) = setup().await;
    let url = relay.url.clone();
    let device = account.device_token.clone();
    notify_ok(
        &url,
        &key,
        json!({"title": "Deploy?", "notificationId": "ask-1", "expectReply": true}),
    )
    .await;
    notify_ok(
        &url,
        &key,
        json!({"title": "FYI", "notificationId": "fyi-1"}),
    )
    .await;
    for (query, why) in [
        ("?wait=61", "over 60"),
        ("?wait=-1", "negative"),
        ("?wait=abc", "not a number"),
        ("?wait=1.5", "not whole"),
    ] {
        let resp = call(
            &url,
            Method::GET,
            &format!("/v1/replies/ask-1{query}"),
            Some(&key),
            None,
        )
        .await;
        let err = expect_error(resp, ErrorCode::InvalidRequest, why).await;
        assert_eq!(err.fields, vec!["wait"], "{why}");
    }
    for query in ["", "?wait=0", "?wait=1"] {
        let r = json_of(
            call(
                &url,
                Method::GET,
                &format!("/v1/replies/ask-1{query}"),
                Some(&key),
                None,
            )
            .await,
            200,
            query,
        )
        .await;
        assert_eq!(
            r,
            json!({"notificationId": "ask-1", "replied": false, "timedOut": true, "suppressed": false}),
            "nothing yet ({query:?})"
        );
    }
    // A long wait, answered from the device while it waits.
    let waiter = {
        let (url, key) = (url.clone(), key.clone());
        tokio::spawn(async move {
            call(
                &url,
                Method::GET,
                "/v1/replies/ask-1?wait=60",
                Some(&key),
                None,
            )
            .await
        })
    };
    let page: NotificationPage = call(&url, Method::GET, "/notifications", Some(&device), None)
        .await
        .json()
        .await
        .unwrap();
    let ask = page
        .records
        .iter()
        .find(|r| r.receipt.notification_id == "ask-1")
        .unwrap()
        .id
        .clone();
    let fyi = page
        .records
        .iter()
        .find(|r| r.receipt.notification_id == "fyi-1")
        .unwrap()
        .id
        .clone();
    let reply = |id: herald_protocol::NotificationId, text: &str| {
        let (url, device, body) = (url.clone(), device.clone(), json!({"text": text}));
        async move {
            call(
                &url,
                Method::POST,
                &format!("/notifications/{id}/reply"),
                Some(&device),
                Some(body),
            )
            .await
        }
    };
    let stored = json_of(reply(ask.clone(), "Ship it").await, 200, "the reply").await;
    assert_eq!(stored["receipt"]["replied"], json!(true));
    let resp = tokio::time::timeout(FRAME_TIMEOUT, waiter)
        .await
        .expect("the wait ends")
        .unwrap();
    let r = json_of(resp, 200, "woken by the reply").await;
    assert_eq!(r["replied"], json!(true));
    assert_eq!(r["text"], json!("Ship it"));
    assert!(r["repliedAt"].is_string(), "with its time");
    assert!(r.get("timedOut").is_none(), "not timed out");
    expect_error(
        reply(ask.clone(), "Again").await,
        ErrorCode::AlreadyAnswered,
        "a second reply",
    )
    .await;
    expect_error(
        reply(fyi, "Hm").await,
        ErrorCode::NotARequest,
        "no reply expected",
    )
    .await;
    expect_error(
        reply(ask.clone(), "   ").await,
        ErrorCode::InvalidRequest,
        "blank",
    )
    .await;
    let r = json_of(
        call(&url, Method::GET, "/v1/replies/ask-1", Some(&key), None).await,
        200,
        "later",
    )
    .await;
    assert_eq!(r["text"], json!("Ship it"), "the reply stays readable");
    let receipt = json_of(
        call(&url, Method::GET, "/v1/receipts/ask-1", Some(&key), None).await,
        200,
        "receipt",
    )
    .await;
    assert_eq!(receipt["replied"], json!(true));
    expect_error(
        call(&url, Method::GET, "/v1/replies/nope", Some(&key), None).await,
        ErrorCode::NotFound,
        "unknown id",
    )
    .await;
    relay.shutdown().await;
}

#[tokio::test]
async fn a_reply_over_4000_characters_is_refused() {
    let (relay, account, key) = setup().await;
    notify_ok(&relay.url, &key, json!({"title": "?", "expectReply": true})).await;
    let page: NotificationPage = call(
        &relay.url,
        Method::GET,
        "/notifications",
        Some(&account.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    let path = format!("/notifications/{}/reply", page.records[0].id);
    let resp = call(
        &relay.url,
        Method::POST,
        &path,
        Some(&account.device_token),
        Some(json!({"text": "x".repeat(4_001)})),
    )
    .await;
    expect_error(resp, ErrorCode::InvalidRequest, "4,001 characters").await;
    let resp = call(
        &relay.url,
        Method::POST,
        &path,
        Some(&account.device_token),
        Some(json!({"text": "x".repeat(4_000)})),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 200, "4,000 characters");
    relay.shutdown().await;
}

async fn status(url: &str, key: &str) -> Value {
    json_of(
        call(url, Method::GET, "/v1/status", Some(key), None).await,
        200,
        "status",
    )
    .await
}

#[tokio::test]
async fn status_is_online_while_a_device_socket_is_open() {
    let (relay, account, key) = setup().await;
    let url = &relay.url;
    let before = status(url, &key).await;
    assert_eq!(before["online"], json!(false), "no socket yet");
    assert_eq!(before["quietHours"], json!({"active": false}));
    assert_eq!(
        before.as_object().unwrap().keys().collect::<Vec<_>>(),
        vec!["lastSeenAt", "online", "quietHours"],
        "exactly three members"
    );
    // A connection's socket is not a device.
    let conn = fixtures::create_connection(url, &account, "Agent").await;
    let _conn_socket = connect_ws(&relay.ws_url(), &conn.bearer).await;
    assert_eq!(
        status(url, &key).await["online"],
        json!(false),
        "a connection is not a device"
    );
    let mut socket = connect_ws(&relay.ws_url(), &account.device_token).await;
    next_sync(&mut socket).await;
    relay.clock.advance(chrono::TimeDelta::seconds(30));
    let online = status(url, &key).await;
    assert_eq!(online["online"], json!(true), "a device socket is open");
    assert_eq!(
        online["lastSeenAt"],
        json!(herald_relay::clock::format_time(relay.clock.now()))
    );
    // A notification nudges the device's socket.
    notify_ok(url, &key, json!({"title": "nudge"})).await;
    assert!(
        next_sync(&mut socket).await > Revision(0),
        "the device hears of it"
    );
    socket.close(None).await.expect("close");
    drop(socket);
    let closed_at = relay.clock.now();
    // The relay notices the close asynchronously: a bounded wait, not a delay.
    let mut offline = Value::Null;
    for _ in 0..200 {
        offline = status(url, &key).await;
        if offline["online"] == json!(false) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(offline["online"], json!(false), "the socket closed");
    assert_eq!(
        offline["lastSeenAt"],
        json!(herald_relay::clock::format_time(closed_at)),
        "last seen when the socket closed"
    );
    relay.clock.advance(chrono::TimeDelta::minutes(10));
    assert_eq!(
        status(url, &key).await["lastSeenAt"],
        offline["lastSeenAt"],
        "and it stays"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn quiet_hours_suppress_and_show_in_status() {
    let (relay, account, key) = setup().await;
    let url = &relay.url;
    let device = &account.device_token;
    let defaults = json_of(
        call(url, Method::GET, "/quiet-hours", Some(device), None).await,
        200,
        "defaults",
    )
    .await;
    assert_eq!(
        defaults,
        json!({"enabled": false, "start": "22:00", "end": "07:00", "timezone": "UTC", "active": false})
    );
    // 22:00–07:00 in Tokyo (UTC+9, no DST): 13:00–22:00 UTC.
    let day = relay.clock.now().date_naive();
    relay
        .clock
        .set(day.and_hms_opt(14, 0, 0).unwrap().and_utc());
    let set = json_of(
        call(url, Method::PUT, "/quiet-hours", Some(device),
            Some(json!({"enabled": true, "start": "22:00", "end": "07:00", "timezone": "Asia/Tokyo"}))).await,
        200,
        "set",
    )
    .await;
    assert_eq!(set["active"], json!(true), "23:00 in Tokyo is quiet");
    assert_eq!(
        status(url, &key).await["quietHours"],
        json!({"active": true})
    );
    let r = notify_ok(url, &key, json!({"title": "at night", "speak": true})).await;
    assert_eq!(r["suppressed"], json!(true), "held back");
    assert_eq!(r["queued"], json!(false), "not waiting for a banner");
    relay
        .clock
        .set(day.and_hms_opt(23, 0, 0).unwrap().and_utc());
    assert_eq!(
        status(url, &key).await["quietHours"],
        json!({"active": false}),
        "08:00 in Tokyo"
    );
    let r = notify_ok(url, &key, json!({"title": "by day"})).await;
    assert_eq!(r["suppressed"], json!(false));
    for (body, field) in [
        (
            json!({"enabled": true, "start": "22:00", "end": "22:00", "timezone": "UTC"}),
            "end",
        ),
        (
            json!({"enabled": true, "start": "9:00", "end": "17:00", "timezone": "UTC"}),
            "start",
        ),
        (
            json!({"enabled": true, "start": "22:00", "end": "07:00", "timezone": "Nowhere/City"}),
            "timezone",
        ),
    ] {
        let err = expect_error(
            call(url, Method::PUT, "/quiet-hours", Some(device), Some(body)).await,
            ErrorCode::InvalidRequest,
            field,
        )
        .await;
        assert_eq!(err.fields, vec![field]);
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn budgets_answer_429_until_midnight_utc() {
    let relay = AgentRelay::start(AgentLimits {
        requests_per_day: 4,
        poll_seconds_per_day: 1,
    })
    .await;
    let url = &relay.url;
    let day = relay.clock.now().date_naive();
    relay
        .clock
        .set(day.and_hms_opt(23, 59, 0).unwrap().and_utc());
    let account = fixtures::create_account(url).await;
    let key = agent_key(url, &account.device_token, "bot").await.key;
    notify_ok(
        url,
        &key,
        json!({"title": "t", "notificationId": "w", "expectReply": true}),
    )
    .await; // 1
    let r = json_of(
        call(url, Method::GET, "/v1/replies/w?wait=1", Some(&key), None).await,
        200,
        "a one-second wait",
    )
    .await; // 2
    assert_eq!(r["timedOut"], json!(true));
    let resp = call(url, Method::GET, "/v1/replies/w?wait=1", Some(&key), None).await; // 3
    assert_eq!(
        resp.headers()["retry-after"],
        "60",
        "seconds until midnight"
    );
    let err = expect_error(resp, ErrorCode::PollBudgetExceeded, "no wait seconds left").await;
    let midnight = herald_relay::clock::format_time(
        (day + chrono::TimeDelta::days(1))
            .and_hms_opt(0, 0, 0)
            .unwrap()
            .and_utc(),
    );
    assert_eq!(
        err.resets_at.as_deref(),
        Some(midnight.as_str()),
        "resetsAt"
    );
    json_of(
        call(url, Method::GET, "/v1/replies/w?wait=0", Some(&key), None).await,
        200,
        "no wait costs no seconds",
    )
    .await; // 4
    let resp = call(url, Method::GET, "/v1/status", Some(&key), None).await; // 5
    assert_eq!(resp.headers()["retry-after"], "60");
    let err = expect_error(
        resp,
        ErrorCode::BudgetExceeded,
        "the fifth request of the day",
    )
    .await;
    assert_eq!(err.resets_at.as_deref(), Some(midnight.as_str()));
    // Devices are not agents: their routes have no such budget.
    let resp = call(
        url,
        Method::GET,
        "/notifications",
        Some(&account.device_token),
        None,
    )
    .await;
    assert_eq!(resp.status().as_u16(), 200, "a device is not charged");
    relay.clock.set(
        (day + chrono::TimeDelta::days(1))
            .and_hms_opt(0, 0, 0)
            .unwrap()
            .and_utc(),
    );
    json_of(
        call(url, Method::GET, "/v1/status", Some(&key), None).await,
        200,
        "a new day",
    )
    .await;
    relay.shutdown().await;
}

#[tokio::test]
async fn the_relay_stores_notifications_sealed_to_the_account_key() {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let url = &relay.url;
    let account = herald_testkit::real::create_account(url).await;
    let key = agent_key(url, &account.device_token, "bot").await.key;
    let marker = "PLAINTEXT-MARKER-7f3a9c";
    notify_ok(url, &key, json!({"title": format!("title {marker}"), "body": format!("body {marker}"), "notificationId": "sealed-1"})).await;
    let page: NotificationPage = call(
        url,
        Method::GET,
        "/notifications",
        Some(&account.device_token),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    let record = &page.records[0];
    let plaintext = herald_crypto::open_notification(
        &account.keys,
        &account.account_id,
        &record.id,
        &record.sealed,
    )
    .expect("the account key opens it");
    let content: NotificationContent = serde_json::from_slice(&plaintext).unwrap();
    assert_eq!(content.title, format!("title {marker}"));
    assert_eq!(content.notification_id, "sealed-1");
    // Nothing of the text is in the database files.
    relay.state.sweep_agents().await.unwrap();
    for name in ["relay.db", "relay.db-wal"] {
        let path = relay.dir.path().join(name);
        if let Ok(bytes) = std::fs::read(&path) {
            assert!(
                !bytes.windows(marker.len()).any(|w| w == marker.as_bytes()),
                "{name} holds no plaintext"
            );
        }
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn agent_keys_are_listed_and_revoked_at_once() {
    let (relay, account, key) = setup().await;
    let url = &relay.url;
    let device = &account.device_token;
    relay.clock.advance(chrono::TimeDelta::seconds(1));
    let second = agent_key(url, device, "Second").await;
    assert!(second.key.starts_with("hrk_"), "prefix");
    let list = json_of(
        call(url, Method::GET, "/agent-keys", Some(device), None).await,
        200,
        "list",
    )
    .await;
    let names: Vec<_> = list["agentKeys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("CI bot"), json!("Second")]);
    assert!(!list.to_string().contains("hrk_"), "keys are never listed");
    json_of(
        call(url, Method::GET, "/v1/status", Some(&second.key), None).await,
        200,
        "works",
    )
    .await;
    let resp = call(
        url,
        Method::DELETE,
        &format!("/agent-keys/{}", second.id),
        Some(device),
        None,
    )
    .await;
    assert_eq!(resp.status().as_u16(), 204);
    expect_error(
        call(url, Method::GET, "/v1/status", Some(&second.key), None).await,
        ErrorCode::Unauthorized,
        "revoked",
    )
    .await;
    let again = call(
        url,
        Method::DELETE,
        &format!("/agent-keys/{}", second.id),
        Some(device),
        None,
    )
    .await;
    expect_error(
        again,
        ErrorCode::AlreadyRevoked,
        "an agent key revoked twice",
    )
    .await;
    json_of(
        call(url, Method::GET, "/v1/status", Some(&key), None).await,
        200,
        "the other key still works",
    )
    .await;
    let b = fixtures::create_account(url).await;
    let resp = call(
        url,
        Method::DELETE,
        &format!("/agent-keys/{}", second.id),
        Some(&b.device_token),
        None,
    )
    .await;
    expect_error(resp, ErrorCode::NotFound, "another account's key").await;
    for name in ["", "   ", &"x".repeat(101)] {
        let resp = call(
            url,
            Method::POST,
            "/agent-keys",
            Some(device),
            Some(json!({"name": name})),
        )
        .await;
        expect_error(resp, ErrorCode::InvalidRequest, "bad name").await;
    }
    relay.shutdown().await;
}

/// A notification sent without expectReply can get no reply: `?wait=N` answers at once with
/// `replied: false, expectReply: false` (no `timedOut`) and spends no poll seconds.
#[tokio::test]
async fn waiting_on_a_notification_without_expect_reply_answers_at_once() {
    let relay = AgentRelay::start(AgentLimits {
        requests_per_day: 100,
        poll_seconds_per_day: 0,
    })
    .await;
    let url = &relay.url;
    let account = fixtures::create_account(url).await;
    let key = agent_key(url, &account.device_token, "bot").await.key;
    notify_ok(url, &key, json!({"title": "FYI", "notificationId": "fyi"})).await;
    notify_ok(
        url,
        &key,
        json!({"title": "Deploy?", "notificationId": "ask", "expectReply": true}),
    )
    .await;
    let r = json_of(
        call(
            url,
            Method::GET,
            "/v1/replies/fyi?wait=60",
            Some(&key),
            None,
        )
        .await,
        200,
        "no reply can come: at once, with no poll seconds left",
    )
    .await;
    assert_eq!(
        r,
        json!({"notificationId": "fyi", "replied": false, "expectReply": false, "suppressed": false})
    );
    // A notification that does expect a reply still needs poll seconds to wait.
    let resp = call(
        url,
        Method::GET,
        "/v1/replies/ask?wait=60",
        Some(&key),
        None,
    )
    .await;
    assert_eq!(resp.status().as_u16(), 429);
    relay.shutdown().await;
}
