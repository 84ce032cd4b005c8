//! How Herald is started and found again (docs/desktop-lifecycle.md): the command line, one
//! instance per data dir, `herald://` links, launch at login and the global shortcut.
//!
//! Command line of `herald-desktop`:
//!
//! | argument | effect |
//! |---|---|
//! | (none) | starts Herald with its window, or brings the running one's window forward |
//! | `--background` | starts without a window (launch at login uses it); nothing when running |
//! | `--quit` | asks the running Herald of this data dir to quit; nothing else when none runs |
//! | `herald://…` | opens what the link names (targets.rs), starting Herald if needed |
//!
//! A second launch never opens the cache or the relay port: the single-instance plugin hands
//! its arguments to the running process (over the session bus on Linux, named per data dir)
//! and exits.

use std::path::{Path, PathBuf};

use herald_client::view::{UiError, UiErrorCode};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager, Runtime};
#[cfg(not(target_os = "linux"))]
use tauri_plugin_autostart::ManagerExt as _;
use tauri_plugin_deep_link::DeepLinkExt;
use tauri_plugin_global_shortcut::{GlobalShortcutExt, Shortcut, ShortcutState};

use crate::ipc::shell_error;
use crate::targets::{link_in_args, parse_link, OpenTarget};
use crate::window::open_soon;

/// Starts without a window.
pub const BACKGROUND_ARG: &str = "--background";
/// Asks the running instance to quit.
pub const QUIT_ARG: &str = "--quit";
/// The global shortcut when none was chosen.
pub const DEFAULT_SHORTCUT: &str = "CommandOrControl+Shift+H";
/// The launch settings file in the data dir.
const SETTINGS_FILE: &str = "launch.json";

/// What this process was asked to do, from its arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchArgs {
    pub background: bool,
    pub quit: bool,
    /// A `herald://` link, unparsed.
    pub link: Option<String>,
}

impl LaunchArgs {
    /// Reads the arguments (the program name first, as `std::env::args` gives them).
    pub fn parse<'a>(args: impl IntoIterator<Item = &'a str>) -> Self {
        let args: Vec<&str> = args.into_iter().skip(1).collect();
        LaunchArgs {
            background: args.contains(&BACKGROUND_ARG),
            quit: args.contains(&QUIT_ARG),
            link: link_in_args(args.iter().copied()).map(str::to_owned),
        }
    }

    /// What the window should show for the link, if any (a bad link is logged and ignored:
    /// the window opens on the inbox).
    pub fn target(&self) -> Option<OpenTarget> {
        let link = self.link.as_deref()?;
        match parse_link(link) {
            Ok(target) => Some(target),
            Err(error) => {
                tracing::warn!(%error, "ignored a herald:// link");
                None
            }
        }
    }
}

/// The D-Bus name part of the single-instance plugin for `data_dir`: one running Herald per
/// data dir (tests and people with two accounts run several), the default dir keeping the
/// plugin's plain name.
pub fn instance_id(identifier: &str, data_dir: Option<&Path>) -> String {
    match data_dir {
        None => identifier.to_owned(),
        Some(dir) => {
            // One name however the dir is spelled (`/x`, `/x/`, relative, through a link).
            let dir = same_dir(dir);
            let digest =
                ring::digest::digest(&ring::digest::SHA256, dir.to_string_lossy().as_bytes());
            let tag: String = digest.as_ref()[..6]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            format!("{identifier}.d{tag}")
        }
    }
}

/// `dir` resolved (links and `..` followed) when it exists, else made absolute: a dir that does
/// not exist yet is created by the first start, before a second one can look.
fn same_dir(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .map(|d| d.components().collect())
        .unwrap_or_else(|_| dir.to_owned())
}

/// Another launch of this data dir handed over its arguments.
pub fn second_launch<R: Runtime>(app: &AppHandle<R>, argv: Vec<String>) {
    let args = LaunchArgs::parse(argv.iter().map(String::as_str));
    if args.quit {
        crate::closing::quit_app(app, "a --quit launch");
    } else if args.link.is_some() {
        open_soon(app, args.target());
    } else if !args.background {
        open_soon(app, None);
    }
}

/// A `herald://` link delivered to the running app by the system (macOS) or the deep-link
/// plugin.
pub fn links_opened<R: Runtime>(app: &AppHandle<R>, urls: &[tauri::Url]) {
    for url in urls {
        match parse_link(url.as_str()) {
            Ok(target) => open_soon(app, Some(target)),
            Err(error) => tracing::warn!(%error, "ignored a herald:// link"),
        }
    }
}

