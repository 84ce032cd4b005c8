//! What the tools return: one JSON object per call, sent both as `structuredContent` and as
//! the text of the result's one content block (for clients that read only text).
//!
//! - `send`: `{messageId, status, createdAt, expectsAnswer, expiresAt}` (`status` is `delivered` for a
//!   message, `pending` for a request with actions).
//! - `ask`, `wait`: answered → `{messageId, status: "answered", answers?, actionId?, values?,
//!   answeredAt, answeredBy}`, where `answers` maps each question's text to the chosen label
//!   (several joined by ", ", or the person's own text for "Other") and `values` (field id →
//!   value) is given instead for requests without questions; still open when the wait ended
//!   → `{messageId, status: "pending", timedOut: true}`; closed without an answer →
//!   `{messageId, status: "expired" | "cancelled"}`.
//!
//! Secret values and answered files never appear: `wait` refuses requests that have such
//! fields before collecting anything (see `tools.rs`).

use herald_client::agent::{AnswerOutput, WaitOutcome};
use herald_protocol::wire::MessageRecord;
use herald_protocol::MessageId;
use serde_json::{json, Map, Value};

/// The result of `ask` or `wait` on request `id`.
pub fn outcome(id: &MessageId, outcome: WaitOutcome) -> Value {
    match outcome {
        WaitOutcome::Answered(answer) => answered(answer),
        WaitOutcome::Closed(status) => json!({"messageId": id, "status": status}),
        WaitOutcome::TimedOut => json!({"messageId": id, "status": "pending", "timedOut": true}),
    }
}

fn answered(answer: AnswerOutput) -> Value {
    let mut out = Map::new();
    out.insert("messageId".into(), json!(answer.id));
    out.insert("status".into(), json!(answer.status));
    match answer.question_answers {
        Some(answers) => {
            out.insert("answers".into(), json!(answers));
        }
        None => {
            out.insert("values".into(), Value::Object(answer.values));
        }
    }
    if let Some(action) = answer.action_id {
        out.insert("actionId".into(), json!(action));
    }
    out.insert("answeredAt".into(), json!(answer.answered_at));
    out.insert("answeredBy".into(), json!(answer.answered_by));
    Value::Object(out)
}

/// The result of `send`.
pub fn sent(record: &MessageRecord) -> Value {
    json!({
        "messageId": record.id,
        "status": record.status,
        "createdAt": record.created_at,
        "expectsAnswer": record.expects_answer,
        "expiresAt": record.expires_at,
    })
}
