//! App state and wiring: open the core, manage it, forward events, resume sync on start.

use std::path::PathBuf;
use std::sync::Arc;

use herald_client::view::SetupStatus;
use herald_client::{Core, CoreConfig};
use tauri::{Manager, Runtime};

use crate::closing::CloseHint;
use crate::embedded::EmbeddedRelay;
use crate::events;
use crate::launch::LaunchArgs;
use crate::pause::Pause;
use crate::speech::Speaker;
use crate::state::AppState;
use crate::state::LastSyncState;
use crate::window::WaitingTarget;
use crate::window_link::core_side::WindowLink;
use herald_client::answers::picks::PickedFiles;
use herald_client::gate::AnswerGate;
use herald_client::notify_plan::viewing::OnScreen;

/// What the binary decides from its environment before the app starts.
#[derive(Debug, Clone)]
pub struct ShellConfig {
    /// `HERALD_DATA_DIR`; `None` uses the platform's app data dir.
    pub data_dir: Option<PathBuf>,
    /// Keep the device key in the OS keychain (falls back to a 0600 file where none exists).
    pub use_keychain: bool,
    /// `HERALD_DEMO=1`: after the account is created, a "Demo agent" connection sends a few
    /// real requests (herald_client::demo) so the inbox is not empty on first run.
    pub demo: bool,
    /// The command line: `--background`, `--quit`, a `herald://` link (launch.rs).
    pub launch: LaunchArgs,
    /// The desktop's own integrations: the tray icon and the global shortcut. Off on the
    /// tests' mock runtime, which has no tray or key grabs.
    pub integrations: bool,
    /// The window runs as a process of its own (window_link; `HERALD_WINDOW=inline` turns it
    /// off). Off on the mock runtime, whose windows live in the test's process.
    pub window_process: bool,
}

impl ShellConfig {
    /// `HERALD_DATA_DIR` when set (tests use it), else the platform's app data dir.
    pub fn from_env() -> Self {
        ShellConfig {
            data_dir: std::env::var_os("HERALD_DATA_DIR")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
            use_keychain: true,
            demo: std::env::var("HERALD_DEMO").is_ok_and(|v| v == "1"),
            launch: LaunchArgs::parse(
                std::env::args()
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            ),
            integrations: true,
            window_process: crate::window_link::split_from_env(),
        }
    }
}