/// Launch settings as Settings → Startup shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LaunchSettings {
    /// Herald starts (in the background) when the person logs in.
    pub autostart: bool,
    /// The global shortcut's accelerator (`CommandOrControl+Shift+H`); empty when off.
    pub shortcut: String,
    /// Why the shortcut is not active (another app holds it), else `null`.
    pub shortcut_error: Option<String>,
}

/// What is saved in `launch.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Saved {
    shortcut: String,
}

impl Default for Saved {
    fn default() -> Self {
        Saved {
            shortcut: DEFAULT_SHORTCUT.to_owned(),
        }
    }
}

/// The launch state kept by the app.
#[derive(Debug)]
pub struct Launch {
    file: PathBuf,
    saved: std::sync::Mutex<Saved>,
    shortcut_error: std::sync::Mutex<Option<String>>,
}

impl Launch {
    fn load(data_dir: &Path) -> Self {
        let file = data_dir.join(SETTINGS_FILE);
        let saved = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Launch {
            file,
            saved: std::sync::Mutex::new(saved),
            shortcut_error: std::sync::Mutex::new(None),
        }
    }

    fn shortcut(&self) -> String {
        self.saved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .shortcut
            .clone()
    }
}

/// Loads the launch settings and registers the global shortcut. Call in `setup` of the real
/// app (the plugins are registered by [`plugins`]).
pub fn start<R: Runtime>(app: &AppHandle<R>, data_dir: &Path) {
    let launch = Launch::load(data_dir);
    let shortcut = launch.shortcut();
    app.manage(launch);
    let handle = app.clone();
    app.deep_link()
        .on_open_url(move |event| links_opened(&handle, &event.urls()));
    if !shortcut.is_empty() {
        if let Err(error) = register(app, &shortcut) {
            tracing::warn!(%error, shortcut, "the global shortcut is not active");
        }
    }
}

/// Why a registered shortcut still cannot work here: on Wayland the X11 grab the plugin makes
/// (through XWayland) only sees keys typed into X11 windows, and it reports no error.
fn session_limit() -> Option<String> {
    let wayland = std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| t == "wayland")
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    (cfg!(target_os = "linux") && wayland).then(|| {
        "Wayland does not let apps catch keys typed in other windows: set the shortcut in your \
         desktop's keyboard settings to run `herald-desktop herald://pending` instead"
            .to_owned()
    })
}

/// Registers `accelerator` as the shortcut opening the newest pending request.
fn register<R: Runtime>(app: &AppHandle<R>, accelerator: &str) -> Result<(), String> {
    let shortcut: Shortcut = accelerator
        .parse()
        .map_err(|e| format!("{accelerator:?} is not a key combination: {e}"))?;
    let result = app
        .global_shortcut()
        .on_shortcut(shortcut, |app, _, event| {
            if event.state == ShortcutState::Pressed {
                open_soon(app, Some(OpenTarget::NewestPending));
            }
        })
        .map_err(|e| format!("another application uses {accelerator}: {e}"));
    if let Some(launch) = app.try_state::<Launch>() {
        *launch
            .shortcut_error
            .lock()
            .unwrap_or_else(|p| p.into_inner()) =
            result.as_ref().err().cloned().or_else(session_limit);
    }
    result
}

/// The plugins of the real app (not the tests' mock runtime): single instance first (it must
/// see a second launch before anything opens), links, launch at login, the global shortcut.
pub fn plugins<R: Runtime>(
    builder: tauri::Builder<R>,
    identifier: &str,
    data_dir: Option<&Path>,
) -> tauri::Builder<R> {
    builder
        .plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(instance_id(identifier, data_dir))
                .callback(|app, argv, _cwd| second_launch(app, argv))
                .build(),
        )
        .plugin(tauri_plugin_deep_link::init())
        .plugin(autostart_plugin())
        .plugin(tauri_plugin_global_shortcut::Builder::new().build())
}

/// macOS and Windows: tauri-plugin-autostart (a LaunchAgent; the `Run` registry key).
#[cfg(not(target_os = "linux"))]
fn autostart_plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_autostart::Builder::new()
        .arg(BACKGROUND_ARG)
        .app_name("Herald")
        .build()
}

