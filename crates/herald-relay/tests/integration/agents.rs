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
use herald_testkit::Api;
use serde_json::{json, Value};

async fn setup() -> (AgentRelay, fixtures::TestAccount, String) {
    let relay = AgentRelay::start(AgentLimits::default()).await;
    let account = fixtures::create_account(&relay.url).await;
    let key = agent_key(&relay.url, &account.device_token, "CI bot")
        .await
        .key;
    (relay, account, key)
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
        let reply = notify(url, &key, body.clone()).await;
        match want {
            Ok(()) => {
                let receipt: Value = reply.ok(201, &format!("{body}"));
                assert_eq!(receipt["duplicate"], json!(false), "{body}: new");
                assert_eq!(receipt["received"], json!(true), "{body}: received");
                assert_eq!(receipt["queued"], json!(true), "{body}: queued");
            }
            Err((code, fields)) => {
                let err = reply.error(code, &format!("{body}"));
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
    let reply = notify(url, &key, json!({"title": "t", "command": "x"})).await;
    assert_eq!(
        reply.text(),
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
        let again: Value = notify(
            url,
            bearer,
            json!({"title": "Changed", "notificationId": "deploy-1"}),
        )
        .await
        .ok(200, why);
        assert_eq!(again["duplicate"], json!(true), "{why}: duplicate");
        assert_eq!(
            again["receivedAt"], first["receivedAt"],
            "{why}: the first receipt"
        );
    }
    let page: NotificationPage = relay
        .api()
        .device(&account)
        .get("/notifications?after=0")
        .await
        .ok(200, "the device reads its notifications");
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
    let device = relay.api().device(&account);
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
    let agent = relay.api().bearer(&key);
    let get = || agent.get("/v1/receipts/n-1");
    let r: Value = get().await.ok(200, "receipt");
    assert!(r.get("duplicate").is_none(), "GET has no duplicate member");
    assert_eq!(r["queued"], json!(true));
    assert_eq!(r["displayed"], json!(false));
    assert!(r.get("displayedAt").is_none(), "no time before it happens");

    let page: NotificationPage = device
        .get("/notifications")
        .await
        .ok(200, "the device reads its notifications");
    let id = page.records[0].id.clone();
    relay.clock.advance(chrono::TimeDelta::seconds(2));
    let displayed_at = relay.clock.now();
    let path = format!("/notifications/{id}/receipt");
    let rec: Value = device
        .post(&path, &json!({"displayed": true}))
        .await
        .ok(200, "displayed");
    assert!(
        rec["revision"].as_u64() > Some(page.records[0].revision.0),
        "a receipt takes a new revision"
    );
    relay.clock.advance(chrono::TimeDelta::seconds(3));
    let again: Value = device
        .post(&path, &json!({"displayed": true, "spoken": true}))
        .await
        .ok(200, "displayed again, and spoken");
    assert_eq!(
        again["receipt"]["displayedAt"],
        json!(herald_relay::clock::format_time(displayed_at)),
        "the first time is kept"
    );
    let r: Value = get().await.ok(200, "receipt");
    assert_eq!(r["displayed"], json!(true));
    assert_eq!(r["spoken"], json!(true));
    assert_eq!(r["queued"], json!(false), "a device took it");
    for (body, why) in [
        (json!({"displayed": false}), "taking a receipt back"),
        (json!({}), "nothing set"),
        (json!({"replied": true}), "an unknown receipt"),
    ] {
        device.post(&path, &body).await.expect_status(400, why);
    }
    // Still there just before 24 hours, gone at 24 hours (and swept).
    relay
        .clock
        .set(received_at + chrono::TimeDelta::hours(24) - chrono::TimeDelta::milliseconds(1));
    get().await.ok::<Value>(200, "just before 24 hours");
    relay.clock.set(received_at + chrono::TimeDelta::hours(24));
    get()
        .await
        .error(ErrorCode::NotFound, "24 hours after arrival");
    relay.state.sweep_agents().await.expect("sweep");
    let page: NotificationPage = device
        .get("/notifications")
        .await
        .ok(200, "the device reads its notifications");
    assert!(page.records.is_empty(), "the sweeper deleted it");
    device
        .post(&path, &json!({"spoken": true}))
        .await
        .error(ErrorCode::NotFound, "a receipt for a deleted notification");
    agent
        .get("/v1/receipts/never-sent")
        .await
        .error(ErrorCode::NotFound, "unknown id");
    relay.shutdown().await;
}

#[tokio::test]
async fn replies_wait_for_the_typed_answer() {
    let (relay, account, key) = setup().await;
    let url = relay.url.clone();
    let device = relay.api().device(&account);
    let agent = relay.api().bearer(&key);
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
        let err = agent
            .get(&format!("/v1/replies/ask-1{query}"))
            .await
            .error(ErrorCode::InvalidRequest, why);
        assert_eq!(err.fields, vec!["wait"], "{why}");
    }
    for query in ["", "?wait=0", "?wait=1"] {
        let r: Value = agent
            .get(&format!("/v1/replies/ask-1{query}"))
            .await
            .ok(200, query);
        assert_eq!(
            r,
            json!({"notificationId": "ask-1", "replied": false, "timedOut": true, "suppressed": false}),
            "nothing yet ({query:?})"
        );
    }
    // A long wait, answered from the device while it waits.
    let waiter = {
        let agent = agent.clone();
        tokio::spawn(async move { agent.get("/v1/replies/ask-1?wait=60").await })
    };
    let page: NotificationPage = device
        .get("/notifications")
        .await
        .ok(200, "the device reads its notifications");
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
        let (device, body) = (device.clone(), json!({"text": text}));
        async move {
            device
                .post(&format!("/notifications/{id}/reply"), &body)
                .await
        }
    };
    let stored: Value = reply(ask.clone(), "Ship it").await.ok(200, "the reply");
    assert_eq!(stored["receipt"]["replied"], json!(true));
    let woken = tokio::time::timeout(FRAME_TIMEOUT, waiter)
        .await
        .expect("the wait ends")
        .unwrap();
    let r: Value = woken.ok(200, "woken by the reply");
    assert_eq!(r["replied"], json!(true));
    assert_eq!(r["text"], json!("Ship it"));
    assert!(r["repliedAt"].is_string(), "with its time");
    assert!(r.get("timedOut").is_none(), "not timed out");
    reply(ask.clone(), "Again")
        .await
        .error(ErrorCode::AlreadyAnswered, "a second reply");
    reply(fyi, "Hm")
        .await
        .error(ErrorCode::NotARequest, "no reply expected");
    reply(ask.clone(), "   ")
        .await
        .error(ErrorCode::InvalidRequest, "blank");
    let r: Value = agent.get("/v1/replies/ask-1").await.ok(200, "later");
    assert_eq!(r["text"], json!("Ship it"), "the reply stays readable");
    let receipt: Value = agent.get("/v1/receipts/ask-1").await.ok(200, "receipt");
    assert_eq!(receipt["replied"], json!(true));
    agent
        .get("/v1/replies/nope")
        .await
        .error(ErrorCode::NotFound, "unknown id");
    relay.shutdown().await;
}

