//! The config lives at the repository root (the client fixed the layout), so point tauri-build
//! at it; `generate_context!("../tauri.conf.json")` in main.rs reads the same file.
//! The app manifest turns each command into a permission, so the capability file lists exactly
//! what the webview may call.

/// Reads only the names out of the contract (src/contract/list.rs); the crate's own `commands!`
/// turns the same list into the dispatcher and the TypeScript bindings.
macro_rules! commands {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty => $handler:path;
    )*) => {
        const COMMANDS: &[&str] = &[$(stringify!($name)),*];
    };
}

include!("src/contract/list.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/contract/list.rs");
    let commands = COMMANDS;
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(commands));
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri-build failed: {error:#}");
    }
}
