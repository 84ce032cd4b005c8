//! Generates the Tauri context (config, capabilities) for `generate_context!`.
fn main() {
    tauri_build::build()
}
