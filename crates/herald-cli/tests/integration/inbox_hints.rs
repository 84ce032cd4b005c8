//! The headless inbox tells a person at a terminal how to answer, against a real relay:
//! `inbox show` names the flags each field needs and the field types as `--field` spells
//! them; secret offers are shown as such with how to reveal them; `inbox answer` refuses
//! what it cannot do with the reason; `save-attachment` names the path it was given; image
//! blocks are judged by their content.

use crate::common;

use common::*;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Sends a request whose `ask` stops waiting at once (exit 3), returning its id.
fn request(s: &Setup, args: &[&str], out: &[(&str, &std::path::Path)]) -> String {
    let mut cmd = agent(s);
    cmd.arg("ask").args(args).args(["--timeout", "1s"]);
    for (flag, path) in out {
        cmd.arg(flag).arg(path);
    }
    let done = run(&mut cmd);
    assert_eq!(done.status.code(), Some(3), "{}", stderr(&done));
    serde_json::from_slice::<serde_json::Value>(&done.stdout).unwrap()["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

#[test]
fn show_names_the_flags_and_types_of_each_field() {
    let s = setup();
    let work = tempfile::tempdir().unwrap();
    let id = request(
        &s,
        &[
            "--title",
            "Everything",
            "--field",
            "token:secret",
            "--field",
            "logs:file",
            "--field",
            "when:date-time",
        ],
        &[
            ("--out", &work.path().join("t")),
            ("--out-dir", work.path()),
        ],
    );
    let kc = request(
        &s,
        &["--title", "Kubeconfig", "--field", "kc:secret-file"],
        &[("--out", &work.path().join("k"))],
    );
    let shown = ok_stdout(herald(s.home.path()).args(["inbox", "show", &id]));
    assert!(
        shown.contains(&format!(
            "herald inbox answer {id} --json '{{\"field\": value}}' --secret token=PATH --file logs=PATH"
        )),
        "the form names every flag it needs: {shown}"
    );
    assert!(shown.contains("(secret"), "{shown}");
    assert!(shown.contains("(file"), "{shown}");
    assert!(
        shown.contains("(date-time"),
        "types as --field spells them: {shown}"
    );
    assert!(!shown.contains("DateTime"), "{shown}");
    let shown = ok_stdout(herald(s.home.path()).args(["inbox", "show", &kc]));
    assert!(shown.contains("(secret-file"), "{shown}");
    assert!(!shown.contains("SecretFile"), "{shown}");
    assert!(
        shown.contains(&format!("herald inbox answer {kc} --secret kc=PATH")),
        "{shown}"
    );
    assert!(
        !shown.contains("--json"),
        "nothing to give as JSON: {shown}"
    );

    // `-` is for secret text; a secret-file field needs a path, and says so.
    let dash = run(herald(s.home.path()).args(["inbox", "answer", &kc, "--secret", "kc=-"]));
    assert_eq!(dash.status.code(), Some(1));
    assert!(stderr(&dash).contains("give the path"), "{}", stderr(&dash));
    let twice = run(herald(s.home.path()).args([
        "inbox", "answer", &kc, "--secret", "kc=./a", "--secret", "kc=./b",
    ]));
    assert_eq!(twice.status.code(), Some(1));
    assert!(
        stderr(&twice).contains("--secret kc=…: field \"kc\" is given twice")
            && !stderr(&twice).contains("--file"),
        "{}",
        stderr(&twice)
    );
    let files = run(herald(s.home.path()).args([
        "inbox", "answer", &id, "--file", "logs=./a", "--file", "logs=./b",
    ]));
    assert_eq!(files.status.code(), Some(1));
    assert!(
        stderr(&files).contains("--file logs=…: field \"logs\" is given twice"),
        "the message docs/cli.md quotes: {}",
        stderr(&files)
    );
}

#[test]
fn secret_offers_are_shown_with_how_to_reveal_them_and_messages_are_not_answered() {
    let s = setup();
    let secret = s.home.path().join("pw");
    std::fs::write(&secret, "hunter2-but-longer").unwrap();
    let offer = run(agent(&s)
        .args([
            "send",
            "--title",
            "Staging password",
            "--timeout",
            "1s",
            "--secret-file",
        ])
        .arg(&secret));
    assert_eq!(offer.status.code(), Some(3), "{}", stderr(&offer));
    let offer_id = serde_json::from_slice::<serde_json::Value>(&offer.stdout).unwrap()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let listed = run(herald(s.home.path()).args(["inbox", "list"]));
    assert!(listed.status.success());
    let row = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .find(|l| l.starts_with(&offer_id))
        .expect("the offer is listed")
        .to_owned();
    assert!(
        row.contains("  secret  "),
        "listed as a secret offer: {row}"
    );
    assert!(
        stderr(&listed).contains("herald inbox reveal MSG --out PATH"),
        "{}",
        stderr(&listed)
    );
    let shown = ok_stdout(herald(s.home.path()).args(["inbox", "show", &offer_id]));
    assert!(
        shown.contains(&format!("herald inbox reveal {offer_id} --out PATH")),
        "{shown}"
    );
    let answer = run(herald(s.home.path()).args(["inbox", "answer", &offer_id, "--action", "ok"]));
    assert_eq!(answer.status.code(), Some(1));
    assert!(
        stderr(&answer).contains("inbox reveal"),
        "{}",
        stderr(&answer)
    );

    let sent: serde_json::Value =
        serde_json::from_str(&ok_stdout(agent(&s).args(["send", "--title", "FYI"]))).unwrap();
    let msg = sent["id"].as_str().unwrap();
    wait_for_title(&s, "FYI");
    let answer = run(herald(s.home.path()).args(["inbox", "answer", msg, "--action", "ok"]));
    assert_eq!(answer.status.code(), Some(1));
    assert!(
        stderr(&answer).contains("is not a request"),
        "{}",
        stderr(&answer)
    );
}

#[test]
fn save_attachment_names_the_given_path_and_image_blocks_are_sniffed() {
    let s = setup();
    let work = tempfile::tempdir().unwrap();
    let notes = work.path().join("notes.txt");
    std::fs::write(&notes, "remember the milk").unwrap();
    let fake = work.path().join("fake.png");
    std::fs::write(&fake, "just text, not a picture").unwrap();
    let refused = run(agent(&s)
        .args(["send", "--title", "Fake image", "--block"])
        .arg(format!("image:{}", fake.display())));
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("not a PNG, JPEG, GIF or WebP image"),
        "{}",
        stderr(&refused)
    );
    // A real PNG under another extension is sent as what it is.
    let png = work.path().join("chart.jpg");
    std::fs::write(&png, herald_client::demo::DEMO_IMAGE).unwrap();
    let sent: serde_json::Value = serde_json::from_str(&ok_stdout(
        agent(&s)
            .args(["send", "--title", "Notes", "--file"])
            .arg(&notes)
            .arg("--block")
            .arg(format!("image:{}", png.display())),
    ))
    .unwrap();
    let id = sent["id"].as_str().unwrap().to_owned();
    assert!(
        inbox_list(&s).iter().all(|m| m["title"] != "Fake image"),
        "the fake image was refused before sending"
    );
    wait_for_title(&s, "Notes");
    let view: serde_json::Value = serde_json::from_str(&ok_stdout(
        herald(s.home.path()).args(["inbox", "show", &id, "--json"]),
    ))
    .unwrap();
    let attachments = view["attachments"].as_array().unwrap();
    let image = attachments
        .iter()
        .find(|a| a["name"] == "chart.jpg")
        .expect("the image");
    assert_eq!(image["mimeType"], "image/png", "typed by content");
    let file = attachments
        .iter()
        .find(|a| a["name"] == "notes.txt")
        .and_then(|a| a["id"].as_str())
        .expect("the notes")
        .to_owned();

    let missing = work.path().join("missing").join("dir").join("x.txt");
    let out = run(herald(s.home.path())
        .args(["inbox", "save-attachment", &id, &file, "--out"])
        .arg(&missing));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "the directory {} does not exist",
            work.path().join("missing").join("dir").display()
        )) && !stderr(&out).contains(".herald-download"),
        "{}",
        stderr(&out)
    );
    let dir = work.path().join("somedir");
    std::fs::create_dir(&dir).unwrap();
    let out = run(herald(s.home.path())
        .args(["inbox", "save-attachment", &id, &file, "--out"])
        .arg(format!("{}/", dir.display())));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    let saved = work.path().join("saved.txt");
    let out = run(herald(s.home.path())
        .args(["inbox", "save-attachment", &id, &file, "--out"])
        .arg(&saved));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        "remember the milk"
    );
}
