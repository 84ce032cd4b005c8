//! The tools' arguments: strict shapes (`additionalProperties: false` at every level), their
//! JSON Schemas (generated from the same structs, so schema and parser cannot drift), and the
//! content each call sends. The content is then validated by herald-protocol before sealing,
//! like every other sender's (docs/content.md).
//!
//! Parsing collects every key outside the shape and refuses the call with `forbidden_fields`
//! naming all of them (`fields`, `schema`, `questions[1].secret`…): `ask` can only ask
//! multiple-choice questions, so no secret or file field can ever be requested through MCP.

use std::sync::Arc;

use herald_protocol::content::{
    Action, MessageContent, Question, QuestionOption, MAX_ACTIONS, MAX_QUESTIONS, MAX_TITLE_CHARS,
};
use herald_protocol::wire::MAX_EXPIRES_IN_SECS;
use herald_protocol::{json, ErrorBody, ErrorCode, MessageId};
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The longest a tool call waits for an answer, in seconds (the same bound as the relay's
/// `wait_for_reply`): MCP clients give up on a tool call after about a minute (Codex: 60 s by
/// default), so a longer human wait is a loop of `wait` calls.
pub const MAX_WAIT_SECS: u64 = 55;

/// `ask`: `{questions, title?, body?, timeoutSeconds?, deadlineSeconds?}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct AskInput {
    /// The questions, as in Claude Code's AskUserQuestion: 1–30, each question text unique.
    #[schemars(length(min = 1, max = 30))]
    pub questions: Vec<QuestionInput>,
    /// Title of the request in the inbox (1–180 characters). Default: the first question.
    #[schemars(length(min = 1, max = 180))]
    pub title: Option<String>,
    /// Markdown shown above the questions (≤ 50,000 characters): context for the person.
    #[schemars(length(max = 50000))]
    pub body: Option<String>,
    /// How long this call waits for the answer, 0–55 seconds (default 55). When it passes the
    /// result has status "pending": call `wait` with the messageId.
    #[schemars(range(max = 55))]
    pub timeout_seconds: Option<u64>,
    /// The request expires this many seconds after the relay receives it (1–86,400).
    /// Default: no deadline.
    #[schemars(range(min = 1, max = 86400))]
    pub deadline_seconds: Option<u64>,
}

/// One question: `{question, header?, options: [{label, description?}], multiSelect?}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields, inline)]
pub struct QuestionInput {
    /// The full question (1–200 characters); the answer is keyed by this text.
    #[schemars(length(min = 1, max = 200))]
    pub question: String,
    /// A short tag shown on the card (1–12 characters), e.g. "Database".
    #[schemars(length(min = 1, max = 12))]
    pub header: Option<String>,
    /// 1–50 choices with distinct labels. The person may also type their own answer
    /// ("Other"); the answer then holds that text.
    #[schemars(length(min = 1, max = 50))]
    pub options: Vec<OptionInput>,
    /// Allow several choices; the answer joins their labels with ", ".
    #[serde(default)]
    pub multi_select: bool,
}

/// One choice: `{label, description?}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields, inline)]
pub struct OptionInput {
    /// What the person picks (1–200 characters); also the value the answer carries.
    #[schemars(length(min = 1, max = 200))]
    pub label: String,
    /// What choosing it means (≤ 1,000 characters).
    #[schemars(length(max = 1000))]
    pub description: Option<String>,
}

/// `send`: `{title, body?, actions?, deadlineSeconds?}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SendInput {
    /// Title (1–180 characters).
    #[schemars(length(min = 1, max = 180))]
    pub title: String,
    /// Markdown body (≤ 50,000 characters).
    #[schemars(length(max = 50000))]
    pub body: Option<String>,
    /// 1–8 one-tap answers (e.g. Approve / Reject). With actions the message is a request:
    /// the result has status "pending" and `wait` returns the actionId the person tapped.
    #[schemars(length(min = 1, max = 8))]
    pub actions: Option<Vec<ActionInput>>,
    /// With actions: the request expires this many seconds after the relay receives it
    /// (1–86,400). Default: no deadline.
    #[schemars(range(min = 1, max = 86400))]
    pub deadline_seconds: Option<u64>,
}

