//! File fields on the command line against a real relay: `herald ask --field ID:file
//! --out-dir DIR` waits in the background, a headless device answers with `herald inbox
//! answer --file FIELD=PATH`, and the file lands in DIR (0600, same bytes); `herald wait
//! --out-dir` fetches it again; bad flags and missing files are refused before anything moves.

use crate::common;

use std::process::Stdio;

use common::*;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn ask_with_a_file_field_receives_the_file_in_out_dir() {
    let s = setup();
    let work = tempfile::tempdir().expect("work dir");
    let out_dir = work.path().join("answers");
    std::fs::create_dir(&out_dir).unwrap();
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Upload the logs",
            "--field",
            "logs!:file:Logs",
            "--field",
            "note:text:Note",
            "--out-dir",
        ])
        .arg(&out_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask starts");
    let id = wait_for_title(&s, "Upload the logs")["id"]
        .as_str()
        .expect("id")
        .to_owned();

    // A missing file is refused by the device, naming the path; nothing is answered.
    let missing = work.path().join("no-such.log");
    let refused = run(herald(s.home.path())
        .args(["inbox", "answer", &id, "--file"])
        .arg(format!("logs={}", missing.display())));
    assert_eq!(refused.status.code(), Some(1), "missing file refused");
    assert!(
        stderr(&refused).contains("no file at"),
        "says why: {}",
        stderr(&refused)
    );

    let logs: Vec<u8> = (0..120_000u32).map(|i| (i % 199) as u8).collect();
    let logs_path = work.path().join("server.log");
    std::fs::write(&logs_path, &logs).unwrap();
    let answered = run(herald(s.home.path())
        .args([
            "inbox",
            "answer",
            &id,
            "--json",
            r#"{"note":"last hour"}"#,
            "--file",
        ])
        .arg(format!("logs={}", logs_path.display())));
    assert!(
        answered.status.success(),
        "the device answers with a file: {}",
        stderr(&answered)
    );

    let out = finish(child);
    assert_eq!(out.status.code(), Some(0), "answered: {}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON answer");
    let file = &answer["files"][0];
    assert_eq!(file["fieldId"], "logs");
    assert_eq!(file["name"], "server.log");
    assert_eq!(file["size"], logs.len() as u64);
    assert_eq!(
        answer["values"]["logs"]["attachmentId"],
        file["attachmentId"]
    );
    assert_eq!(answer["values"]["note"], "last hour");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("AGE-SECRET-KEY"),
        "the file key is never printed"
    );
    let saved = std::path::PathBuf::from(file["path"].as_str().expect("path"));
    assert_eq!(saved, out_dir.join("server.log"));
    assert_eq!(std::fs::read(&saved).unwrap(), logs, "same bytes");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "owner-only");
    }

    // `herald wait` fetches the answer again; it needs --out-dir for the file field.
    let no_dir = run(agent(&s).args(["wait", &id]));
    assert_eq!(no_dir.status.code(), Some(1), "file fields need --out-dir");
    assert!(stderr(&no_dir).contains("--out-dir"), "{}", stderr(&no_dir));
    let again = ok_stdout(agent(&s).args(["wait", &id, "--out-dir"]).arg(&out_dir));
    let again: serde_json::Value = serde_json::from_str(&again).expect("JSON");
    let second = again["files"][0]["path"].as_str().expect("path");
    assert_eq!(
        std::path::Path::new(second),
        out_dir.join("server (2).log"),
        "never over the first copy"
    );
    assert_eq!(std::fs::read(second).unwrap(), logs);
}

#[test]
fn out_dir_is_checked_before_sending() {
    let s = setup();
    let work = tempfile::tempdir().expect("work dir");
    let no_dir = run(agent(&s).args(["ask", "--title", "A", "--field", "f:file"]));
    assert_eq!(no_dir.status.code(), Some(1));
    assert!(stderr(&no_dir).contains("--out-dir"), "{}", stderr(&no_dir));
    let missing = run(agent(&s)
        .args(["ask", "--title", "B", "--field", "f:file", "--out-dir"])
        .arg(work.path().join("nope")));
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("not an existing directory"),
        "{}",
        stderr(&missing)
    );
    let needless = run(agent(&s)
        .args(["ask", "--title", "C", "--field", "t:text", "--out-dir"])
        .arg(work.path()));
    assert_eq!(needless.status.code(), Some(1));
    assert!(
        stderr(&needless).contains("has none"),
        "{}",
        stderr(&needless)
    );
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
}
