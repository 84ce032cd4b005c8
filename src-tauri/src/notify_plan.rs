//! What an OS notification says and offers, decided without Tauri (unit-tested here).
//!
//! A request's banner carries the sender's name as its title and the request's title as its
//! body — never the body text, form values, secret fields or a secret offer's content: a
//! banner is readable on a locked screen and by anything that watches the notification bus.
//! Its buttons are the request's actions (at most [`MAX_BUTTONS`]) when the notification
//! server can show buttons (`GetCapabilities` lists `actions`) and the request can be answered
//! with one press (it has actions and does not ask to be reviewed first). Otherwise the banner
//! has no buttons, says so, and a click on it opens the request in the window.
//!
//! A notification from an agent (not end-to-end encrypted; the relay saw it) gets a banner
//! with the agent's name as its title and its own title and text as the body, cut to
//! [`MAX_BANNER_TEXT`] characters, and no buttons: agents cannot send any.
//!
//! A backlog (more than [`SUMMARY_THRESHOLD`] new items arriving together, e.g. after a long
//! time offline) becomes one summary banner ("5 new requests") instead of a flood.

use herald_client::notification_view::NotificationView;
use herald_client::view::{MessageStatus, MessageSummary, MessageView};

/// How many action buttons a banner shows at most; the rest are answered in the app.
pub const MAX_BUTTONS: usize = 3;
/// More new requests than this in one batch are announced by one summary banner.
pub const SUMMARY_THRESHOLD: usize = 3;
/// The second line of a banner without buttons.
pub const OPEN_TO_ANSWER: &str = "Open Herald to answer.";
/// The second line of a banner whose sender asked for a review before answering.
pub const OPEN_TO_REVIEW: &str = "Open Herald to review and answer.";

/// Longest text of an agent notification's banner body, in characters (an ellipsis ends a
/// longer one); the whole text is in the app.
pub const MAX_BANNER_TEXT: usize = 300;

/// What a click on a banner opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A request (`msg_…`); buttons answer it.
    Message(String),
    /// A notification from an agent (`ntf_…`).
    Notification(String),
    /// The inbox (a summary banner).
    Inbox,
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
}

/// Something new that may get a banner.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A request waiting for an answer.
    Request(MessageSummary),
    /// A notification from an agent.
    Agent(NotificationView),
}

impl Item {
    /// The message's or notification's id.
    pub fn id(&self) -> &str {
        match self {
            Item::Request(m) => &m.id,
            Item::Agent(n) => &n.id,
        }
    }

    fn sender(&self) -> &str {
        match self {
            Item::Request(m) => &m.sender_name,
            Item::Agent(n) => &n.source_name,
        }
    }
}

/// What a batch of new items turns into.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// One banner per item.
    Each(Vec<Item>),
    /// One summary banner for all of them.
    Summary(Banner),
}

/// Decides between one banner each and one summary banner.
pub fn plan(batch: Vec<Item>) -> Plan {
    if batch.len() > SUMMARY_THRESHOLD {
        Plan::Summary(summary_banner(&batch))
    } else {
        Plan::Each(batch)
    }
}

