//! `herald send --file` / `herald ask --file` and `herald inbox show` / `save-attachment`
//! against a real relay: files go up encrypted, the headless device lists them and saves them
//! owner-only, never over an existing file.

use crate::common;

use common::*;

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test file");
    path
}

#[test]
fn send_with_files_then_show_and_save_them() {
    let s = setup();
    let work = tempfile::tempdir().expect("work dir");
    let report: Vec<u8> = (0..150_000u32).map(|i| (i % 253) as u8).collect();
    let report_path = write(work.path(), "report.pdf", &report);
    let notes_path = write(work.path(), "notes.txt", b"remember the milk\n");
    let chart = write(work.path(), "chart.png", herald_client::demo::DEMO_IMAGE);
    let out = ok_stdout(agent(&s).args([
        "send",
        "--title",
        "Weekly report",
        "--file",
        report_path.to_str().unwrap(),
        "--file",
        notes_path.to_str().unwrap(),
        "--block",
        &format!("image:{}:Sales chart", chart.display()),
    ]));
    let record: serde_json::Value = serde_json::from_str(&out).expect("send prints JSON");
    let id = record["id"].as_str().expect("id").to_owned();

    wait_for_title(&s, "Weekly report");
    let shown = ok_stdout(herald(s.home.path()).args(["inbox", "show", &id]));
    assert!(
        shown.contains("Attachments"),
        "show lists attachments: {shown}"
    );
    assert!(
        shown.contains("report.pdf") && shown.contains("application/pdf"),
        "name and type: {shown}"
    );
    assert!(shown.contains("150000 bytes"), "size: {shown}");
    let view: serde_json::Value = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["inbox", "show", &id, "--json"]),
    ))
    .expect("show --json");
    let attachments = view["attachments"].as_array().expect("attachments");
    assert_eq!(attachments.len(), 3, "both files and the image");
    let image = &attachments[0];
    assert_eq!(
        image["mimeType"], "image/png",
        "the image block's file comes first"
    );
    assert_eq!(view["blocks"][0]["kind"], "image", "an image block");
    assert_eq!(
        view["blocks"][0]["attachmentId"], image["id"],
        "it names the uploaded image"
    );
    assert_eq!(
        view["blocks"][0]["text"], "[image: Sales chart]",
        "with its alt text"
    );
    let report_id = attachments[1]["id"].as_str().expect("id").to_owned();
    assert!(
        view.to_string().find("AGE-SECRET-KEY").is_none(),
        "the key never reaches the output"
    );

    let dest = work.path().join("saved.pdf");
    let out = run(herald(s.home.path()).args([
        "inbox",
        "save-attachment",
        &id,
        &report_id,
        "--out",
        dest.to_str().unwrap(),
    ]));
    assert!(
        out.status.success(),
        "saved: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&dest).unwrap() == report, "the same bytes");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "owner-only");
    }
    let again = run(herald(s.home.path()).args([
        "inbox",
        "save-attachment",
        &id,
        &report_id,
        "--out",
        dest.to_str().unwrap(),
    ]));
    assert_eq!(again.status.code(), Some(1), "refused: the file exists");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already exists"),
        "says why: {}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[test]
fn ask_with_a_file_and_file_limits() {
    let s = setup();
    let work = tempfile::tempdir().expect("work dir");
    let plan = write(work.path(), "plan.md", b"# Plan\n1. ship\n");
    let child = agent(&s)
        .args([
            "ask",
            "--title",
            "Approve the plan?",
            "--file",
            plan.to_str().unwrap(),
            "--action",
            "approve:Approve",
            "--timeout",
            "30s",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ask starts");
    let m = wait_for_title(&s, "Approve the plan?");
    let id = m["id"].as_str().expect("id").to_owned();
    let view: serde_json::Value = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["inbox", "show", &id, "--json"]),
    ))
    .expect("show --json");
    assert_eq!(
        view["attachments"][0]["name"], "plan.md",
        "the request carries the file"
    );
    ok_stdout(herald(s.home.path()).args(["inbox", "answer", &id, "--action", "approve"]));
    let out = child.wait_with_output().expect("ask finishes");
    assert!(
        out.status.success(),
        "answered: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let eleven: Vec<String> = (0..11)
        .flat_map(|_| ["--file".to_owned(), plan.to_str().unwrap().to_owned()])
        .collect();
    let out = run(agent(&s)
        .args(["send", "--title", "Too many"])
        .args(&eleven));
    assert_eq!(out.status.code(), Some(1), "eleven files are refused");
    let missing = run(agent(&s).args([
        "send",
        "--title",
        "Missing",
        "--file",
        work.path().join("nope.bin").to_str().unwrap(),
    ]));
    assert_eq!(missing.status.code(), Some(1), "a missing file is refused");
}
