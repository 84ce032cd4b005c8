//! The smallest Tauri 2 app: one window, a static page, and one command the page calls after
//! its first paint, so the `desktop_start` bench can time it like herald-desktop.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

/// Printed on stderr once the page has painted: the line the bench waits for.
#[tauri::command]
fn ui_painted() {
    eprintln!("ui painted screen=minimal rows=0");
}

fn main() {
    let app = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![ui_painted])
        .build(tauri::generate_context!());
    match app {
        Ok(app) => app.run(|_, _| {}),
        Err(error) => {
            eprintln!("minimal-tauri: could not start: {error}");
            std::process::exit(1);
        }
    }
}