/// Linux: Herald writes its XDG autostart entry itself (login_item.rs); nothing to register.
#[cfg(target_os = "linux")]
fn autostart_plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri::plugin::Builder::new("herald-login-item").build()
}

/// Whether Herald starts at login.
#[cfg(not(target_os = "linux"))]
fn autostart_enabled<R: Runtime>(app: &AppHandle<R>) -> Result<bool, String> {
    if app
        .try_state::<tauri_plugin_autostart::AutoLaunchManager>()
        .is_none()
    {
        return Err("launch at login settings are not available here".into());
    }
    app.autolaunch().is_enabled().map_err(|e| e.to_string())
}

#[cfg(target_os = "linux")]
fn autostart_enabled<R: Runtime>(_app: &AppHandle<R>) -> Result<bool, String> {
    let dir = crate::login_item::autostart_dir_from_env().map_err(|e| e.to_string())?;
    crate::login_item::LoginItem::in_dir(&dir)
        .is_enabled()
        .map_err(|e| e.to_string())
}

/// Turns launch at login on or off.
#[cfg(not(target_os = "linux"))]
fn change_autostart<R: Runtime>(app: &AppHandle<R>, enabled: bool) -> Result<(), String> {
    if app
        .try_state::<tauri_plugin_autostart::AutoLaunchManager>()
        .is_none()
    {
        return Err("launch at login settings are not available here".into());
    }
    let manager = app.autolaunch();
    let done = if enabled {
        manager.enable()
    } else {
        manager.disable()
    };
    done.map_err(|e| e.to_string())
}

/// Linux: the entry starts the AppImage when Herald runs from one (its mounted copy is gone
/// after a reboot), otherwise this executable.
#[cfg(target_os = "linux")]
fn change_autostart<R: Runtime>(app: &AppHandle<R>, enabled: bool) -> Result<(), String> {
    let dir = crate::login_item::autostart_dir_from_env().map_err(|e| e.to_string())?;
    let item = crate::login_item::LoginItem::in_dir(&dir);
    if !enabled {
        return item.disable().map_err(|e| e.to_string());
    }
    let program = match app.env().appimage {
        Some(appimage) => PathBuf::from(appimage),
        None => std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?,
    };
    item.enable(&program, &[BACKGROUND_ARG])
        .map_err(|e| e.to_string())
}

fn settings<R: Runtime>(app: &AppHandle<R>) -> Result<LaunchSettings, UiError> {
    let launch = app
        .try_state::<Launch>()
        .ok_or_else(|| unavailable("launch settings"))?;
    let autostart = autostart_enabled(app).unwrap_or_else(|e| {
        tracing::warn!("launch at login: {e}");
        false
    });
    let shortcut_error = launch
        .shortcut_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    Ok(LaunchSettings {
        autostart,
        shortcut: launch.shortcut(),
        shortcut_error,
    })
}

fn unavailable(what: &str) -> UiError {
    shell_error(
        UiErrorCode::Unavailable,
        format!("{what} are not available here"),
    )
}

/// Launch at login and the global shortcut, as saved.
pub async fn launch_settings<R: Runtime>(app: AppHandle<R>) -> Result<LaunchSettings, UiError> {
    settings(&app)
}

/// Turns launch at login on or off (Linux: `$XDG_CONFIG_HOME/autostart/Herald.desktop`,
/// login_item.rs; macOS: a LaunchAgent; Windows: the `Run` registry key), started with
/// `--background`. Errors: `storage` when the entry cannot be written or removed.
pub async fn set_autostart<R: Runtime>(
    app: AppHandle<R>,
    enabled: bool,
) -> Result<LaunchSettings, UiError> {
    change_autostart(&app, enabled).map_err(|e| {
        shell_error(
            UiErrorCode::Storage,
            format!("launch at login not changed: {e}"),
        )
    })?;
    settings(&app)
}

