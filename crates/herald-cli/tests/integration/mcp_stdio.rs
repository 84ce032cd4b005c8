//! `herald mcp` as an agent's MCP client sees it: the real binary spawned with the same relay
//! and token as `herald ask`, spoken to over its stdin/stdout (newline-delimited JSON-RPC),
//! against a real relay on 127.0.0.1:0; a headless device answers with `herald inbox answer`.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use common::*;
use serde_json::{json, Value};

/// How long a test waits for one frame before calling the server hung (not a timing
/// assertion: every wait below ends long before this when things work).
const HANG: Duration = Duration::from_secs(120);

/// A running `herald mcp` and the frames it writes.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    frames: Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
    next_id: u64,
}

impl Mcp {
    fn start(s: &Setup) -> Mcp {
        Mcp::start_at(s, &s.relay.url)
    }

    fn start_at(s: &Setup, relay_url: &str) -> Mcp {
        let mut child = agent(s)
            .arg("mcp")
            .env("HERALD_URL", relay_url)
            // Every log line on: none of them may carry the token or reach stdout.
            .env("HERALD_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("herald mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let (tx, frames) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
            text
        });
        Mcp {
            child,
            stdin,
            frames,
            stderr,
            next_id: 1,
        }
    }

    fn write(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write a frame");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request without reading its response; returns its id.
    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn notify(&mut self, method: &str) {
        self.write(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// Reads frames until the response to `id`; every frame must be JSON-RPC 2.0.
    fn response(&mut self, id: u64) -> Value {
        loop {
            let line = match self.frames.recv_timeout(HANG) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => panic!("no response to request {id}"),
                Err(RecvTimeoutError::Disconnected) => panic!("herald mcp closed stdout"),
            };
            let frame: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC frames ({e}): {line}"));
            assert_eq!(frame["jsonrpc"], "2.0", "a JSON-RPC 2.0 frame: {line}");
            if frame["id"] == json!(id) {
                return frame;
            }
            assert!(
                frame.get("method").is_some(),
                "anything else is a server notification or request: {line}"
            );
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id)
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        result_of(response)
    }

    /// Closes stdin; the server must exit 0 with nothing more on stdout. Returns stderr.
    fn close(mut self) -> String {
        drop(self.stdin);
        let status = self.child.wait().expect("herald mcp exits");
        let stderr = self.stderr.join().expect("stderr reader");
        assert!(
            status.success(),
            "herald mcp exits 0 when stdin closes: {status}\n{stderr}"
        );
        let rest: Vec<String> = self.frames.try_iter().collect();
        assert!(rest.is_empty(), "no stray output: {rest:?}");
        stderr
    }
}

/// The tool result of a `tools/call` response; its text content is the same JSON as its
/// `structuredContent`.
fn result_of(response: Value) -> Value {
    let result = response
        .get("result")
        .unwrap_or_else(|| panic!("a result, not a protocol error: {response}"))
        .clone();
    let text = result["content"][0]["text"].as_str().expect("text content");
    let parsed: Value = serde_json::from_str(text).expect("the text is JSON");
    assert_eq!(
        parsed, result["structuredContent"],
        "text and structuredContent agree"
    );
    result
}

fn ok(result: &Value) -> &Value {
    assert_eq!(result["isError"], false, "the call succeeded: {result}");
    &result["structuredContent"]
}

fn refused<'a>(result: &'a Value, code: &str) -> &'a Value {
    assert_eq!(result["isError"], true, "the call is refused: {result}");
    let body = &result["structuredContent"];
    assert_eq!(body["error"], code, "error code: {body}");
    assert!(body["message"].is_string(), "a message: {body}");
    body
}

fn answer_json(s: &Setup, id: &str, values: &Value) {
    ok_stdout(herald(s.home.path()).args(["inbox", "answer", id, "--json", &values.to_string()]));
}