/// One action: `{id, label}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields, inline)]
pub struct ActionInput {
    /// 1–64 characters: a letter, then letters, digits, `_` or `-`; unique.
    #[schemars(
        length(min = 1, max = 64),
        regex(pattern = r"^[A-Za-z][A-Za-z0-9_-]*$")
    )]
    pub id: String,
    /// The button's text (1–200 characters).
    #[schemars(length(min = 1, max = 200))]
    pub label: String,
}

/// `wait`: `{messageId, timeoutSeconds?}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct WaitInput {
    /// The request's id (`msg_…`) from `ask` or `send`.
    #[schemars(regex(pattern = r"^msg_[a-z2-7]{26}$"))]
    pub message_id: String,
    /// How long to wait, 0–55 seconds (default 55; 0 checks once).
    #[schemars(range(max = 55))]
    pub timeout_seconds: Option<u64>,
}

/// The input schema of `T`, as `tools/list` publishes it: generated by rmcp's schema helper,
/// with optional properties shown by their own type only (leaving them out is how a caller
/// says "none"; `null` is still accepted).
pub fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    match rmcp::handler::server::tool::schema_for_input::<T>() {
        Ok(schema) => {
            let mut schema = serde_json::Value::Object(schema.as_ref().clone());
            drop_null_types(&mut schema);
            match schema {
                serde_json::Value::Object(map) => Arc::new(map),
                _ => Arc::new(JsonObject::new()),
            }
        }
        // Our own types are objects; a broken one shows up in the tests, not at run time.
        Err(_) => Arc::new(JsonObject::new()),
    }
}

/// `"type": ["string", "null"]` → `"type": "string"`, everywhere in `schema`.
fn drop_null_types(schema: &mut serde_json::Value) {
    use serde_json::Value;
    match schema {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 {
                    map.insert("type".into(), kept[0].clone());
                }
            }
            map.values_mut().for_each(drop_null_types);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_types),
        _ => {}
    }
}

/// Parses a call's arguments into `T` with herald-protocol's strict reader (the wording and
/// path form every Herald error uses): a shape or type error is `invalid_request` naming the
/// path; keys outside the shape are `forbidden_fields` naming every one. (Keys given twice
/// are refused earlier, when the line is read: see `frames.rs`.)
pub fn parse<T: DeserializeOwned>(arguments: Option<JsonObject>) -> Result<T, ErrorBody> {
    let value = serde_json::Value::Object(arguments.unwrap_or_default());
    let (parsed, unknown) = json::from_value_known::<T>(value).map_err(|e| {
        let body = ErrorBody::with_message(ErrorCode::InvalidRequest, e.to_string());
        if e.path.is_empty() {
            body
        } else {
            body.fields([e.path])
        }
    })?;
    if !unknown.is_empty() {
        return Err(ErrorBody::with_message(
            ErrorCode::ForbiddenFields,
            format!(
                "not part of this tool's input: {} (secret and file fields are never asked through MCP)",
                unknown.join(", ")
            ),
        )
        .fields(unknown));
    }
    Ok(parsed)
}

impl AskInput {
    /// The request: the questions as they are, the title (default: the first question,
    /// shortened to 180 characters, "+N more" when there are several).
    pub fn content(&self) -> MessageContent {
        let questions: Vec<Question> = self
            .questions
            .iter()
            .map(|q| Question {
                question: q.question.clone(),
                header: q.header.clone(),
                options: q
                    .options
                    .iter()
                    .map(|o| QuestionOption {
                        label: o.label.clone(),
                        description: o.description.clone(),
                        preview: None,
                    })
                    .collect(),
                multi_select: q.multi_select,
            })
            .collect();
        let title = match &self.title {
            Some(title) => title.clone(),
            None => default_title(&self.questions),
        };
        MessageContent {
            title,
            body: self.body.clone().unwrap_or_default(),
            questions,
            ..MessageContent::default()
        }
    }

