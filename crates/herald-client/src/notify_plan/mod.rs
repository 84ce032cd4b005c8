//! Whether and how something new is announced with an OS notification, decided without Tauri
//! (unit-tested here; the desktop shell's `notify` module only runs the decisions). Docs:
//! docs/desktop-notifications.md.
//!
//! - [`banner`]: what a banner says and offers. A banner is readable on a locked screen and by
//!   anything that watches the notification bus, so it carries the sender's name and, with
//!   previews on, a message's title (or an agent's text) — never a message's body, form values,
//!   secret fields or a secret offer's content. With previews off it says only the sender and
//!   "New message" or "Needs your reply".
//! - [`policy`]: whether an item gets a banner now ([`policy::verdict`]: the banner mode, muted
//!   senders, the message on screen in a focused window, quiet hours), its sound
//!   ([`Tone`]), and which earlier banner it replaces (an agent's `threadId` / `group`).
//! - [`quiet`]: quiet hours judged on this device (the relay's rule, in the configured IANA
//!   zone), when they end, and the one summary of what they held back.
//! - [`viewing`]: which message the window shows and whether it has the focus, as the UI
//!   reports it (`ui_viewing`).

pub mod banner;
pub mod policy;
pub mod quiet;
pub mod viewing;

use crate::notification_view::NotificationView;
use crate::view::{MessageStatus, MessageSummary};

pub use banner::{escape_markup, plan, speech_text, Plan};

/// What a click on a banner opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A message (`msg_…`); buttons answer it.
    Message(String),
    /// A notification from an agent (`ntf_…`).
    Notification(String),
    /// The inbox (a summary banner).
    Inbox,
}

/// The sound a banner plays: "needs your reply" is the more insistent of the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tone {
    /// Something new to read.
    NewMessage,
    /// Something waits for an answer.
    NeedsReply,
}

/// One banner to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banner {
    /// The notification's summary line.
    pub title: String,
    /// The notification's body.
    pub body: String,
    /// Buttons as (action id, label), in the request's order.
    pub buttons: Vec<(String, String)>,
    /// What a click (or a button) refers to.
    pub target: Target,
    /// The sound, or none.
    pub tone: Option<Tone>,
    /// A banner shown earlier with the same key is closed first (an agent's thread or group).
    pub replaces: Option<String>,
}

/// Something new that may get a banner.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A message, a request or a secret offer (end-to-end encrypted).
    Message(MessageSummary),
    /// A notification from an agent (not end-to-end encrypted).
    Agent(NotificationView),
}

/// How summaries count items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Category {
    Request,
    Message,
    Notification,
}

impl Item {
    /// The message's or notification's id.
    pub fn id(&self) -> &str {
        match self {
            Item::Message(m) => &m.id,
            Item::Agent(n) => &n.id,
        }
    }

    /// The sender's name (a connection, an agent key or a connector).
    pub fn sender(&self) -> &str {
        match self {
            Item::Message(m) => &m.sender_name,
            Item::Agent(n) => &n.source_name,
        }
    }

    /// The sender's id, which Settings mutes by (unknown for rows cached before it was kept).
    pub fn sender_id(&self) -> Option<&str> {
        match self {
            Item::Message(m) => m.sender_id.as_deref(),
            Item::Agent(n) => n.source_id.as_deref(),
        }
    }

    /// Whether it waits for the person's answer: a pending request (the relay's
    /// `expectsAnswer`, which it sees without decrypting), or an agent's `expectReply`.
    pub fn needs_reply(&self) -> bool {
        match self {
            Item::Message(m) => m.expects_answer && m.status == MessageStatus::Pending,
            Item::Agent(n) => n.expect_reply && n.reply.is_none(),
        }
    }

    /// Whether this device could not read it (then a banner says nothing of its content).
    pub fn unreadable(&self) -> bool {
        match self {
            Item::Message(m) => m.error.is_some(),
            Item::Agent(n) => n.error.is_some(),
        }
    }

    fn category(&self) -> Category {
        match self {
            Item::Message(_) if self.needs_reply() => Category::Request,
            Item::Message(_) => Category::Message,
            Item::Agent(_) => Category::Notification,
        }
    }
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Items for the tests of every part of the plan.

    use crate::notification_view::{NotificationPriority, NotificationView};
    use crate::view::{MessageKind, MessageStatus, MessageSummary};

    /// A pending request from `sender` (its id `con_<sender>`).
    pub fn request(id: &str, sender: &str, title: &str) -> MessageSummary {
        MessageSummary {
            id: id.into(),
            revision: 1,
            title: title.into(),
            sender_name: sender.into(),
            sender_id: Some(format!("con_{sender}")),
            created_at: "2026-01-01T00:00:00Z".into(),
            expires_at: None,
            status: MessageStatus::Pending,
            expects_answer: true,
            unread: true,
            error: None,
            thread_id: id.into(),
            thread_sequence: 0,
            reply_to: None,
            kind: MessageKind::Message,
        }
    }

    /// A plain message (asks nothing).
    pub fn message(id: &str, sender: &str, title: &str) -> MessageSummary {
        MessageSummary {
            status: MessageStatus::Delivered,
            expects_answer: false,
            ..request(id, sender, title)
        }
    }

    /// A secret offer.
    pub fn offer(id: &str, sender: &str, title: &str) -> MessageSummary {
        MessageSummary {
            kind: MessageKind::Secret,
            ..message(id, sender, title)
        }
    }

    /// A notification from the agent key "build-bot" (`agk_build-bot`).
    pub fn agent(id: &str, title: &str, body: Option<&str>) -> NotificationView {
        NotificationView {
            id: id.into(),
            notification_id: "build-214".into(),
            end_to_end: false,
            title: title.into(),
            subtitle: None,
            body: body.map(Into::into),
            speak: true,
            expect_reply: false,
            priority: NotificationPriority::Normal,
            sound: true,
            group: None,
            thread_id: None,
            source_kind: "agentKey".into(),
            source_name: "build-bot".into(),
            source_id: Some("agk_build-bot".into()),
            received_at: "2026-10-02T13:00:04.000Z".into(),
            displayed_at: None,
            spoken_at: None,
            replied_at: None,
            reply: None,
            suppressed: false,
            unread: true,
            error: None,
            revision: 1,
        }
    }
}
