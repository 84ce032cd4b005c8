//! In-app updates: Settings → Updates and a daily background check (docs/packaging.md,
//! "Updates").
//!
//! tauri-plugin-updater does the transport and the cryptography: it reads the endpoint and the
//! public key from `plugins.updater` in tauri.conf.json (package.sh can replace the endpoint at
//! build time), fetches Tauri's static release manifest, downloads the package for this
//! installation (`linux-x86_64-deb`, `darwin-aarch64-app`, …) and verifies its minisign
//! signature before anything is installed. `requireSignedVersion` is on, so the signature must
//! also name the announced version: a tampered manifest cannot pair a new version number with
//! an older, validly signed package. What lives here is ours: the device-local setting
//! (`settings.rs`), the schedule, one error catalog the UI branches on (`{code, message}`), and
//! the rule that only a packaged installation replaces itself.

mod settings;
#[cfg(test)]
mod tests;

use crate::ipc::CmdResult;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use herald_client::view::{UiError, UiErrorCode};
use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_updater::{Update, Updater, UpdaterExt};
use ts_rs::TS;

use settings::{SettingsFile, Stored};

/// How long a check may take before it is reported as unreachable.
const CHECK_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a download may take (packages are tens of megabytes).
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// The first automatic check waits until start-up is long over.
const FIRST_AUTOMATIC_CHECK: Duration = Duration::from_secs(120);
/// After an automatic attempt (or while they are off) the schedule is looked at again this
/// often, so a failed check is retried hourly and switching checks on takes effect.
const RECHECK: Duration = Duration::from_secs(60 * 60);

/// What a check for updates found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UpdateCheck {
    /// A newer version is published for this installation.
    pub available: bool,
    /// The running version.
    pub current_version: String,
    /// The newer version, when there is one.
    pub version: Option<String>,
    /// Its release notes as published (plain text).
    pub notes: Option<String>,
    /// When it was published (RFC 3339), when the manifest says.
    pub date: Option<String>,
    /// When this check got its answer (RFC 3339).
    pub checked_at: String,
}

/// Settings → Updates: the device-local switch and what the last check found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UpdateSettings {
    /// Check once a day in the background (on by default).
    pub auto_check: bool,
    /// The last check that reached the update server (RFC 3339), automatic or not.
    pub last_checked_at: Option<String>,
    /// What the last check since the app started found (null before one ran).
    pub last_check: Option<UpdateCheck>,
    /// The running version.
    pub current_version: String,
}

/// Why an update could not be checked, downloaded or installed. The UI branches on
/// [`UpdateError::code`]; the message is for the person.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("This build of Herald has no usable update server configured ({0}).")]
    NotConfigured(String),
    #[error("Updates are not available for this operating system or processor.")]
    Unsupported,
    #[error("Could not reach the update server: {0}. Check the connection and try again.")]
    Unreachable(String),
    #[error("The update server's answer is not a valid Herald release ({0}).")]
    BadManifest(String),
    #[error("No update is published for this kind of installation ({0}).")]
    NoBuild(String),
    #[error(
        "The update was refused: its signature does not match Herald's release key. Nothing was installed."
    )]
    BadSignature,
    #[error(
        "The update was refused: it is signed as version {signed}, but the update server announced {announced}. Nothing was installed."
    )]
    VersionMismatch { signed: String, announced: String },
    #[error(
        "The update was refused: its signature does not say which version it is. Nothing was installed."
    )]
    UnsignedVersion,
    #[error("No update is waiting to be installed: check for updates first.")]
    NothingToInstall,
    #[error(
        "This copy of Herald was not installed from a package the updater can replace (a development build?). Install the new version by hand."
    )]
    NotInstallable,
    #[error("Installing the update needs an administrator's permission, which was not given.")]
    PermissionDenied,
    #[error("The update was downloaded and verified, but could not be installed: {0}.")]
    InstallFailed(String),
    #[error("The update settings could not be saved: {0}.")]
    Storage(#[from] std::io::Error),
}