/// Registers plugins, state, commands and the start-up task on `builder`. Generic over the
/// runtime so tests can pass `tauri::test::mock_builder()`.
pub fn run_app<R: Runtime>(builder: tauri::Builder<R>, config: ShellConfig) -> tauri::Builder<R> {
    let (opener, gate) = crate::startup::gate();
    let link_gate = gate.clone();
    let mut opener = Some(opener);
    builder
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_dialog::init())
        .plugin(navigation_guard())
        // What the window shows, reported by `ui_viewing` even before the core opens.
        .manage(OnScreen::default())
        .manage(WaitingTarget::default())
        .on_window_event(|window, event| match event {
            tauri::WindowEvent::CloseRequested { api, .. } => {
                crate::closing::on_close_requested(window, api);
            }
            tauri::WindowEvent::Destroyed if window.label() == crate::main_window::MAIN => {
                window.state::<WaitingTarget>().window_destroyed();
                window
                    .state::<crate::closing::CloseHint>()
                    .window_destroyed();
            }
            _ => {}
        })
        .plugin(tauri_plugin_updater::Builder::new().build())
        .plugin(crate::updates::init(config.data_dir.clone()))
        .invoke_handler(crate::startup::gated(
            gate,
            crate::contract::invoke_handler(),
        ))
        .setup(move |app| {
            let handle = app.handle().clone();
            let data_dir = match config.data_dir.clone() {
                Some(dir) => dir,
                None => handle.path().app_data_dir()?,
            };
            if config.launch.quit {
                // `--quit` with no Herald of this data dir running: nothing to quit.
                std::process::exit(0);
            }
            app.manage(CloseHint::load(&data_dir));
            app.manage(Pause::load(&data_dir));
            if config.window_process {
                let host = crate::window_host::ShellHost::shared(handle.clone(), link_gate.clone());
                app.manage(WindowLink::start(data_dir.clone(), host)?);
            }
            // The window first: its page loads while the core opens (startup.rs).
            if !config.launch.background {
                if let Some(target) = config.launch.target() {
                    crate::window::wait_with(&handle, target);
                }
                match handle.try_state::<WindowLink>() {
                    Some(link) => link.spawn_window(),
                    None => crate::window::create(&handle)?,
                }
            }
            if config.integrations {
                crate::tray::create(&handle);
                crate::launch::start(&handle, &data_dir);
            }
            app.manage(Speaker::start());
            crate::startup::exit_on_terminate(handle.clone());
            // Commands wait for the core.
            let opener = opener.take().ok_or("setup ran twice")?;
            let demo = config.demo;
            let use_keychain = config.use_keychain;
            tauri::async_runtime::spawn(async move {
                let dir = data_dir.clone();
                let started = std::time::Instant::now();
                let opened = tauri::async_runtime::spawn_blocking(move || {
                    // Creates the data dir (mode 0700) when missing; the cache's full page
                    // check waits for the first paint unless the last exit was unclean.
                    Core::open_deferring_cache_check(CoreConfig {
                        data_dir: dir,
                        device_name: device_name(),
                        platform: platform().into(),
                        use_keychain,
                    })
                })
                .await;
                let core = match opened {
                    Ok(Ok(core)) => core,
                    Ok(Err(error)) => return open_failed(&handle, opener, error.to_string()),
                    Err(error) => return open_failed(&handle, opener, error.to_string()),
                };
                let open_ms = started.elapsed().as_secs_f64() * 1e3;
                tracing::info!(open_ms = format_args!("{open_ms:.1}"), "device core opened");
                let relay = Arc::new(EmbeddedRelay::new(data_dir.clone()));
                let answers = AnswerGate::default();
                let speaker = handle.state::<Speaker>().inner().clone();
                let on_screen = handle.state::<OnScreen>().inner().clone();
                let pause = handle.state::<Pause>().inner().clone();
                handle.manage(crate::notify::Notifier::start(
                    &handle,
                    core.clone(),
                    answers.clone(),
                    speaker,
                    on_screen,
                    pause,
                ));
                crate::pending::watch(handle.clone(), core.clone());
                let last_sync = LastSyncState::default();
                // Subscribe before sync starts so no event is missed.
                events::forward(handle.clone(), core.subscribe(), last_sync.clone());
                handle.manage(AppState {
                    core: core.clone(),
                    data_dir,
                    relay: relay.clone(),
                    last_sync: last_sync.clone(),
                    demo,
                    picks: PickedFiles::default(),
                    device_name: device_name(),
                    answers,
                    unsaved_key: Default::default(),
                });
                opener.ready();
                resume(handle, core, relay, last_sync).await;
            });
            Ok(())
        })
}

/// The core did not open: said on stderr (as a failed start always was) and the app exits.
fn open_failed<R: Runtime>(
    app: &tauri::AppHandle<R>,
    opener: crate::startup::Opener,
    error: String,
) {
    tracing::error!(%error, "cannot open the device core");
    eprintln!("herald-desktop: could not start: cannot open the device core: {error}");
    opener.failed();
    app.exit(1);
}

/// Keeps every webview on the app's own pages: a link in a message body that slips past the
/// UI's click handler must not navigate the window (links open in the system browser via the
/// `open_external` command instead).
pub(crate) fn navigation_guard<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri::plugin::Builder::new("herald-navigation")
        .on_navigation(|_webview, url| {
            let allowed = is_app_url(url);
            if !allowed {
                tracing::warn!(%url, "blocked navigation away from the app");
            }
            allowed
        })
        .build()
}

