//! What a banner says and offers.
//!
//! A message's banner has the sender's name as its title. Its body, with previews on, is the
//! message's title — never its body text, form values, secret fields or a secret offer's
//! content — and, for a request, the request's actions as buttons (at most [`MAX_BUTTONS`])
//! when the notification server shows buttons and the request can be answered with one press
//! (it has actions and asks for no review first); otherwise a line saying where to answer.
//! With previews off, or for a message this device could not read, the body is only
//! [`NEEDS_YOUR_REPLY`] or [`NEW_MESSAGE`] (the wording of the product's documentation for
//! what the device has not decrypted) and there are no buttons: an answer is never given to
//! something the banner did not show.
//!
//! A notification from an agent (not end-to-end encrypted; the relay saw it) has the agent's
//! name as its title and, with previews on, its own title and text as the body, cut to
//! [`MAX_BANNER_TEXT`] characters, and no buttons: agents cannot send any.
//!
//! A backlog (more than [`SUMMARY_THRESHOLD`] items arriving together, e.g. after a long time
//! offline) becomes one summary banner ("5 new requests and messages") instead of a flood.
//! Summaries name senders and count items; they never quote a title.

use crate::notification_view::{NotificationSettings, NotificationView};
use crate::view::{MessageKind, MessageStatus, MessageSummary, MessageView};

use super::{policy, Banner, Category, Item, Target};

/// How many action buttons a banner shows at most; the rest are answered in the app.
pub const MAX_BUTTONS: usize = 3;
/// More new items than this in one batch are announced by one summary banner.
pub const SUMMARY_THRESHOLD: usize = 3;
/// The second line of a request's banner without buttons.
pub const OPEN_TO_ANSWER: &str = "Open Herald to answer.";
/// The second line of a banner whose sender asked for a review before answering.
pub const OPEN_TO_REVIEW: &str = "Open Herald to review and answer.";
/// The second line of a secret offer's banner.
pub const OPEN_TO_RECEIVE: &str = "Open Herald to receive the secret.";
/// The body of a banner without a preview, for something that asks for an answer.
pub const NEEDS_YOUR_REPLY: &str = "Needs your reply";
/// The body of a banner without a preview, for anything else.
pub const NEW_MESSAGE: &str = "New message";

/// Longest text of an agent notification's banner body, in characters (an ellipsis ends a
/// longer one); the whole text is in the app.
pub const MAX_BANNER_TEXT: usize = 300;

/// What a batch of new items turns into.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// One banner per item.
    Each(Vec<Item>),
    /// One summary banner for all of them.
    Summary(Banner),
}

/// Decides between one banner each and one summary banner.
pub fn plan(batch: Vec<Item>, settings: &NotificationSettings) -> Plan {
    if batch.len() > SUMMARY_THRESHOLD {
        Plan::Summary(summary_banner(&batch, settings))
    } else {
        Plan::Each(batch)
    }
}

/// The banner of one item. `view` is a request's full view when the core could open it (for
/// its actions); `buttons_shown` is whether the notification server shows action buttons.
pub fn banner(
    item: &Item,
    view: Option<&MessageView>,
    buttons_shown: bool,
    settings: &NotificationSettings,
) -> Banner {
    let (body, buttons, target) = match item {
        Item::Message(message) => {
            let (body, buttons) = message_body(message, view, buttons_shown, settings.previews);
            (body, buttons, Target::Message(message.id.clone()))
        }
        Item::Agent(notification) => (
            agent_body(notification, settings.previews),
            Vec::new(),
            Target::Notification(notification.id.clone()),
        ),
    };
    Banner {
        title: item.sender().to_owned(),
        body,
        buttons,
        target,
        tone: policy::tone(item, settings),
        replaces: policy::replaces(item),
    }
}

