//! Where secrets and answered files land, against a real relay: `--out` is reserved (created
//! new, 0600) before a one-time secret is collected, so a path taken meanwhile cannot burn
//! it; an unwritten `--out` is removed and the resume hint names it; concurrent `herald wait
//! --out-dir` never collide; `send --secret-file` refuses what it would drop, and a timed-out
//! offer resumes under the printed Idempotency-Key.

use crate::common;

use std::process::Stdio;

use common::*;

const SECRET: &str = "ghp_reserved0123456789SECRETabcdef";

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .expect("the path exists")
        .permissions()
        .mode()
        & 0o777
}

/// Asserts `path` exists as an empty 0600 file that nobody else can create any more.
fn reserved(path: &std::path::Path, why: &str) {
    let meta = std::fs::symlink_metadata(path)
        .unwrap_or_else(|_| panic!("{why}: --out is created before the secret is collected"));
    assert!(
        meta.is_file() && meta.len() == 0,
        "{why}: empty until written"
    );
    #[cfg(unix)]
    assert_eq!(mode(path), 0o600, "{why}: owner-only from the start");
    assert!(
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .is_err(),
        "{why}: another writer cannot take the path"
    );
}

#[test]
fn ask_and_wait_reserve_out_before_collecting_the_secret() {
    let s = setup();
    let out_path = s.home.path().join("token");
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Reserved token",
            "--field",
            "token:secret",
        ])
        .arg("--out")
        .arg(&out_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask starts");
    let id = wait_for_title(&s, "Reserved token")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    reserved(&out_path, "ask");

    // A resumed wait reserves its own --out too, and removes it when it stops unwritten.
    let other = s.home.path().join("other");
    let timed_out = run(agent(&s)
        .args(["wait", &id, "--timeout", "1s", "--out"])
        .arg(&other));
    assert_eq!(timed_out.status.code(), Some(3), "{}", stderr(&timed_out));
    assert!(!other.exists(), "an unwritten --out is removed again");
    assert!(
        stderr(&timed_out).contains(&format!(
            "Resume with: herald wait {id} --out {}",
            other.display()
        )),
        "the hint names --out: {}",
        stderr(&timed_out)
    );

    let value = s.home.path().join("typed");
    std::fs::write(&value, SECRET).unwrap();
    let answered = run(herald(s.home.path())
        .args(["inbox", "answer", &id, "--secret"])
        .arg(format!("token={}", value.display())));
    assert!(answered.status.success(), "{}", stderr(&answered));
    let out = finish(child);
    assert_eq!(out.status.code(), Some(0), "answered: {}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&out_path).unwrap(),
        SECRET,
        "written into the reserved file"
    );
    #[cfg(unix)]
    assert_eq!(mode(&out_path), 0o600);
}

#[test]
fn a_secret_file_answer_lands_in_the_reserved_out() {
    let s = setup();
    let out_path = s.home.path().join("kubeconfig");
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Reserved kubeconfig",
            "--field",
            "kc:secret-file",
        ])
        .arg("--out")
        .arg(&out_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask starts");
    let id = wait_for_title(&s, "Reserved kubeconfig")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    reserved(&out_path, "ask with a secret-file field");
    let source = s.home.path().join("source");
    let bytes: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&source, &bytes).unwrap();
    let answered = run(herald(s.home.path())
        .args(["inbox", "answer", &id, "--secret"])
        .arg(format!("kc={}", source.display())));
    assert!(answered.status.success(), "{}", stderr(&answered));
    let out = finish(child);
    assert_eq!(out.status.code(), Some(0), "answered: {}", stderr(&out));
    assert_eq!(std::fs::read(&out_path).unwrap(), bytes, "byte for byte");
}

#[test]
fn timeouts_remove_unwritten_outputs_and_hint_the_flags_to_resume() {
    let s = setup();
    let work = tempfile::tempdir().unwrap();
    let out_path = work.path().join("token");
    let out = run(agent(&s)
        .args([
            "ask",
            "--title",
            "Slow",
            "--field",
            "token:secret",
            "--timeout",
            "1s",
        ])
        .arg("--out")
        .arg(&out_path));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!out_path.exists(), "nothing written, nothing left behind");
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(printed["timedOut"], true);
    assert!(
        stderr(&out).contains(&format!("--out {}", out_path.display())),
        "{}",
        stderr(&out)
    );

    let dir = work.path().join("answers dir");
    std::fs::create_dir(&dir).unwrap();
    let out = run(agent(&s)
        .args([
            "ask",
            "--title",
            "Files",
            "--field",
            "logs:file",
            "--timeout",
            "1s",
        ])
        .arg("--out-dir")
        .arg(&dir));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("--out-dir '{}'", dir.display())),
        "the hint names --out-dir, quoted for the shell: {}",
        stderr(&out)
    );
}

