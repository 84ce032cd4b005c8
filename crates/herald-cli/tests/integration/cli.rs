//! The `herald` binary against a real relay on 127.0.0.1:0 (real SQLite, websockets and
//! crypto): a headless device creates the account and a connection, an agent asks, the device
//! answers from the terminal, and `herald ask` prints the answer.

use crate::common;

use std::process::Stdio;

use common::*;

#[test]
fn ask_is_answered_from_the_terminal_device_and_printed_as_json() {
    let s = setup();
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Deploy v1.2?",
            "--body",
            "Staging is **green**.",
            "--action",
            "approve:Approve",
            "--action",
            "reject:Reject",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask starts");
    let message = wait_for_title(&s, "Deploy v1.2?");
    assert_eq!(message["status"], "pending", "a request starts pending");
    assert_eq!(
        message["senderName"], "ci-bot",
        "sender is the verified connection name"
    );
    let id = message["id"].as_str().expect("id").to_owned();

    let shown = ok_stdout(herald(s.home.path()).args(["inbox", "show", &id]));
    assert!(
        shown.contains("Staging is **green**."),
        "show prints the decrypted body: {shown}"
    );
    assert!(
        shown.contains("[approve] Approve"),
        "show lists actions: {shown}"
    );

    ok_stdout(herald(s.home.path()).args(["inbox", "answer", &id, "--action", "approve"]));
    let out = finish(child);
    assert_eq!(
        out.status.code(),
        Some(0),
        "ask exits 0 when answered; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("ask prints JSON");
    assert_eq!(
        answer["actionId"], "approve",
        "the tapped action comes back"
    );
    assert_eq!(answer["status"], "answered", "status answered");
    assert_eq!(answer["id"], id.as_str(), "same request");

    let again = run(herald(s.home.path()).args(["inbox", "answer", &id, "--action", "reject"]));
    assert_eq!(again.status.code(), Some(1), "a second answer fails");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already_answered"),
        "with its own code: {}",
        String::from_utf8_lossy(&again.stderr)
    );

    let db = std::fs::read(s.relay.db_path()).expect("relay db readable");
    let wal = std::fs::read(s.relay.dir.path().join("relay.db-wal")).unwrap_or_default();
    for needle in ["Deploy v1.2?", "Staging is", "approve:Approve", "Approve"] {
        for bytes in [&db, &wal] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "the relay database must not contain plaintext {needle:?}"
            );
        }
    }
}

#[test]
fn form_answers_are_validated_before_sealing() {
    let s = setup();
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Where to?",
            "--field",
            "env!:choice:Environment:prod,staging",
            "--field",
            "why:text:Why",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask starts");
    let id = wait_for_title(&s, "Where to?")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let bad =
        run(herald(s.home.path()).args(["inbox", "answer", &id, "--json", r#"{"env":"moon"}"#]));
    assert_eq!(
        bad.status.code(),
        Some(1),
        "an invalid answer is refused locally"
    );
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("env"),
        "the error names the field"
    );
    ok_stdout(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        r#"{"env":"prod","why":"ship it"}"#,
    ]));
    let out = finish(child);
    assert_eq!(out.status.code(), Some(0), "answered");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["values"]["env"], "prod", "field value comes back");
    assert_eq!(answer["values"]["why"], "ship it", "text value comes back");
}

#[test]
fn send_delivers_and_a_request_expires_by_the_relay_clock() {
    let s = setup();
    let sent: serde_json::Value = serde_json::from_str(&ok_stdout(agent(&s).args([
        "send",
        "--title",
        "Build done",
    ])))
    .unwrap();
    assert_eq!(
        sent["status"], "delivered",
        "a message without a question is delivered"
    );

    let out = run(agent(&s).args([
        "ask",
        "--title",
        "Quick?",
        "--action",
        "yes:Yes",
        "--deadline",
        "1s",
    ]));
    assert_eq!(
        out.status.code(),
        Some(2),
        "expired request exits 2; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["status"], "expired", "prints the closed status");

    let out = run(agent(&s).args([
        "ask",
        "--title",
        "Later",
        "--action",
        "yes:Yes",
        "--timeout",
        "1s",
    ]));
    assert_eq!(out.status.code(), Some(3), "client timeout exits 3");
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = body["id"]
        .as_str()
        .expect("prints the id to resume")
        .to_owned();
    let waiter = agent(&s)
        .args(["wait", &id])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_title(&s, "Later");
    ok_stdout(herald(s.home.path()).args(["inbox", "answer", &id, "--action", "yes"]));
    let out = finish(waiter);
    assert_eq!(
        out.status.code(),
        Some(0),
        "herald wait resumes and gets the answer"
    );
}

#[test]
fn tokens_are_checked_before_anything_is_sent() {
    let s = setup();
    // Wrong fingerprint pin: the relay's keys do not match → abort before encrypting.
    let mut parts: Vec<String> = s.token.split('.').map(str::to_owned).collect();
    let fp = parts[2].clone();
    let first = if fp.starts_with('A') { "B" } else { "A" };
    let flipped = format!("{first}{}", &fp[1..]);
    parts[2] = flipped;
    let out = run(herald(s.home.path())
        .env("HERALD_URL", &s.relay.url)
        .env("HERALD_TOKEN", parts.join("."))
        .args(["send", "--title", "x"]));
    assert_eq!(out.status.code(), Some(1), "pin mismatch aborts");
    assert!(
        inbox_list(&s).is_empty(),
        "nothing was sent with a mismatched pin"
    );

    // A token file readable by others is refused.
    let file = s.home.path().join("token");
    std::fs::write(&file, &s.token).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let out = run(herald(s.home.path())
            .env("HERALD_URL", &s.relay.url)
            .args(["send", "--title", "x", "--token-file"])
            .arg(&file));
        assert_eq!(out.status.code(), Some(1), "0644 token file refused");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("chmod 600"),
            "says how to fix it"
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        ok_stdout(
            herald(s.home.path())
                .env("HERALD_URL", &s.relay.url)
                .args(["send", "--title", "x", "--token-file"])
                .arg(&file),
        );
    }

    // Content limits are enforced before sealing, naming the field.
    let long = "t".repeat(181);
    let out = run(agent(&s).args(["send", "--title", &long]));
    assert_eq!(out.status.code(), Some(1), "181-character title refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("title"),
        "names the field"
    );
    // The token never appears in output or errors.
    let secret_part = s.token.split('.').nth(1).unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains(secret_part),
        "no seed in errors"
    );
}

