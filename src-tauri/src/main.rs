//! Herald desktop: a thin Tauri shell over `herald-client`.
//!
//! It wires the device core into Tauri state, exposes one-line command adapters to the webview,
//! forwards core events as `herald://event`, raises OS notifications for new requests, and runs
//! the embedded relay when the account uses one. Behaviour lives in the Tauri-free crates.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod account;
mod agents;
mod attention;
mod closing;
mod commands;
mod contract;
mod devices;
mod embedded;
mod events;
mod files;
mod ipc;
mod launch;
#[cfg(target_os = "linux")]
mod login_item;
mod main_window;
mod notify;
mod paint;
mod pause;
mod pending;
mod rendering;
mod shell;
mod speech;
mod startup;
mod state;
mod targets;
mod tray;
mod unsaved_key;
mod updates;
mod window;
mod window_host;
mod window_link;
mod window_process;

use tauri::Manager;

fn main() {
    paint::mark_process_start();
    // Before any thread starts: it sets an environment variable WebKitGTK reads.
    rendering::choose_compositing();
    // RUST_LOG, under the guard that keeps dependencies' content-carrying levels off
    // (html5ever's text nodes, tungstenite's Authorization header, the words `tts` speaks).
    herald_log::init(
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
    );

    let config = shell::ShellConfig::from_env();
    let context = tauri::generate_context!("../tauri.conf.json");
    let identifier = context.config().identifier.clone();
    let context = if config.window_process && !config.launch.background && !config.launch.quit {
        be_the_window_if_herald_runs(&config, context)
    } else {
        context
    };
    let builder = launch::plugins(
        tauri::Builder::default(),
        &identifier,
        config.data_dir.as_deref(),
    );
    let app = match shell::run_app(builder, config).build(context) {
        Ok(app) => app,
        Err(error) => {
            eprintln!("herald-desktop: could not start: {error}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| match event {
        // The last window closed: Herald keeps running (closing.rs). `exit` has a code.
        tauri::RunEvent::ExitRequested {
            code: None, api, ..
        } => api.prevent_exit(),
        // macOS: a click on the Dock icon, or opening the app again from Finder, reaches the
        // running process as Reopen (no second process is started there).
        #[cfg(target_os = "macos")]
        tauri::RunEvent::Reopen { .. } => window::open_soon(handle, None),
        tauri::RunEvent::Exit => {
            if let Some(link) = handle.try_state::<window_link::core_side::WindowLink>() {
                link.stop();
            }
            if let Some(state) = handle.try_state::<state::AppState>() {
                // Stops the sync and records a clean close of the cache (no destructors run).
                state.core.close();
                tauri::async_runtime::block_on(state.relay.stop());
            }
        }
        _ => {}
    });
}

/// A launch while Herald of this data dir runs (window_link): becomes the window process when
/// no window is open, or hands its link to the open one and exits. Returns when no Herald runs
/// (this launch is the first, the core) with the context back. A process the core started
/// (`--window-process`) that cannot reach it exits with 1.
fn be_the_window_if_herald_runs(
    config: &shell::ShellConfig,
    context: tauri::Context<tauri::Wry>,
) -> tauri::Context<tauri::Wry> {
    use window_link::address::{hello, Hello, HelloError};
    let spawned = std::env::args().any(|a| a == window_link::WINDOW_PROCESS_ARG);
    let data_dir = config
        .data_dir
        .clone()
        .or_else(|| dirs::data_dir().map(|d| d.join(&context.config().identifier)));
    let outcome = match data_dir {
        Some(dir) => hello(&dir, config.launch.link.clone(), spawned),
        None => Err(HelloError::NoCore),
    };
    match outcome {
        Ok(Hello::Window { stream, pending }) => {
            window_process::name_this_process();
            let code = match window_process::run(context, stream, pending) {
                Ok(()) => 0,
                Err(error) => {
                    eprintln!("herald-desktop: the window could not start: {error}");
                    1
                }
            };
            std::process::exit(code);
        }
        Ok(Hello::Done) => std::process::exit(0),
        Err(error) if spawned => {
            eprintln!("herald-desktop: the window cannot reach Herald: {error}");
            std::process::exit(1);
        }
        Err(HelloError::NoCore) => {}
        // Somebody else on a stale port, or a core that did not answer: start as usual (the
        // single-instance plugin still finds a running Herald).
        Err(error) => tracing::warn!(%error, "could not reach a running Herald"),
    }
    context
}
