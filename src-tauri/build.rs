//! The config lives at the repository root (the client fixed the layout), so point tauri-build
//! at it; `generate_context!("../tauri.conf.json")` in main.rs reads the same file.
//! The app manifest turns each command into a permission, so the capability file lists exactly
//! what the webview may call.

fn main() {
    let commands = &[
        "setup_state",
        "create_account",
        "list_connections",
        "create_connection",
        "inbox",
        "inbox_page",
        "message",
        "mark_read",
        "answer",
        "open_external",
        "sync_state",
        "check_recovery_key",
        "revoke_connection",
        "thread",
        "pick_file",
        "open_secret_offer",
        "reveal_secret_offer",
        "save_attachment",
        "attachment_image",
        "unlock_with_recovery_key",
        "start_pairing",
        "wait_pairing",
        "pairing_requests",
        "approve_pairing",
        "devices",
        "revoke_device",
        "reset_account",
        "safety_code",
        "notifications",
        "notification",
        "mark_notification_read",
        "notification_seen",
        "reply_notification",
        "speech_status",
        "quiet_hours",
        "set_quiet_hours",
        "notification_settings",
        "set_notification_settings",
        "ui_viewing",
        "agent_keys",
        "create_agent_key",
        "revoke_agent_key",
        "connectors",
        "approve_connector",
        "deny_connector",
        "revoke_connector",
        "ui_painted",
        "close_hint_shown",
        "confirm_close",
        "take_open_target",
        "launch_settings",
        "set_autostart",
        "set_shortcut",
        "check_for_update",
        "install_update",
        "update_settings",
        "set_update_settings",
    ];
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(commands));
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri-build failed: {error:#}");
    }
}
