//! Shared fixtures of the CLI tests: a real relay on its own runtime thread, a headless device
//! with one connection, and helpers to run `herald`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;

/// A relay on its own runtime thread, stopped when dropped.
pub struct Relay {
    pub url: String,
    pub dir: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Relay {
    pub fn start() -> Relay {
        let dir = tempfile::tempdir().expect("temp dir");
        let data_dir = dir.path().to_path_buf();
        let (url_tx, url_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                let relay = herald_relay::spawn(
                    herald_relay::RelayConfig {
                        data_dir,
                        public_url: None,
                        ..Default::default()
                    },
                    listener,
                )
                .await
                .expect("relay starts");
                url_tx.send(relay.url()).expect("send url");
                let _ = stop_rx.await;
                relay.shutdown().await;
            });
        });
        let url = url_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("relay reported its URL");
        Relay {
            url,
            dir,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    pub fn db_path(&self) -> PathBuf {
        self.dir.path().join("relay.db")
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub fn herald(home: &Path) -> StdCommand {
    let mut cmd = StdCommand::cargo_bin("herald").expect("herald binary built");
    cmd.env_remove("HERALD_TOKEN")
        .env_remove("HERALD_URL")
        .env("HERALD_HOME", home)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("xdg-data"))
        .env("XDG_CONFIG_HOME", home.join("xdg-config"))
        .stdin(Stdio::null());
    cmd
}

pub fn run(cmd: &mut StdCommand) -> Output {
    cmd.output().expect("herald runs")
}

pub fn ok_stdout(cmd: &mut StdCommand) -> String {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "command failed: {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// A device account plus one connection token.
pub struct Setup {
    pub relay: Relay,
    pub home: tempfile::TempDir,
    pub token: String,
}

pub fn setup() -> Setup {
    let relay = Relay::start();
    let home = tempfile::tempdir().expect("home");
    let init = ok_stdout(herald(home.path()).args([
        "device", "init", "--relay", &relay.url, "--name", "test-box",
    ]));
    assert!(
        init.contains("Safety code:"),
        "init prints the safety code: {init}"
    );
    assert!(
        init.contains("Recovery key:"),
        "init prints the recovery key: {init}"
    );
    let token = ok_stdout(herald(home.path()).args(["connection", "create", "--name", "ci-bot"]))
        .trim()
        .to_owned();
    assert!(
        token.starts_with("hdr_") && token.split('.').count() == 3,
        "token has three parts"
    );
    Setup { relay, home, token }
}

pub fn agent(s: &Setup) -> StdCommand {
    let mut cmd = herald(s.home.path());
    cmd.env("HERALD_URL", &s.relay.url)
        .env("HERALD_TOKEN", &s.token);
    cmd
}

pub fn inbox_list(s: &Setup) -> Vec<serde_json::Value> {
    let out = ok_stdout(herald(s.home.path()).args(["inbox", "list", "--json"]));
    serde_json::from_str(&out).expect("inbox list --json is JSON")
}

/// Polls the inbox until a message titled `title` appears (bounded).
pub fn wait_for_title(s: &Setup, title: &str) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(m) = inbox_list(s).into_iter().find(|m| m["title"] == title) {
            return m;
        }
        assert!(
            Instant::now() < deadline,
            "{title:?} never reached the inbox"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn finish(child: Child) -> Output {
    child.wait_with_output().expect("child finishes")
}
