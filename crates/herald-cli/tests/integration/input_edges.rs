//! Input edges a new user hits (issue 15, items 2–6, 9 and 11): nothing a flag carries is
//! silently dropped, standard input feeds one input at most, refused content sends and
//! uploads nothing (CLI and `herald mcp`), answers of any size can be given from the
//! terminal, errors name the path in Herald's words, and a JSON key given twice is refused.
//! The real `herald` binary against a real relay on 127.0.0.1:0; the headless device lists
//! the inbox.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};

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

/// Encrypted files the relay holds (`<data dir>/files`).
fn uploads(s: &Setup) -> usize {
    std::fs::read_dir(s.relay.dir.path().join("files"))
        .map(|dir| dir.count())
        .unwrap_or(0)
}

/// Sends a request with `args` (plus a 1 s wait); returns its id.
fn ask(s: &Setup, args: &[&str]) -> String {
    let out = run(agent(s).arg("ask").args(args).args(["--timeout", "1s"]));
    assert_eq!(
        out.status.code(),
        Some(3),
        "sent, timed out: {}",
        stderr_of(&out)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    printed["id"].as_str().expect("an id").to_owned()
}

fn show(s: &Setup, id: &str) -> Value {
    let out = ok_stdout(herald(s.home.path()).args(["inbox", "show", id, "--json"]));
    serde_json::from_str(&out).expect("inbox show --json is JSON")
}

#[test]
fn flag_specs_lose_nothing() {
    let s = setup();
    let err = fails(agent(&s).args([
        "ask",
        "--title",
        "Meet",
        "--field",
        "when!:text:Start time (HH:MM)",
    ]));
    assert!(
        err.contains("--field") && err.contains(r"\:"),
        "a colon in the label is refused, saying how to escape it: {err}"
    );
    let err = fails(agent(&s).args(["ask", "--title", "N", "--field", "n:integer:Count:1,2"]));
    assert!(
        err.contains("--field") && err.contains("choice and multiselect"),
        "options on an integer field are refused: {err}"
    );
    let err = fails(agent(&s).args(["ask", "--title", "E", "--field", "e:choice:Env:prod,,dev"]));
    assert!(err.contains("empty"), "an empty option is refused: {err}");
    let err = fails(agent(&s).args(["send", "--title", "V", "--block", "video:x"]));
    assert!(
        err.contains("image") && err.contains("table"),
        "the kinds listed include image: {err}"
    );
    assert!(inbox_list(&s).is_empty(), "nothing refused was sent");

    let id = ask(
        &s,
        &[
            "--title",
            "Meet",
            "--field",
            r"when!:text:Start time (HH\:MM)",
            "--field",
            r"slot:choice:Slot:09\:00,Now\, please",
        ],
    );
    let view = show(&s, &id);
    assert_eq!(view["fields"][0]["label"], "Start time (HH:MM)", "{view}");
    let options: Vec<&str> = view["fields"][1]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["value"].as_str())
        .collect();
    assert_eq!(options, ["09:00", "Now, please"], "{view}");
}

