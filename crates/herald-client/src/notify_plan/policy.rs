//! Whether an item gets a banner now, which sound it plays, and which earlier banner it
//! replaces.
//!
//! The checks, in order: the banner mode (everything, requests only, nothing), a muted sender,
//! the item itself on screen in a focused window (the person is reading it), then quiet hours
//! (the relay's `suppressed` on arrival, or quiet hours holding now): held back, and counted
//! in the one summary shown when they end. Nothing else keeps a banner away — not an open
//! window, not a connected socket: a window that is open but not focused, or focused on
//! another message, still gets the banner.
//!
//! Sound: "needs your reply" and "new message" play different sounds ([`sound_name`] per
//! platform); sound off in Settings plays none. An agent's `sound: false` or `priority: low`
//! plays none, `priority: high` plays the "needs your reply" sound.

use crate::notification_view::{
    BannerMode, NotificationPriority, NotificationReceiptKind, NotificationSettings,
};

use super::{Item, Tone};

/// Whether an item gets its banner now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A banner now.
    Show,
    /// Quiet hours: no banner and no sound now; counted in the summary when they end.
    Held,
    /// No banner, and why.
    Skip(Skip),
}

/// Why an item gets no banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Settings: banners for nothing.
    BannersOff,
    /// Settings: banners for requests only, and this asks for no answer.
    NotARequest,
    /// Settings: its sender is muted.
    Muted,
    /// It is on screen in a focused window: the person is reading it.
    OnScreen,
}

/// Decides for one item. `quiet`: quiet hours hold now; `on_screen`: this very item is open in
/// a focused window (`OnScreen::shows`).
pub fn verdict(
    item: &Item,
    settings: &NotificationSettings,
    quiet: bool,
    on_screen: bool,
) -> Verdict {
    match settings.banners {
        BannerMode::Nothing => return Verdict::Skip(Skip::BannersOff),
        BannerMode::RequestsOnly if !item.needs_reply() => return Verdict::Skip(Skip::NotARequest),
        BannerMode::RequestsOnly | BannerMode::Everything => {}
    }
    if item
        .sender_id()
        .is_some_and(|id| settings.muted.iter().any(|m| m == id))
    {
        return Verdict::Skip(Skip::Muted);
    }
    if on_screen {
        return Verdict::Skip(Skip::OnScreen);
    }
    let held_by_relay = matches!(item, Item::Agent(n) if n.suppressed);
    if quiet || held_by_relay {
        return Verdict::Held;
    }
    Verdict::Show
}

impl Verdict {
    /// The receipt an agent's notification gets for this verdict before any banner: neither
    /// banner nor speech is `suppressed` (quiet hours, or this device's settings). A shown
    /// banner reports `displayed` once the server took it; one on screen is reported by the
    /// window (`notification_seen`).
    pub fn receipt(self) -> Option<NotificationReceiptKind> {
        match self {
            Verdict::Held | Verdict::Skip(Skip::BannersOff | Skip::NotARequest | Skip::Muted) => {
                Some(NotificationReceiptKind::Suppressed)
            }
            Verdict::Show | Verdict::Skip(Skip::OnScreen) => None,
        }
    }
}

/// The sound of an item's banner, or none.
pub fn tone(item: &Item, settings: &NotificationSettings) -> Option<Tone> {
    if !settings.sound {
        return None;
    }
    match item {
        Item::Message(_) if item.needs_reply() => Some(Tone::NeedsReply),
        Item::Message(_) => Some(Tone::NewMessage),
        Item::Agent(n) if !n.sound || n.priority == NotificationPriority::Low => None,
        Item::Agent(n) if item.needs_reply() || n.priority == NotificationPriority::High => {
            Some(Tone::NeedsReply)
        }
        Item::Agent(_) => Some(Tone::NewMessage),
    }
}

/// The name the notification plugin passes to notify-rust's `sound_name` on `os`
/// (`std::env::consts::OS`): a freedesktop sound-naming name on Linux and the BSDs (the
/// `sound-name` hint; the sound theme plays it), a system sound on macOS (`NSUserNotification`
/// `soundName`), a toast sound on Windows (tauri-winrt-notification's `Sound`).
pub fn sound_name(tone: Tone, os: &str) -> &'static str {
    match (os, tone) {
        ("macos", Tone::NeedsReply) => "Glass",
        ("macos", Tone::NewMessage) => "NSUserNotificationDefaultSoundName",
        ("windows", Tone::NeedsReply) => "Reminder",
        ("windows", Tone::NewMessage) => "Default",
        (_, Tone::NeedsReply) => "window-attention",
        (_, Tone::NewMessage) => "message-new-instant",
    }
}

