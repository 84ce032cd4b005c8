//! Small edges of the real `herald` binary against a real relay (issue 15, items 9 and 11):
//! errors that name the thing, the path or the URL and say what to do; read-only commands
//! that leave an empty data dir empty; owner-only device files; quiet-hours times changed
//! while they are off; a second revocation reported as such; help without repetitions.

use crate::common;

use std::path::Path;
use std::process::{Output, Stdio};

use common::*;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts exit 1 and that stderr holds every one of `words`.
fn fails_with(out: &Output, words: &[&str], why: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{why}: exit 1: {err}");
    assert!(!err.contains("panicked"), "{why}: no panic: {err}");
    for word in words {
        assert!(err.contains(word), "{why}: names {word:?}: {err}");
    }
    err
}

/// A URL on 127.0.0.1 where nothing listens.
fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[test]
fn a_bad_idempotency_key_is_refused_before_sending() {
    let s = setup();
    let secret = s.home.path().join("secret");
    std::fs::write(&secret, "pw").unwrap();
    for key in ["bad key", "clé", "tab\tkey", &"k".repeat(256)] {
        for args in [
            vec!["send", "--title", "Keyed"],
            vec![
                "ask",
                "--title",
                "Keyed",
                "--action",
                "ok:OK",
                "--timeout",
                "1s",
            ],
            vec![
                "send",
                "--title",
                "Keyed",
                "--secret-file",
                secret.to_str().unwrap(),
            ],
        ] {
            let out = run(agent(&s).args(&args).args(["--idempotency-key", key]));
            let err = fails_with(
                &out,
                &["--idempotency-key", "visible ASCII", "no spaces"],
                &format!("{args:?} {key:?}"),
            );
            assert!(!err.contains("cannot reach"), "not a network error: {err}");
        }
    }
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
    // A good key still works.
    ok_stdout(agent(&s).args([
        "send",
        "--title",
        "Keyed",
        "--idempotency-key",
        "job-42:try.1",
    ]));
}

#[test]
fn network_errors_name_the_relay_url_and_what_to_check() {
    let s = setup();
    let url = closed_url();
    let out = run(agent(&s)
        .env("HERALD_URL", &url)
        .args(["send", "--title", "Nowhere"]));
    fails_with(
        &out,
        &[
            &format!("cannot reach the relay at {url}"),
            "HERALD_URL",
            "running",
        ],
        "agent command",
    );
    // A device command: its relay is the one it was set up with.
    let relay_url = s.relay.url.clone();
    let Setup { relay, home, .. } = s;
    drop(relay);
    let out = run(herald(home.path()).args(["connection", "list"]));
    fails_with(
        &out,
        &[
            &format!("cannot reach the relay at {relay_url}"),
            "herald whoami",
            "running",
        ],
        "device command",
    );
    let out = run(herald(home.path()).args(["whoami"]));
    fails_with(&out, &[&relay_url, "running"], "whoami");
}

#[test]
fn data_dir_errors_name_the_path() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("a-file");
    std::fs::write(&file, "not a dir").unwrap();
    let dir = file.join("herald");
    let out = run(herald(home.path()).env("HERALD_HOME", &dir).args([
        "device",
        "init",
        "--relay",
        &closed_url(),
    ]));
    fails_with(
        &out,
        &[dir.to_str().unwrap()],
        "a data dir that cannot be created",
    );
}

/// Every entry under `dir`, recursively.
fn tree(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(tree(&path));
        }
        out.push(path);
    }
    out
}

#[test]
fn read_only_commands_leave_an_empty_data_dir_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let missing = home.path().join("missing");
    for args in [
        &["whoami"][..],
        &["inbox", "list"],
        &["inbox", "show", "msg_x"],
        &["connection", "list"],
        &["agent-key", "list"],
        &["connector", "list"],
        &["notifications", "list"],
        &["notifications", "quiet-hours"],
        &["device", "list"],
    ] {
        for dir in [&empty, &missing] {
            let out = run(herald(home.path()).env("HERALD_HOME", dir).args(args));
            fails_with(
                &out,
                &[
                    "not a device of any account",
                    dir.to_str().unwrap(),
                    "herald device init",
                ],
                &args.join(" "),
            );
        }
        assert!(
            tree(&empty).is_empty(),
            "{args:?} created nothing in an empty dir"
        );
        assert!(!missing.exists(), "{args:?} did not create a missing dir");
    }
}

#[test]
#[cfg(unix)]
fn device_files_and_dirs_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let s = setup();
    // A secret offer opened on this device stores its one-time key under offer-keys/.
    let file = s.home.path().join("password");
    std::fs::write(&file, "hunter2").unwrap();
    let child = agent(&s)
        .args([
            "send",
            "--title",
            "Offer",
            "--timeout",
            "60s",
            "--secret-file",
        ])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = wait_for_title(&s, "Offer")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let out_path = s.home.path().join("revealed");
    ok_stdout(
        herald(s.home.path())
            .args(["inbox", "reveal", &id, "--timeout", "60s", "--out"])
            .arg(&out_path),
    );
    assert!(finish(child).status.success(), "delivered");
    let offer_keys = s.home.path().join("offer-keys");
    assert!(offer_keys.is_dir(), "the offer key dir exists");
    // The data dir is HERALD_HOME; the test's own files (password, revealed) and the empty
    // XDG dirs of the fixture are not the device's.
    let ours = ["password", "revealed", "xdg-data", "xdg-config"];
    for path in tree(s.home.path()) {
        let name = path.strip_prefix(s.home.path()).unwrap();
        if ours.iter().any(|o| name.starts_with(o)) {
            continue;
        }
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode, want, "{} is {mode:o}", path.display());
    }
}

