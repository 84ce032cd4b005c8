//! Shared fixtures of the CLI tests: a headless device with one connection on a real relay
//! (herald-testkit's [`ThreadedRelay`], on its own runtime thread), and helpers to run `herald`.

use std::path::Path;
use std::process::{Child, Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
pub use herald_testkit::ThreadedRelay;

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
    pub relay: ThreadedRelay,
    pub home: tempfile::TempDir,
    pub token: String,
}

pub fn setup() -> Setup {
    let relay = ThreadedRelay::start();
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