/// The key under which an agent's banner replaces the one shown before it: its `threadId`,
/// else its `group`, within the same agent (two agents never replace each other's banners).
pub fn replaces(item: &Item) -> Option<String> {
    let Item::Agent(n) = item else {
        return None;
    };
    let key = match (&n.thread_id, &n.group) {
        (Some(thread), _) => format!("thread:{thread}"),
        (None, Some(group)) => format!("group:{group}"),
        (None, None) => return None,
    };
    let source = n.source_id.as_deref().unwrap_or(&n.source_name);
    Some(format!("{source}/{key}"))
}

#[cfg(test)]
mod tests {
    use super::super::banner::{banner, NEEDS_YOUR_REPLY, NEW_MESSAGE};
    use super::super::fixtures::{agent, message, offer, request};
    use super::*;

    /// One of each kind that can arrive.
    fn kinds() -> Vec<(&'static str, Item)> {
        let mut asking = agent("ntf_2", "Ship it?", Some("Say yes or no"));
        asking.expect_reply = true;
        vec![
            (
                "request",
                Item::Message(request("msg_1", "ci-agent", "Deploy v1.2?")),
            ),
            (
                "message",
                Item::Message(message("msg_2", "ci-agent", "Nightly green")),
            ),
            (
                "offer",
                Item::Message(offer("msg_3", "ci-agent", "DB password")),
            ),
            (
                "notification",
                Item::Agent(agent("ntf_1", "Build finished", Some("All passed"))),
            ),
            ("notification asking a reply", Item::Agent(asking)),
        ]
    }

