//! "Pause notifications" from the tray (docs/desktop-lifecycle.md): for an hour, or until
//! tomorrow at 08:00 local time. While paused no banner and no sound, requests included —
//! exactly as during quiet hours, and like them what arrived is announced by one summary when
//! the pause ends (or is resumed). Requests still count in the tray and the window title.
//!
//! The pause is this device's: kept in `<data_dir>/notifications-paused-until` (one RFC 3339
//! UTC time) so it survives a restart; a file that is missing, unreadable or in the past means
//! not paused.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Days, Local, NaiveTime, TimeDelta, TimeZone, Utc};

/// The file in the data dir.
const PAUSE_FILE: &str = "notifications-paused-until";
/// "Until tomorrow" ends at this local time.
const TOMORROW_AT: NaiveTime = match NaiveTime::from_hms_opt(8, 0, 0) {
    Some(t) => t,
    None => panic!("08:00 is a time"),
};

/// How long to pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseFor {
    OneHour,
    UntilTomorrow,
}

/// The pause, shared by the tray and the notifier.
#[derive(Debug, Clone)]
pub struct Pause {
    file: PathBuf,
    until: Arc<Mutex<Option<DateTime<Utc>>>>,
}

impl Pause {
    /// Reads the pause saved in `data_dir`.
    pub fn load(data_dir: &Path) -> Self {
        let file = data_dir.join(PAUSE_FILE);
        let until = std::fs::read_to_string(&file)
            .ok()
            .and_then(|s| DateTime::parse_from_rfc3339(s.trim()).ok())
            .map(|t| t.with_timezone(&Utc));
        Pause {
            file,
            until: Arc::new(Mutex::new(until)),
        }
    }

    /// When the pause ends, if one holds at `now`.
    pub fn until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let until = *self.until.lock().unwrap_or_else(|p| p.into_inner());
        until.filter(|u| *u > now)
    }

    /// Pauses from `now` (a later end replaces an earlier one and the other way round).
    pub fn pause(&self, length: PauseFor, now: DateTime<Utc>) -> DateTime<Utc> {
        let until = match length {
            PauseFor::OneHour => now + TimeDelta::hours(1),
            PauseFor::UntilTomorrow => tomorrow_morning(now, &Local),
        };
        self.set(Some(until));
        until
    }

    /// Ends the pause.
    pub fn resume(&self) {
        self.set(None);
    }

    fn set(&self, until: Option<DateTime<Utc>>) {
        *self.until.lock().unwrap_or_else(|p| p.into_inner()) = until;
        let written = match until {
            Some(t) => std::fs::write(&self.file, t.to_rfc3339()),
            None => match std::fs::remove_file(&self.file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        };
        if let Err(error) = written {
            tracing::warn!(%error, "could not save the notification pause");
        }
    }
}

/// 08:00 on the day after `now`'s date in `zone` (where 08:00 does not exist that day, the
/// earliest valid time after it; an ambiguous one, its first occurrence).
fn tomorrow_morning<Z: TimeZone>(now: DateTime<Utc>, zone: &Z) -> DateTime<Utc> {
    let date = now.with_timezone(zone).date_naive() + Days::new(1);
    let mut at = date.and_time(TOMORROW_AT);
    for _ in 0..4 {
        if let Some(t) = zone.from_local_datetime(&at).earliest() {
            return t.with_timezone(&Utc);
        }
        at += TimeDelta::minutes(30);
    }
    now + TimeDelta::hours(24)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn a_pause_holds_until_its_end_and_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let pause = Pause::load(dir.path());
        let now = at("2026-12-04T10:00:00Z");
        assert_eq!(pause.until(now), None, "not paused at first");
        let end = pause.pause(PauseFor::OneHour, now);
        assert_eq!(end, at("2026-12-04T11:00:00Z"));
        assert_eq!(pause.until(now), Some(end));
        assert_eq!(pause.until(end), None, "over at its end");
        let again = Pause::load(dir.path());
        assert_eq!(again.until(now), Some(end), "read back after a restart");
        again.resume();
        assert_eq!(again.until(now), None);
        assert_eq!(Pause::load(dir.path()).until(now), None, "resumed for good");
    }

    #[test]
    fn until_tomorrow_is_eight_in_the_morning_local_time() {
        let utc = chrono::Utc;
        assert_eq!(
            tomorrow_morning(at("2026-12-04T23:30:00Z"), &utc),
            at("2026-12-05T08:00:00Z")
        );
        let berlin = chrono::FixedOffset::east_opt(3600).unwrap();
        assert_eq!(
            tomorrow_morning(at("2026-12-04T23:30:00Z"), &berlin),
            at("2026-12-06T07:00:00Z"),
            "already Dec 5 in Berlin: the next morning is Dec 6, 08:00 +01:00"
        );
    }
}