fn initialize(mcp: &mut Mcp) -> Value {
    let init = mcp.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "mcp-stdio-test", "version": "1"},
        }),
    );
    mcp.notify("notifications/initialized");
    init
}

#[test]
fn ask_send_and_wait_over_stdio_end_to_end() {
    let s = setup();
    let mut mcp = Mcp::start(&s);

    let init = initialize(&mut mcp);
    let info = &init["result"];
    assert_eq!(
        info["protocolVersion"], "2025-06-18",
        "version echoed: {init}"
    );
    assert_eq!(info["serverInfo"]["name"], "herald", "server name");
    assert_eq!(
        info["capabilities"]["tools"]["listChanged"], false,
        "a fixed tool list"
    );
    assert!(info["instructions"].is_string(), "instructions");

    let list = mcp.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["ask", "send", "wait"], "the tools");
    for tool in tools {
        assert_eq!(
            tool["inputSchema"]["additionalProperties"], false,
            "strict schema: {tool}"
        );
    }

    // ask: two questions, one multiSelect; the device answers while the call waits.
    let call = mcp.send(
        "tools/call",
        json!({"name": "ask", "arguments": {
            "title": "Pick a stack",
            "body": "For the **new** service.",
            "questions": [
                {"question": "Which database?", "header": "DB", "multiSelect": false,
                 "options": [{"label": "Postgres", "description": "managed"},
                             {"label": "SQLite", "description": "a file"}]},
                {"question": "Which regions?", "header": "Regions", "multiSelect": true,
                 "options": [{"label": "eu", "description": "Frankfurt"},
                             {"label": "us", "description": "Virginia"},
                             {"label": "ap", "description": "Tokyo"}]},
            ],
            "timeoutSeconds": 55,
        }}),
    );
    let message = wait_for_title(&s, "Pick a stack");
    let id = message["id"].as_str().expect("id").to_owned();
    answer_json(&s, &id, &json!({"q1": "Postgres", "q2": ["eu", "us"]}));
    let result = result_of(mcp.response(call));
    let answer = ok(&result);
    assert_eq!(answer["status"], "answered", "answered: {answer}");
    assert_eq!(answer["messageId"], id.as_str(), "same request");
    assert_eq!(
        answer["answers"],
        json!({"Which database?": "Postgres", "Which regions?": "eu, us"}),
        "answers keyed by question text, a multiSelect joined by \", \""
    );
    assert_eq!(answer["answeredBy"], "test-box", "the answering device");

    // wait on an answered request reports the same answer again.
    let again = mcp.call("wait", json!({"messageId": id, "timeoutSeconds": 0}));
    assert_eq!(ok(&again)["answers"], answer["answers"], "wait repeats it");

    // send: a plain message is delivered.
    let sent = mcp.call(
        "send",
        json!({"title": "Build finished", "body": "All **green**."}),
    );
    let sent = ok(&sent);
    assert_eq!(
        sent["status"], "delivered",
        "a message is delivered: {sent}"
    );
    assert_eq!(sent["expectsAnswer"], false, "asks nothing");
    let delivered = wait_for_title(&s, "Build finished");
    assert_eq!(delivered["id"], sent["messageId"], "it reached the inbox");

    // send with actions is a request; wait times out while it is open, then gets the answer.
    let request = mcp.call(
        "send",
        json!({"title": "Deploy v2?", "actions": [
            {"id": "approve", "label": "Approve"}, {"id": "reject", "label": "Reject"}],
            "deadlineSeconds": 3600}),
    );
    let request = ok(&request).clone();
    assert_eq!(request["status"], "pending", "a request: {request}");
    assert!(request["expiresAt"].is_string(), "with its deadline");
    let deploy = request["messageId"].as_str().expect("id").to_owned();
    let pending = mcp.call("wait", json!({"messageId": deploy, "timeoutSeconds": 1}));
    let pending = ok(&pending);
    assert_eq!(pending["status"], "pending", "still open: {pending}");
    assert_eq!(pending["timedOut"], true, "the wait ended, not the request");
    assert_eq!(pending["messageId"], deploy.as_str(), "id to resume with");

    let call = mcp.send(
        "tools/call",
        json!({"name": "wait", "arguments": {"messageId": deploy}}),
    );
    ok_stdout(herald(s.home.path()).args(["inbox", "answer", &deploy, "--action", "approve"]));
    let done = result_of(mcp.response(call));
    let done = ok(&done);
    assert_eq!(done["status"], "answered", "answered: {done}");
    assert_eq!(done["actionId"], "approve", "the tapped action");
    assert_eq!(done["values"], json!({}), "no form values");

    // The relay saw ciphertext only.
    let db = std::fs::read(s.relay.db_path()).expect("relay db");
    let wal = std::fs::read(s.relay.dir.path().join("relay.db-wal")).unwrap_or_default();
    for needle in ["Pick a stack", "Which database?", "Postgres", "Deploy v2?"] {
        for bytes in [&db, &wal] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "the relay database holds no plaintext {needle:?}"
            );
        }
    }

    let stderr = mcp.close();
    let secret_part = s.token.rsplit('.').next().expect("token parts");
    assert!(
        !stderr.contains(&s.token) && !stderr.contains(secret_part),
        "the token never reaches the logs"
    );
    for needle in [
        "Which database?",
        "Postgres",
        "Deploy v2?",
        "All **green**.",
    ] {
        assert!(
            !stderr.contains(needle),
            "message content never reaches the logs, even at debug: {needle:?}"
        );
    }
    assert!(
        stderr.contains("herald mcp: serving on stdio"),
        "the logs are on stderr: {stderr}"
    );
}