    /// Every combination of banner mode, kind, mute, previews, quiet hours and on-screen:
    /// the verdict follows the order mode → mute → on screen → quiet hours, and a banner that
    /// is shown says exactly what the previews setting allows.
    #[test]
    fn every_case_of_mode_kind_mute_previews_quiet_and_screen() {
        let modes = [
            BannerMode::Everything,
            BannerMode::RequestsOnly,
            BannerMode::Nothing,
        ];
        let mut cases = 0;
        for mode in modes {
            for (kind, item) in kinds() {
                for muted in [false, true] {
                    for previews in [true, false] {
                        for quiet in [false, true] {
                            for on_screen in [false, true] {
                                cases += 1;
                                let settings = NotificationSettings {
                                    banners: mode,
                                    muted: if muted {
                                        vec![item.sender_id().unwrap().to_owned()]
                                    } else {
                                        vec!["con_someone-else".into()]
                                    },
                                    sound: true,
                                    previews,
                                };
                                let case = format!(
                                    "{mode:?} {kind} muted={muted} previews={previews} quiet={quiet} on_screen={on_screen}"
                                );
                                let want = if mode == BannerMode::Nothing {
                                    Verdict::Skip(Skip::BannersOff)
                                } else if mode == BannerMode::RequestsOnly && !item.needs_reply() {
                                    Verdict::Skip(Skip::NotARequest)
                                } else if muted {
                                    Verdict::Skip(Skip::Muted)
                                } else if on_screen {
                                    Verdict::Skip(Skip::OnScreen)
                                } else if quiet {
                                    Verdict::Held
                                } else {
                                    Verdict::Show
                                };
                                let got = verdict(&item, &settings, quiet, on_screen);
                                assert_eq!(got, want, "{case}");
                                if got != Verdict::Show {
                                    continue;
                                }
                                let shown = banner(&item, None, true, &settings);
                                assert_eq!(shown.title, item.sender(), "{case}: the sender");
                                let neutral = [NEEDS_YOUR_REPLY, NEW_MESSAGE];
                                if previews {
                                    assert!(
                                        !neutral.contains(&shown.body.as_str()),
                                        "{case}: a preview: {}",
                                        shown.body
                                    );
                                } else {
                                    let expected = if item.needs_reply() {
                                        NEEDS_YOUR_REPLY
                                    } else {
                                        NEW_MESSAGE
                                    };
                                    assert_eq!(shown.body, expected, "{case}: no preview");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(cases, 3 * 5 * 2 * 2 * 2 * 2, "every combination ran");
    }

    #[test]
    fn requests_only_means_what_waits_for_an_answer() {
        let only = NotificationSettings {
            banners: BannerMode::RequestsOnly,
            ..Default::default()
        };
        let shows: Vec<&str> = kinds()
            .into_iter()
            .filter(|(_, item)| verdict(item, &only, false, false) == Verdict::Show)
            .map(|(kind, _)| kind)
            .collect();
        assert_eq!(shows, ["request", "notification asking a reply"]);
    }

    #[test]
    fn the_relays_quiet_hours_hold_an_agent_notification_back_too() {
        let mut n = agent("ntf_1", "Backup done", None);
        n.suppressed = true;
        let all = NotificationSettings::default();
        assert_eq!(
            verdict(&Item::Agent(n.clone()), &all, false, false),
            Verdict::Held,
            "suppressed on arrival: held even after quiet hours ended here"
        );
        let muted = NotificationSettings {
            muted: vec!["agk_build-bot".into()],
            ..Default::default()
        };
        assert_eq!(
            verdict(&Item::Agent(n), &muted, false, false),
            Verdict::Skip(Skip::Muted),
            "a muted sender is not even summarised"
        );
    }

    #[test]
    fn a_sender_without_a_known_id_cannot_be_muted_and_still_gets_banners() {
        let mut m = message("msg_1", "ci-agent", "Old row");
        m.sender_id = None;
        let settings = NotificationSettings {
            muted: vec!["con_ci-agent".into()],
            ..Default::default()
        };
        assert_eq!(
            verdict(&Item::Message(m), &settings, false, false),
            Verdict::Show
        );
    }

    #[test]
    fn receipts_follow_the_verdict() {
        for silent in [
            Verdict::Held,
            Verdict::Skip(Skip::Muted),
            Verdict::Skip(Skip::BannersOff),
            Verdict::Skip(Skip::NotARequest),
        ] {
            assert_eq!(
                silent.receipt(),
                Some(NotificationReceiptKind::Suppressed),
                "{silent:?}: the agent learns it was held back"
            );
        }
        assert_eq!(Verdict::Show.receipt(), None, "displayed once shown");
        assert_eq!(
            Verdict::Skip(Skip::OnScreen).receipt(),
            None,
            "the window reports it displayed"
        );
    }

    #[test]
    fn needs_your_reply_and_new_message_sound_different() {
        let on = NotificationSettings::default();
        let off = NotificationSettings {
            sound: false,
            ..Default::default()
        };
        let tones: Vec<(&str, Option<Tone>)> = kinds()
            .into_iter()
            .map(|(kind, item)| (kind, tone(&item, &on)))
            .collect();
        assert_eq!(
            tones,
            [
                ("request", Some(Tone::NeedsReply)),
                ("message", Some(Tone::NewMessage)),
                ("offer", Some(Tone::NewMessage)),
                ("notification", Some(Tone::NewMessage)),
                ("notification asking a reply", Some(Tone::NeedsReply)),
            ]
        );
        for (kind, item) in kinds() {
            assert_eq!(tone(&item, &off), None, "{kind}: sound off plays nothing");
        }
        let mut n = agent("ntf_1", "Disk 91% full", None);
        n.priority = NotificationPriority::High;
        assert_eq!(
            tone(&Item::Agent(n.clone()), &on),
            Some(Tone::NeedsReply),
            "high priority: the insistent sound"
        );
        n.priority = NotificationPriority::Low;
        assert_eq!(tone(&Item::Agent(n.clone()), &on), None, "low: silent");
        n.priority = NotificationPriority::Normal;
        n.sound = false;
        assert_eq!(tone(&Item::Agent(n), &on), None, "the agent asked for none");

        for os in ["linux", "freebsd", "macos", "windows"] {
            assert_ne!(
                sound_name(Tone::NeedsReply, os),
                sound_name(Tone::NewMessage, os),
                "{os}: two sounds"
            );
        }
        assert_eq!(sound_name(Tone::NewMessage, "linux"), "message-new-instant");
        assert_eq!(sound_name(Tone::NeedsReply, "linux"), "window-attention");
    }

    #[test]
    fn a_thread_or_group_replaces_the_earlier_banner_of_the_same_agent() {
        let mut first = agent("ntf_1", "Build 214 running", None);
        first.thread_id = Some("build-214".into());
        first.group = Some("ci".into());
        assert_eq!(
            replaces(&Item::Agent(first.clone())).as_deref(),
            Some("agk_build-bot/thread:build-214"),
            "the thread first"
        );
        first.thread_id = None;
        assert_eq!(
            replaces(&Item::Agent(first.clone())).as_deref(),
            Some("agk_build-bot/group:ci"),
            "else the group"
        );
        let mut other = first.clone();
        other.source_id = Some("agk_other".into());
        assert_ne!(
            replaces(&Item::Agent(first)),
            replaces(&Item::Agent(other)),
            "another agent's group is another key"
        );
        assert_eq!(
            replaces(&Item::Message(message("msg_1", "ci-agent", "T"))),
            None,
            "messages replace nothing"
        );
    }
}
