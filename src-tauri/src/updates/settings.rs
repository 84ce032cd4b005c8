//! The device-local update settings and the daily schedule, without Tauri.
//!
//! They live in `<data_dir>/updates.json`, beside the device's cache but outside the account:
//! whether this computer looks for updates is a property of the installation, not something
//! other devices should inherit. A missing or unreadable file means the defaults (daily checks
//! on), so a damaged file can never switch updates off silently for good: the next save
//! rewrites it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How often the automatic check runs.
pub const CHECK_INTERVAL: Duration = Duration::from_secs(24 * 60 * 60);

/// The file's name inside the data dir.
pub const FILE_NAME: &str = "updates.json";

/// What is kept on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Stored {
    /// Check once a day in the background.
    pub auto_check: bool,
    /// The last check that got an answer from the update server (not attempts that failed).
    pub last_checked_at: Option<DateTime<Utc>>,
    /// The newest version the person was told about by an OS notification, so a found update
    /// is announced once, not every day.
    pub notified_version: Option<String>,
}

impl Default for Stored {
    fn default() -> Self {
        Stored {
            auto_check: true,
            last_checked_at: None,
            notified_version: None,
        }
    }
}

impl Stored {
    /// How long until the automatic check is due: `None` when it is switched off, zero when it
    /// never ran or ran [`CHECK_INTERVAL`] ago or more (a clock that moved back counts as due
    /// only once the interval has passed since the recorded time).
    pub fn due_in(&self, now: DateTime<Utc>) -> Option<Duration> {
        if !self.auto_check {
            return None;
        }
        let Some(last) = self.last_checked_at else {
            return Some(Duration::ZERO);
        };
        let elapsed = (now - last).to_std().unwrap_or(Duration::ZERO);
        Some(CHECK_INTERVAL.saturating_sub(elapsed))
    }

    /// Whether a found version still needs announcing.
    pub fn should_notify(&self, version: &str) -> bool {
        self.notified_version.as_deref() != Some(version)
    }
}

/// The settings file of one data dir.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    path: PathBuf,
}

impl SettingsFile {
    pub fn in_dir(data_dir: &Path) -> Self {
        SettingsFile {
            path: data_dir.join(FILE_NAME),
        }
    }

    /// The stored settings, or the defaults when the file is missing or unreadable (logged).
    pub fn load(&self) -> Stored {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                tracing::warn!(%error, path = %self.path.display(), "unreadable update settings; using the defaults");
                Stored::default()
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Stored::default(),
            Err(error) => {
                tracing::warn!(%error, path = %self.path.display(), "cannot read the update settings; using the defaults");
                Stored::default()
            }
        }
    }

    /// Writes the settings whole (a temporary file renamed over the old one), creating the
    /// data dir owner-only when it does not exist yet.
    pub fn save(&self, stored: &Stored) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            create_private_dir(dir)?;
        }
        let bytes = serde_json::to_vec_pretty(stored).map_err(std::io::Error::other)?;
        let temp = self.path.with_extension("json.tmp");
        std::fs::write(&temp, bytes)?;
        std::fs::rename(&temp, &self.path)
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn at(hour: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, hour, 0, 0)
            .single()
            .expect("valid time")
    }

    #[test]
    fn a_fresh_install_checks_daily_and_is_due_at_once() {
        let stored = Stored::default();
        assert!(stored.auto_check, "daily checks are on by default");
        assert_eq!(stored.due_in(at(9)), Some(Duration::ZERO), "never checked");
    }

    #[test]
    fn the_next_check_is_a_day_after_the_last_answer() {
        let stored = Stored {
            last_checked_at: Some(at(9)),
            ..Stored::default()
        };
        assert_eq!(
            stored.due_in(at(15)),
            Some(Duration::from_secs(18 * 3600)),
            "six hours after a check, eighteen remain"
        );
        let next_day = at(9) + chrono::Duration::hours(24);
        assert_eq!(
            stored.due_in(next_day),
            Some(Duration::ZERO),
            "due a day later"
        );
        assert_eq!(
            stored.due_in(at(3)),
            Some(CHECK_INTERVAL),
            "a clock that went back waits the full interval"
        );
    }

    #[test]
    fn switched_off_means_never_due() {
        let stored = Stored {
            auto_check: false,
            ..Stored::default()
        };
        assert_eq!(stored.due_in(at(9)), None, "no automatic check");
    }

    #[test]
    fn a_version_is_announced_once() {
        let mut stored = Stored::default();
        assert!(stored.should_notify("0.2.0"), "new version");
        stored.notified_version = Some("0.2.0".into());
        assert!(!stored.should_notify("0.2.0"), "already announced");
        assert!(
            stored.should_notify("0.3.0"),
            "a newer one is announced again"
        );
    }

    #[test]
    fn settings_survive_a_restart_and_a_damaged_file_means_the_defaults() {
        let dir = tempfile::tempdir().expect("temp dir");
        let data_dir = dir.path().join("data");
        let file = SettingsFile::in_dir(&data_dir);
        assert_eq!(file.load(), Stored::default(), "no file yet");

        let stored = Stored {
            auto_check: false,
            last_checked_at: Some(at(9)),
            notified_version: Some("0.2.0".into()),
        };
        file.save(&stored).expect("saved, creating the data dir");
        assert_eq!(SettingsFile::in_dir(&data_dir).load(), stored, "read back");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&data_dir)
                .expect("dir")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700, "a data dir it creates is owner-only");
        }

        std::fs::write(data_dir.join(FILE_NAME), b"{not json").expect("damage");
        assert_eq!(file.load(), Stored::default(), "damaged: the defaults");
        std::fs::write(data_dir.join(FILE_NAME), br#"{"autoCheck":false}"#).expect("partial");
        assert_eq!(
            file.load(),
            Stored {
                auto_check: false,
                ..Stored::default()
            },
            "missing fields take their defaults"
        );
    }
}