#[test]
fn a_revoked_connection_is_refused_at_once() {
    let s = setup();
    ok_stdout(agent(&s).args(["send", "--title", "Before"]));
    let list = ok_stdout(herald(s.home.path()).args(["connection", "list"]));
    let id = list
        .split_whitespace()
        .next()
        .expect("a connection is listed")
        .to_owned();
    ok_stdout(herald(s.home.path()).args(["connection", "revoke", &id]));
    let out = run(agent(&s).args(["send", "--title", "After"]));
    assert_eq!(
        out.status.code(),
        Some(1),
        "the revoked token no longer sends"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("revoked or is unknown (401)"),
        "with the 401 code and what it means: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn agent_text_cannot_drive_the_terminal() {
    let s = setup();
    // A title is one line of visible text (the title rule, docs/content.md): an escape
    // sequence, a second line, a bidi override or an invisible title is refused before sealing.
    for title in [
        "ok\u{1b}[31mred",
        "Deploy\nReject",
        "\u{202E}gnp.exe",
        "\u{200B}",
    ] {
        let out = run(agent(&s).args(["send", "--title", title]));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{title:?} is refused: {stderr}");
        assert!(
            stderr.contains("title: must be one line of visible text"),
            "{title:?}: the refusal names the title and the rule: {stderr}"
        );
    }
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
    ok_stdout(agent(&s).args([
        "send",
        "--title",
        "ok red",
        "--body",
        "x\u{1b}]0;pwned\u{7}y",
    ]));
    let list = ok_stdout(herald(s.home.path()).args(["inbox", "list"]));
    let id = list.split_whitespace().next().unwrap().to_owned();
    let shown = ok_stdout(herald(s.home.path()).args(["inbox", "show", &id]));
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "no raw control characters: {shown:?}"
    );
    assert!(
        shown.contains("\\e]0;pwned"),
        "shown as visible text: {shown:?}"
    );
}

#[test]
fn usage_errors_exit_1_and_an_answered_request_reports_answered_even_with_a_zero_timeout() {
    let s = setup();
    let out = run(agent(&s).args(["ask", "--title", "x", "--bogus"]));
    assert_eq!(
        out.status.code(),
        Some(1),
        "a usage error is bad input (1), not 'closed' (2)"
    );
    let waiter = agent(&s)
        .args(["ask", "--title", "Quick one", "--action", "ok:OK"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = wait_for_title(&s, "Quick one")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok_stdout(herald(s.home.path()).args(["inbox", "answer", &id, "--action", "ok"]));
    assert_eq!(finish(waiter).status.code(), Some(0), "answered");
    let out = run(agent(&s).args(["wait", &id, "--timeout", "0s"]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "already answered wins over a zero timeout"
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["actionId"], "ok", "the answer is printed");
}

#[test]
fn a_send_only_connection_sends_and_is_refused_reading() {
    let s = setup();
    let token = ok_stdout(herald(s.home.path()).args([
        "connection",
        "create",
        "--name",
        "notifier",
        "--scope",
        "messages:send",
    ]))
    .trim()
    .to_owned();
    let list = ok_stdout(herald(s.home.path()).args(["connection", "list"]));
    let listed: Vec<&str> = list.lines().collect();
    // (`connection create` printed its scopes the same way, comma-separated.)
    assert!(
        listed
            .iter()
            .any(|l| l.ends_with("  messages:send  notifier")),
        "the list shows its one scope: {list}"
    );
    assert!(
        listed
            .iter()
            .any(|l| l.ends_with("  messages:send,messages:read,events:read  ci-bot")),
        "and the default connection's three: {list}"
    );
    let send_only = |args: &[&str]| {
        let mut cmd = herald(s.home.path());
        cmd.env("HERALD_URL", &s.relay.url)
            .env("HERALD_TOKEN", &token)
            .args(args);
        run(&mut cmd)
    };
    let sent = send_only(&["send", "--title", "Build finished"]);
    assert_eq!(sent.status.code(), Some(0), "it may send: {sent:?}");
    wait_for_title(&s, "Build finished");
    let asked = send_only(&["ask", "--title", "Deploy?", "--action", "approve:Approve"]);
    let stderr = String::from_utf8_lossy(&asked.stderr);
    assert_ne!(
        asked.status.code(),
        Some(0),
        "it cannot wait for an answer: {stderr}"
    );
    assert!(
        stderr.contains("messages:read"),
        "the refusal names the missing scope: {stderr}"
    );
    let unknown = run(herald(s.home.path()).args([
        "connection",
        "create",
        "--name",
        "x",
        "--scope",
        "messages:write",
    ]));
    assert_eq!(
        unknown.status.code(),
        Some(1),
        "an unknown scope is a usage error"
    );
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("messages:read"),
        "which lists the scopes there are: {unknown:?}"
    );
}