impl UpdateError {
    /// The stable code the UI branches on.
    pub fn code(&self) -> UiErrorCode {
        match self {
            UpdateError::NotConfigured(_) => UiErrorCode::UpdateNotConfigured,
            UpdateError::Unsupported => UiErrorCode::UpdateUnsupported,
            UpdateError::Unreachable(_) => UiErrorCode::UpdateUnreachable,
            UpdateError::BadManifest(_) => UiErrorCode::UpdateBadManifest,
            UpdateError::NoBuild(_) => UiErrorCode::UpdateNoBuild,
            UpdateError::BadSignature => UiErrorCode::UpdateBadSignature,
            UpdateError::VersionMismatch { .. } => UiErrorCode::UpdateVersionMismatch,
            UpdateError::UnsignedVersion => UiErrorCode::UpdateBadSignature,
            UpdateError::NothingToInstall => UiErrorCode::UpdateNotChecked,
            UpdateError::NotInstallable => UiErrorCode::UpdateNotInstallable,
            UpdateError::PermissionDenied => UiErrorCode::UpdatePermissionDenied,
            UpdateError::InstallFailed(_) => UiErrorCode::UpdateInstallFailed,
            UpdateError::Storage(_) => UiErrorCode::Storage,
        }
    }
}

impl From<UpdateError> for UiError {
    fn from(error: UpdateError) -> Self {
        UiError::new(error.code(), error.to_string())
    }
}

/// Sorts the plugin's errors into ours. The plugin's own texts name crates and config keys;
/// only causes that help the person (a network error, a missing platform) are carried over.
impl From<tauri_plugin_updater::Error> for UpdateError {
    fn from(error: tauri_plugin_updater::Error) -> Self {
        use tauri_plugin_updater::Error as E;
        match error {
            E::EmptyEndpoints => UpdateError::NotConfigured("no endpoint".into()),
            E::InsecureTransportProtocol => UpdateError::NotConfigured("not https".into()),
            E::UnsupportedArch | E::UnsupportedOs => UpdateError::Unsupported,
            E::Reqwest(error) if error.is_decode() => bad_manifest(error),
            E::Reqwest(error) => UpdateError::Unreachable(reqwest_cause(&error)),
            E::Network(message) => UpdateError::Unreachable(message),
            E::ReleaseNotFound => {
                UpdateError::BadManifest("it answered without release information".into())
            }
            E::Serialization(error) => bad_manifest(error),
            E::Semver(error) => bad_manifest(error),
            E::UrlParse(error) => bad_manifest(error),
            E::TargetNotFound(target) => UpdateError::NoBuild(target),
            E::TargetsNotFound(targets) => UpdateError::NoBuild(targets.join(", ")),
            E::Minisign(_) | E::Base64(_) | E::SignatureUtf8(_) => UpdateError::BadSignature,
            E::SignedVersionMismatch { signed, announced } => {
                UpdateError::VersionMismatch { signed, announced }
            }
            E::MissingSignedVersion => UpdateError::UnsignedVersion,
            E::AuthenticationFailed => UpdateError::PermissionDenied,
            E::InvalidUpdaterFormat => UpdateError::NotInstallable,
            other => UpdateError::InstallFailed(other.to_string()),
        }
    }
}

fn bad_manifest(error: impl std::fmt::Display) -> UpdateError {
    UpdateError::BadManifest(error.to_string())
}

/// A network error's useful part: reqwest's outer text names only the URL, the cause says
/// what went wrong (connection refused, timed out, certificate).
fn reqwest_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    cause
}

/// Asks the updater whether a newer version is published for this installation. Only the
/// manifest is fetched; nothing is downloaded.
pub async fn check(
    updater: &Updater,
    current_version: &str,
    now: DateTime<Utc>,
) -> Result<(UpdateCheck, Option<Update>), UpdateError> {
    let found = updater.check().await?;
    let checked_at = now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let report = match &found {
        Some(update) => UpdateCheck {
            available: true,
            current_version: current_version.to_owned(),
            version: Some(update.version.clone()),
            notes: update.body.clone().filter(|n| !n.trim().is_empty()),
            date: update
                .date
                .and_then(|d| DateTime::<Utc>::from_timestamp(d.unix_timestamp(), 0))
                .map(|d| d.to_rfc3339_opts(SecondsFormat::Secs, true)),
            checked_at,
        },
        None => UpdateCheck {
            available: false,
            current_version: current_version.to_owned(),
            version: None,
            notes: None,
            date: None,
            checked_at,
        },
    };
    Ok((report, found))
}

