//! Every numeric flag of `herald-relay` (and its variable) has a checked range: a value out of
//! it stops the relay at start with exit 2, naming the flag, the value and the range, before
//! anything is created; a value at the top of a range serves requests (no overflow in the
//! server's deadline arithmetic).
#![cfg(unix)]

use crate::start_refusal;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use start_refusal::refused_start;

/// [`refused_start`] with the variables of the flags under test as given.
fn refused(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    refused_start(args, env, &[])
}

#[test]
fn numeric_flags_out_of_range_are_refused_naming_flag_value_and_range() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "--header-timeout-secs",
            "HERALD_RELAY_HEADER_TIMEOUT_SECS",
            "18446744073709551615",
            "1..=3600",
        ),
        (
            "--header-timeout-secs",
            "HERALD_RELAY_HEADER_TIMEOUT_SECS",
            "9223372036854775807",
            "1..=3600",
        ),
        (
            "--header-timeout-secs",
            "HERALD_RELAY_HEADER_TIMEOUT_SECS",
            "0",
            "1..=3600",
        ),
        (
            "--body-timeout-secs",
            "HERALD_RELAY_BODY_TIMEOUT_SECS",
            "18446744073709551615",
            "1..=3600",
        ),
        (
            "--body-timeout-secs",
            "HERALD_RELAY_BODY_TIMEOUT_SECS",
            "3601",
            "1..=3600",
        ),
        (
            "--max-connections",
            "HERALD_RELAY_MAX_CONNECTIONS",
            "0",
            "1..=1000000",
        ),
        (
            "--max-connections",
            "HERALD_RELAY_MAX_CONNECTIONS",
            "18446744073709551615",
            "1..=1000000",
        ),
        (
            "--agent-requests-per-day",
            "HERALD_RELAY_AGENT_REQUESTS_PER_DAY",
            "4294967295",
            "0..=1000000000",
        ),
        (
            "--agent-poll-seconds-per-day",
            "HERALD_RELAY_AGENT_POLL_SECONDS_PER_DAY",
            "18446744073709551615",
            "0..=1000000000",
        ),
    ];
    for &(flag, var, value, range) in cases {
        for (code, stderr) in [refused(&[flag, value], &[]), refused(&[], &[(var, value)])] {
            assert_eq!(code, Some(2), "{flag} {value}: {stderr}");
            assert!(stderr.contains(flag), "the flag is named: {stderr}");
            assert!(stderr.contains(value), "the value is named: {stderr}");
            assert!(stderr.contains(range), "the range is named: {stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
}

#[test]
fn the_largest_timeouts_serve_requests() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_herald-relay"))
        .args(["--listen", "127.0.0.1:0"])
        .args([
            "--header-timeout-secs",
            "3600",
            "--body-timeout-secs",
            "3600",
        ])
        .env("HERALD_RELAY_DATA_DIR", dir.path())
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("the binary announces readiness")
            .expect("stderr line");
        if let Some(rest) = line.split("url=").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    for _ in 0..2 {
        let mut stream = TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
            .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
    }
    assert!(
        child.try_wait().expect("wait").is_none(),
        "the relay still runs"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_data_dir_that_cannot_be_used_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("afile");
    std::fs::write(&file, "x").expect("file");
    let bad = file.join("x");
    let out = Command::new(env!("CARGO_BIN_EXE_herald-relay"))
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&bad)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(&bad.display().to_string()), "{stderr}");
    assert!(stderr.contains("--data-dir"), "says what to do: {stderr}");
}
