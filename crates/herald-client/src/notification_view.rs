//! View types of the agent side (docs/agents.md) the desktop and `herald` show: notifications
//! (NOT end-to-end encrypted — the relay saw them in transit), quiet hours, agent keys and
//! connectors. Exported to TypeScript with ts-rs like `view` (into `ui/src/lib/bindings/`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How insistent a notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum NotificationPriority {
    Low,
    Normal,
    High,
}

/// One notification from an agent, decrypted from the cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct NotificationView {
    /// The relay's id (`ntf_…`): pass it to `notification_receipt` / `reply_notification`.
    pub id: String,
    /// The agent's own id for it.
    pub notification_id: String,
    /// Always false: the relay saw this notification in transit (unlike messages). Show it.
    pub end_to_end: bool,
    pub title: String,
    pub subtitle: Option<String>,
    /// Plain text (not Markdown), at most 4,000 characters.
    pub body: Option<String>,
    /// The agent asked for it to be read aloud.
    pub speak: bool,
    /// The agent waits for a typed reply (`reply_notification`).
    pub expect_reply: bool,
    pub priority: NotificationPriority,
    /// Play the system sound with the banner.
    pub sound: bool,
    pub group: Option<String>,
    pub thread_id: Option<String>,
    /// `agentKey` or `connector`.
    pub source_kind: String,
    /// The agent key's or connector's name.
    pub source_name: String,
    /// The agent key's or connector's id (as in `AgentKeyView.id` / `ConnectorView.id`); null
    /// for notifications this device cached before it kept them. Settings mute agents by it.
    pub source_id: Option<String>,
    /// RFC 3339 UTC, relay clock.
    pub received_at: String,
    pub displayed_at: Option<String>,
    pub spoken_at: Option<String>,
    pub replied_at: Option<String>,
    /// The reply, when this device sent it.
    pub reply: Option<String>,
    /// Held back by quiet hours: no banner, no speech.
    pub suppressed: bool,
    pub unread: bool,
    /// Why it could not be opened (then `title` is a placeholder).
    pub error: Option<String>,
    /// Fits a JS number: revisions stay far below 2^53.
    #[ts(type = "number")]
    pub revision: u64,
}

/// A receipt this device reports for a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum NotificationReceiptKind {
    /// A banner was shown.
    Displayed,
    /// It was read aloud.
    Spoken,
    /// Neither banner nor speech (quiet hours, or the device's own do-not-disturb).
    Suppressed,
}

/// Quiet hours of the account, and whether they hold now (relay clock).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct QuietHoursSettings {
    pub enabled: bool,
    /// `HH:MM`, 24-hour, local time of `timezone`.
    pub start: String,
    /// `HH:MM`; before `start` means over midnight; must differ from `start`.
    pub end: String,
    /// IANA name, e.g. `Europe/Paris`.
    pub timezone: String,
    /// Read-only: whether they hold now. Ignored by `set_quiet_hours`.
    #[serde(default)]
    pub active: bool,
}

/// Which new arrivals get a banner on this device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum BannerMode {
    /// Only what waits for an answer: pending requests, and notifications from agents that
    /// expect a reply.
    RequestsOnly,
    /// Every new message, request, secret offer and notification from an agent.
    #[default]
    Everything,
    /// No banners (everything still arrives in the inbox).
    Nothing,
}

/// This device's notification settings: device-local (a file in the data dir, never sent to
/// the relay), read by the desktop before every banner (docs/desktop-notifications.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
#[ts(export)]
pub struct NotificationSettings {
    pub banners: BannerMode,
    /// Senders whose arrivals get no banner, sound or speech: connection ids (`con_…`), agent
    /// key and connector ids. Sorted, without repeats.
    pub muted: Vec<String>,
    /// Banners play a sound (one for "needs your reply", another for "new message").
    pub sound: bool,
    /// Banners show what arrived (a message's title, an agent's text). Off: only the sender
    /// and "New message" or "Needs your reply".
    pub previews: bool,
}

impl Default for NotificationSettings {
    fn default() -> Self {
        NotificationSettings {
            banners: BannerMode::Everything,
            muted: Vec::new(),
            sound: true,
            previews: true,
        }
    }
}

/// An agent key (not revoked), as listed in Settings → Agents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AgentKeyView {
    pub id: String,
    pub name: String,
    pub created_at: String,
}

/// A new agent key: `key` (`hrk_…`) is shown once and never stored on this device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct NewAgentKey {
    pub id: String,
    pub name: String,
    pub key: String,
    pub created_at: String,
    /// The relay URL agents use with it.
    pub relay_url: String,
}

/// A connector (an MCP client approved by user code), not revoked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConnectorView {
    pub id: String,
    pub name: String,
    /// The OAuth client id it gave.
    pub client_id: String,
    /// Whether it has collected its token yet.
    pub token_issued: bool,
    pub created_at: String,
}