#[test]
fn concurrent_waits_into_one_out_dir_never_collide() {
    let s = setup();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("answers");
    std::fs::create_dir(&dir).unwrap();
    let first = run(agent(&s)
        .args([
            "ask",
            "--title",
            "Logs twice",
            "--field",
            "logs:file",
            "--timeout",
            "1s",
        ])
        .arg("--out-dir")
        .arg(&dir));
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));
    let id = serde_json::from_slice::<serde_json::Value>(&first.stdout).unwrap()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let logs: Vec<u8> = (0..3_000_000u32).map(|i| (i % 241) as u8).collect();
    let logs_path = work.path().join("server.log");
    std::fs::write(&logs_path, &logs).unwrap();
    let answered = run(herald(s.home.path())
        .args(["inbox", "answer", &id, "--file"])
        .arg(format!("logs={}", logs_path.display())));
    assert!(answered.status.success(), "{}", stderr(&answered));

    let waits: Vec<_> = (0..3)
        .map(|_| {
            agent(&s)
                .args(["wait", &id, "--out-dir"])
                .arg(&dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("wait starts")
        })
        .collect();
    let mut paths = Vec::new();
    for child in waits {
        let out = finish(child);
        assert_eq!(
            out.status.code(),
            Some(0),
            "every wait saves: {}",
            stderr(&out)
        );
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        paths.push(
            answer["files"][0]["path"]
                .as_str()
                .expect("path")
                .to_owned(),
        );
    }
    paths.sort();
    let mut want: Vec<String> = ["server.log", "server (2).log", "server (3).log"]
        .iter()
        .map(|n| dir.join(n).display().to_string())
        .collect();
    want.sort();
    assert_eq!(paths, want, "one name each");
    for p in &paths {
        assert_eq!(std::fs::read(p).unwrap(), logs, "{p}: same bytes");
    }
    let names = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(names, 3, "no temporary file is left behind");
}

#[test]
fn send_secret_file_refuses_files_and_empty_secrets() {
    let s = setup();
    let secret = s.home.path().join("pw");
    std::fs::write(&secret, SECRET).unwrap();
    let attachment = s.home.path().join("notes.txt");
    std::fs::write(&attachment, "notes").unwrap();
    let out = run(agent(&s)
        .args(["send", "--title", "With a file", "--secret-file"])
        .arg(&secret)
        .arg("--file")
        .arg(&attachment));
    assert_eq!(out.status.code(), Some(1), "refused, not dropped");
    assert!(stderr(&out).contains("--file"), "{}", stderr(&out));

    let empty = s.home.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    let out = run(agent(&s)
        .args(["send", "--title", "Empty", "--secret-file"])
        .arg(&empty));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is empty"), "{}", stderr(&out));
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
}

#[test]
fn a_timed_out_secret_offer_resumes_under_its_idempotency_key() {
    let s = setup();
    let secret = s.home.path().join("pw");
    std::fs::write(&secret, SECRET).unwrap();
    let first = run(agent(&s)
        .args([
            "send",
            "--title",
            "Resumable",
            "--timeout",
            "1s",
            "--secret-file",
        ])
        .arg(&secret));
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));
    let printed: serde_json::Value = serde_json::from_slice(&first.stdout).expect("JSON");
    assert_eq!(printed["status"], "notOpened");
    assert_eq!(printed["timedOut"], true);
    let id = printed["id"].as_str().expect("id").to_owned();
    let key = printed["idempotencyKey"].as_str().expect("key").to_owned();
    assert!(
        stderr(&first).contains(&format!("--idempotency-key {key}")),
        "the hint gives the key: {}",
        stderr(&first)
    );

    let wait = run(agent(&s).args(["wait", &id]));
    assert_eq!(wait.status.code(), Some(1));
    assert!(
        stderr(&wait).contains("secret offer") && stderr(&wait).contains("--idempotency-key"),
        "wait points to the resume: {}",
        stderr(&wait)
    );

    let child = agent(&s)
        .args([
            "send",
            "--title",
            "Resumable",
            "--timeout",
            "60s",
            "--idempotency-key",
            &key,
        ])
        .arg("--secret-file")
        .arg(&secret)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("resume starts");
    let revealed_path = s.home.path().join("revealed");
    let revealed = run(herald(s.home.path())
        .args(["inbox", "reveal", &id, "--timeout", "60s", "--out"])
        .arg(&revealed_path));
    assert_eq!(revealed.status.code(), Some(0), "{}", stderr(&revealed));
    let text = String::from_utf8_lossy(&revealed.stdout).into_owned();
    assert!(
        text.starts_with("{\n  \""),
        "pretty-printed like the others: {text:?}"
    );
    let out = finish(child);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(printed["id"], id.as_str(), "the same offer");
    assert_eq!(printed["status"], "delivered");
    assert_eq!(std::fs::read_to_string(&revealed_path).unwrap(), SECRET);
    assert_eq!(
        inbox_list(&s)
            .iter()
            .filter(|m| m["title"] == "Resumable")
            .count(),
        1,
        "one offer, not two"
    );
}
