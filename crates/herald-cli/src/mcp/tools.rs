//! The three tools of `herald mcp`: `ask`, `send`, `wait` (docs/cli.md, "herald mcp").
//!
//! Each call goes through [`AgentClient`] exactly as `herald ask|send|wait` do: content is
//! validated, sealed to the account key and this connection's own key and signed before it
//! leaves the machine; answers are opened and verified here. The relay sees ciphertext only.

use std::time::Duration;

use herald_client::agent::{AgentClient, SendOptions, WaitOutcome};
use herald_protocol::content::FieldKind;
use herald_protocol::{ErrorBody, ErrorCode, MessageId};
use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::errors::{body_for, tool_error};
use super::input::{self, AskInput, SendInput, WaitInput};
use super::output;

const ASK: &str = "Ask the person one or more multiple-choice questions through their Herald \
inbox (end-to-end encrypted; they answer in the Herald app or from a notification) and wait \
for the answer. Same input as AskUserQuestion. Returns `answers`: each question's text → the \
chosen label (several joined by \", \"; the person's own text when they typed one). If nobody \
answers within timeoutSeconds (at most 55), returns status \"pending\" with the messageId: \
call `wait` with it to keep waiting.";

const SEND: &str = "Send a message (title and Markdown body) to the person's Herald inbox, \
end-to-end encrypted. With `actions` (e.g. Approve / Reject) it becomes a request: the \
result has status \"pending\"; call `wait` with the messageId for the actionId they tapped.";

const WAIT: &str = "Wait up to timeoutSeconds (at most 55; 0 checks once) for the answer to a \
request made with `ask` or `send`. Returns the answer (status \"answered\"), status \
\"pending\" with timedOut when it is still open (call again), or \"expired\" / \"cancelled\".";

/// The tools as `tools/list` lists them.
pub fn list() -> Vec<Tool> {
    vec![
        tool(
            "ask",
            "Ask the person",
            ASK,
            input::schema::<AskInput>(),
            false,
        ),
        tool(
            "send",
            "Send to the inbox",
            SEND,
            input::schema::<SendInput>(),
            false,
        ),
        tool(
            "wait",
            "Wait for an answer",
            WAIT,
            input::schema::<WaitInput>(),
            true,
        ),
    ]
}

fn tool(
    name: &'static str,
    title: &str,
    description: &'static str,
    schema: std::sync::Arc<JsonObject>,
    read_only: bool,
) -> Tool {
    let annotations = ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(false)
        .idempotent(read_only)
        .open_world(true);
    Tool::new(name, description, schema)
        .with_title(title)
        .annotate(annotations)
}

/// The tools over one connection.
pub struct Tools {
    client: AgentClient,
}

impl Tools {
    /// Tools acting as the connection of `client`.
    pub fn new(client: AgentClient) -> Tools {
        Tools { client }
    }

    /// Runs tool `name`; `None` for a tool that does not exist. A refused call is a result
    /// with `isError: true` (see `errors.rs`); `cancel` ends a wait early (the client
    /// cancelled the call).
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        cancel: CancellationToken,
    ) -> Option<CallToolResult> {
        let result = match name {
            "ask" => self.ask(arguments, &cancel).await,
            "send" => self.send(arguments).await,
            "wait" => self.wait(arguments, &cancel).await,
            _ => return None,
        };
        Some(match result {
            Ok(value) => CallToolResult::structured(value),
            Err(body) => {
                tracing::info!(tool = name, code = %body.error, "tool call refused");
                tool_error(&body)
            }
        })
    }

    async fn ask(
        &self,
        arguments: Option<JsonObject>,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorBody> {
        let input: AskInput = input::parse(arguments)?;
        let secs = input.wait_secs()?;
        let options = SendOptions {
            expires_in: input.expires_in()?,
            ..SendOptions::default()
        };
        let content = input.content();
        // A request: content that asks nothing (`questions: []`) is refused before sending.
        let record = self
            .client
            .ask(&content, options)
            .await
            .map_err(|e| body_for(&e))?;
        tracing::info!(id = %record.id, "request sent; waiting for the answer");
        // The request exists now: whatever happens while waiting, say how to resume.
        self.wait_for(&record.id, secs, cancel)
            .await
            .map_err(|mut body| {
                body.message = format!(
                    "{} (request {} was sent and is still open: call `wait` with this messageId)",
                    body.message, record.id
                );
                body
            })
    }

    async fn send(&self, arguments: Option<JsonObject>) -> Result<Value, ErrorBody> {
        let input: SendInput = input::parse(arguments)?;
        let options = SendOptions {
            expires_in: input.expires_in()?,
            ..SendOptions::default()
        };
        let content = input.content();
        // Given `actions` make a request, so `actions: []` is refused like `questions: []`.
        let sent = if input.actions.is_some() {
            self.client.ask(&content, options).await
        } else {
            self.client.send(&content, options).await
        };
        let record = sent.map_err(|e| body_for(&e))?;
        Ok(output::sent(&record))
    }

    async fn wait(
        &self,
        arguments: Option<JsonObject>,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorBody> {
        let input: WaitInput = input::parse(arguments)?;
        let id = input.id()?;
        let secs = input.wait_secs()?;
        // Secret values and answered files are handed over once, to a file: never through
        // MCP. Refuse before anything is collected.
        let content = self
            .client
            .request_content(&id)
            .await
            .map_err(|e| body_for(&e))?;
        let refused: Vec<&str> = content
            .effective_fields()
            .iter()
            .filter(|f| {
                matches!(
                    f.kind,
                    FieldKind::Secret | FieldKind::SecretFile | FieldKind::File { .. }
                )
            })
            .map(|f| f.kind.type_name())
            .collect();
        if !refused.is_empty() {
            return Err(ErrorBody::with_message(
                ErrorCode::InvalidRequest,
                format!(
                    "{id} has {} fields: their answers are collected only by `herald wait --out/--out-dir`, never through MCP",
                    refused.join(", ")
                ),
            )
            .fields(["messageId"]));
        }
        self.wait_for(&id, secs, cancel).await
    }

    /// Waits up to `secs` for request `id`; a cancelled call ends as still pending.
    async fn wait_for(
        &self,
        id: &MessageId,
        secs: u64,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorBody> {
        let wait = self.client.wait(id, Some(Duration::from_secs(secs)));
        let outcome = tokio::select! {
            outcome = wait => outcome.map_err(|e| body_for(&e))?,
            () = cancel.cancelled() => WaitOutcome::TimedOut,
        };
        Ok(output::outcome(id, outcome))
    }
}