#[test]
fn refusals_are_tool_errors_with_the_error_body() {
    let s = setup();
    let mut mcp = Mcp::start(&s);
    initialize(&mut mcp);

    // A secret field cannot be asked for: keys outside the shape are named and refused.
    let result = mcp.call(
        "ask",
        json!({"questions": [{"question": "Password?", "options": [{"label": "x"}]}],
               "fields": [{"id": "pw", "type": "secret"}]}),
    );
    let body = refused(&result, "forbidden_fields");
    assert_eq!(body["fields"], json!(["fields"]), "names the field: {body}");

    // Content limits are the content model's, with the offending path.
    let result = mcp.call(
        "ask",
        json!({"questions": [{"question": "Q?", "header": "far too long a header",
                              "options": [{"label": "a"}]}]}),
    );
    let body = refused(&result, "invalid_request");
    assert_eq!(
        body["fields"],
        json!(["questions[0].header"]),
        "the path: {body}"
    );

    let unknown = format!("msg_{}", "a".repeat(26));
    let result = mcp.call("wait", json!({"messageId": unknown, "timeoutSeconds": 99}));
    let body = refused(&result, "invalid_request");
    assert_eq!(body["fields"], json!(["timeoutSeconds"]), "bounded: {body}");
    let result = mcp.call("wait", json!({"messageId": unknown, "timeoutSeconds": 0}));
    refused(&result, "not_found");
    let result = mcp.call("wait", json!({"messageId": "msg_nope"}));
    let body = refused(&result, "invalid_request");
    assert_eq!(body["fields"], json!(["messageId"]), "not an id: {body}");

    // An unknown tool is a protocol error.
    let response = mcp.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert!(
        response["error"]["code"].is_i64(),
        "JSON-RPC error: {response}"
    );

    // A request with a secret field (made by `herald ask`) is answered; `wait` over MCP
    // refuses it without collecting the secret, which `herald wait --out` still gets.
    let asked = run(agent(&s).args([
        "ask",
        "--title",
        "Need the key",
        "--field",
        "key!:secret:API key",
        "--out",
        &s.home.path().join("unused").display().to_string(),
        "--timeout",
        "0s",
    ]));
    assert_eq!(asked.status.code(), Some(3), "left open");
    let asked: Value = serde_json::from_slice(&asked.stdout).expect("JSON");
    let key_id = asked["id"].as_str().expect("id").to_owned();
    let value_file = s.home.path().join("value");
    std::fs::write(&value_file, "s3cr3t-value").expect("write value");
    ok_stdout(herald(s.home.path()).args([
        "inbox",
        "answer",
        &key_id,
        "--secret",
        &format!("key={}", value_file.display()),
    ]));
    let result = mcp.call("wait", json!({"messageId": key_id, "timeoutSeconds": 0}));
    let body = refused(&result, "invalid_request");
    assert_eq!(body["fields"], json!(["messageId"]), "names the id: {body}");
    assert!(
        !result.to_string().contains("s3cr3t-value"),
        "the secret never passes through MCP"
    );
    let out = s.home.path().join("collected");
    ok_stdout(agent(&s).args(["wait", &key_id, "--out", &out.display().to_string()]));
    assert_eq!(
        std::fs::read_to_string(&out).expect("collected"),
        "s3cr3t-value",
        "the secret was left for `herald wait --out`"
    );

    mcp.close();

    // A relay that cannot be reached is its own code.
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", listener.local_addr().expect("addr"))
        // The listener closes here: connections to it are refused.
    };
    let mut mcp = Mcp::start_at(&s, &dead);
    initialize(&mut mcp);
    let result = mcp.call("send", json!({"title": "Anyone there?"}));
    refused(&result, "relay_unreachable");
    mcp.close();
}

