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
mod updates;
mod window;

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
            if let Some(state) = handle.try_state::<state::AppState>() {
                // Stops the sync and records a clean close of the cache (no destructors run).
                state.core.close();
                tauri::async_runtime::block_on(state.relay.stop());
            }
        }
        _ => {}
    });
}