/// The body and buttons of a message's banner.
fn message_body(
    message: &MessageSummary,
    view: Option<&MessageView>,
    buttons_shown: bool,
    previews: bool,
) -> (String, Vec<(String, String)>) {
    let needs_reply = message.expects_answer && message.status == MessageStatus::Pending;
    if !previews || message.error.is_some() {
        let body = if needs_reply {
            NEEDS_YOUR_REPLY
        } else {
            NEW_MESSAGE
        };
        return (body.to_owned(), Vec::new());
    }
    if message.kind == MessageKind::Secret {
        return (format!("{}\n{OPEN_TO_RECEIVE}", message.title), Vec::new());
    }
    if !needs_reply {
        return (message.title.clone(), Vec::new());
    }
    let review = view.is_some_and(|v| v.requires_review);
    let buttons: Vec<(String, String)> = match view {
        Some(view) if buttons_shown && !review => view
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
    (body, buttons)
}

/// The body of an agent notification's banner: its title and text, or without previews (or
/// when it could not be read) only whether it expects a reply.
fn agent_body(notification: &NotificationView, previews: bool) -> String {
    if !previews || notification.error.is_some() {
        let body = if notification.expect_reply {
            NEEDS_YOUR_REPLY
        } else {
            NEW_MESSAGE
        };
        return body.to_owned();
    }
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
    shorten(&text, MAX_BANNER_TEXT)
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

/// The one banner for a backlog: "5 new requests and messages", from whom, and what next.
pub fn summary_banner(batch: &[Item], settings: &NotificationSettings) -> Banner {
    let mut kinds: Vec<&str> = Vec::new();
    for (category, plural) in [
        (Category::Request, "requests"),
        (Category::Message, "messages"),
        (Category::Notification, "notifications"),
    ] {
        if batch.iter().any(|i| i.category() == category) {
            kinds.push(plural);
        }
    }
    Banner {
        title: format!("{} new {}", batch.len(), join(&kinds)),
        body: format!("{}{}", from(batch, ". "), next_step(batch)),
        buttons: Vec::new(),
        target: Target::Inbox,
        tone: summary_tone(batch, settings),
        replaces: None,
    }
}

/// The one banner when quiet hours end: how many of each arrived, from whom.
pub fn quiet_summary(held: &[Item], settings: &NotificationSettings) -> Banner {
    let mut counts: Vec<String> = Vec::new();
    for (category, one, many) in [
        (Category::Request, "request", "requests"),
        (Category::Message, "message", "messages"),
        (Category::Notification, "notification", "notifications"),
    ] {
        match held.iter().filter(|i| i.category() == category).count() {
            0 => {}
            1 => counts.push(format!("1 {one}")),
            n => counts.push(format!("{n} {many}")),
        }
    }
    let counts: Vec<&str> = counts.iter().map(String::as_str).collect();
    let senders = from(held, "");
    let senders = senders.strip_prefix("From ").unwrap_or(&senders);
    Banner {
        title: format!("{} new during quiet hours", held.len()),
        body: format!("{} from {senders}. {}", join(&counts), next_step(held)),
        buttons: Vec::new(),
        target: Target::Inbox,
        tone: summary_tone(held, settings),
        replaces: None,
    }
}

/// A summary sounds like the most insistent of its items.
fn summary_tone(items: &[Item], settings: &NotificationSettings) -> Option<super::Tone> {
    items.iter().filter_map(|i| policy::tone(i, settings)).max()
}

fn next_step(items: &[Item]) -> &'static str {
    if items.iter().any(|i| i.category() == Category::Request) {
        OPEN_TO_ANSWER
    } else {
        "Open Herald to read them."
    }
}

/// "From a, b and 2 others" followed by `end`; empty without items.
fn from(items: &[Item], end: &str) -> String {
    let mut senders: Vec<&str> = Vec::new();
    for item in items {
        if !senders.contains(&item.sender()) {
            senders.push(item.sender());
        }
    }
    let names = match senders.as_slice() {
        [] => return String::new(),
        [one] => (*one).to_owned(),
        [a, b] => format!("{a} and {b}"),
        [a, b, rest @ ..] => format!(
            "{a}, {b} and {} other{}",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ),
    };
    format!("From {names}{end}")
}

/// "a", "a and b", "a, b and c".
fn join(parts: &[&str]) -> String {
    match parts {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use crate::view::{ActionView, FieldKind, FieldView, FormSource};

    use super::super::fixtures::{agent, message, offer, request};
    use super::super::Tone;
    use super::*;

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

    fn settings(previews: bool) -> NotificationSettings {
        NotificationSettings {
            previews,
            ..Default::default()
        }
    }

    fn shown(banner: &Banner) -> String {
        let buttons: Vec<&str> = banner.buttons.iter().map(|(_, l)| l.as_str()).collect();
        format!("{}\n{}\n{}", banner.title, banner.body, buttons.join("|"))
    }

    #[test]
    fn a_request_with_actions_gets_its_buttons_and_only_its_title() {
        let m = request("msg_1", "ci-agent", "Deploy v1.2?");
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
        let banner = banner(&Item::Message(m), Some(&v), true, &settings(true));
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
            !shown(&banner).contains("stg-7Hq2"),
            "the body text never reaches the banner"
        );
    }

    #[test]
    fn without_button_support_or_with_a_review_the_banner_opens_the_request() {
        let m = request("msg_1", "ci-agent", "Deploy v1.2?");
        let item = Item::Message(m.clone());
        let v = view(&m, vec![action("approve", "Approve")], false);
        let plain = banner(&item, Some(&v), false, &settings(true));
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

        let reviewed = view(&m, vec![action("a", "A")], true);
        let reviewed = banner(&item, Some(&reviewed), true, &settings(true));
        assert!(
            reviewed.buttons.is_empty(),
            "a review comes before any answer"
        );
        assert!(reviewed.body.ends_with(OPEN_TO_REVIEW));

        let unopened = banner(&item, None, true, &settings(true));
        assert!(unopened.buttons.is_empty(), "no view, no buttons");
    }

    #[test]
    fn secret_fields_and_secret_offers_never_reach_the_banner() {
        let m = request("msg_2", "ops", "Paste the staging API token");
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
        for previews in [true, false] {
            let text = shown(&banner(
                &Item::Message(m.clone()),
                Some(&v),
                true,
                &settings(previews),
            ));
            assert!(!text.contains("stg-7Hq2"), "no secret value: {text}");
            assert!(
                !text.contains("Key for staging"),
                "not even the field's label: {text}"
            );
        }

        let o = offer("msg_3", "ops", "Staging database password");
        let with = banner(&Item::Message(o.clone()), None, true, &settings(true));
        assert_eq!(
            with.body,
            format!("Staging database password\n{OPEN_TO_RECEIVE}"),
            "an offer shows its title and where to receive it"
        );
        let without = banner(&Item::Message(o), None, true, &settings(false));
        assert_eq!(without.body, NEW_MESSAGE, "an offer asks for no answer");
    }

    #[test]
    fn a_plain_message_shows_its_title_and_never_its_body() {
        let m = message("msg_4", "ci-agent", "Nightly build is green");
        let banner = banner(&Item::Message(m), None, true, &settings(true));
        assert_eq!(banner.title, "ci-agent");
        assert_eq!(banner.body, "Nightly build is green", "the title only");
        assert!(banner.buttons.is_empty(), "nothing to answer");
        assert_eq!(banner.target, Target::Message("msg_4".into()));
        assert_eq!(banner.tone, Some(Tone::NewMessage));
    }

    /// Without previews the banner says what the relay could say without decrypting: the
    /// sender and "New message" or "Needs your reply". No title, no buttons (an answer is
    /// never given to something the banner did not show).
    #[test]
    fn without_previews_only_the_sender_and_what_it_wants() {
        let r = request("msg_1", "ci-agent", "Deploy v1.2?");
        let v = view(&r, vec![action("approve", "Approve")], false);
        let cases = [
            (Item::Message(r.clone()), Some(&v), NEEDS_YOUR_REPLY),
            (
                Item::Message(message("msg_2", "ci-agent", "Build green")),
                None,
                NEW_MESSAGE,
            ),
            (
                Item::Message(offer("msg_3", "ci-agent", "DB password")),
                None,
                NEW_MESSAGE,
            ),
            (
                Item::Agent(agent("ntf_1", "Build finished", Some("All passed"))),
                None,
                NEW_MESSAGE,
            ),
            (
                Item::Agent({
                    let mut n = agent("ntf_2", "Ship it?", Some("Say yes"));
                    n.expect_reply = true;
                    n
                }),
                None,
                NEEDS_YOUR_REPLY,
            ),
        ];
        for (item, view, body) in cases {
            let banner = banner(&item, view, true, &settings(false));
            assert_eq!(banner.title, item.sender(), "{}: the sender", item.id());
            assert_eq!(banner.body, body, "{}: nothing else", item.id());
            assert!(banner.buttons.is_empty(), "{}: no buttons", item.id());
        }
    }

    #[test]
    fn an_unreadable_message_says_only_what_the_relay_knows() {
        let mut m = request("msg_5", "ci-agent", "Unreadable message");
        m.error = Some("bad signature".into());
        let banner = banner(&Item::Message(m), None, true, &settings(true));
        assert_eq!(banner.body, NEEDS_YOUR_REPLY, "even with previews on");
        assert!(banner.buttons.is_empty());
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
        let all = NotificationSettings::default();
        let few: Vec<_> = (0..SUMMARY_THRESHOLD)
            .map(|i| Item::Message(request(&format!("msg_{i}"), "ci-agent", "T")))
            .collect();
        assert!(
            matches!(plan(few, &all), Plan::Each(v) if v.len() == SUMMARY_THRESHOLD),
            "up to the threshold, one banner each"
        );
        let many: Vec<_> = [
            request("msg_1", "ci-agent", "A"),
            request("msg_2", "deploy-bot", "B"),
            request("msg_3", "ci-agent", "C"),
            request("msg_4", "backup", "D"),
            request("msg_5", "audit", "E"),
        ]
        .into_iter()
        .map(Item::Message)
        .collect();
        let Plan::Summary(banner) = plan(many, &all) else {
            panic!("five new requests are summarized");
        };
        assert_eq!(banner.title, "5 new requests");
        assert_eq!(
            banner.body,
            format!("From ci-agent, deploy-bot and 2 others. {OPEN_TO_ANSWER}")
        );
        assert!(banner.buttons.is_empty() && banner.target == Target::Inbox);
        assert_eq!(banner.tone, Some(Tone::NeedsReply), "the insistent sound");

        let mixed: Vec<_> = (0..3)
            .map(|i| Item::Agent(agent(&format!("ntf_{i}"), "Build finished", None)))
            .chain([
                Item::Message(request("msg_9", "ci-agent", "Z")),
                Item::Message(message("msg_8", "ci-agent", "Y")),
            ])
            .collect();
        let Plan::Summary(banner) = plan(mixed, &all) else {
            panic!("five new items are summarized");
        };
        assert_eq!(banner.title, "5 new requests, messages and notifications");
        assert_eq!(
            banner.body,
            format!("From build-bot and ci-agent. {OPEN_TO_ANSWER}")
        );
        let Plan::Summary(banner) = plan(
            (0..4)
                .map(|i| Item::Message(message(&format!("msg_{i}"), "ci-agent", "T")))
                .collect(),
            &NotificationSettings {
                sound: false,
                ..all.clone()
            },
        ) else {
            panic!("four messages are summarized");
        };
        assert_eq!(banner.title, "4 new messages");
        assert_eq!(banner.body, "From ci-agent. Open Herald to read them.");
        assert_eq!(banner.tone, None, "sound off: a silent summary");
    }

    #[test]
    fn the_quiet_hours_summary_counts_each_kind_and_quotes_nothing() {
        let all = NotificationSettings::default();
        let held = [
            Item::Message(request("msg_1", "ci-agent", "Deploy v1.2?")),
            Item::Message(request("msg_2", "deploy-bot", "Roll back?")),
            Item::Message(message("msg_3", "ci-agent", "Nightly green")),
            Item::Agent(agent("ntf_1", "Backup done", Some("42 GB"))),
        ];
        let banner = quiet_summary(&held, &all);
        assert_eq!(banner.title, "4 new during quiet hours");
        assert_eq!(
            banner.body,
            format!(
                "2 requests, 1 message and 1 notification from ci-agent, deploy-bot and 1 other. {OPEN_TO_ANSWER}"
            )
        );
        assert_eq!(banner.target, Target::Inbox, "a click opens the inbox");
        for title in ["Deploy", "Roll back", "Nightly", "Backup", "42 GB"] {
            assert!(!shown(&banner).contains(title), "no title or text: {title}");
        }
        let one = quiet_summary(&held[3..], &all);
        assert_eq!(one.title, "1 new during quiet hours");
        assert_eq!(
            one.body,
            "1 notification from build-bot. Open Herald to read them."
        );
        assert_eq!(one.tone, Some(Tone::NewMessage));
    }

    #[test]
    fn an_agent_notification_shows_its_text_cut_to_fit_and_no_buttons() {
        let n = agent("ntf_1", "Build finished", Some("All 214 tests passed"));
        let all = NotificationSettings::default();
        let banner = banner(&Item::Agent(n.clone()), None, true, &all);
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
        let body = super::banner(&Item::Agent(long), None, true, &all).body;
        assert!(body.chars().count() <= MAX_BANNER_TEXT, "{body}");
        assert!(body.ends_with('…'), "a cut text says so");
    }
}
