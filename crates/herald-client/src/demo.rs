//! The demo agent behind the README's first command: after onboarding, the app creates a
//! "Demo agent" connection and sends a few real requests through the relay with the same
//! agent client the CLI uses (real crypto, real HTTP). Nothing here is faked; it only saves
//! the person from typing `herald ask` to see a populated inbox.

use std::time::Duration;

use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;
use serde_json::json;

use crate::agent::{AgentClient, SendOptions};
use crate::{Core, Result};

/// Name of the demo connection.
pub const DEMO_CONNECTION_NAME: &str = "Demo agent";

/// The gallery's image (a PNG), attached for real when the demo runs.
pub const DEMO_IMAGE: &[u8] = include_bytes!("demo/architecture.png");
/// Id of the stand-in attachment in [`demo_messages`]; `run_demo` uploads [`DEMO_IMAGE`] and
/// puts the real attachment in its place.
const DEMO_IMAGE_ID: &str = "fil_dddddddddddddddddddddddddd";

/// Uploads [`DEMO_IMAGE`] and swaps it in for the stand-in attachment of `content`, if any
/// (the relay refuses the stand-in: it was never uploaded).
pub async fn attach_demo_image(agent: &AgentClient, content: &mut MessageContent) -> Result<()> {
    let Some(slot) = content
        .attachments
        .iter_mut()
        .find(|a| a.id == DEMO_IMAGE_ID)
    else {
        return Ok(());
    };
    // Owner-only like every temporary directory of ours (removed on drop, also when this
    // future is dropped).
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    let dir = builder.prefix("herald-demo-").tempdir()?;
    let path = dir.path().join("architecture.png");
    tokio::fs::write(&path, DEMO_IMAGE).await?;
    *slot = agent.upload_file(&path).await?;
    for block in &mut content.blocks {
        if let herald_protocol::content::Block::Image(image) = block {
            if image.attachment_id == DEMO_IMAGE_ID {
                image.attachment_id = slot.id.clone();
            }
        }
    }
    Ok(())
}

/// The demo's messages, in sending order.
pub fn demo_messages() -> Vec<MessageContent> {
    let items = [
        json!({
            "title": "Nightly build finished",
            "body": "All **412** tests passed in 6m 12s.\n\n| target | status |\n|---|---|\n| linux-x86_64 | ✅ |\n| macos-arm64 | ✅ |\n| windows-x86_64 | ✅ |"
        }),
        json!({
            "title": "Which database should the analytics service use?",
            "body": "I compared the options against our expected load (~2k writes/s, ad-hoc queries).",
            "fields": [
                {"id": "database", "label": "Database", "type": "choice", "required": true, "options": [
                    {"value": "postgres", "label": "PostgreSQL", "description": "One system to run; good enough up to ~5k writes/s."},
                    {"value": "clickhouse", "label": "ClickHouse", "description": "Fast analytics; another system to operate."}
                ]},
                {"id": "notes", "label": "Anything I should know?", "type": "textarea"}
            ]
        }),
        json!({
            "title": "Gallery: every block and field type",
            "body": "A tour of what an agent can send. Answer it to see the form at work.",
            "blocks": [
                {"type": "code", "language": "python", "title": "rollout.py",
                 "text": "def rollout(percent: int) -> None:\n    # staged: 5% → 50% → 100%\n    canary(percent, region=\"eu-west-1\")\n"},
                {"type": "diff", "title": "config.toml",
                 "text": "--- a/config.toml\n+++ b/config.toml\n@@ -1,3 +1,3 @@\n [deploy]\n-replicas = 2\n+replicas = 3\n region = \"eu-west-1\"\n"},
                {"type": "json", "title": "Health check",
                 "text": "{\"status\":\"ok\",\"latencyMs\":{\"p50\":12,\"p99\":48},\"regions\":[\"eu-west-1\",\"us-east-1\"]}"},
                {"type": "table", "columns": ["Service", "Version", "Status"],
                 "rows": [["api", "1.2.0", "healthy"], ["worker", "1.1.9", "degraded"]]},
                {"type": "image", "attachmentId": DEMO_IMAGE_ID, "alt": "Architecture diagram"}
            ],
            // A stand-in, replaced by the real upload in `run_demo`.
            "attachments": [{"id": DEMO_IMAGE_ID, "name": "architecture.png", "type": "image/png",
                "size": DEMO_IMAGE.len(), "sha256": "A".repeat(43),
                "key": format!("AGE-SECRET-KEY-1{}", "Q".repeat(58))}],
            "fields": [
                {"id": "summary", "label": "One-line summary", "type": "text", "required": true},
                {"id": "notes", "label": "Notes", "type": "textarea", "help": "Markdown is fine."},
                {"id": "budget", "label": "Budget (EUR)", "type": "number", "minimum": 0, "maximum": 10000},
                {"id": "replicas", "label": "Replicas", "type": "integer", "minimum": 1, "maximum": 10, "default": 3},
                {"id": "notify", "label": "Notify the team", "type": "boolean", "default": true},
                {"id": "day", "label": "Release day", "type": "date"},
                {"id": "window", "label": "Maintenance window starts", "type": "date-time"},
                {"id": "strategy", "label": "Strategy", "type": "choice", "header": "Strategy", "other": true,
                 "options": [
                     {"value": "canary", "label": "Canary", "description": "Small slice first.",
                      "preview": "```text\n5% → 50% → 100%\n```"},
                     {"value": "blue-green", "label": "Blue-green", "description": "Switch all at once."}
                 ]},
                {"id": "regions", "label": "Regions", "type": "multiselect",
                 "options": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "Americas"}, {"value": "ap", "label": "Asia-Pacific"}]}
            ]
        }),
        json!({
            "title": "Deploy v1.2 to production?",
            "body": "The release branch passed CI and staging has been healthy for 24 h.\n\n```python\ndef rollout(percent):\n    return canary(percent, region=\"eu-west-1\")\n```\n\nRoll-out is staged: 5% → 50% → 100%.",
            "actions": [
                {"id": "approve", "label": "Approve", "values": {}},
                {"id": "reject", "label": "Reject", "values": {}}
            ]
        }),
    ];
    items
        .into_iter()
        .map(|v| serde_json::from_value(v).expect("demo content is valid"))
        .collect()
}

/// Creates the demo connection and sends the demo messages (requests expire after 24 h).
/// Returns the number sent.
pub async fn run_demo(core: &Core) -> Result<usize> {
    let connection = core.create_connection(DEMO_CONNECTION_NAME, None).await?;
    let token = ConnectionToken::parse(&connection.token)?;
    let agent = AgentClient::new(&connection.relay_url, token)?;
    let messages = demo_messages();
    for content in &messages {
        let expires_in = content.expects_answer().then_some(24 * 60 * 60);
        let mut content = content.clone();
        attach_demo_image(&agent, &mut content).await?;
        agent
            .send(
                &content,
                SendOptions {
                    expires_in,
                    ..Default::default()
                },
            )
            .await?;
        // Spread the arrivals a little so the live updates are visible.
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    Ok(messages.len())
}

#[cfg(test)]
mod tests {
    #[test]
    fn demo_content_is_valid() {
        for m in super::demo_messages() {
            assert!(
                m.validate().is_ok(),
                "demo message {:?} is valid: {:?}",
                m.title,
                m.validate()
            );
        }
    }
}
