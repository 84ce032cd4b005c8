//! Quiet hours (docs/agents.md): a daily period in the person's time zone during which a
//! notification is stored with `suppressed: true` (no banner, no speech on the desktop). The
//! relay judges "now" by its own clock in the IANA zone given, with chrono-tz; a period whose
//! end is before its start runs over midnight.

use chrono::{DateTime, Timelike, Utc};
use chrono_tz::Tz;
use herald_protocol::notify::{parse_hhmm, QuietHours};

use crate::error::ApiError;

/// Checks settings from `PUT /quiet-hours`: `HH:MM` times that differ and a known IANA zone.
pub(crate) fn check(q: &QuietHours) -> Result<(), ApiError> {
    let start = parse_hhmm(&q.start)
        .ok_or_else(|| ApiError::invalid("start", "start must be a time HH:MM (00:00–23:59)."))?;
    let end = parse_hhmm(&q.end)
        .ok_or_else(|| ApiError::invalid("end", "end must be a time HH:MM (00:00–23:59)."))?;
    if start == end {
        return Err(ApiError::invalid("end", "end must differ from start."));
    }
    q.timezone.parse::<Tz>().map_err(|_| {
        ApiError::invalid(
            "timezone",
            "timezone must be an IANA time zone name such as Europe/Paris.",
        )
    })?;
    Ok(())
}

/// Whether quiet hours hold at `now`. Settings that do not parse count as inactive.
pub(crate) fn active(q: &QuietHours, now: DateTime<Utc>) -> bool {
    if !q.enabled {
        return false;
    }
    let (Some(start), Some(end), Ok(tz)) = (
        parse_hhmm(&q.start),
        parse_hhmm(&q.end),
        q.timezone.parse::<Tz>(),
    ) else {
        return false;
    };
    let local = now.with_timezone(&tz);
    let minute = (local.hour() * 60 + local.minute()) as u16;
    if start < end {
        start <= minute && minute < end
    } else {
        minute >= start || minute < end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(start: &str, end: &str, tz: &str) -> QuietHours {
        QuietHours {
            enabled: true,
            start: start.into(),
            end: end.into(),
            timezone: tz.into(),
        }
    }

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn active_table() {
        let cases = [
            (q("22:00", "07:00", "UTC"), "2026-10-02T23:30:00Z", true),
            (q("22:00", "07:00", "UTC"), "2026-10-02T06:59:00Z", true),
            (q("22:00", "07:00", "UTC"), "2026-10-02T07:00:00Z", false),
            (q("22:00", "07:00", "UTC"), "2026-10-02T12:00:00Z", false),
            (q("09:00", "17:00", "UTC"), "2026-10-02T09:00:00Z", true),
            (q("09:00", "17:00", "UTC"), "2026-10-02T17:00:00Z", false),
            // 21:30 UTC is 23:30 in Paris (CEST, UTC+2).
            (
                q("22:00", "07:00", "Europe/Paris"),
                "2026-07-02T21:30:00Z",
                true,
            ),
            (
                q("22:00", "07:00", "Europe/Paris"),
                "2026-07-02T19:30:00Z",
                false,
            ),
        ];
        for (settings, now, want) in cases {
            assert_eq!(
                active(&settings, at(now)),
                want,
                "{}–{} {} at {now}",
                settings.start,
                settings.end,
                settings.timezone
            );
        }
        let mut off = q("00:00", "23:59", "UTC");
        off.enabled = false;
        assert!(
            !active(&off, at("2026-10-02T12:00:00Z")),
            "disabled is never active"
        );
    }

    #[test]
    fn check_table() {
        assert!(check(&q("22:00", "07:00", "Europe/Paris")).is_ok());
        for (bad, field) in [
            (q("22:00", "22:00", "UTC"), "end"),
            (q("25:00", "07:00", "UTC"), "start"),
            (q("22:00", "7:00", "UTC"), "end"),
            (q("22:00", "07:00", "Mars/Olympus"), "timezone"),
        ] {
            let e = check(&bad).expect_err("refused");
            assert_eq!(e.0.fields, vec![field.to_owned()], "{bad:?}");
        }
    }
}
