//! `herald-test-credentials` run as a process: `--help` prints the usage and succeeds; a bad
//! argument or a missing variable exits 2 with the usage, never a panic with a backtrace.

use std::process::{Command, Output};

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald-test-credentials"));
    cmd.args(args)
        .env_remove("HERALD_RELAY_URL")
        .env_remove("HERALD_CREDENTIALS_DIR")
        .env("RUST_BACKTRACE", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the binary runs")
}

fn no_panic(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("stack backtrace"),
        "a clean message, not a panic: {stderr}"
    );
}

#[test]
fn help_prints_the_usage() {
    for flag in ["--help", "-h"] {
        let out = run(&[flag], &[]);
        assert!(out.status.success(), "{flag} succeeds");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("Usage:"), "{stdout}");
        assert!(stdout.contains("HERALD_CREDENTIALS_DIR"), "{stdout}");
        no_panic(&out);
    }
}

#[test]
fn bad_arguments_and_missing_variables_exit_2() {
    let out = run(&["--bogus"], &[]);
    assert_eq!(out.status.code(), Some(2), "an unknown argument");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage:"));
    no_panic(&out);

    let out = run(&[], &[]);
    assert_eq!(out.status.code(), Some(2), "no variables");
    no_panic(&out);

    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let out = run(
        &[],
        &[
            ("HERALD_RELAY_URL", "http://127.0.0.1:1"),
            ("HERALD_CREDENTIALS_DIR", missing.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "no such directory");
    no_panic(&out);
}

#[test]
fn an_unreachable_relay_fails_with_the_step_named() {
    let dir = tempfile::tempdir().unwrap();
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let out = run(
        &[],
        &[
            ("HERALD_RELAY_URL", "http://127.0.0.1:1"),
            ("HERALD_CREDENTIALS_DIR", dir.path().to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("POST /accounts"),
        "names the step: {stderr}"
    );
    no_panic(&out);
}
