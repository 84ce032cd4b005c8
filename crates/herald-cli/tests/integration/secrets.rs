//! Secrets through the `herald` binary (docs/secrets.md), against a real relay: `ask --out`
//! writes secret values to a new 0600 file and prints only the marker; an existing `--out`
//! is refused before anything is sent; the headless device reads secret values from files;
//! `send --secret-file` delivers a secret offer. No secret ever reaches stdout or stderr.

use crate::common;

use std::process::Stdio;

use common::*;

const SECRET: &str = "ghp_0123456789abcdefSECRETabcdef0123456789";

fn no_secret(out: &std::process::Output, why: &str) {
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !String::from_utf8_lossy(bytes).contains(SECRET),
            "{why}: the secret is not on {name}"
        );
    }
}

#[test]
fn ask_writes_secret_values_to_a_new_0600_file_only() {
    let s = setup();
    let out_path = s.home.path().join("token");
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "API token",
            "--field",
            "token!:secret:API token",
        ])
        .args(["--field", "note:text:Note", "--deadline", "10m", "--out"])
        .arg(&out_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask starts");
    let id = wait_for_title(&s, "API token")["id"]
        .as_str()
        .expect("id")
        .to_owned();

    let refused = run(herald(s.home.path())
        .args(["inbox", "answer", &id, "--json"])
        .arg(format!(r#"{{"token":"{SECRET}"}}"#)));
    assert_eq!(
        refused.status.code(),
        Some(1),
        "a secret as an argument is refused"
    );
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--secret token=FILE"),
        "and told how: {}",
        String::from_utf8_lossy(&refused.stderr)
    );

    let secret_file = s.home.path().join("typed-secret");
    std::fs::write(&secret_file, format!("{SECRET}\n")).unwrap();
    let answered = run(herald(s.home.path())
        .args([
            "inbox",
            "answer",
            &id,
            "--json",
            r#"{"note":"rotate monthly"}"#,
            "--secret",
        ])
        .arg(format!("token={}", secret_file.display())));
    assert!(
        answered.status.success(),
        "the device answers from a file: {}",
        String::from_utf8_lossy(&answered.stderr)
    );
    no_secret(&answered, "inbox answer");
    let shown = run(herald(s.home.path()).args(["inbox", "show", &id, "--json"]));
    no_secret(&shown, "inbox show after answering");

    let out = finish(child);
    no_secret(&out, "ask");
    assert_eq!(
        out.status.code(),
        Some(0),
        "answered; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON answer");
    assert_eq!(
        answer["values"]["token"],
        serde_json::json!({"secret": true}),
        "marker only"
    );
    assert_eq!(
        answer["values"]["note"], "rotate monthly",
        "ordinary values are printed"
    );
    assert_eq!(
        std::fs::read_to_string(&out_path).expect("--out written"),
        SECRET,
        "one secret field: its raw value, without the file's trailing newline"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "--out is owner-only");
    }
}

#[test]
fn an_existing_out_file_is_refused_before_sending() {
    let s = setup();
    let out_path = s.home.path().join("exists");
    std::fs::write(&out_path, "keep me").unwrap();
    let out = run(agent(&s)
        .args([
            "ask",
            "--title",
            "Token please",
            "--field",
            "token:secret",
            "--out",
        ])
        .arg(&out_path));
    assert_eq!(out.status.code(), Some(1), "refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already exists"),
        "says why: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&out_path).unwrap(),
        "keep me",
        "untouched"
    );
    assert!(inbox_list(&s).is_empty(), "nothing was sent");

    let missing =
        run(agent(&s).args(["ask", "--title", "Token please", "--field", "token:secret"]));
    assert_eq!(missing.status.code(), Some(1), "secret fields need --out");
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
}

