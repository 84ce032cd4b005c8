//! Herald desktop: a thin Tauri shell over `herald-client`.
//!
//! It wires the device core into Tauri state, exposes one-line command adapters to the webview,
//! forwards core events as `herald://event`, raises OS notifications for new requests, and runs
//! the embedded relay when the account uses one. Behaviour lives in the Tauri-free crates.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod agents;
mod answering;
mod closing;
mod commands;
mod devices;
mod embedded;
mod events;
mod files;
mod notify;
mod notify_plan;
mod paint;
mod picks;
mod shell;
mod speech;
mod startup;
mod updates;

use tauri::Manager;

fn main() {
    paint::mark_process_start();
    // RUST_LOG, under the guard that keeps dependencies' content-carrying levels off
    // (html5ever's text nodes, tungstenite's Authorization header, the words `tts` speaks).
    herald_log::init(
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
    );

    let builder = tauri::Builder::default();
    let config = shell::ShellConfig::from_env();
    let context = tauri::generate_context!("../tauri.conf.json");
    let app = match shell::run_app(builder, config).build(context) {
        Ok(app) => app,
        Err(error) => {
            eprintln!("herald-desktop: could not start: {error}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            if let Some(state) = handle.try_state::<shell::AppState>() {
                // Stops the sync and records a clean close of the cache (no destructors run).
                state.core.close();
                tauri::async_runtime::block_on(state.relay.stop());
            }
        }
    });
}