/// The origins the app's own pages load from (custom protocol on Linux/macOS, Windows).
fn is_app_url(url: &tauri::Url) -> bool {
    matches!(
        (url.scheme(), url.host_str()),
        ("tauri", Some("localhost")) | ("http" | "https", Some("tauri.localhost"))
    )
}

/// On start: the embedded relay first (if this account uses it); after the first paint the
/// cache's full page check (a damaged cache is rebuilt by the sync that follows); then sync,
/// when this device has an account. Failures reach the UI as a sync-state event.
async fn resume<R: Runtime>(
    app: tauri::AppHandle<R>,
    core: Core,
    relay: Arc<EmbeddedRelay>,
    last_sync: LastSyncState,
) {
    let ready = core.setup_state().status == SetupStatus::Ready;
    if ready && relay.is_configured() {
        if let Err(error) = relay.start().await {
            tracing::error!(%error, "embedded relay did not start");
            let message = format!("The embedded relay did not start: {error}");
            events::sync_failed(&app, &last_sync, message);
        }
    }
    crate::startup::first_paint(crate::startup::PAINT_WAIT).await;
    let started = std::time::Instant::now();
    match core.verify_cache().await {
        Ok(outcome) => {
            let check_ms = started.elapsed().as_secs_f64() * 1e3;
            let check_ms = format_args!("{check_ms:.1}");
            tracing::info!(?outcome, check_ms, "cache checked after the first paint");
        }
        Err(error) => tracing::error!(%error, "the cache check did not run"),
    }
    if !ready {
        return;
    }
    if let Err(error) = core.start_sync() {
        tracing::error!(%error, "sync did not start");
        events::sync_failed(&app, &last_sync, error.to_string());
    }
}

/// This computer's name as shown in device lists.
fn device_name() -> String {
    let from_env = ["HOSTNAME", "COMPUTERNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok())
        .filter(|n| !n.trim().is_empty());
    from_env
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|n| n.trim().to_owned())
                .filter(|n| !n.is_empty())
        })
        .unwrap_or_else(|| "Desktop".to_owned())
}

fn platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "macos",
        "windows" => "windows",
        _ => "linux",
    }
}

#[cfg(test)]
mod tests {
    use herald_client::view::{SetupState, UiError};
    use serde_json::json;
    use tauri::ipc::{CallbackFn, InvokeBody};
    use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
    use tauri::webview::InvokeRequest;
    use tauri::{Manager, WebviewWindowBuilder};

    use super::*;

