//! Screens the stdin lines of `herald mcp` before rmcp reads them. rmcp skips a line it cannot
//! parse without answering; JSON-RPC 2.0 §5 wants an answer with `"id": null`. So a line that
//! is not JSON gets `-32700 Parse error`, a JSON array (a batch, which MCP does not use) gets
//! `-32600 Invalid Request`, a message repeating a key within one object gets `-32602 Invalid
//! params` (under `params`) or `-32600` (elsewhere) naming the key, with the message's id, a
//! `tools/call` whose `params` or `arguments` is not an object (or whose `name` is not a
//! string) gets `-32602 Invalid params` (rmcp would answer it as an unknown method), and every
//! other line goes on to rmcp unchanged. A blank line is
//! dropped. Local answers and rmcp's frames reach stdout through one writer, a whole line at a
//! time, so they never interleave.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Parse error (JSON-RPC 2.0).
const PARSE_ERROR: i64 = -32700;
/// Invalid Request (JSON-RPC 2.0).
const INVALID_REQUEST: i64 = -32600;
/// Invalid params (JSON-RPC 2.0).
const INVALID_PARAMS: i64 = -32602;
/// Bytes of one pipe between the screen and rmcp.
const PIPE_BYTES: usize = 64 * 1024;

/// The local answer a stdin line gets, or `None` when rmcp should read it.
pub fn screen(line: &[u8]) -> Option<String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let (code, message, id) = match serde_json::from_slice::<Value>(line) {
        Err(_) => (
            PARSE_ERROR,
            "Parse error: the line is not valid JSON.".to_owned(),
            Value::Null,
        ),
        Ok(Value::Array(_)) => (
            INVALID_REQUEST,
            "Invalid Request: send one JSON-RPC message per line; batches are not supported."
                .to_owned(),
            Value::Null,
        ),
        Ok(message) => {
            // A key given twice would reach rmcp as its last value only: refuse the message,
            // naming the key (herald-protocol's strict reader, as for every other input).
            let Err(e) = herald_protocol::json::check(line) else {
                return bad_tool_call(&message);
            };
            let id = match message.get("id") {
                Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
                _ => Value::Null,
            };
            let (code, kind) = if e.path.starts_with("params") {
                (INVALID_PARAMS, "Invalid params")
            } else {
                (INVALID_REQUEST, "Invalid Request")
            };
            (code, format!("{kind}: {e}"), id)
        }
    };
    Some(answer(&id, code, &message))
}

/// A JSON-RPC error answer to the request `id`.
fn answer(id: &Value, code: i64, message: &str) -> String {
    let error = json!({"code": code, "message": message});
    // Written by hand so the keys read jsonrpc, id, error.
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)
}

/// `-32602` for a `tools/call` request whose params rmcp could not take: `params` not an
/// object, `name` not a string, `arguments` present but not an object.
fn bad_tool_call(request: &Value) -> Option<String> {
    if request.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    // A notification (no id) gets no answer.
    let id = request.get("id")?;
    let message = match request.get("params") {
        Some(Value::Object(params)) => match (params.get("name"), params.get("arguments")) {
            (Some(Value::String(_)), None | Some(Value::Null | Value::Object(_))) => return None,
            (Some(Value::String(_)), Some(_)) => {
                "Invalid params: `arguments` must be a JSON object of the tool's inputs (see tools/list)."
            }
            _ => "Invalid params: `name` must be the tool's name, a string (see tools/list).",
        },
        _ => "Invalid params: tools/call takes an object {name, arguments}.",
    };
    Some(answer(id, INVALID_PARAMS, message))
}

/// The pipes rmcp serves on: `(reader, writer)`. Tasks copy `input` through [`screen`] into the
/// reader, and the writer's lines plus the local answers to `output`. The returned handle
/// finishes once `input` is closed and rmcp has dropped its writer, with everything flushed.
pub fn pipes<I, O>(
    input: I,
    output: O,
) -> (
    (tokio::io::DuplexStream, tokio::io::DuplexStream),
    tokio::task::JoinHandle<std::io::Result<()>>,
)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_in, mut feed) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (answers, mut local) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            match screen(&line) {
                Some(answer) => {
                    if answers.send(answer).is_err() {
                        break;
                    }
                }
                None => {
                    if feed.write_all(&line).await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping `feed` is rmcp's end of input.
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        let mut from_rmcp = BufReader::new(from_rmcp);
        let mut line = Vec::new();
        let (mut rmcp_open, mut local_open) = (true, true);
        while rmcp_open || local_open {
            tokio::select! {
                read = from_rmcp.read_until(b'\n', &mut line), if rmcp_open => {
                    if read.unwrap_or(0) == 0 {
                        rmcp_open = false;
                    } else {
                        output.write_all(&line).await?;
                        output.flush().await?;
                    }
                    line.clear();
                }
                answer = local.recv(), if local_open => match answer {
                    Some(answer) => {
                        output.write_all(answer.as_bytes()).await?;
                        output.write_all(b"\n").await?;
                        output.flush().await?;
                    }
                    None => local_open = false,
                },
            }
        }
        Ok(())
    });
    ((rmcp_in, rmcp_out), writer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_garbage_and_batches_are_answered_here() {
        let parse = screen(b"{not json\n").expect("answered");
        assert!(
            parse.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700"#),
            "{parse}"
        );
        let batch = screen(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).expect("answered");
        let v: Value = serde_json::from_str(&batch).expect("JSON");
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone()),
            (Value::Null, json!(-32600))
        );
        assert_eq!(screen(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        let call = |params: &str| {
            screen(
                format!(r#"{{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{params}}}"#)
                    .as_bytes(),
            )
        };
        for bad in [
            r#"{"name":"ask","arguments":"x"}"#,
            r#"{"name":"ask","arguments":[1]}"#,
            r#"{"name":7}"#,
            r#""ask""#,
        ] {
            let v: Value = serde_json::from_str(&call(bad).expect("answered")).expect("JSON");
            assert_eq!(
                (v["id"].clone(), v["error"]["code"].clone()),
                (json!("a"), json!(-32602)),
                "{bad}"
            );
        }
        assert_eq!(call(r#"{"name":"ask","arguments":{}}"#), None);
        assert_eq!(call(r#"{"name":"ask"}"#), None);
        assert_eq!(screen(b"  \r\n"), None);
        let twice = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{"title":"a","title":"b"}}}"#;
        let v: Value = serde_json::from_str(&screen(twice).expect("answered")).expect("JSON");
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone()),
            (json!(7), json!(-32602))
        );
        let message = v["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("params.arguments.title"), "{message}");
    }
}
