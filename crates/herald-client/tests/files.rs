//! Encrypted files end to end on a real relay (127.0.0.1:0, relay clock set by the test): an
//! agent attaches files, the device lists them, shows an image block's image, saves a file
//! (0600, never over an existing one), refuses a file that does not match its message, and
//! reports a deleted file as expired.

mod core_setup;

use std::path::Path;
use std::sync::Arc;

use chrono::TimeDelta;
use herald_client::agent::{AgentClient, SendOptions};
use herald_client::http::RelayHttp;
use herald_client::{files, Core, Error};
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use herald_relay::{AppState, Clock, ManualClock, RelayConfig};
use serde_json::json;

struct Env {
    relay: herald_relay::RunningRelay,
    clock: Arc<ManualClock>,
    core: Core,
    agent: AgentClient,
    token: ConnectionToken,
    dir: tempfile::TempDir,
}

async fn env() -> Env {
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let state = AppState::open_with_clock(
        RelayConfig {
            data_dir: dir.path().join("relay"),
            public_url: None,
            ..Default::default()
        },
        clock.clone() as Arc<dyn Clock>,
    )
    .expect("relay state");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let relay = herald_relay::spawn_with_state(state, listener).expect("relay starts");
    let core = core_setup::open_core(&dir.path().join("device"), "Test laptop");
    core.create_account(&relay.url()).await.expect("account");
    let created = core
        .create_connection("Agent", None)
        .await
        .expect("connection");
    let token = ConnectionToken::parse(&created.token).expect("token parses");
    let agent = AgentClient::new(&relay.url(), token.clone()).expect("agent");
    Env {
        relay,
        clock,
        core,
        agent,
        token,
        dir,
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test file");
    path
}

fn content(v: serde_json::Value) -> MessageContent {
    serde_json::from_value(v).expect("test content parses")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attachments_are_listed_shown_and_saved() {
    let env = env().await;
    let png = herald_client::demo::DEMO_IMAGE;
    let image = write(env.dir.path(), "chart.png", png);
    let notes: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let notes_path = write(env.dir.path(), "notes.bin", &notes);

    // An image block needs its attachment's id: upload it first, then send with another file.
    let chart = env.agent.upload_file(&image).await.expect("upload");
    assert_eq!(chart.mime_type, "image/png", "type from the extension");
    let mut message = content(json!({"title": "Report", "blocks": [
        {"type": "image", "attachmentId": chart.id, "alt": "Chart"}]}));
    message.attachments.push(chart.clone());
    let record = env
        .agent
        .send(
            &message,
            SendOptions {
                attachments: vec![notes_path.clone()],
                ..Default::default()
            },
        )
        .await
        .expect("sent with two files");

    env.core.sync_once().await.expect("sync");
    let id = record.id.to_string();
    let view = env.core.message(&id).await.expect("message view");
    let names: Vec<(&str, &str, u64, bool)> = view
        .attachments
        .iter()
        .map(|a| {
            (
                a.name.as_str(),
                a.mime_type.as_str(),
                a.size,
                a.inline_image,
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("chart.png", "image/png", png.len() as u64, true),
            (
                "notes.bin",
                "application/octet-stream",
                notes.len() as u64,
                false
            )
        ],
        "the device lists both files"
    );
    assert_eq!(
        view.blocks[0].attachment_id.as_deref(),
        Some(chart.id.as_str()),
        "the image block names its attachment"
    );

    let (mime, bytes) = env
        .core
        .attachment_bytes_for_image(&id, &chart.id)
        .await
        .expect("image bytes");
    assert_eq!((mime.as_str(), &bytes[..]), ("image/png", png), "the image");

    let notes_id = &view.attachments[1].id;
    let dest = env.dir.path().join("saved.bin");
    env.core
        .save_attachment(&id, notes_id, &dest)
        .await
        .expect("saved");
    assert!(std::fs::read(&dest).unwrap() == notes, "the same bytes");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "saved owner-only");
    }
    let again = env.core.save_attachment(&id, notes_id, &dest).await;
    assert!(
        matches!(again, Err(Error::InvalidInput(_))),
        "never over an existing file: {again:?}"
    );
    let not_image = env.core.attachment_bytes_for_image(&id, notes_id).await;
    assert!(
        matches!(not_image, Err(Error::InvalidInput(_))),
        "only images load inline: {not_image:?}"
    );
    let unknown = env
        .core
        .save_attachment(
            &id,
            "fil_zzzzzzzzzzzzzzzzzzzzzzzzzz",
            &env.dir.path().join("x"),
        )
        .await;
    assert!(
        matches!(unknown, Err(Error::NotFound(_))),
        "no such attachment: {unknown:?}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(env.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".herald-download-")
        })
        .collect();
    assert!(leftovers.is_empty(), "no temporary files left behind");
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_does_not_match_its_message_is_refused() {
    let env = env().await;
    let path = write(env.dir.path(), "a.txt", b"the real contents");
    let real = env.agent.upload_file(&path).await.expect("upload");
    let other = env.agent.upload_file(&path).await.expect("second upload");
    // A buggy or hostile sender describes the file wrongly: another hash, another key.
    let mut wrong_hash = real.clone();
    wrong_hash.sha256 = herald_protocol::envelope::b64_encode(&[7u8; 32]);
    let mut wrong_key = other.clone();
    wrong_key.key = herald_crypto::FileKey::generate().expose().to_owned();
    let mut message = content(json!({"title": "Files"}));
    message.attachments = vec![wrong_hash.clone(), wrong_key.clone()];
    let record = env
        .agent
        .send(&message, SendOptions::default())
        .await
        .expect("sent");
    env.core.sync_once().await.expect("sync");
    for (what, att) in [("another hash", &wrong_hash), ("another key", &wrong_key)] {
        let dest = env.dir.path().join(format!("{}.out", &att.id[4..10]));
        let got = env
            .core
            .save_attachment(&record.id.to_string(), &att.id, &dest)
            .await;
        assert!(
            matches!(got, Err(Error::FileIntegrity(_))),
            "{what}: refused as an integrity failure: {got:?}"
        );
        assert!(!dest.exists(), "{what}: nothing saved");
    }
    env.relay.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_file_is_reported_as_expired() {
    let env = env().await;
    let path = write(env.dir.path(), "late.txt", b"never attached");
    let attachment = env.agent.upload_file(&path).await.expect("upload");
    let http = RelayHttp::new(&env.relay.url())
        .unwrap()
        .with_bearer(&env.token.bearer);
    let fresh = env.dir.path().join("fresh.txt");
    files::download_file(&http, &attachment, &fresh)
        .await
        .expect("the uploader reads its upload back");
    assert_eq!(std::fs::read(&fresh).unwrap(), b"never attached");

    env.clock.advance(TimeDelta::minutes(16));
    env.relay.state().sweep_files().await.expect("sweep");
    let got = files::download_file(&http, &attachment, &env.dir.path().join("gone.txt")).await;
    assert!(
        matches!(got, Err(Error::FileExpired)),
        "a deleted file is expired, not a generic error: {got:?}"
    );
    assert_eq!(
        got.err().map(|e| e.code()).as_deref(),
        Some("file_expired"),
        "its code"
    );
    env.relay.shutdown().await;
}