/// Sets the global shortcut (`""` turns it off). Errors: `invalid_input` for a combination
/// that cannot be parsed or has no Ctrl/Alt/Cmd modifier; `shortcut_taken` when another app
/// holds it (the old one is kept then).
pub async fn set_shortcut<R: Runtime>(
    app: AppHandle<R>,
    shortcut: String,
) -> Result<LaunchSettings, UiError> {
    let launch = app
        .try_state::<Launch>()
        .ok_or_else(|| unavailable("launch settings"))?;
    let shortcut = shortcut.trim().to_owned();
    if !shortcut.is_empty() {
        check_accelerator(&shortcut).map_err(|m| shell_error(UiErrorCode::InvalidInput, m))?;
    }
    let old = launch.shortcut();
    let plugin = app.global_shortcut();
    if !old.is_empty() {
        let _ = plugin.unregister(old.as_str());
    }
    if !shortcut.is_empty() {
        if let Err(message) = register(&app, &shortcut) {
            if !old.is_empty() {
                let _ = register(&app, &old);
            }
            return Err(shell_error(UiErrorCode::ShortcutTaken, message));
        }
    } else {
        *launch
            .shortcut_error
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = None;
    }
    let saved = Saved { shortcut };
    let json = serde_json::to_vec_pretty(&saved)
        .map_err(|e| shell_error(UiErrorCode::Storage, e.to_string()))?;
    std::fs::write(&launch.file, json).map_err(|e| {
        shell_error(
            UiErrorCode::Storage,
            format!("the shortcut was not saved: {e}"),
        )
    })?;
    *launch.saved.lock().unwrap_or_else(|p| p.into_inner()) = saved;
    settings(&app)
}

/// An accelerator the plugin can parse, with at least one of Ctrl, Alt, Super/Cmd (or
/// `CommandOrControl`): a bare key would swallow ordinary typing in every app.
fn check_accelerator(accelerator: &str) -> Result<(), String> {
    let shortcut: Shortcut = accelerator
        .parse()
        .map_err(|e| format!("{accelerator:?} is not a key combination: {e}"))?;
    use tauri_plugin_global_shortcut::Modifiers;
    let strong = Modifiers::CONTROL | Modifiers::ALT | Modifiers::SUPER | Modifiers::META;
    if !shortcut.mods.intersects(strong) {
        return Err(format!(
            "{accelerator:?} needs Ctrl, Alt or Cmd: a key alone would be taken from every app"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_say_what_to_do() {
        assert_eq!(LaunchArgs::parse(["herald-desktop"]), LaunchArgs::default());
        let args = LaunchArgs::parse(["herald-desktop", "--background"]);
        assert!(args.background && !args.quit && args.link.is_none());
        let args = LaunchArgs::parse(["herald-desktop", "herald://message/msg_1"]);
        assert_eq!(
            args.target(),
            Some(OpenTarget::Message {
                id: "msg_1".into(),
                notice: None
            })
        );
        let args = LaunchArgs::parse(["herald://inbox"]);
        assert_eq!(args.link, None, "the program name is not an argument");
        let args = LaunchArgs::parse(["x", "herald://answer/msg_1"]);
        assert_eq!(
            args.target(),
            None,
            "a bad link opens nothing in particular"
        );
        assert!(LaunchArgs::parse(["x", "--quit"]).quit);
    }

    #[test]
    fn each_data_dir_has_its_own_instance() {
        let a = instance_id("run.herald.desktop", Some(Path::new("/tmp/a")));
        let b = instance_id("run.herald.desktop", Some(Path::new("/tmp/b")));
        assert_ne!(a, b);
        assert!(
            a.starts_with("run.herald.desktop.d") && a.len() == "run.herald.desktop.d".len() + 12
        );
        assert_eq!(
            instance_id("run.herald.desktop", None),
            "run.herald.desktop"
        );
        let dir = tempfile::tempdir().unwrap();
        let plain = instance_id("run.herald.desktop", Some(dir.path()));
        let slash = format!("{}/", dir.path().display());
        assert_eq!(
            instance_id("run.herald.desktop", Some(Path::new(&slash))),
            plain,
            "a trailing slash is the same dir"
        );
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let dotted = dir.path().join("sub").join("..");
        assert_eq!(
            instance_id("run.herald.desktop", Some(&dotted)),
            plain,
            "so is a path through .."
        );
    }

    #[test]
    fn a_shortcut_needs_a_strong_modifier() {
        assert_eq!(check_accelerator(DEFAULT_SHORTCUT), Ok(()));
        assert_eq!(check_accelerator("Alt+F9"), Ok(()));
        assert!(check_accelerator("Shift+H").is_err(), "shift alone");
        assert!(check_accelerator("H").is_err());
        assert!(check_accelerator("Ctrl+Shift+NotAKey").is_err());
    }
}