#[test]
fn quiet_hours_times_change_while_they_are_off() {
    let s = setup();
    let show = |args: &[&str]| {
        ok_stdout(
            herald(s.home.path())
                .args(["notifications", "quiet-hours"])
                .args(args),
        )
    };
    show(&["--disable"]);
    let changed = show(&["--start", "21:30", "--end", "06:15"]);
    assert!(
        changed.starts_with("Quiet hours off: 21:30–06:15"),
        "{changed}"
    );
    let enabled = show(&["--enable"]);
    assert!(
        enabled.starts_with("Quiet hours on: 21:30–06:15"),
        "the times were kept: {enabled}"
    );
    let both = show(&["--disable", "--timezone", "Europe/Paris"]);
    assert!(
        both.starts_with("Quiet hours off: 21:30–06:15 Europe/Paris"),
        "{both}"
    );
}

#[test]
fn revoking_twice_says_it_was_already_revoked() {
    let s = setup();
    let connections = ok_stdout(herald(s.home.path()).args(["connection", "list"]));
    let con = connections.split_whitespace().next().unwrap().to_owned();
    let revoke = || run(herald(s.home.path()).args(["connection", "revoke", &con]));
    let first = revoke();
    assert!(first.status.success(), "revoked: {}", stderr(&first));
    fails_with(&revoke(), &[&con, "already revoked"], "connection twice");

    ok_stdout(herald(s.home.path()).args(["agent-key", "create", "--name", "bot"]));
    let keys = ok_stdout(herald(s.home.path()).args(["agent-key", "list"]));
    let key = keys.split_whitespace().next().unwrap().to_owned();
    let revoke = || run(herald(s.home.path()).args(["agent-key", "revoke", &key]));
    assert!(revoke().status.success(), "revoked");
    fails_with(&revoke(), &[&key, "already revoked"], "agent key twice");
}

/// Errors that named no id or gave advice that did not fit: an unknown id to revoke names the
/// id and the command that lists the existing ones; a duration with a sign says what a
/// duration is; a user code with vowels says why it is not one (not "has 8 letters");
/// `notifications reply --text-file -` reads standard input, not a file named `-`.
#[test]
fn wording_names_the_thing_and_what_to_do() {
    let s = setup();
    let con = "con_aaaaaaaaaaaaaaaaaaaaaaaaaa";
    let out = run(herald(s.home.path()).args(["connection", "revoke", con]));
    fails_with(
        &out,
        &[con, "no connection", "`herald connection list` lists"],
        "unknown connection",
    );
    let agk = "agk_aaaaaaaaaaaaaaaaaaaaaaaaaa";
    let out = run(herald(s.home.path()).args(["agent-key", "revoke", agk]));
    fails_with(
        &out,
        &[agk, "no agent key", "`herald agent-key list` lists"],
        "unknown agent key",
    );

    let out = run(agent(&s).args(["ask", "--title", "T", "--action", "ok:OK", "--deadline=-1s"]));
    let err = fails_with(
        &out,
        &["--deadline", "positive whole number with a unit"],
        "signed duration",
    );
    assert!(!err.contains("unknown unit"), "{err}");

    let out = run(herald(s.home.path()).args(["connector", "approve", "ABCD-EFGH"]));
    let err = fails_with(
        &out,
        &["ABCD-EFGH", "\"AE\" cannot occur", "no vowels"],
        "vowels",
    );
    assert!(!err.contains("has 8 letters"), "{err}");
    let out = run(herald(s.home.path()).args(["connector", "approve", "BCD"]));
    fails_with(&out, &["has 3 letters, not 8"], "short code");

    let mut child = herald(s.home.path())
        .args([
            "notifications",
            "reply",
            "ntf_aaaaaaaaaaaaaaaaaaaaaaaaaa",
            "--text-file",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"on my way\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "no such notification: {err}");
    assert!(
        !err.contains("reading the reply"),
        "stdin was read, not a file named -: {err}"
    );
}

#[test]
fn help_names_each_env_variable_once_and_every_field_type() {
    let home = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| ok_stdout(herald(home.path()).args(args).arg("--help"));
    for (args, var) in [
        (&["ask"][..], "HERALD_URL"),
        (&["send"], "HERALD_URL"),
        (&["wait"], "HERALD_URL"),
        (&["mcp"], "HERALD_URL"),
        (&["device", "init"], "HERALD_URL"),
        (&["whoami"], "HERALD_HOME"),
        (&["inbox", "list"], "HERALD_HOME"),
    ] {
        let text = help(args);
        assert_eq!(
            text.matches(var).count(),
            1,
            "{args:?} names {var} once:\n{text}"
        );
    }
    let ask = help(&["ask"]);
    assert!(
        ask.contains("secret-file"),
        "ask --help lists secret-file:\n{ask}"
    );
    for args in [
        &["ask"][..],
        &["send"],
        &["wait"],
        &["device", "init"],
        &["device", "unlock"],
        &["device", "pair"],
    ] {
        let text = help(args);
        let usage = text
            .lines()
            .find(|l| l.starts_with("Usage:"))
            .unwrap_or_else(|| panic!("a usage line:\n{text}"));
        // Only what the command needs stands bare; every flag is optional (the relay of
        // `device init|unlock|pair` may come from HERALD_URL instead).
        assert!(
            !usage.contains(" --"),
            "{args:?}: no flag looks required: {usage}"
        );
    }
}
