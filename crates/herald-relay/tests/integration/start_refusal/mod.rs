//! The `herald-relay` binary started with a configuration it must refuse: shared by the tests
//! of start-up checks (public_url.rs, flag_ranges.rs).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary on 127.0.0.1:0 in a new data dir with `args` and `env` (after removing the
/// variables in `unset`), waits for it to exit, and returns its exit code and stderr. Panics
/// if it is still running after 10 s (it would be serving) or if it created its database
/// before refusing.
pub fn refused_start(args: &[&str], env: &[(&str, &str)], unset: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald-relay"));
    for name in unset {
        cmd.env_remove(name);
    }
    let mut child = cmd
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .env("HERALD_RELAY_DATA_DIR", dir.path())
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("herald-relay started with {args:?} {env:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr piped")
        .read_to_string(&mut stderr)
        .expect("stderr");
    assert!(
        !dir.path().join("relay.db").exists(),
        "nothing is created before the refusal"
    );
    (status.code(), stderr)
}
