//! Quiet hours on this device: whether they hold, when they end, and what they held back.
//!
//! The settings are the account's (Settings → Notifications, stored by the relay). They are
//! judged here by the same rule as the relay's (`herald-relay` `agents/quiet.rs`): a daily
//! period from `start` to `end` on the wall clock of the IANA `timezone` (chrono-tz), over
//! midnight when `end` comes before `start`, at the relay's clock (`Core::relay_now`), so this
//! device and the relay agree on when they hold.
//!
//! While they hold, no banner and no sound — requests included; everything still arrives in the
//! inbox. What was held back is kept in a [`Digest`] and announced by one summary when they end
//! (a timer at [`end`], looked at again at least every [`CHECK_EVERY`]: the settings may change,
//! and a timer does not run while the computer sleeps).

use std::time::Duration;

use crate::notification_view::{NotificationSettings, QuietHoursSettings};
use chrono::{DateTime, Days, LocalResult, NaiveDateTime, NaiveTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;

use super::banner::quiet_summary;
use super::policy::{verdict, Verdict};
use super::{Banner, Item};

/// The longest the notifier waits before it looks again whether quiet hours are over.
pub const CHECK_EVERY: Duration = Duration::from_secs(15 * 60);

/// The parsed settings: start and end in minutes after midnight, the zone. `None` when off or
/// unusable (settings the relay would refuse count as off, as they do there).
fn parsed(q: &QuietHoursSettings) -> Option<(u32, u32, Tz)> {
    if !q.enabled {
        return None;
    }
    let start = herald_protocol::notify::parse_hhmm(&q.start)?;
    let end = herald_protocol::notify::parse_hhmm(&q.end)?;
    let tz = q.timezone.parse::<Tz>().ok()?;
    (start != end).then_some((u32::from(start), u32::from(end), tz))
}

/// Whether quiet hours hold at `now`.
pub fn active(q: &QuietHoursSettings, now: DateTime<Utc>) -> bool {
    let Some((start, end, tz)) = parsed(q) else {
        return false;
    };
    let local = now.with_timezone(&tz);
    let minute = local.hour() * 60 + local.minute();
    if start < end {
        start <= minute && minute < end
    } else {
        minute >= start || minute < end
    }
}

/// When the quiet hours holding at `now` end: the first instant after `now` whose wall-clock
/// time in the zone is `end`. `None` when they do not hold at `now`.
///
/// Daylight saving time: an `end` that a spring-forward gap skips (02:30 on the night clocks
/// jump from 02:00 to 03:00) ends them when the gap does (03:00, the first wall-clock time past
/// `end`); an `end` that a fall-back repeats ends them at its first occurrence.
pub fn end(q: &QuietHoursSettings, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    if !active(q, now) {
        return None;
    }
    let (_, end, tz) = parsed(q)?;
    let end_time = NaiveTime::from_hms_opt(end / 60, end % 60, 0)?;
    let today = now.with_timezone(&tz).date_naive();
    (0..=2)
        .filter_map(|days| today.checked_add_days(Days::new(days)))
        .filter_map(|date| first_instant_at_or_after(tz, date.and_time(end_time)))
        .find(|at| *at > now)
}

/// The first instant whose wall-clock time in `tz` is `wall`, or the end of the gap that
/// skips it.
fn first_instant_at_or_after(tz: Tz, wall: NaiveDateTime) -> Option<DateTime<Utc>> {
    // Gaps are an hour at most in today's zones; two hours covers every one on record.
    (0..=120).find_map(|minutes| {
        match tz.from_local_datetime(&(wall + chrono::Duration::minutes(minutes))) {
            LocalResult::Single(at) => Some(at.with_timezone(&Utc)),
            LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
            LocalResult::None => None,
        }
    })
}

/// How long to wait before looking again whether quiet hours are over: until their end, at
/// most [`CHECK_EVERY`]; zero when they are over.
pub fn next_check(q: &QuietHoursSettings, now: DateTime<Utc>) -> Duration {
    match end(q, now) {
        None => Duration::ZERO,
        Some(at) => (at - now)
            .to_std()
            .unwrap_or(Duration::ZERO)
            .min(CHECK_EVERY),
    }
}

/// What quiet hours held back, for the one summary when they end.
#[derive(Debug, Default)]
pub struct Digest {
    held: Vec<Item>,
}

impl Digest {
    /// Keeps an item for the summary (once per id).
    pub fn hold(&mut self, item: Item) {
        if !self.held.iter().any(|i| i.id() == item.id()) {
            self.held.push(item);
        }
    }

    /// A held request was answered, cancelled or expired: it no longer waits, and is not
    /// counted.
    pub fn closed(&mut self, id: &str) {
        self.held.retain(|i| i.id() != id);
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Empties the digest into its summary banner, counting only what the current settings
    /// would still announce (banners turned off, or a sender muted, meanwhile: not counted).
    /// `None` when nothing is left to say.
    pub fn take(&mut self, settings: &NotificationSettings) -> Option<Banner> {
        let held: Vec<Item> = std::mem::take(&mut self.held)
            .into_iter()
            .filter(|item| {
                let mut released = item.clone();
                // Held by the relay on arrival: judged again as if it came now.
                if let Item::Agent(n) = &mut released {
                    n.suppressed = false;
                }
                verdict(&released, settings, false, false) == Verdict::Show
            })
            .collect();
        (!held.is_empty()).then(|| quiet_summary(&held, settings))
    }
}

#[cfg(test)]
mod tests {
    use crate::notification_view::BannerMode;

    use super::super::fixtures::{agent, message, request};
    use super::*;

    fn q(start: &str, end: &str, timezone: &str) -> QuietHoursSettings {
        QuietHoursSettings {
            enabled: true,
            start: start.into(),
            end: end.into(),
            timezone: timezone.into(),
            active: false,
        }
    }

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("an RFC 3339 time")
            .with_timezone(&Utc)
    }

    #[test]
    fn when_quiet_hours_hold() {
        let cases = [
            (
                "overnight, before midnight",
                q("22:00", "07:00", "UTC"),
                "2026-10-02T23:30:00Z",
                true,
            ),
            (
                "overnight, after midnight",
                q("22:00", "07:00", "UTC"),
                "2026-10-02T06:59:00Z",
                true,
            ),
            (
                "overnight, at its end",
                q("22:00", "07:00", "UTC"),
                "2026-10-02T07:00:00Z",
                false,
            ),
            (
                "overnight, midday",
                q("22:00", "07:00", "UTC"),
                "2026-10-02T12:00:00Z",
                false,
            ),
            (
                "daytime, at its start",
                q("09:00", "17:00", "UTC"),
                "2026-10-02T09:00:00Z",
                true,
            ),
            (
                "daytime, at its end",
                q("09:00", "17:00", "UTC"),
                "2026-10-02T17:00:00Z",
                false,
            ),
            // 21:30 UTC is 23:30 in Paris in summer (UTC+2).
            (
                "in the zone's time",
                q("22:00", "07:00", "Europe/Paris"),
                "2026-07-02T21:30:00Z",
                true,
            ),
            (
                "in the zone's time, evening",
                q("22:00", "07:00", "Europe/Paris"),
                "2026-07-02T19:30:00Z",
                false,
            ),
            (
                "an unknown zone counts as off",
                q("00:00", "23:59", "Mars/Olympus"),
                "2026-07-02T12:00:00Z",
                false,
            ),
        ];
        for (name, settings, now, want) in cases {
            assert_eq!(active(&settings, at(now)), want, "{name}");
        }
        let mut off = q("00:00", "23:59", "UTC");
        off.enabled = false;
        assert!(!active(&off, at("2026-10-02T12:00:00Z")), "disabled: never");
    }

    #[test]
    fn when_quiet_hours_end() {
        let cases = [
            (
                "overnight, seen before midnight: ends the next morning",
                q("22:00", "07:00", "UTC"),
                "2026-10-02T23:30:00Z",
                Some("2026-10-03T07:00:00Z"),
            ),
            (
                "overnight, seen after midnight: ends this morning",
                q("22:00", "07:00", "UTC"),
                "2026-10-03T03:00:00Z",
                Some("2026-10-03T07:00:00Z"),
            ),
            (
                "daytime",
                q("09:00", "17:00", "UTC"),
                "2026-10-02T09:00:00Z",
                Some("2026-10-02T17:00:00Z"),
            ),
            (
                "not holding: no end",
                q("22:00", "07:00", "UTC"),
                "2026-10-02T12:00:00Z",
                None,
            ),
            (
                "in the zone: 07:00 in New York in winter is 12:00 UTC",
                q("22:00", "07:00", "America/New_York"),
                "2026-01-15T05:00:00Z",
                Some("2026-01-15T12:00:00Z"),
            ),
            // Europe/Paris, 29 March 2026: 02:00 CET jumps to 03:00 CEST (01:00 UTC).
            (
                "spring forward: an end in the gap ends them when the gap does",
                q("22:00", "02:30", "Europe/Paris"),
                "2026-03-28T23:30:00Z",
                Some("2026-03-29T01:00:00Z"),
            ),
            (
                "spring forward: an end after the gap is an hour sooner in UTC",
                q("22:00", "07:00", "Europe/Paris"),
                "2026-03-28T22:00:00Z",
                Some("2026-03-29T05:00:00Z"),
            ),
            // Europe/Paris, 25 October 2026: 03:00 CEST falls back to 02:00 CET (01:00 UTC).
            (
                "fall back: a repeated end ends them at its first occurrence",
                q("22:00", "02:30", "Europe/Paris"),
                "2026-10-24T22:00:00Z",
                Some("2026-10-25T00:30:00Z"),
            ),
            (
                "fall back: an end after the change is an hour later in UTC",
                q("22:00", "07:00", "Europe/Paris"),
                "2026-10-24T22:00:00Z",
                Some("2026-10-25T06:00:00Z"),
            ),
        ];
        for (name, settings, now, want) in cases {
            let got = end(&settings, at(now));
            assert_eq!(got, want.map(at), "{name}");
            if let Some(ended) = got {
                assert!(!active(&settings, ended), "{name}: over at its end");
                let before = ended - chrono::Duration::minutes(1);
                assert!(active(&settings, before), "{name}: holding a minute before");
            }
        }
    }

    #[test]
    fn the_notifier_looks_again_at_the_end_or_every_quarter_hour() {
        let night = q("22:00", "07:00", "UTC");
        assert_eq!(
            next_check(&night, at("2026-10-03T06:50:00Z")),
            Duration::from_secs(600),
            "ten minutes before the end"
        );
        assert_eq!(
            next_check(&night, at("2026-10-02T23:00:00Z")),
            CHECK_EVERY,
            "hours before the end: a quarter of an hour"
        );
        assert_eq!(
            next_check(&night, at("2026-10-03T07:00:00Z")),
            Duration::ZERO,
            "over: now"
        );
    }

    #[test]
    fn the_digest_becomes_one_summary_of_what_still_counts() {
        let all = NotificationSettings::default();
        let mut digest = Digest::default();
        assert!(digest.take(&all).is_none(), "nothing held, nothing to say");
        digest.hold(Item::Message(request("msg_1", "ci-agent", "Deploy?")));
        digest.hold(Item::Message(request("msg_1", "ci-agent", "Deploy?")));
        digest.hold(Item::Message(request("msg_2", "ci-agent", "Roll back?")));
        digest.hold(Item::Message(message("msg_3", "ci-agent", "Green")));
        let mut held_by_relay = agent("ntf_1", "Backup done", None);
        held_by_relay.suppressed = true;
        digest.hold(Item::Agent(held_by_relay));
        digest.closed("msg_2");
        let banner = digest.take(&all).expect("a summary");
        assert_eq!(
            banner.title, "3 new during quiet hours",
            "once each; the request answered meanwhile is not counted"
        );
        assert!(
            banner
                .body
                .starts_with("1 request, 1 message and 1 notification"),
            "{}",
            banner.body
        );
        assert!(digest.is_empty(), "taken once");
        assert!(digest.take(&all).is_none(), "and not again");

        digest.hold(Item::Message(message("msg_4", "ci-agent", "Green")));
        digest.hold(Item::Agent(agent("ntf_2", "Backup done", None)));
        let requests_only = NotificationSettings {
            banners: BannerMode::RequestsOnly,
            ..all.clone()
        };
        assert!(
            digest.take(&requests_only).is_none(),
            "settings changed meanwhile: nothing left that counts"
        );
    }
}
