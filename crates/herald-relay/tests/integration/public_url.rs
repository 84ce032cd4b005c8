//! `herald-relay --public-url` (and `HERALD_RELAY_PUBLIC_URL`): a value the relay cannot use
//! stops it at start, naming the value and what is expected, instead of serving with OAuth
//! metadata built from the `Host` header (docs/agents.md, "Public base URL").
#![cfg(unix)]

use crate::start_refusal;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use start_refusal::refused_start;

/// [`refused_start`] with `public_url` given as the flag (`env == false`) or as the variable.
fn run(public_url: &str, env: bool) -> (Option<i32>, String) {
    const VAR: &str = "HERALD_RELAY_PUBLIC_URL";
    if env {
        refused_start(&[], &[(VAR, public_url)], &[VAR])
    } else {
        refused_start(&["--public-url", public_url], &[], &[VAR])
    }
}

#[test]
fn an_unusable_public_url_stops_the_relay_naming_the_value() {
    for bad in [
        "relay.example.com",
        "relay.example.com:8457",
        "ftp://relay.example.com",
        "https://relay.example.com/?tenant=1",
        "https://relay.example.com/#top",
        "",
    ] {
        // An empty variable reads as unset (clap); an empty flag is a value.
        let forms: &[bool] = if bad.is_empty() {
            &[false]
        } else {
            &[false, true]
        };
        for &env in forms {
            let (code, stderr) = run(bad, env);
            assert_eq!(code, Some(2), "{bad:?} (env {env}): {stderr}");
            assert!(
                stderr.contains(&format!("{bad:?}")),
                "the value is named ({bad:?}, env {env}): {stderr}"
            );
            assert!(
                stderr.contains("expected an absolute http:// or https:// URL"),
                "what is expected is said ({bad:?}): {stderr}"
            );
        }
    }
    // A password in the URL is not repeated.
    for env in [false, true] {
        let (code, stderr) = run("https://user:hunter2@relay.example.com", env);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("user:***@relay.example.com"), "{stderr}");
        assert!(
            !stderr.contains("hunter2"),
            "the password is not echoed: {stderr}"
        );
    }
}

#[test]
fn a_usable_public_url_starts_the_relay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_herald-relay"))
        .args(["--listen", "127.0.0.1:0"])
        .env("HERALD_RELAY_DATA_DIR", dir.path())
        .env(
            "HERALD_RELAY_PUBLIC_URL",
            "https://Relay.Example:443/herald/",
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !dir.path().join("relay.db").exists() {
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the relay exited with a valid public URL"
        );
        assert!(
            Instant::now() < deadline,
            "the relay never opened its store"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}