#[test]
fn send_secret_file_delivers_a_secret_offer_once() {
    let s = setup();
    let file = s.home.path().join("password");
    std::fs::write(&file, SECRET).unwrap();
    let child = agent(&s)
        .args([
            "send",
            "--title",
            "Staging password",
            "--timeout",
            "60s",
            "--secret-file",
        ])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("send starts");
    let id = wait_for_title(&s, "Staging password")["id"]
        .as_str()
        .expect("id")
        .to_owned();

    // The person opens it on the headless device: `herald inbox reveal` writes it to a new
    // 0600 file and prints only the status.
    let revealed_path = s.home.path().join("revealed");
    let existing = s.home.path().join("taken");
    std::fs::write(&existing, "keep me").unwrap();
    let refused = run(herald(s.home.path())
        .args(["inbox", "reveal", &id, "--out"])
        .arg(&existing));
    assert_eq!(
        refused.status.code(),
        Some(1),
        "an existing --out is refused"
    );
    assert_eq!(
        std::fs::read_to_string(&existing).unwrap(),
        "keep me",
        "and left alone"
    );
    let revealed = run(herald(s.home.path())
        .args(["inbox", "reveal", &id, "--timeout", "60s", "--out"])
        .arg(&revealed_path));
    no_secret(&revealed, "inbox reveal");
    assert_eq!(
        revealed.status.code(),
        Some(0),
        "revealed; stderr: {}",
        String::from_utf8_lossy(&revealed.stderr)
    );
    let status: serde_json::Value = serde_json::from_slice(&revealed.stdout).expect("JSON");
    assert_eq!(status["status"], "revealed", "reports the reveal");
    assert_eq!(
        std::fs::read_to_string(&revealed_path).expect("--out written"),
        SECRET,
        "the file's content, byte for byte"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&revealed_path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "--out is owner-only");
    }
    let out = finish(child);
    no_secret(&out, "send --secret-file");
    assert_eq!(
        out.status.code(),
        Some(0),
        "delivered; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(printed["status"], "delivered", "reports delivery");

    let again_path = s.home.path().join("again");
    let again = run(herald(s.home.path())
        .args(["inbox", "reveal", &id, "--timeout", "5s", "--out"])
        .arg(&again_path));
    assert_eq!(again.status.code(), Some(1), "a secret is revealed once");
    assert!(!again_path.exists(), "and no empty file is left behind");

    let big = s.home.path().join("big");
    std::fs::write(&big, vec![b'a'; 64 * 1024 + 1]).unwrap();
    let refused = run(agent(&s)
        .args(["send", "--title", "Too big", "--secret-file"])
        .arg(&big));
    assert_eq!(refused.status.code(), Some(1), "over 64 KiB is refused");
    assert!(
        inbox_list(&s).iter().all(|m| m["title"] != "Too big"),
        "before anything is sent"
    );
}

#[test]
fn ask_receives_a_secret_file_in_a_new_0600_file() {
    let s = setup();
    let out_path = s.home.path().join("kubeconfig");
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Staging kubeconfig",
            "--field",
            "kubeconfig!:secret-file:Kubeconfig",
            "--out",
        ])
        .arg(&out_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask starts");
    let id = wait_for_title(&s, "Staging kubeconfig")["id"]
        .as_str()
        .expect("id")
        .to_owned();

    let source = s.home.path().join("source-kubeconfig");
    std::fs::write(&source, format!("token: {SECRET}\n")).unwrap();
    let answered = run(herald(s.home.path())
        .args(["inbox", "answer", &id, "--secret"])
        .arg(format!("kubeconfig={}", source.display())));
    assert!(
        answered.status.success(),
        "the device uploads the file for the secret-file field: {}",
        String::from_utf8_lossy(&answered.stderr)
    );
    no_secret(&answered, "inbox answer");
    let shown = run(herald(s.home.path()).args(["inbox", "show", &id, "--json"]));
    no_secret(&shown, "inbox show after answering");

    let out = finish(child);
    no_secret(&out, "ask");
    assert_eq!(
        out.status.code(),
        Some(0),
        "answered; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON answer");
    assert_eq!(
        answer["values"]["kubeconfig"],
        serde_json::json!({"secret": true}),
        "marker only"
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("AGE-SECRET-KEY"),
        "the file's key is not printed"
    );
    assert_eq!(
        std::fs::read(&out_path).expect("--out written"),
        std::fs::read(&source).unwrap(),
        "the file, byte for byte"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "--out is owner-only");
    }
}

#[test]
fn a_secret_file_field_must_be_the_only_secret_field() {
    let s = setup();
    let out = run(agent(&s)
        .args([
            "ask",
            "--title",
            "Both",
            "--field",
            "kubeconfig:secret-file",
        ])
        .args(["--field", "token:secret", "--out"])
        .arg(s.home.path().join("out")));
    assert_eq!(out.status.code(), Some(1), "refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only secret field"),
        "says why: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
}
