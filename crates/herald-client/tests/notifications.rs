//! The device core's agent side against a real relay (docs/agents.md): an agent key made by
//! the core sends a notification over HTTP; the sync engine fetches it with its own cursor,
//! opens it with the account key and caches it; receipts and the typed reply reach the agent;
//! quiet hours; connectors approved by user code; agent keys revoked.

use std::time::Duration;

use herald_client::notification_view::{NotificationReceiptKind, QuietHoursSettings};
use herald_client::view::CoreEvent;
use herald_client::{Core, CoreConfig};
use serde_json::{json, Value};

async fn start_relay(dir: &std::path::Path) -> herald_relay::RunningRelay {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    herald_relay::spawn(
        herald_relay::RelayConfig {
            data_dir: dir.to_path_buf(),
            ..Default::default()
        },
        listener,
    )
    .await
    .expect("relay starts")
}

fn open(dir: &std::path::Path) -> Core {
    Core::open(CoreConfig {
        data_dir: dir.into(),
        device_name: "d".into(),
        platform: "linux".into(),
        use_keychain: false,
    })
    .expect("core opens")
}

async fn agent_call(
    method: reqwest::Method,
    url: String,
    key: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = reqwest::Client::new().request(method, url).bearer_auth(key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.expect("relay answers");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_reaches_the_inbox_and_its_receipts_and_reply_reach_the_agent() {
    let relay_dir = tempfile::tempdir().unwrap();
    let relay = start_relay(relay_dir.path()).await;
    let url = relay.url();
    let device_dir = tempfile::tempdir().unwrap();
    let core = open(device_dir.path());
    core.create_account(&url).await.expect("account");
    let key = core.create_agent_key("CI bot").await.expect("agent key");
    assert!(key.key.starts_with("hrk_"), "shown once, with its prefix");
    assert_eq!(key.relay_url, url);
    let mut events = core.subscribe();
    core.start_sync().expect("sync starts");
    let (status, receipt) = agent_call(
        reqwest::Method::POST,
        format!("{url}/v1/notify"),
        &key.key,
        Some(
            json!({"title": "Build finished", "body": "All 214 tests passed.", "speak": true,
                    "expectReply": true, "notificationId": "build-214"}),
        ),
    )
    .await;
    assert_eq!(status, 201, "notify: {receipt}");
    // The live socket brings it in; the event carries the decrypted view.
    let view = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Ok(CoreEvent::NotificationUpserted {
                notification,
                is_new,
            }) = events.recv().await
            {
                assert!(is_new, "new the first time");
                return notification;
            }
        }
    })
    .await
    .expect("the notification arrives");
    assert_eq!(view.title, "Build finished");
    assert_eq!(view.body.as_deref(), Some("All 214 tests passed."));
    assert!(!view.end_to_end, "marked not end-to-end encrypted");
    assert!(view.speak && view.expect_reply && !view.suppressed);
    assert_eq!(view.source_name, "CI bot");
    assert_eq!(
        view.source_id.as_deref(),
        Some(key.id.as_str()),
        "the agent key's id, which Settings mutes by"
    );
    assert_eq!(view.notification_id, "build-214");
    let listed = core.notifications().await.expect("list");
    assert_eq!(listed.len(), 1, "one in the inbox");

    let shown = core
        .notification_receipt(&view.id, NotificationReceiptKind::Displayed)
        .await
        .expect("displayed");
    assert!(shown.displayed_at.is_some(), "stamped by the relay");
    core.notification_receipt(&view.id, NotificationReceiptKind::Spoken)
        .await
        .expect("spoken");
    let (_, r) = agent_call(
        reqwest::Method::GET,
        format!("{url}/v1/receipts/build-214"),
        &key.key,
        None,
    )
    .await;
    assert_eq!(r["displayed"], json!(true), "the agent sees displayed: {r}");
    assert_eq!(r["spoken"], json!(true), "and spoken");

    let waiter = {
        let (url, key) = (url.clone(), key.key.clone());
        tokio::spawn(async move {
            agent_call(
                reqwest::Method::GET,
                format!("{url}/v1/replies/build-214?wait=30"),
                &key,
                None,
            )
            .await
        })
    };
    let replied = core
        .reply_notification(&view.id, "Ship it")
        .await
        .expect("reply");
    assert_eq!(
        replied.reply.as_deref(),
        Some("Ship it"),
        "this device keeps its reply"
    );
    let (status, answer) = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the wait ends")
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        answer["text"],
        json!("Ship it"),
        "the agent gets the typed reply"
    );
    let again = core
        .reply_notification(&view.id, "Twice")
        .await
        .expect_err("once");
    assert_eq!(again.code(), "already_answered");
    core.stop_sync();
    relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_hours_keys_and_connectors_from_the_core() {
    let relay_dir = tempfile::tempdir().unwrap();
    let relay = start_relay(relay_dir.path()).await;
    let url = relay.url();
    let device_dir = tempfile::tempdir().unwrap();
    let core = open(device_dir.path());
    core.create_account(&url).await.expect("account");

    let defaults = core.quiet_hours().await.expect("quiet hours");
    assert!(!defaults.enabled && !defaults.active, "off by default");
    // A period around the current hour (UTC), so it holds now whatever the time of day.
    use chrono::Timelike;
    let hour = chrono::Utc::now().hour();
    let all_day = QuietHoursSettings {
        enabled: true,
        start: format!("{:02}:00", (hour + 23) % 24),
        end: format!("{:02}:00", (hour + 2) % 24),
        timezone: "Etc/UTC".into(),
        active: false,
    };
    let set = core.set_quiet_hours(all_day.clone()).await.expect("set");
    assert_eq!(set.timezone, "Etc/UTC");
    assert!(set.active, "it holds now");
    let bad = core
        .set_quiet_hours(QuietHoursSettings {
            timezone: "Mars/Base".into(),
            ..all_day
        })
        .await
        .expect_err("unknown zone");
    assert_eq!(bad.code(), "invalid_request");

    let key = core.create_agent_key("Temp").await.unwrap();
    assert_eq!(core.agent_keys().await.unwrap().len(), 1);
    core.revoke_agent_key(&key.id).await.unwrap();
    assert!(
        core.agent_keys().await.unwrap().is_empty(),
        "revoked keys are not listed"
    );
    let (status, _) = agent_call(
        reqwest::Method::GET,
        format!("{url}/v1/status"),
        &key.key,
        None,
    )
    .await;
    assert_eq!(status, 401, "revoked at once");

    // A connector through the device flow, approved by the core.
    let http = reqwest::Client::new();
    let flow: Value = http
        .post(format!("{url}/oauth/device_authorization"))
        .form(&[("client_id", "mcp-client"), ("client_name", "Claude")])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let code = flow["user_code"].as_str().unwrap();
    let wrong = core
        .approve_connector("BBBB-BBBB", None)
        .await
        .expect_err("no such code");
    assert_eq!(wrong.code(), "not_found");
    let connector = core
        .approve_connector(code, Some("My Claude"))
        .await
        .expect("approve");
    assert_eq!(connector.name, "My Claude");
    let token: Value = http
        .post(format!("{url}/oauth/token"))
        .form(&[
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", flow["device_code"].as_str().unwrap()),
            ("client_id", "mcp-client"),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let access = token["access_token"].as_str().expect("a token").to_owned();
    let (status, s) = agent_call(
        reqwest::Method::GET,
        format!("{url}/v1/status"),
        &access,
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(s["quietHours"]["active"], json!(true), "quiet now");
    let (_, r) = agent_call(
        reqwest::Method::POST,
        format!("{url}/v1/notify"),
        &access,
        Some(json!({"title": "shh"})),
    )
    .await;
    assert_eq!(r["suppressed"], json!(true), "quiet hours hold it back");
    core.sync_once().await.expect("sync");
    let n = &core.notifications().await.unwrap()[0];
    assert!(n.suppressed, "the inbox says suppressed");
    assert_eq!(n.source_kind, "connector");
    let list = core.connectors().await.unwrap();
    assert_eq!(list.len(), 1);
    assert!(list[0].token_issued);
    core.revoke_connector(&list[0].id).await.unwrap();
    assert!(core.connectors().await.unwrap().is_empty());
    let (status, _) = agent_call(
        reqwest::Method::GET,
        format!("{url}/v1/status"),
        &access,
        None,
    )
    .await;
    assert_eq!(status, 401, "revoked connector");

    let flow: Value = http
        .post(format!("{url}/oauth/device_authorization"))
        .form(&[("client_id", "other")])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    core.deny_connector(flow["user_code"].as_str().unwrap())
        .await
        .expect("deny");
    relay.shutdown().await;
}