/// The banner of one request. `view` is its full view when the core could open it (for its
/// actions); `buttons_shown` is whether the notification server shows action buttons.
pub fn request_banner(
    message: &MessageSummary,
    view: Option<&MessageView>,
    buttons_shown: bool,
) -> Banner {
    let review = view.is_some_and(|v| v.requires_review);
    let buttons: Vec<(String, String)> = match view {
        Some(view) if buttons_shown && !review && message.status == MessageStatus::Pending => view
            .actions
            .iter()
            .take(MAX_BUTTONS)
            .map(|a| (a.id.clone(), a.label.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let body = if !buttons.is_empty() {
        message.title.clone()
    } else if review {
        format!("{}\n{OPEN_TO_REVIEW}", message.title)
    } else {
        format!("{}\n{OPEN_TO_ANSWER}", message.title)
    };
    Banner {
        title: message.sender_name.clone(),
        body,
        buttons,
        target: Target::Message(message.id.clone()),
    }
}

/// The banner of a notification from an agent: its name, then the title and text.
pub fn agent_banner(notification: &NotificationView) -> Banner {
    let mut text = notification.title.clone();
    for part in [&notification.subtitle, &notification.body]
        .into_iter()
        .flatten()
    {
        if !part.trim().is_empty() {
            text.push('\n');
            text.push_str(part.trim());
        }
    }
    Banner {
        title: notification.source_name.clone(),
        body: shorten(&text, MAX_BANNER_TEXT),
        buttons: Vec::new(),
        target: Target::Notification(notification.id.clone()),
    }
}

/// What is read aloud for a notification: its title, subtitle and text, as the agent wrote
/// them, each ending a sentence.
pub fn speech_text(notification: &NotificationView) -> String {
    [
        Some(&notification.title),
        notification.subtitle.as_ref(),
        notification.body.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|part| part.trim())
    .filter(|part| !part.is_empty())
    .map(|part| {
        if part.ends_with(['.', '!', '?']) {
            part.to_owned()
        } else {
            format!("{part}.")
        }
    })
    .collect::<Vec<_>>()
    .join(" ")
}

/// The text escaped for a notification server that reads bodies as markup (the
/// freedesktop `body-markup` capability: a subset of HTML with `<b>`, `<a href>`, `<img>`):
/// `&`, `<` and `>` become entities, so an agent's title such as `<img src="https://…">`
/// is shown as text and never fetched or linked.
pub fn escape_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// The one banner for a backlog: "5 new requests", from whom, and where to answer them.
pub fn summary_banner(batch: &[Item]) -> Banner {
    let mut senders: Vec<&str> = Vec::new();
    for item in batch {
        if !senders.contains(&item.sender()) {
            senders.push(item.sender());
        }
    }
    let requests = batch
        .iter()
        .filter(|i| matches!(i, Item::Request(_)))
        .count();
    let what = if requests == batch.len() {
        "requests"
    } else if requests == 0 {
        "notifications"
    } else {
        "requests and notifications"
    };
    let from = match senders.as_slice() {
        [] => String::new(),
        [one] => format!("From {one}. "),
        [a, b] => format!("From {a} and {b}. "),
        [a, b, rest @ ..] => format!(
            "From {a}, {b} and {} other{}. ",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ),
    };
    let next = if requests == 0 {
        "Open Herald to read them."
    } else {
        OPEN_TO_ANSWER
    };
    Banner {
        title: format!("{} new {what}", batch.len()),
        body: format!("{from}{next}"),
        buttons: Vec::new(),
        target: Target::Inbox,
    }
}

#[cfg(test)]
mod tests {
    use herald_client::view::{
        ActionView, FieldKind, FieldView, FormSource, MessageKind, MessageSummary, MessageView,
    };

    use super::*;

    fn summary(id: &str, sender: &str, title: &str) -> MessageSummary {
        MessageSummary {
            id: id.into(),
            revision: 1,
            title: title.into(),
            sender_name: sender.into(),
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

    fn action(id: &str, label: &str) -> ActionView {
        ActionView {
            id: id.into(),
            label: label.into(),
        }
    }

    fn view(message: &MessageSummary, actions: Vec<ActionView>, review: bool) -> MessageView {
        MessageView {
            summary: message.clone(),
            kind: message.kind,
            body_html: "<p>the token is <code>stg-7Hq2-x9Lm</code></p>".into(),
            body_markdown: "the token is `stg-7Hq2-x9Lm`".into(),
            actions,
            fields: Vec::new(),
            form_source: FormSource::Fields,
            blocks: Vec::new(),
            requires_review: review,
            answer: None,
            attachments: Vec::new(),
            answer_queued: false,
        }
    }

    #[test]
    fn a_request_with_actions_gets_its_buttons_and_only_its_title() {
        let m = summary("msg_1", "ci-agent", "Deploy v1.2?");
        let v = view(
            &m,
            vec![
                action("approve", "Approve"),
                action("reject", "Reject"),
                action("later", "Later"),
                action("never", "Never"),
            ],
            false,
        );
        let banner = request_banner(&m, Some(&v), true);
        assert_eq!(banner.title, "ci-agent", "the sender is the title");
        assert_eq!(
            banner.body, "Deploy v1.2?",
            "the request's title is the body"
        );
        assert_eq!(
            banner.buttons,
            [
                ("approve", "Approve"),
                ("reject", "Reject"),
                ("later", "Later")
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned())),
            "at most three buttons, in order"
        );
        assert!(
            !banner.body.contains("stg-7Hq2") && !banner.title.contains("stg-7Hq2"),
            "the body text never reaches the banner"
        );
    }

    #[test]
    fn without_button_support_or_with_a_review_the_banner_opens_the_request() {
        let m = summary("msg_1", "ci-agent", "Deploy v1.2?");
        let v = view(&m, vec![action("approve", "Approve")], false);
        let plain = request_banner(&m, Some(&v), false);
        assert!(
            plain.buttons.is_empty(),
            "no buttons without the capability"
        );
        assert_eq!(plain.body, format!("Deploy v1.2?\n{OPEN_TO_ANSWER}"));
        assert_eq!(
            plain.target,
            Target::Message("msg_1".into()),
            "a click opens it"
        );

        let reviewed = request_banner(&m, Some(&view(&m, vec![action("a", "A")], true)), true);
        assert!(
            reviewed.buttons.is_empty(),
            "a review comes before any answer"
        );
        assert!(reviewed.body.ends_with(OPEN_TO_REVIEW));

        let unopened = request_banner(&m, None, true);
        assert!(unopened.buttons.is_empty(), "no view, no buttons");
    }

    #[test]
    fn secret_fields_never_reach_the_banner() {
        let m = summary("msg_2", "ops", "Paste the staging API token");
        let mut v = view(&m, vec![], false);
        v.fields = vec![FieldView {
            id: "token".into(),
            label: "Key for staging".into(),
            kind: FieldKind::Secret,
            required: true,
            help: Some("stg-7Hq2-x9Lm".into()),
            options: Vec::new(),
            default_json: Some("\"stg-7Hq2-x9Lm\"".into()),
            header: None,
            other: false,
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
        }];
        let banner = request_banner(&m, Some(&v), true);
        let shown = format!("{}\n{}", banner.title, banner.body);
        assert!(!shown.contains("stg-7Hq2"), "no secret value: {shown}");
        assert!(
            !shown.contains("Key for staging"),
            "not even the field's label: {shown}"
        );

        let mut offer = summary("msg_3", "ops", "Staging database password");
        offer.kind = MessageKind::Secret;
        offer.expects_answer = false;
        let banner = request_banner(&offer, None, true);
        assert_eq!(
            banner.body,
            format!("Staging database password\n{OPEN_TO_ANSWER}")
        );
    }

    #[test]
    fn markup_in_agent_text_is_escaped_for_markup_servers() {
        assert_eq!(
            escape_markup(r#"Deploy <img src="https://x.test/p"> & <a href="javascript:x">go</a>"#),
            r#"Deploy &lt;img src="https://x.test/p"&gt; &amp; &lt;a href="javascript:x"&gt;go&lt;/a&gt;"#
        );
        assert_eq!(escape_markup("plain text, no tags"), "plain text, no tags");
    }

    #[test]
    fn a_backlog_becomes_one_summary() {
        let few: Vec<_> = (0..SUMMARY_THRESHOLD)
            .map(|i| Item::Request(summary(&format!("msg_{i}"), "ci-agent", "T")))
            .collect();
        assert!(
            matches!(plan(few), Plan::Each(v) if v.len() == SUMMARY_THRESHOLD),
            "up to the threshold, one banner each"
        );
        let many: Vec<_> = [
            summary("msg_1", "ci-agent", "A"),
            summary("msg_2", "deploy-bot", "B"),
            summary("msg_3", "ci-agent", "C"),
            summary("msg_4", "backup", "D"),
            summary("msg_5", "audit", "E"),
        ]
        .into_iter()
        .map(Item::Request)
        .collect();
        let Plan::Summary(banner) = plan(many) else {
            panic!("five new requests are summarized");
        };
        assert_eq!(banner.title, "5 new requests");
        assert_eq!(
            banner.body,
            format!("From ci-agent, deploy-bot and 2 others. {OPEN_TO_ANSWER}")
        );
        assert!(banner.buttons.is_empty() && banner.target == Target::Inbox);

        let mixed: Vec<_> = (0..4)
            .map(|i| Item::Agent(agent(&format!("ntf_{i}"), "Build finished", None)))
            .chain([Item::Request(summary("msg_9", "ci-agent", "Z"))])
            .collect();
        let Plan::Summary(banner) = plan(mixed) else {
            panic!("five new items are summarized");
        };
        assert_eq!(banner.title, "5 new requests and notifications");
        assert_eq!(
            banner.body,
            format!("From build-bot and ci-agent. {OPEN_TO_ANSWER}")
        );
        let Plan::Summary(banner) = plan(
            (0..4)
                .map(|i| Item::Agent(agent(&format!("ntf_{i}"), "T", None)))
                .collect(),
        ) else {
            panic!("four notifications are summarized");
        };
        assert_eq!(banner.title, "4 new notifications");
        assert_eq!(banner.body, "From build-bot. Open Herald to read them.");
    }

    fn agent(id: &str, title: &str, body: Option<&str>) -> NotificationView {
        NotificationView {
            id: id.into(),
            notification_id: "build-214".into(),
            end_to_end: false,
            title: title.into(),
            subtitle: None,
            body: body.map(Into::into),
            speak: true,
            expect_reply: false,
            priority: herald_client::notification_view::NotificationPriority::Normal,
            sound: true,
            group: None,
            thread_id: None,
            source_kind: "agentKey".into(),
            source_name: "build-bot".into(),
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

    #[test]
    fn an_agent_notification_shows_its_text_cut_to_fit_and_no_buttons() {
        let n = agent("ntf_1", "Build finished", Some("All 214 tests passed"));
        let banner = agent_banner(&n);
        assert_eq!(banner.title, "build-bot", "the agent's name is the title");
        assert_eq!(banner.body, "Build finished\nAll 214 tests passed");
        assert!(banner.buttons.is_empty(), "agents cannot send buttons");
        assert_eq!(banner.target, Target::Notification("ntf_1".into()));
        assert_eq!(
            speech_text(&n),
            "Build finished. All 214 tests passed.",
            "read as sentences"
        );

        let long = agent("ntf_2", "Log", Some(&"word ".repeat(200)));
        let body = agent_banner(&long).body;
        assert!(body.chars().count() <= MAX_BANNER_TEXT, "{body}");
        assert!(body.ends_with('…'), "a cut text says so");
    }
}