/// Downloads the update's package and verifies it against the configured public key and the
/// announced version; the bytes come back only when they are genuine.
pub async fn download(update: &Update) -> Result<Vec<u8>, UpdateError> {
    let mut update = update.clone();
    update.timeout = Some(DOWNLOAD_TIMEOUT);
    Ok(update.download(|_, _| {}, || {}).await?)
}

/// Whether this process runs from an installation the updater knows how to replace: a .deb,
/// .rpm or AppImage on Linux, the .app on macOS, the NSIS or MSI install on Windows (the
/// bundler records which in the binary). A development build is not one: the plugin would
/// otherwise treat its bare executable as an AppImage and overwrite it.
fn installed_from_a_package() -> bool {
    tauri::utils::platform::bundle_type().is_some()
}

/// The shared update state: the settings file, and the update the last check found (the one
/// "Install" installs, so the person gets exactly the version they were shown).
pub struct Updates {
    file: SettingsFile,
    stored: Mutex<Stored>,
    found: Mutex<Option<Update>>,
    last_check: Mutex<Option<UpdateCheck>>,
    current_version: String,
}

impl Updates {
    pub fn open(data_dir: &std::path::Path, current_version: String) -> Self {
        let file = SettingsFile::in_dir(data_dir);
        let stored = file.load();
        Updates {
            file,
            stored: Mutex::new(stored),
            found: Mutex::new(None),
            last_check: Mutex::new(None),
            current_version,
        }
    }

