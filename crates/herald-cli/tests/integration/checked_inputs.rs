//! Defects a break-it pass found after issue 15 landed: one-line labels under the title rule,
//! relay URLs checked up front, data-dir errors naming the path, JSON arrays refused where an
//! object is expected, and local files checked before the first upload. The real `herald`
//! binary against a real relay on 127.0.0.1:0.

use crate::common;

use common::*;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd`, which must fail with exit 1; returns its stderr.
fn fails(cmd: &mut std::process::Command) -> String {
    let out = run(cmd);
    assert_eq!(
        out.status.code(),
        Some(1),
        "refused with exit 1: stdout {} stderr {}",
        String::from_utf8_lossy(&out.stdout),
        stderr_of(&out)
    );
    stderr_of(&out)
}

#[test]
fn headers_and_option_labels_follow_the_title_rule() {
    let s = setup();
    let err = fails(agent(&s).args(["ask", "--title", "T", "--question", "H\u{202e}|Q?|a,b"]));
    assert!(err.contains("questions[0].header"), "{err}");
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("form.json");
    std::fs::write(
        &file,
        r#"{"title":"T","fields":[{"id":"a","type":"choice","label":"A","header":"a\nb\u200b\u0000","options":[{"value":"x","label":"X"}]}]}"#,
    )
    .expect("form");
    let err = fails(agent(&s).args(["ask", "--json", &file.display().to_string()]));
    assert!(err.contains("fields[0].header"), "{err}");
    assert!(inbox_list(&s).is_empty(), "nothing reached the inbox");
}

/// A server that is not a Herald relay: answers every request `404` with an HTML page.
fn not_herald_server() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 8192];
            let _ = stream.read(&mut buf);
            let page = "<html>Not Found</html>";
            let _ = write!(
                stream,
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    url
}

#[test]
fn relay_urls_are_checked_up_front_naming_the_value() {
    let s = setup();
    for bad in [
        "http://127.0.0.1:18457 ",
        "127.0.0.1:18457",
        "ftp://127.0.0.1",
    ] {
        let err = fails(agent(&s).args(["send", "--title", "T", "--relay", bad]));
        assert!(
            err.contains(&format!("{bad:?}")),
            "the value is named: {err}"
        );
        assert!(err.contains("http:// or https://"), "{err}");
        assert!(!err.contains("builder error"), "{err}");
        assert!(!err.contains("relative URL"), "{err}");
        let err = fails(
            agent(&s)
                .env("HERALD_URL", bad)
                .args(["send", "--title", "T"]),
        );
        assert!(err.contains(&format!("{bad:?}")), "HERALD_URL too: {err}");
        let home = tempfile::tempdir().expect("home");
        let dir = home.path().join("new-device");
        let err = fails(herald(home.path()).args([
            "device",
            "init",
            "--relay",
            bad,
            "--name",
            "box",
            "--data-dir",
            &dir.display().to_string(),
        ]));
        assert!(err.contains(&format!("{bad:?}")), "device init: {err}");
        assert!(!dir.exists(), "nothing was created: {err}");
    }
    let other = not_herald_server();
    let err = fails(agent(&s).args(["send", "--title", "T", "--relay", &other]));
    assert!(err.contains(&other), "the URL is named: {err}");
    assert!(err.contains("does not look like a Herald relay"), "{err}");
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn data_dir_errors_name_the_path_and_failed_setups_leave_it_as_it_was() {
    let s = setup();
    let work = tempfile::tempdir().expect("dir");
    let init = |dir: &std::path::Path, relay: &str| {
        let mut cmd = herald(work.path());
        cmd.args([
            "device",
            "init",
            "--relay",
            relay,
            "--name",
            "box",
            "--data-dir",
        ])
        .arg(dir);
        cmd
    };
    // A data dir that already holds a device.
    let dev = work.path().join("dev");
    ok_stdout(&mut init(&dev, &s.relay.url));
    let err = fails(&mut init(&dev, &s.relay.url));
    assert!(err.contains(&dev.display().to_string()), "{err}");
    assert!(err.contains("--data-dir"), "says what to do: {err}");
    // A file where the dir should be.
    let file = work.path().join("afile");
    std::fs::write(&file, "x").expect("file");
    let err = fails(&mut init(&file, &s.relay.url));
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(err.contains("not a directory"), "{err}");
    assert!(!err.contains("os error 17"), "{err}");
    // A device whose local.key is gone: named, and no new key is written.
    std::fs::remove_file(dev.join("local.key")).expect("remove key");
    let before = names(&dev);
    let err = fails(
        herald(work.path())
            .args(["inbox", "list", "--data-dir"])
            .arg(&dev),
    );
    assert!(
        err.contains(&dev.join("local.key").display().to_string()),
        "{err}"
    );
    assert!(err.contains("unlock"), "says what to do: {err}");
    assert_eq!(names(&dev), before, "nothing was written: {err}");
    // A failed init (refused relay, unreachable relay) leaves a new dir absent and an
    // existing empty dir empty.
    let refused = not_herald_server();
    for relay in [refused.as_str(), "http://127.0.0.1:9"] {
        let fresh = work.path().join("fresh");
        fails(&mut init(&fresh, relay));
        assert!(!fresh.exists(), "{relay}: the new dir was removed");
        let empty = work.path().join("empty");
        std::fs::create_dir_all(&empty).expect("empty dir");
        fails(&mut init(&empty, relay));
        assert!(names(&empty).is_empty(), "{relay}: {:?}", names(&empty));
    }
    ok_stdout(herald(s.home.path()).arg("whoami"));
}

/// Encrypted files the relay holds (`<data dir>/files`).
fn uploads(s: &Setup) -> usize {
    std::fs::read_dir(s.relay.dir.path().join("files"))
        .map(|dir| dir.count())
        .unwrap_or(0)
}

#[test]
fn every_local_file_is_checked_before_the_first_upload() {
    let s = setup();
    let dir = tempfile::tempdir().expect("dir");
    let good = dir.path().join("notes.txt");
    std::fs::write(&good, "notes").expect("file");
    let big = dir.path().join("big.bin");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(100 * 1024 * 1024 + 1))
        .expect("sparse file");
    let missing = dir.path().join("nonexist");
    let sub = dir.path().join("subdir");
    std::fs::create_dir(&sub).expect("subdir");
    let image = dir.path().join("chart.png");
    std::fs::write(&image, herald_client::demo::DEMO_IMAGE).expect("image");
    let show = |p: &std::path::Path| p.display().to_string();
    for (bad, why) in [
        (&missing, "no file at"),
        (&sub, "not a regular file"),
        (&big, "at most 100 MB"),
    ] {
        for command in ["send", "ask"] {
            let mut cmd = agent(&s);
            cmd.args([command, "--title", "T", "--file", &show(&good)]);
            cmd.args(["--block", &format!("image:{}", show(&image))]);
            cmd.args(["--file", &show(bad)]);
            if command == "ask" {
                cmd.args(["--action", "ok:OK", "--timeout", "1s"]);
            }
            let err = fails(&mut cmd);
            assert!(
                err.contains(&show(bad)),
                "{command}: the path is named: {err}"
            );
            assert!(err.contains(why), "{command}: {err}");
        }
        let err = fails(agent(&s).args([
            "send",
            "--title",
            "T",
            "--file",
            &show(&good),
            "--block",
            &format!("image:{}", show(bad)),
        ]));
        assert!(err.contains(&show(bad)), "--block image: {err}");
    }
    assert_eq!(uploads(&s), 0, "nothing reached the relay's files dir");
    assert!(inbox_list(&s).is_empty(), "nothing reached the inbox");
}

#[test]
fn json_arrays_are_refused_where_an_object_is_expected() {
    let s = setup();
    let dir = tempfile::tempdir().expect("dir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("json");
        p.display().to_string()
    };
    let arr = write("arr.json", r#"["arr title","body text"]"#);
    let err = fails(agent(&s).args(["send", "--json", &arr]));
    assert!(
        err.contains("expected an object") && err.contains("found an array"),
        "{err}"
    );
    let q = write(
        "q.json",
        r#"{"title":"t","questions":[["Q?","H",[{"label":"a"}]]]}"#,
    );
    let err = fails(agent(&s).args(["ask", "--json", &q]));
    assert!(
        err.contains("questions[0]: expected an object, found an array"),
        "{err}"
    );
    let typed = write(
        "t.json",
        r#"{"title":"t","fields":[{"id":"a","type":"text","label":"A","maxLength":-1}]}"#,
    );
    let err = fails(agent(&s).args(["ask", "--json", &typed]));
    assert!(err.contains("fields[0].maxLength: expected"), "{err}");
    assert!(inbox_list(&s).is_empty(), "nothing reached the inbox");
}