    /// Seconds to wait (default and most: [`MAX_WAIT_SECS`]).
    pub fn wait_secs(&self) -> Result<u64, ErrorBody> {
        wait_secs(self.timeout_seconds)
    }

    /// The request's deadline, checked against 1..=86,400.
    pub fn expires_in(&self) -> Result<Option<u64>, ErrorBody> {
        expires_in(self.deadline_seconds)
    }
}

fn default_title(questions: &[QuestionInput]) -> String {
    let Some(first) = questions.first() else {
        // `MessageContent::validate_request` refuses the empty list before anything is sent.
        return "Questions".to_owned();
    };
    let more = match questions.len() {
        0 | 1 => String::new(),
        n => format!(" (+{} more)", n - 1),
    };
    let room = MAX_TITLE_CHARS - more.chars().count();
    let text = first.question.trim();
    let text = if text.chars().count() > room {
        let mut short: String = text.chars().take(room - 1).collect();
        short.push('…');
        short
    } else {
        text.to_owned()
    };
    format!("{text}{more}")
}

impl SendInput {
    /// The message, or with actions a request (each action's `values` is `{}`: there is no
    /// form to fill).
    pub fn content(&self) -> MessageContent {
        MessageContent {
            title: self.title.clone(),
            body: self.body.clone().unwrap_or_default(),
            actions: self
                .actions
                .iter()
                .flatten()
                .map(|a| Action {
                    id: a.id.clone(),
                    label: a.label.clone(),
                    values: Default::default(),
                })
                .collect(),
            ..MessageContent::default()
        }
    }

    /// The deadline; refused without actions (a message has nothing to expire).
    pub fn expires_in(&self) -> Result<Option<u64>, ErrorBody> {
        let no_actions = self.actions.as_ref().is_none_or(Vec::is_empty);
        if self.deadline_seconds.is_some() && no_actions {
            return Err(ErrorBody::with_message(
                ErrorCode::InvalidRequest,
                "deadlineSeconds needs actions: a message without actions asks nothing",
            )
            .fields(["deadlineSeconds"]));
        }
        expires_in(self.deadline_seconds)
    }
}

impl WaitInput {
    /// The parsed id.
    pub fn id(&self) -> Result<MessageId, ErrorBody> {
        MessageId::parse(&self.message_id).ok_or_else(|| {
            ErrorBody::with_message(ErrorCode::InvalidRequest, "not a message id (msg_…)")
                .fields(["messageId"])
        })
    }

    /// Seconds to wait (default and most: [`MAX_WAIT_SECS`]).
    pub fn wait_secs(&self) -> Result<u64, ErrorBody> {
        wait_secs(self.timeout_seconds)
    }
}

fn wait_secs(timeout: Option<u64>) -> Result<u64, ErrorBody> {
    match timeout {
        None => Ok(MAX_WAIT_SECS),
        Some(secs) if secs <= MAX_WAIT_SECS => Ok(secs),
        Some(_) => Err(ErrorBody::with_message(
            ErrorCode::InvalidRequest,
            format!("timeoutSeconds is at most {MAX_WAIT_SECS}; call `wait` again to wait longer"),
        )
        .fields(["timeoutSeconds"])),
    }
}

fn expires_in(deadline: Option<u64>) -> Result<Option<u64>, ErrorBody> {
    match deadline {
        Some(secs) if secs == 0 || secs > MAX_EXPIRES_IN_SECS => Err(ErrorBody::with_message(
            ErrorCode::InvalidRequest,
            format!("deadlineSeconds is between 1 and {MAX_EXPIRES_IN_SECS}"),
        )
        .fields(["deadlineSeconds"])),
        other => Ok(other),
    }
}

/// Compile-time checks that the schema bounds above are the content model's.
const _: () = {
    assert!(MAX_QUESTIONS == 30, "AskInput.questions maxItems");
    assert!(MAX_ACTIONS == 8, "SendInput.actions maxItems");
    assert!(MAX_TITLE_CHARS == 180, "title maxLength");
    assert!(MAX_EXPIRES_IN_SECS == 86_400, "deadlineSeconds maximum");
};
