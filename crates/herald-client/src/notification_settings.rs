//! This device's notification settings (docs/desktop-notifications.md, "Settings"): which
//! arrivals get banners, muted senders, sound and previews.
//!
//! They live in `<data_dir>/notification-settings.json`, not in the cache: a cache that fails
//! its integrity check is moved aside and rebuilt from the relay, and these settings exist
//! nowhere else (they are device-local and never sent to the relay). A small JSON file also
//! lets another process of this device (a background notifier) read them without opening the
//! database. Writes go to a new 0600 file renamed over the old one, so a reader never sees half
//! a file. A file that is missing or unreadable gives the defaults: a broken settings file must
//! never silence banners.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use herald_protocol::{AgentKeyId, ConnectionId, ConnectorId, DeviceId};

use crate::notification_view::NotificationSettings;
use crate::session::private_files::write_private_file;
use crate::{Error, Result};

/// The settings file in the data dir.
pub const SETTINGS_FILE: &str = "notification-settings.json";

/// The most senders that can be muted (far more than an account has connections).
pub const MAX_MUTED: usize = 500;

/// The settings saved in `data_dir`, or the defaults when none were saved or the file cannot be
/// read (a warning is logged then).
pub fn load(data_dir: &Path) -> NotificationSettings {
    let path = data_dir.join(SETTINGS_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return NotificationSettings::default()
        }
        Err(e) => {
            tracing::warn!(error = %e, "notification settings unreadable; using the defaults");
            return NotificationSettings::default();
        }
    };
    match serde_json::from_slice::<NotificationSettings>(&bytes).map(checked) {
        Ok(Ok(settings)) => settings,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "notification settings invalid; using the defaults");
            NotificationSettings::default()
        }
        Err(e) => {
            tracing::warn!(error = %e, "notification settings malformed; using the defaults");
            NotificationSettings::default()
        }
    }
}

/// Checks and saves `settings`; returns them as saved (muted ids sorted, without repeats).
/// Errors: `invalid_input` naming `muted`; `storage` when the file cannot be written.
pub fn save(data_dir: &Path, settings: NotificationSettings) -> Result<NotificationSettings> {
    let settings = checked(settings)?;
    let json = serde_json::to_vec_pretty(&settings).map_err(|e| Error::Storage(e.to_string()))?;
    // A name of its own per write, so two writes at once cannot interleave in one file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let tmp = data_dir.join(format!("{SETTINGS_FILE}.{}-{n}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = write_private_file(&tmp, &json)
        .and_then(|()| Ok(std::fs::rename(&tmp, data_dir.join(SETTINGS_FILE))?));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map(|()| settings)
}

/// The settings with `muted` checked (each the id of a connection, device, agent key or
/// connector; at most [`MAX_MUTED`]), sorted and without repeats.
fn checked(mut settings: NotificationSettings) -> Result<NotificationSettings> {
    if let Some(bad) = settings.muted.iter().find(|id| !is_sender_id(id)) {
        let shown: String = bad.chars().take(40).collect();
        return Err(Error::InvalidInput(format!(
            "muted: {shown:?} is not the id of a connection, device, agent key or connector"
        )));
    }
    settings.muted.sort();
    settings.muted.dedup();
    if settings.muted.len() > MAX_MUTED {
        return Err(Error::InvalidInput(format!(
            "muted: at most {MAX_MUTED} senders can be muted"
        )));
    }
    Ok(settings)
}

/// Whether `id` names something that sends messages or notifications.
fn is_sender_id(id: &str) -> bool {
    ConnectionId::parse(id).is_some()
        || DeviceId::parse(id).is_some()
        || AgentKeyId::parse(id).is_some()
        || ConnectorId::parse(id).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notification_view::BannerMode;

    fn connection() -> String {
        format!("con_{}", "a".repeat(26))
    }

    fn agent_key() -> String {
        format!("agk_{}", "b".repeat(26))
    }

    #[test]
    fn nothing_saved_gives_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let settings = load(dir.path());
        assert_eq!(
            settings,
            NotificationSettings {
                banners: BannerMode::Everything,
                muted: vec![],
                sound: true,
                previews: true,
            },
            "a banner for everything, with sound and previews, until changed"
        );
    }

    #[test]
    fn saved_settings_are_read_back_sorted_and_without_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let settings = NotificationSettings {
            banners: BannerMode::RequestsOnly,
            muted: vec![connection(), agent_key(), connection()],
            sound: false,
            previews: false,
        };
        let saved = save(dir.path(), settings).expect("saved");
        assert_eq!(
            saved.muted,
            [agent_key(), connection()],
            "sorted, once each"
        );
        assert_eq!(load(dir.path()), saved, "what was saved is read back");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(SETTINGS_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "the file is private");
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind: {left:?}");
    }

    #[test]
    fn a_muted_entry_that_is_no_sender_id_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in [
            "ci-agent",
            "",
            "msg_aaaaaaaaaaaaaaaaaaaaaaaaaa",
            "con_short",
        ] {
            let settings = NotificationSettings {
                muted: vec![bad.to_owned()],
                ..Default::default()
            };
            let error = save(dir.path(), settings).expect_err("refused");
            assert_eq!(error.code(), "invalid_input", "{bad:?}");
            assert!(
                error.to_string().starts_with("muted:"),
                "names the field: {error}"
            );
        }
        assert!(
            !dir.path().join(SETTINGS_FILE).exists(),
            "nothing is written for refused settings"
        );
        let too_many = NotificationSettings {
            muted: (0..=MAX_MUTED)
                .map(|i| format!("con_{}", base32(i)))
                .collect(),
            ..Default::default()
        };
        assert_eq!(too_many.muted.len(), MAX_MUTED + 1);
        assert_eq!(
            save(dir.path(), too_many).expect_err("too many").code(),
            "invalid_input"
        );
    }

    /// 26 base32 characters that differ for every `i`.
    fn base32(mut i: usize) -> String {
        let alphabet = b"abcdefghijklmnopqrstuvwxyz234567";
        let mut out = vec![b'a'; 26];
        for slot in out.iter_mut().rev() {
            *slot = alphabet[i % 32];
            i /= 32;
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_broken_file_gives_the_defaults_and_missing_fields_their_default() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        std::fs::write(&path, b"{not json").unwrap();
        assert_eq!(
            load(dir.path()),
            NotificationSettings::default(),
            "a broken file never silences banners"
        );
        std::fs::write(&path, br#"{"muted":["nonsense"]}"#).unwrap();
        assert_eq!(
            load(dir.path()),
            NotificationSettings::default(),
            "nor a bad entry"
        );
        std::fs::write(
            &path,
            br#"{"sound":false,"later":"a field this version ignores"}"#,
        )
        .unwrap();
        let read = load(dir.path());
        assert!(!read.sound, "the field that is there counts");
        assert_eq!(
            read.banners,
            BannerMode::Everything,
            "a missing field is its default"
        );
    }
}
