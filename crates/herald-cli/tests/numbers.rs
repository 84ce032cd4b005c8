//! Numbers and output the real `herald` binary must survive (issue 15, "Panics and
//! wrap-around"): durations too large for any arithmetic are refused naming the flag and its
//! range (never a panic, never wrapped into a small one), and a standard output that cannot
//! be written (`> /dev/full`, a closed pipe) ends the command with exit 1 and a message, not
//! a panic (exit 101).

mod common;

use std::process::{Output, Stdio};

use common::*;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts `out` is a refusal (exit 1, no panic) whose message holds every one of `words`.
fn refused(out: &Output, words: &[&str], why: &str) {
    let err = stderr(out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{why}: exit 1, not a panic: {err}"
    );
    assert!(!err.contains("panicked"), "{why}: no panic: {err}");
    for word in words {
        assert!(
            err.contains(word),
            "{why}: the message names {word:?}: {err}"
        );
    }
}

#[test]
fn huge_durations_are_refused_naming_the_flag_and_range() {
    let home = tempfile::tempdir().unwrap();
    let secret = home.path().join("secret.txt");
    std::fs::write(&secret, "s3cret").unwrap();
    let secret = secret.to_str().unwrap();
    let id = herald_crypto::new_message_id().to_string();
    let id = id.as_str();
    // Nothing here reaches a relay: every value is refused before one is needed.
    let agent = || {
        let mut cmd = herald(home.path());
        cmd.env("HERALD_URL", "http://127.0.0.1:9");
        cmd
    };
    // The largest value in the issue, one that wrapped to ~17 h, one past u64, and one
    // just over the limit.
    for huge in [
        "999999999999999d",
        "213503982334602d",
        "99999999999999999999999",
        "25h",
    ] {
        let ask = |flag: &str| {
            let mut cmd = agent();
            cmd.args(["ask", "--title", "T", "--action", "ok:OK", flag, huge]);
            run(&mut cmd)
        };
        refused(
            &ask("--deadline"),
            &["--deadline", "between 1s and 24h"],
            huge,
        );
        if huge != "25h" {
            refused(
                &ask("--timeout"),
                &["--timeout", "between 0s and 30d"],
                huge,
            );
            refused(
                &run(agent().args(["wait", id, "--timeout", huge])),
                &["--timeout", "between 0s and 30d"],
                huge,
            );
            refused(
                &run(agent().args([
                    "send",
                    "--title",
                    "T",
                    "--secret-file",
                    secret,
                    "--timeout",
                    huge,
                ])),
                &["--timeout", "between 0s and 30d"],
                huge,
            );
            refused(
                &run(herald(home.path()).args([
                    "inbox",
                    "reveal",
                    id,
                    "--out",
                    "x",
                    "--timeout",
                    huge,
                ])),
                &["--timeout", "between 0s and 30d"],
                huge,
            );
        }
        refused(
            &run(herald(home.path()).args(["device", "approve", "--confirm-timeout", huge])),
            &["--confirm-timeout", "between 1s and 10m"],
            huge,
        );
    }
    refused(
        &run(agent().args([
            "ask",
            "--title",
            "T",
            "--action",
            "ok:OK",
            "--deadline",
            "0s",
        ])),
        &["--deadline", "too short", "between 1s and 24h"],
        "zero deadline",
    );
}

/// A device with one message in its inbox, so `herald inbox list` has lines to print.
fn device_with_a_message() -> Setup {
    let s = setup();
    ok_stdout(agent(&s).args(["send", "--title", "Line for stdout"]));
    wait_for_title(&s, "Line for stdout");
    s
}

#[test]
#[cfg(target_os = "linux")]
fn a_full_stdout_is_an_error_not_a_panic() {
    let s = device_with_a_message();
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for args in [
        &["inbox", "list"][..],
        &["inbox", "list", "--json"],
        &["whoami"],
        &["connection", "list"],
        &["--help"],
    ] {
        let out = herald(s.home.path())
            .args(args)
            .stdout(Stdio::from(full()))
            .output()
            .unwrap();
        refused(
            &out,
            &["cannot write to standard output", "No space left"],
            &args.join(" "),
        );
    }
    // The agent side too: the record of a sent message.
    let out = agent(&s)
        .args(["send", "--title", "To a full disk"])
        .stdout(Stdio::from(full()))
        .output()
        .unwrap();
    refused(&out, &["cannot write to standard output"], "send");
}

#[test]
fn a_closed_pipe_is_an_error_not_a_panic() {
    let s = device_with_a_message();
    let mut child = herald(s.home.path())
        .args(["inbox", "list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before herald writes (it opens its data dir and syncs first).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    refused(
        &out,
        &["cannot write to standard output", "Broken pipe"],
        "closed pipe",
    );
}