#[tokio::test]
async fn a_reply_over_4000_characters_is_refused() {
    let (relay, account, key) = setup().await;
    notify_ok(&relay.url, &key, json!({"title": "?", "expectReply": true})).await;
    let device = relay.api().device(&account);
    let page: NotificationPage = device
        .get("/notifications")
        .await
        .ok(200, "the device reads its notifications");
    let path = format!("/notifications/{}/reply", page.records[0].id);
    device
        .post(&path, &json!({"text": "x".repeat(4_001)}))
        .await
        .error(ErrorCode::InvalidRequest, "4,001 characters");
    device
        .post(&path, &json!({"text": "x".repeat(4_000)}))
        .await
        .expect_status(200, "4,000 characters");
    relay.shutdown().await;
}

/// `GET /v1/status` as the agent `key`, expecting 200.
async fn status(url: &str, key: &str) -> Value {
    Api::new(url)
        .bearer(key)
        .get("/v1/status")
        .await
        .ok(200, "status")
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
    let device = relay.api().device(&account);
    let defaults: Value = device.get("/quiet-hours").await.ok(200, "defaults");
    assert_eq!(
        defaults,
        json!({"enabled": false, "start": "22:00", "end": "07:00", "timezone": "UTC", "active": false})
    );
    // 22:00–07:00 in Tokyo (UTC+9, no DST): 13:00–22:00 UTC.
    let day = relay.clock.now().date_naive();
    relay
        .clock
        .set(day.and_hms_opt(14, 0, 0).unwrap().and_utc());
    let set: Value = device
        .put(
            "/quiet-hours",
            &json!({"enabled": true, "start": "22:00", "end": "07:00", "timezone": "Asia/Tokyo"}),
        )
        .await
        .ok(200, "set");
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
        let err = device
            .put("/quiet-hours", &body)
            .await
            .error(ErrorCode::InvalidRequest, field);
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
    let agent = relay.api().bearer(&key);
    let r: Value = agent
        .get("/v1/replies/w?wait=1")
        .await
        .ok(200, "a one-second wait"); // 2
    assert_eq!(r["timedOut"], json!(true));
    let reply = agent.get("/v1/replies/w?wait=1").await; // 3
    assert_eq!(
        reply.header("retry-after"),
        Some("60"),
        "seconds until midnight"
    );
    let err = reply.error(ErrorCode::PollBudgetExceeded, "no wait seconds left");
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
    agent
        .get("/v1/replies/w?wait=0")
        .await
        .ok::<Value>(200, "no wait costs no seconds"); // 4
    let reply = agent.get("/v1/status").await; // 5
    assert_eq!(reply.header("retry-after"), Some("60"));
    let err = reply.error(ErrorCode::BudgetExceeded, "the fifth request of the day");
    assert_eq!(err.resets_at.as_deref(), Some(midnight.as_str()));
    // Devices are not agents: their routes have no such budget.
    relay
        .api()
        .device(&account)
        .get("/notifications")
        .await
        .expect_status(200, "a device is not charged");
    relay.clock.set(
        (day + chrono::TimeDelta::days(1))
            .and_hms_opt(0, 0, 0)
            .unwrap()
            .and_utc(),
    );
    agent.get("/v1/status").await.ok::<Value>(200, "a new day");
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
    let page: NotificationPage = relay
        .api()
        .bearer(&account.device_token)
        .get("/notifications")
        .await
        .ok(200, "the device reads its notifications");
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
    let device = relay.api().device(&account);
    relay.clock.advance(chrono::TimeDelta::seconds(1));
    let second = agent_key(url, &account.device_token, "Second").await;
    assert!(second.key.starts_with("hrk_"), "prefix");
    let list: Value = device.get("/agent-keys").await.ok(200, "list");
    let names: Vec<_> = list["agentKeys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("CI bot"), json!("Second")]);
    assert!(!list.to_string().contains("hrk_"), "keys are never listed");
    let second_agent = relay.api().bearer(&second.key);
    second_agent
        .get("/v1/status")
        .await
        .ok::<Value>(200, "works");
    let path = format!("/agent-keys/{}", second.id);
    device
        .delete(&path)
        .await
        .expect_status(204, "the device revokes the key");
    second_agent
        .get("/v1/status")
        .await
        .error(ErrorCode::Unauthorized, "revoked");
    device
        .delete(&path)
        .await
        .error(ErrorCode::AlreadyRevoked, "an agent key revoked twice");
    relay
        .api()
        .bearer(&key)
        .get("/v1/status")
        .await
        .ok::<Value>(200, "the other key still works");
    let b = fixtures::create_account(url).await;
    relay
        .api()
        .device(&b)
        .delete(&path)
        .await
        .error(ErrorCode::NotFound, "another account's key");
    for name in ["", "   ", &"x".repeat(101)] {
        device
            .post("/agent-keys", &json!({"name": name}))
            .await
            .error(ErrorCode::InvalidRequest, "bad name");
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
    let agent = relay.api().bearer(&key);
    let r: Value = agent
        .get("/v1/replies/fyi?wait=60")
        .await
        .ok(200, "no reply can come: at once, with no poll seconds left");
    assert_eq!(
        r,
        json!({"notificationId": "fyi", "replied": false, "expectReply": false, "suppressed": false})
    );
    // A notification that does expect a reply still needs poll seconds to wait.
    agent
        .get("/v1/replies/ask?wait=60")
        .await
        .expect_status(429, "waiting needs poll seconds, and there are none");
    relay.shutdown().await;
}