    fn stored(&self) -> Stored {
        self.stored
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn store(&self, change: impl FnOnce(&mut Stored)) -> Result<(), UpdateError> {
        let mut stored = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        let mut next = stored.clone();
        change(&mut next);
        self.file.save(&next)?;
        *stored = next;
        Ok(())
    }

    pub fn settings(&self) -> UpdateSettings {
        let stored = self.stored();
        UpdateSettings {
            auto_check: stored.auto_check,
            last_checked_at: stored
                .last_checked_at
                .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
            last_check: self
                .last_check
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
            current_version: self.current_version.clone(),
        }
    }

    pub fn set_auto_check(&self, on: bool) -> Result<UpdateSettings, UpdateError> {
        self.store(|s| s.auto_check = on)?;
        Ok(self.settings())
    }

    /// Runs a check with `updater` and remembers what it found.
    pub async fn check_with(
        &self,
        updater: &Updater,
        now: DateTime<Utc>,
    ) -> Result<UpdateCheck, UpdateError> {
        let (report, found) = check(updater, &self.current_version, now).await?;
        *self.found.lock().unwrap_or_else(|p| p.into_inner()) = found;
        *self.last_check.lock().unwrap_or_else(|p| p.into_inner()) = Some(report.clone());
        if let Err(error) = self.store(|s| s.last_checked_at = Some(now)) {
            tracing::warn!(%error, "the time of the update check was not saved");
        }
        Ok(report)
    }

    /// The update the last check found, downloaded and verified (not installed).
    pub async fn download_found(&self) -> Result<(Update, Vec<u8>), UpdateError> {
        let update = self
            .found
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or(UpdateError::NothingToInstall)?;
        let bytes = download(&update).await?;
        Ok((update, bytes))
    }

    /// How long until the automatic check is due (`None`: switched off).
    fn due_in(&self, now: DateTime<Utc>) -> Option<Duration> {
        self.stored().due_in(now)
    }
}

/// The updater as configured (endpoint and public key from tauri.conf.json).
fn configured_updater<R: Runtime>(app: &AppHandle<R>) -> Result<Updater, UpdateError> {
    Ok(app.updater_builder().timeout(CHECK_TIMEOUT).build()?)
}

async fn check_now<R: Runtime>(
    app: &AppHandle<R>,
    updates: &Updates,
) -> Result<UpdateCheck, UpdateError> {
    updates
        .check_with(&configured_updater(app)?, Utc::now())
        .await
}

/// Downloads, verifies and installs the update the last check found, then restarts Herald
/// into it (on Windows the installer itself closes and reopens the app).
async fn install<R: Runtime>(app: &AppHandle<R>, updates: &Updates) -> Result<(), UpdateError> {
    if !installed_from_a_package() {
        return Err(UpdateError::NotInstallable);
    }
    let (update, bytes) = updates.download_found().await?;
    // Installing runs the system's package tool (pkexec + dpkg/rpm) or moves files: blocking.
    tauri::async_runtime::spawn_blocking(move || update.install(bytes))
        .await
        .map_err(|error| UpdateError::InstallFailed(error.to_string()))??;
    tracing::info!("update installed; restarting");
    app.request_restart();
    Ok(())
}

/// The automatic check: due once a day while switched on; a found version is announced once
/// with an OS notification. Failures are logged and retried within the hour.
async fn check_daily<R: Runtime>(app: AppHandle<R>) {
    tokio::time::sleep(FIRST_AUTOMATIC_CHECK).await;
    loop {
        let updates = app.state::<Updates>();
        let wait = match updates.due_in(Utc::now()) {
            Some(Duration::ZERO) => {
                match check_now(&app, &updates).await {
                    Ok(found) => announce(&app, &updates, &found),
                    Err(error) => {
                        tracing::warn!(code = error.code().as_str(), %error, "automatic update check failed")
                    }
                }
                RECHECK
            }
            Some(due) => due.min(RECHECK),
            None => RECHECK,
        };
        tokio::time::sleep(wait).await;
    }
}

fn announce<R: Runtime>(app: &AppHandle<R>, updates: &Updates, found: &UpdateCheck) {
    use tauri_plugin_notification::NotificationExt;
    let Some(version) = found.version.as_deref().filter(|_| found.available) else {
        return;
    };
    if !updates.stored().should_notify(version) {
        return;
    }
    let shown = app
        .notification()
        .builder()
        .title(format!("Herald {version} is available"))
        .body("Open Settings → Updates to install it.")
        .show();
    if let Err(error) = shown {
        tracing::warn!(%error, "the update notification was not shown");
    }
    if let Err(error) = updates.store(|s| s.notified_version = Some(version.to_owned())) {
        tracing::warn!(%error, "the announced version was not saved");
    }
}

/// Registers the update state and, in release builds, the daily check. Register
/// `tauri_plugin_updater` before it. `data_dir` is the shell's (`None`: the app data dir).
pub fn init<R: Runtime>(data_dir: Option<PathBuf>) -> tauri::plugin::TauriPlugin<R> {
    tauri::plugin::Builder::new("herald-updates")
        .setup(move |app, _api| {
            let dir = match data_dir.clone() {
                Some(dir) => dir,
                None => app.path().app_data_dir()?,
            };
            let version = app.package_info().version.to_string();
            app.manage(Updates::open(&dir, version));
            // Debug builds (development, the test suites) never check on their own.
            if !cfg!(debug_assertions) {
                tauri::async_runtime::spawn(check_daily(app.clone()));
            }
            Ok(())
        })
        .build()
}

/// Asks the update server whether a newer version exists. Errors: `update_unreachable`,
/// `update_bad_manifest`, `update_no_build`, `update_not_configured`, `update_unsupported`.
pub async fn check_for_update<R: Runtime>(app: AppHandle<R>) -> CmdResult<UpdateCheck> {
    let updates = app.state::<Updates>();
    Ok(check_now(&app, &updates).await?)
}

/// Downloads, verifies and installs what the last check found, then restarts. Errors:
/// `update_not_checked`, `update_bad_signature`, `update_version_mismatch`,
/// `update_not_installable`, `update_permission_denied`, `update_install_failed`, and the
/// network ones of `check_for_update`.
pub async fn install_update<R: Runtime>(app: AppHandle<R>) -> CmdResult<()> {
    let updates = app.state::<Updates>();
    Ok(install(&app, &updates).await?)
}

/// The update settings of this device.
pub async fn update_settings<R: Runtime>(app: AppHandle<R>) -> CmdResult<UpdateSettings> {
    let updates = app.state::<Updates>();
    Ok(updates.settings())
}

/// Switches the daily check on or off (this device only). Errors: `storage`.
pub async fn set_update_settings<R: Runtime>(
    app: AppHandle<R>,
    auto_check: bool,
) -> CmdResult<UpdateSettings> {
    let updates = app.state::<Updates>();
    Ok(updates.set_auto_check(auto_check)?)
}
