//! Numbers and output the real `herald` binary must survive (issue 15, "Panics and
//! wrap-around"): durations too large for any arithmetic are refused naming the flag and its
//! range (never a panic, never wrapped into a small one), and a standard output that cannot
//! be written (`> /dev/full`) ends the command with exit 1 and a message, not a panic
//! (exit 101); a closed pipe (`| head -1`) ends it with exit 1 and no message — except after
//! a step that cannot be undone (a created connection, a sent message), which stderr names
//! with what to do. A standard error that cannot be written is ignored (never exit 101).

use crate::common;

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
    // The agent side too: the record of a sent message names the message sent.
    let out = agent(&s)
        .args(["send", "--title", "To a full disk"])
        .stdout(Stdio::from(full()))
        .output()
        .unwrap();
    refused(
        &out,
        &[
            "message msg_",
            "was sent",
            "could not be written",
            "No space left",
        ],
        "send",
    );

    // A connection whose one-time token was lost says it exists and how to revoke it; the
    // command it names works as written.
    let out = herald(s.home.path())
        .args(["connection", "create", "--name", "lost"])
        .stdout(Stdio::from(full()))
        .output()
        .unwrap();
    refused(
        &out,
        &["connection con_", "was created", "token could not be shown"],
        "connection create",
    );
    let err = stderr(&out);
    let revoke = err
        .split("Revoke it with: ")
        .nth(1)
        .and_then(|rest| rest.split(" — ").next())
        .expect("the revoke command");
    let words: Vec<&str> = revoke.split_whitespace().collect();
    assert_eq!(&words[..3], ["herald", "connection", "revoke"], "{err}");
    let revoked = run(herald(s.home.path()).args(&words[1..]));
    assert!(revoked.status.success(), "{revoked:?}");
    assert!(stderr(&revoked).contains("revoked"), "{revoked:?}");
}

/// A standard error that cannot be written (`2>/dev/full`) changes nothing: a refused
/// command exits 1, an `ask` that timed out 3 — never 101.
#[test]
#[cfg(target_os = "linux")]
fn a_full_stderr_is_ignored() {
    let s = setup();
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let out = agent(&s)
        .args(["send", "--title", ""])
        .stderr(Stdio::from(full()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = agent(&s)
        .args([
            "ask",
            "--title",
            "Quiet",
            "--action",
            "ok:OK",
            "--timeout",
            "1s",
        ])
        .stderr(Stdio::from(full()))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "timed out, its JSON on stdout: {out:?}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("timedOut"),
        "{out:?}"
    );
}

#[test]
fn a_closed_pipe_is_quiet_unless_something_was_done() {
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
    refused(&out, &[], "closed pipe");
    // (A note that the relay was slow to answer may be there on a loaded machine; no word
    // about standard output.)
    let err = stderr(&out);
    assert!(
        !err.contains("standard output") && !err.contains("Broken pipe"),
        "a closed pipe is quiet: {err}"
    );

    // After a step that cannot be undone, the note is printed all the same.
    let mut child = herald(s.home.path())
        .args(["connection", "create", "--name", "piped"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    refused(
        &out,
        &[
            "connection con_",
            "was created",
            "herald connection revoke con_",
        ],
        "closed pipe after connection create",
    );
}
