//! `herald device unlock | pair | approve | list | revoke | reset` against a real relay: the
//! binary reads secrets (recovery key, pairing code) from standard input, never arguments.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};

use common::*;

/// Runs `cmd` with `input` on standard input.
fn with_stdin(cmd: &mut std::process::Command, input: &str) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("herald starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("stdin written");
    child.wait_with_output().expect("herald finishes")
}

/// Starts `herald device pair` in `home` and reads the code it prints.
fn pair(
    relay: &str,
    home: &std::path::Path,
    name: &str,
) -> (Child, String, BufReader<std::process::ChildStdout>) {
    let mut child = herald(home)
        .args(["device", "pair", "--relay", relay, "--name", name])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pair starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("pair prints a line");
    let code = first
        .strip_prefix("Pairing code: ")
        .unwrap_or_else(|| panic!("the first line shows the code: {first:?}"))
        .trim()
        .to_owned();
    (child, code, stdout)
}

fn safety_code(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("Safety code:"))
        .unwrap_or_else(|| panic!("a safety code line in {text:?}"))
        .trim()
        .to_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn pair_approve_list_and_revoke_from_terminals() {
    let s = setup();
    let url = s.relay.url.clone();
    ok_stdout(agent(&s).args(["send", "--title", "Hello devices"]));
    let desk_code = safety_code(&ok_stdout(herald(s.home.path()).args(["whoami"])));

    let laptop = tempfile::tempdir().unwrap();
    let (child, code, mut rest) = pair(&url, laptop.path(), "laptop-b");
    assert_eq!(code.len(), 9, "8 digits in two groups: {code:?}");
    let approved = with_stdin(
        herald(s.home.path()).args(["device", "approve"]),
        &format!("{code}\n"),
    );
    assert!(
        approved.status.success(),
        "approve succeeds: {}",
        stderr(&approved)
    );
    assert!(
        String::from_utf8_lossy(&approved.stdout).contains("Approved: laptop-b"),
        "approve names the device"
    );
    let mut tail = String::new();
    std::io::Read::read_to_string(&mut rest, &mut tail).unwrap();
    let out = finish(child);
    assert!(out.status.success(), "pair exits 0: {}", stderr(&out));
    assert_eq!(
        safety_code(&tail),
        desk_code,
        "the same safety code on the new device"
    );
    let listed: Vec<serde_json::Value> = serde_json::from_str(&ok_stdout(
        herald(laptop.path()).args(["inbox", "list", "--json"]),
    ))
    .unwrap();
    assert!(
        listed.iter().any(|m| m["title"] == "Hello devices"),
        "the paired device reads the history: {listed:?}"
    );
    assert_eq!(
        safety_code(&ok_stdout(herald(laptop.path()).args(["whoami"]))),
        desk_code,
        "whoami shows the same safety code"
    );

    let table = ok_stdout(herald(s.home.path()).args(["device", "list"]));
    assert_eq!(table.lines().count(), 2, "two devices: {table}");
    assert!(
        table.contains("laptop-b") && table.contains("this device"),
        "{table}"
    );
    let devices: Vec<serde_json::Value> = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["device", "list", "--json"]),
    ))
    .unwrap();
    let laptop_id = devices
        .iter()
        .find(|d| d["name"] == "laptop-b")
        .and_then(|d| d["id"].as_str())
        .expect("the laptop's id")
        .to_owned();

    // A wrong code fails on both terminals.
    let other = tempfile::tempdir().unwrap();
    let (child, code, _rest) = pair(&url, other.path(), "intruder");
    let wrong = format!(
        "{}{}",
        if code.starts_with('9') { '8' } else { '9' },
        &code[1..]
    );
    let refused = with_stdin(
        herald(s.home.path()).args(["device", "approve"]),
        &format!("{wrong}\n"),
    );
    assert_eq!(refused.status.code(), Some(1), "approve fails");
    assert!(
        stderr(&refused).contains("did not match"),
        "and says why: {}",
        stderr(&refused)
    );
    let out = finish(child);
    assert_eq!(out.status.code(), Some(1), "pair fails too");
    assert!(
        stderr(&out).contains("did not match"),
        "on the new device's terminal: {}",
        stderr(&out)
    );

    ok_stdout(herald(s.home.path()).args(["device", "revoke", &laptop_id]));
    let gone = run(herald(laptop.path()).args(["inbox", "list"]));
    assert_eq!(gone.status.code(), Some(1), "the revoked device is refused");
    assert!(stderr(&gone).contains("unauthorized"), "{}", stderr(&gone));
    ok_stdout(agent(&s).args(["send", "--title", "After revocation"]));
    let titles: Vec<serde_json::Value> = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["inbox", "list", "--json"]),
    ))
    .unwrap();
    assert!(
        titles
            .iter()
            .any(|m| m["title"] == "After revocation" && m["error"].is_null()),
        "the remaining device reads what comes after the rotation"
    );
}

#[test]
fn unlock_reads_the_recovery_key_from_stdin_and_reset_needs_yes() {
    let relay = ThreadedRelay::start();
    let desk = tempfile::tempdir().unwrap();
    let init = ok_stdout(
        herald(desk.path()).args(["device", "init", "--relay", &relay.url, "--name", "desk"]),
    );
    let recovery = init
        .lines()
        .find_map(|l| l.strip_prefix("Recovery key:"))
        .expect("init prints the recovery key")
        .trim()
        .to_owned();

    let phone = tempfile::tempdir().unwrap();
    let bad = with_stdin(
        herald(phone.path()).args(["device", "unlock", "--relay", &relay.url, "--name", "phone"]),
        "0000-0000-0000-0000-0000-0000-0000\n",
    );
    assert_eq!(bad.status.code(), Some(1), "a wrong key is refused");
    let out = with_stdin(
        herald(phone.path()).args(["device", "unlock", "--relay", &relay.url, "--name", "phone"]),
        &format!("{recovery}\n"),
    );
    assert!(out.status.success(), "unlock succeeds: {}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        safety_code(&printed),
        safety_code(&init),
        "the same safety code"
    );
    assert!(
        !printed.contains(&recovery) && !stderr(&out).contains(&recovery),
        "the key is never echoed"
    );

    let refused = run(herald(desk.path()).args(["device", "reset"]));
    assert_eq!(
        refused.status.code(),
        Some(1),
        "reset without --yes does nothing"
    );
    let reset = ok_stdout(herald(desk.path()).args(["device", "reset", "--yes"]));
    assert!(
        reset.contains("Recovery key:"),
        "the new recovery key is shown once"
    );
    assert_ne!(
        safety_code(&reset),
        safety_code(&init),
        "new keys, new safety code"
    );
    let signed_out = run(herald(phone.path()).args(["inbox", "list"]));
    assert_eq!(
        signed_out.status.code(),
        Some(1),
        "the other device must unlock again"
    );
}