/// A line that is not JSON gets -32700 and an array -32600, both with `"id": null`
/// (JSON-RPC 2.0 §5); the server keeps serving.
#[test]
fn garbage_and_batches_get_jsonrpc_errors_with_a_null_id() {
    let s = setup();
    let mut mcp = Mcp::start(&s);
    initialize(&mut mcp);
    for (line, code) in [
        ("{\"jsonrpc\":\"2.0\",\"id\":7,".to_owned(), -32700),
        (
            json!([{"jsonrpc": "2.0", "id": 8, "method": "ping"}]).to_string(),
            -32600,
        ),
    ] {
        writeln!(mcp.stdin, "{line}").expect("write");
        mcp.stdin.flush().expect("flush");
        let frame = mcp.frames.recv_timeout(HANG).expect("an answer");
        assert!(
            frame.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":"#),
            "{frame}"
        );
        let v: Value = serde_json::from_str(&frame).expect("JSON");
        assert_eq!(v["error"]["code"], json!(code), "{line}");
    }
    let pong = mcp.request("ping", json!({}));
    assert_eq!(pong["result"], json!({}), "still serving");
    mcp.close();
}

/// A `tools/call` whose `arguments` (or `params`, or `name`) has the wrong JSON type is
/// `-32602 Invalid params` with the request's id, not `-32601 Method not found`; nothing is
/// sent, and the server keeps serving.
#[test]
fn non_object_arguments_are_invalid_params() {
    let s = setup();
    let mut mcp = Mcp::start(&s);
    initialize(&mut mcp);
    for params in [
        json!({"name": "send", "arguments": "title: hi"}),
        json!({"name": "send", "arguments": [{"title": "hi"}]}),
        json!({"name": "send", "arguments": 7}),
        json!({"name": 7, "arguments": {}}),
        json!("send"),
    ] {
        let response = mcp.request("tools/call", params.clone());
        assert_eq!(
            response["error"]["code"],
            json!(-32602),
            "{params}: {response}"
        );
        assert!(
            response["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("Invalid params")),
            "{params}: {response}"
        );
    }
    let sent = mcp.call("send", json!({"title": "After the bad calls"}));
    ok(&sent);
    assert_eq!(inbox_list(&s).len(), 1, "only the good call sent a message");
    mcp.close();
}