    fn request(cmd: &str, body: serde_json::Value) -> InvokeRequest {
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("valid url"),
            body: InvokeBody::Json(body),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        }
    }

    /// The app on the mock runtime with the real config and capabilities, after its first
    /// event-loop iteration: setup has run (the core's open started) and the config's main
    /// window exists. The iteration runs once, not in a loop (what the deprecation warns
    /// about); `run_return` would block the test on the event loop.
    fn start_app(
        data_dir: std::path::PathBuf,
    ) -> (
        tauri::App<tauri::test::MockRuntime>,
        tauri::WebviewWindow<tauri::test::MockRuntime>,
    ) {
        let app = start_with(data_dir, LaunchArgs::default());
        let main = app
            .get_webview_window("main")
            .expect("setup creates the main window before the core opens");
        (app, main)
    }

    /// The app with `launch` as its command line, after its first event-loop iteration.
    fn start_with(
        data_dir: std::path::PathBuf,
        launch: LaunchArgs,
    ) -> tauri::App<tauri::test::MockRuntime> {
        let config = ShellConfig {
            data_dir: Some(data_dir),
            use_keychain: false,
            demo: false,
            launch,
            integrations: false,
            window_process: false,
        };
        let mut app = run_app(mock_builder(), config)
            .build(tauri::generate_context!("../tauri.conf.json"))
            .expect("the app builds on the mock runtime");
        #[allow(deprecated)]
        app.run_iteration(|_, _| {});
        app
    }

    /// `--background` starts without a window; one created later (the tray, a banner, a
    /// link) is handed what it should show, once.
    #[test]
    fn a_background_start_has_no_window_until_one_is_asked_for() {
        let dir = tempfile::tempdir().expect("temp dir");
        let launch = LaunchArgs::parse(["herald-desktop", "--background"]);
        let app = start_with(dir.path().to_owned(), launch);
        assert!(app.get_webview_window("main").is_none(), "no window");
        let target = crate::targets::OpenTarget::Notification { id: "ntf_1".into() };
        crate::window::wait_with(app.handle(), target.clone());
        crate::window::create(app.handle()).expect("the window is created from its config");
        let main = app.get_webview_window("main").expect("now it exists");
        let take = || -> Option<crate::targets::OpenTarget> {
            get_ipc_response(&main, request("take_open_target", json!({})))
                .expect("take_open_target is allowed")
                .deserialize()
                .expect("an OpenTarget or null")
        };
        assert_eq!(take(), Some(target), "the new window shows what was asked");
        assert_eq!(take(), None, "once");
    }

    /// A link on the command line opens its target in the first window.
    #[test]
    fn a_link_on_the_command_line_is_the_first_windows_target() {
        let dir = tempfile::tempdir().expect("temp dir");
        let launch = LaunchArgs::parse(["herald-desktop", "herald://approve-device"]);
        let app = start_with(dir.path().to_owned(), launch);
        let main = app.get_webview_window("main").expect("a window");
        let target: Option<crate::targets::OpenTarget> =
            get_ipc_response(&main, request("take_open_target", json!({})))
                .expect("take_open_target is allowed")
                .deserialize()
                .expect("an OpenTarget or null");
        assert_eq!(target, Some(crate::targets::OpenTarget::ApproveDevice));
    }

    /// A data dir that cannot be one (a file): the open fails after the window exists, and a
    /// command that waited for the core is told so instead of hanging.
    #[test]
    fn commands_waiting_for_a_core_that_cannot_open_are_rejected() {
        let dir = tempfile::tempdir().expect("temp dir");
        let not_a_dir = dir.path().join("file");
        std::fs::write(&not_a_dir, b"x").expect("file");
        let (_app, main) = start_app(not_a_dir);
        let error = get_ipc_response(&main, request("setup_state", json!({})))
            .expect_err("no core, no state");
        let error: UiError = serde_json::from_value(error).expect("a UiError");
        assert_eq!(error.code, "storage", "{error:?}");
    }

    #[test]
    fn only_the_app_origin_is_navigable() {
        let url = |s: &str| s.parse::<tauri::Url>().expect("url");
        assert!(is_app_url(&url("tauri://localhost/index.html")), "app page");
        assert!(
            is_app_url(&url("http://tauri.localhost/")),
            "app page on Windows"
        );
        assert!(!is_app_url(&url("https://example.com/")), "the web");
        assert!(
            !is_app_url(&url("http://127.0.0.1:8457/")),
            "not even the relay"
        );
        assert!(!is_app_url(&url("file:///etc/passwd")), "no files");
    }

    /// The real config and capability file, the mock runtime: commands are registered, allowed
    /// for the main window only, and errors arrive as `{code, message}`.
    #[test]
    fn main_window_reaches_the_core_through_its_capability() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (app, main) = start_app(dir.path().to_path_buf());

        let state: SetupState = get_ipc_response(&main, request("setup_state", json!({})))
            .expect("setup_state is allowed")
            .deserialize()
            .expect("a SetupState");
        assert_eq!(
            state.status,
            SetupStatus::NeedsSetup,
            "a fresh data dir needs setup"
        );

        let sync = get_ipc_response(&main, request("sync_state", json!({})))
            .expect("sync_state is allowed")
            .deserialize::<serde_json::Value>()
            .expect("json");
        assert!(sync.is_null(), "no sync state before sync starts");

        let error = get_ipc_response(
            &main,
            request("create_account", json!({ "relayUrl": "ftp://nope" })),
        )
        .expect_err("an ftp relay is refused");
        let error: UiError = serde_json::from_value(error).expect("a UiError");
        assert_eq!(error.code, "invalid_relay_url", "stable code: {error:?}");

        // The webview names picked files by id; a path it sends is never opened.
        let error = get_ipc_response(
            &main,
            request(
                "answer",
                json!({ "id": "msg_x", "input": { "actionId": null, "valuesJson": "{}", "files": { "f": "/etc/passwd" } } }),
            ),
        )
        .expect_err("a path from the webview is refused");
        let error: UiError = serde_json::from_value(error).expect("a UiError");
        assert_eq!(error.code, "unknown_pick", "not a pick id: {error:?}");

        // A new device is refused a relay that is not http(s) before anything is sent.
        for (cmd, body) in [
            ("start_pairing", json!({ "relayUrl": "ftp://nope" })),
            (
                "unlock_with_recovery_key",
                json!({ "relayUrl": "ftp://nope", "recoveryKey": "x" }),
            ),
        ] {
            let error =
                get_ipc_response(&main, request(cmd, body)).expect_err("an ftp relay is refused");
            let error: UiError = serde_json::from_value(error).expect("a UiError");
            assert_eq!(error.code, "invalid_relay_url", "{cmd}: {error:?}");
        }

        // Closing (closing.rs): a new data dir has not shown the first-close notice yet.
        let hint: bool = get_ipc_response(&main, request("close_hint_shown", json!({})))
            .expect("close_hint_shown is allowed")
            .deserialize()
            .expect("a bool");
        assert!(!hint, "the first close of a new data dir is explained");

        // A fresh window asks what to show (window.rs): nothing was asked for.
        let target: Option<crate::targets::OpenTarget> =
            get_ipc_response(&main, request("take_open_target", json!({})))
                .expect("take_open_target is allowed")
                .deserialize()
                .expect("an OpenTarget or null");
        assert_eq!(target, None, "nothing waits for this window");

        // Launch settings (launch.rs) are not loaded on the mock runtime: a clear error.
        let error = get_ipc_response(&main, request("launch_settings", json!({})))
            .expect_err("no launch settings without the integrations");
        let error: UiError = serde_json::from_value(error).expect("a UiError");
        assert_eq!(error.code, "unavailable", "{error:?}");

        // The window says what it shows; the notifier skips only that message's banner.
        get_ipc_response(
            &main,
            request(
                "ui_viewing",
                json!({ "messageId": "msg_x", "focused": true }),
            ),
        )
        .expect("ui_viewing is allowed");
        let on_screen = app.state::<OnScreen>();
        assert!(
            on_screen.shows("msg_x"),
            "the report reached the notifier's state"
        );
        get_ipc_response(
            &main,
            request(
                "ui_viewing",
                json!({ "messageId": "msg_x", "focused": false }),
            ),
        )
        .expect("ui_viewing is allowed");
        assert!(
            !on_screen.shows("msg_x"),
            "an unfocused window shows nothing"
        );

        let settings: herald_client::notification_view::NotificationSettings =
            get_ipc_response(&main, request("notification_settings", json!({})))
                .expect("notification_settings is allowed")
                .deserialize()
                .expect("NotificationSettings");
        assert_eq!(settings, Default::default(), "the defaults before any save");
        let error = get_ipc_response(
            &main,
            request(
                "set_notification_settings",
                json!({ "settings": { "banners": "nothing", "muted": ["ci-agent"], "sound": true, "previews": true } }),
            ),
        )
        .expect_err("a name is no sender id");
        let error: UiError = serde_json::from_value(error).expect("a UiError");
        assert_eq!(error.code, "invalid_input", "{error:?}");

        let other = WebviewWindowBuilder::new(&app, "other", Default::default())
            .build()
            .expect("second window");
        assert!(
            get_ipc_response(&other, request("setup_state", json!({}))).is_err(),
            "a window outside the capability cannot call commands"
        );
    }
}