#[test]
fn two_stdin_inputs_are_refused_naming_the_flags() {
    let s = setup();
    let dir = tempfile::tempdir().expect("dir");
    let content = dir.path().join("c.json");
    std::fs::write(&content, r#"{"title":"T"}"#).expect("write");
    for (args, flags) in [
        (
            vec!["send", "--json", "-", "--body-file", "-"],
            vec!["--json -", "--body-file -"],
        ),
        (
            vec![
                "send",
                "--title",
                "T",
                "--body-file",
                "-",
                "--block",
                "code:-",
            ],
            vec!["--body-file -", "--block code:-"],
        ),
        (
            vec!["ask", "--json", "-", "--field", "a:text", "--schema", "-"],
            vec!["--json -", "--schema -"],
        ),
        (
            vec![
                "send",
                "--title",
                "T",
                "--body-file",
                "-",
                "--secret-file",
                "-",
            ],
            vec!["--body-file -", "--secret-file -"],
        ),
    ] {
        let err = fails(agent(&s).args(&args).stdin(Stdio::piped()));
        for flag in flags {
            assert!(err.contains(flag), "{args:?}: names {flag}: {err}");
        }
        assert!(err.contains("standard input"), "{err}");
    }
    let err = fails(herald(s.home.path()).args([
        "inbox",
        "answer",
        "msg_aaaaaaaaaaaaaaaaaaaaaaaaaa",
        "--secret",
        "a=-",
        "--secret",
        "b=-",
    ]));
    assert!(
        err.contains("--secret a=-") && err.contains("--secret b=-"),
        "{err}"
    );
    let err = fails(herald(s.home.path()).args([
        "inbox",
        "answer",
        "msg_aaaaaaaaaaaaaaaaaaaaaaaaaa",
        "--json",
        "-",
        "--secret",
        "a=-",
    ]));
    assert!(
        err.contains("--json -") && err.contains("--secret a=-"),
        "{err}"
    );
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
}

#[test]
fn refused_content_sends_and_uploads_nothing() {
    let s = setup();
    let dir = tempfile::tempdir().expect("dir");
    let image = dir.path().join("chart.png");
    std::fs::write(&image, herald_client::demo::DEMO_IMAGE).expect("image");
    let attachment = dir.path().join("notes.txt");
    std::fs::write(&attachment, "notes").expect("file");
    let block = format!("image:{}", image.display());
    let file = attachment.display().to_string();
    // A blank title, with an image block and a file: refused before either is uploaded.
    for command in ["send", "ask"] {
        let mut cmd = agent(&s);
        cmd.args([
            command, "--title", "   ", "--block", &block, "--file", &file,
        ]);
        if command == "ask" {
            cmd.args(["--action", "ok:OK"]);
        }
        let err = fails(&mut cmd);
        assert!(
            err.contains("title") && err.contains("blank"),
            "{command}: {err}"
        );
    }
    // A request whose form is broken past the flags (an empty schema), with an image.
    let schema = dir.path().join("s.json");
    std::fs::write(&schema, r#"{"type":"object","properties":{}}"#).expect("schema");
    fails(agent(&s).args([
        "ask",
        "--title",
        "T",
        "--schema",
        &schema.display().to_string(),
        "--block",
        &block,
    ]));
    assert_eq!(uploads(&s), 0, "no file was uploaded");
    assert!(inbox_list(&s).is_empty(), "nothing reached the inbox");

    // herald mcp: `questions: []` and `actions: []` are refused before anything is sent.
    let mut mcp = McpProcess::start(&s);
    let result = mcp.call("ask", json!({"questions": []}));
    assert_eq!(result["isError"], true, "{result}");
    let body = &result["structuredContent"];
    assert_eq!(body["error"], "invalid_request", "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains("must ask for something"), "{message}");
    assert!(!message.contains("was sent"), "nothing was sent: {message}");
    let result = mcp.call(
        "send",
        json!({"title": "T", "actions": [], "deadlineSeconds": 60}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let result = mcp.call(
        "ask",
        json!({"title": "   ", "questions": [{"question": "Q?", "options": [{"label": "A"}]}]}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"]["fields"],
        json!(["title"]),
        "{result}"
    );
    // A key given twice in the arguments: refused, naming it.
    let reply = mcp.raw(
        r#"{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"send","arguments":{"title":"A","title":"B"}}}"#,
        99,
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("params.arguments.title"), "{message}");
    mcp.close();
    assert!(inbox_list(&s).is_empty(), "nothing reached the inbox");
    assert_eq!(uploads(&s), 0, "no file was uploaded");
}

#[test]
fn inbox_answer_json_from_a_file_or_stdin() {
    let s = setup();
    // 30 textarea fields of 10,000 characters: a valid 300 KB answer, too long for one
    // argument (Linux caps one at 128 KiB).
    let specs: Vec<String> = (0..30).map(|i| format!("f{i}:textarea")).collect();
    let mut args = vec!["--title", "Long"];
    for spec in &specs {
        args.extend(["--field", spec.as_str()]);
    }
    let id = ask(&s, &args);
    let values: serde_json::Map<String, Value> = (0..30)
        .map(|i| (format!("f{i}"), json!("x".repeat(10_000))))
        .collect();
    let text = Value::Object(values).to_string();
    assert!(text.len() > 300_000, "{}", text.len());
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("answer.json");
    std::fs::write(&file, &text).expect("write");
    ok_stdout(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        &file.display().to_string(),
    ]));
    assert_eq!(show(&s, &id)["summary"]["status"], "answered");
    let err = fails(herald(s.home.path()).args(["inbox", "answer", &id, "--json", "[1]"]));
    assert!(err.contains("inline JSON starts with"), "{err}");

    // Standard input.
    let id = ask(&s, &["--title", "Env", "--field", "env!:text"]);
    let mut child = herald(s.home.path())
        .args(["inbox", "answer", &id, "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(br#"{"env": "prod"}"#)
        .expect("write");
    let out = finish(child);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(show(&s, &id)["summary"]["status"], "answered");
}

#[test]
fn actions_with_required_fields_say_why() {
    let s = setup();
    let err = fails(agent(&s).args([
        "ask",
        "--title",
        "Deploy?",
        "--action",
        "approve:Approve",
        "--action",
        "reject:Reject",
        "--field",
        "reason!:text:Reason",
    ]));
    assert!(
        err.contains("--action approve:Approve")
            && err.contains("\"reason\"")
            && err.contains("own values")
            && err.contains("decision!:choice"),
        "says why and what to do instead: {err}"
    );
    assert!(
        !err.contains("actions[0].values.reason: is required\n"),
        "{err}"
    );
    let err = fails(agent(&s).args([
        "ask",
        "--title",
        "Deploy?",
        "--action",
        "approve:Approve",
        "--question",
        "H|Which?|A,B",
    ]));
    assert!(err.contains("--question 1"), "{err}");
    assert!(inbox_list(&s).is_empty(), "nothing refused was sent");

    // The way that works: the decision as a required choice, with a required reason.
    let id = ask(
        &s,
        &[
            "--title",
            "Deploy?",
            "--field",
            "decision!:choice:Decision:Approve,Reject",
            "--field",
            "reason!:text:Reason",
        ],
    );
    ok_stdout(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        r#"{"decision":"Approve","reason":"tests pass"}"#,
    ]));
    // An action with values of one's own is refused in plain words.
    let id = ask(
        &s,
        &[
            "--title",
            "Ok?",
            "--action",
            "approve:Approve",
            "--field",
            "note:text",
        ],
    );
    let err = fails(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--action",
        "approve",
        "--json",
        r#"{"note":"x"}"#,
    ]));
    assert!(
        err.contains("own values") && err.contains("--json alone"),
        "{err}"
    );
}

#[test]
fn json_errors_name_the_path_in_our_words() {
    let s = setup();
    let dir = tempfile::tempdir().expect("dir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let array = write("array.json", "[]");
    let err = fails(agent(&s).args(["send", "--json", &array]));
    assert!(err.contains("expected an object"), "{err}");
    let typed = write("typed.json", r#"{"title": 5}"#);
    let err = fails(agent(&s).args(["send", "--json", &typed]));
    assert!(
        err.contains("title: expected a string, found a number"),
        "{err}"
    );
    let unknown = write(
        "unknown.json",
        r#"{"title":"T","fields":[{"id":"a","label":"A","type":"integer","maximun":3}]}"#,
    );
    let err = fails(agent(&s).args(["ask", "--json", &unknown]));
    assert!(err.contains("fields[0].maximun"), "one path form: {err}");
    let err = fails(agent(&s).args(["send", "--title", ""]));
    assert!(err.contains("title: is empty"), "{err}");
    for err in [&err] {
        for serde_word in ["invalid type", "struct ", "elements", "character(s)"] {
            assert!(!err.contains(serde_word), "{err}");
        }
    }
}

#[test]
fn duplicate_json_keys_are_refused() {
    let s = setup();
    let dir = tempfile::tempdir().expect("dir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let content = write("c.json", r#"{"title":"A","body":"x","title":"B"}"#);
    let err = fails(agent(&s).args(["send", "--json", &content]));
    assert!(
        err.contains("title") && err.contains("twice"),
        "--json: {err}"
    );
    let schema = write(
        "s.json",
        r#"{"type":"object","properties":{"a":{"type":"string","type":"integer"}}}"#,
    );
    let err = fails(agent(&s).args(["ask", "--title", "T", "--schema", &schema]));
    assert!(
        err.contains("properties.a.type") && err.contains("twice"),
        "--schema: {err}"
    );
    let table = write("t.json", r#"{"columns":["a"],"rows":[],"rows":[["1"]]}"#);
    let err = fails(agent(&s).args(["send", "--title", "T", "--block", &format!("table:{table}")]));
    assert!(
        err.contains("rows") && err.contains("twice"),
        "table: {err}"
    );
    assert!(inbox_list(&s).is_empty(), "nothing was sent");
    let id = ask(&s, &["--title", "Env", "--field", "env:text"]);
    let err = fails(herald(s.home.path()).args([
        "inbox",
        "answer",
        &id,
        "--json",
        r#"{"env":"prod","env":"staging"}"#,
    ]));
    assert!(
        err.contains("env") && err.contains("twice"),
        "answer --json: {err}"
    );
}

/// A `herald mcp` process spoken to over stdin/stdout.
struct McpProcess {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    next: u64,
}

impl McpProcess {
    fn start(s: &Setup) -> McpProcess {
        let mut child = agent(s)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("herald mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = McpProcess {
            child,
            stdin,
            lines,
            next: 1,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "input-edges", "version": "1"}}});
        mcp.raw(&init.to_string(), 0);
        mcp.write(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    fn write(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Writes `line` and returns the response with `id`.
    fn raw(&mut self, line: &str, id: u64) -> Value {
        self.write(line);
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .expect("a response");
            let frame: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if frame["id"] == json!(id) {
                return frame;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        self.raw(&request.to_string(), id)["result"].clone()
    }

    fn close(self) {
        drop(self.stdin);
        let mut child = self.child;
        let status = child.wait().expect("exits");
        assert!(status.success(), "herald mcp exits 0: {status}");
    }
}
