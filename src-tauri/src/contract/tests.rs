use std::path::PathBuf;

use serde_json::json;

use super::{dispatch, typescript, NAMES};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Writes `ui/src/lib/bindings/commands.ts` as ts-rs writes its bindings: CI then fails when
/// the committed file differs (scripts/test.sh, "TypeScript bindings are current").
#[test]
fn writes_the_ui_command_bindings() {
    let path = repo_root().join("ui/src/lib/bindings/commands.ts");
    let text = typescript();
    for name in NAMES {
        assert!(
            text.contains(&format!("  {name}: {{ args: ")),
            "{name} missing"
        );
    }
    assert!(text
        .contains("create_account: { args: { relayUrl: string | null }; result: OnboardResult };"));
    assert!(text.contains("mark_read: { args: { id: string }; result: void };"));
    assert!(text.contains("attachment_image: { args: { messageId: string; attachmentId: string }; result: ArrayBuffer };"));
    assert!(text.contains("import type { MessageSummary } from \"./MessageSummary\";"));
    assert!(text.contains("import type { ConnectionView } from \"./ConnectionView\";"));
    assert!(
        !text.contains("import type { ActionView }"),
        "only the types a signature names are imported"
    );
    std::fs::write(&path, text).expect("write commands.ts");
}

#[test]
fn command_names_are_unique_snake_case() {
    let mut seen = std::collections::HashSet::new();
    for name in NAMES {
        assert!(seen.insert(*name), "{name} declared twice");
        assert!(
            name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{name} is not snake_case"
        );
    }
}

/// The capability file grants the main window exactly the contract's commands (plus the core
/// event permissions the UI listens with), so a command added to list.rs and not granted, or
/// granted and no longer declared, fails here.
#[test]
fn capability_grants_exactly_the_contract() {
    let path = repo_root().join("src-tauri/capabilities/main.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read main.json"))
            .expect("main.json is JSON");
    let granted: Vec<&str> = file["permissions"]
        .as_array()
        .expect("permissions")
        .iter()
        .map(|p| p.as_str().expect("permission names only"))
        .filter(|p| !p.starts_with("core:"))
        .collect();
    let expected: Vec<String> = NAMES
        .iter()
        .map(|name| format!("allow-{}", name.replace('_', "-")))
        .collect();
    assert_eq!(
        granted, expected,
        "capabilities/main.json drifted from contract/list.rs"
    );
}

#[tokio::test]
async fn an_unknown_command_or_bad_arguments_get_typed_errors() {
    let app = tauri::test::mock_app();
    let error = dispatch(app.handle().clone(), "no_such_command", json!({}))
        .await
        .expect_err("unknown");
    assert_eq!(error.code, "not_found");

    let error = dispatch(app.handle().clone(), "message", json!({"id": 5}))
        .await
        .expect_err("a number is not an id");
    assert_eq!(error.code, "invalid_args");
    assert!(error.message.contains("message"), "{}", error.message);

    let error = dispatch(
        app.handle().clone(),
        "inbox_page",
        json!({"before": null, "limit": "hunter2-secret"}),
    )
    .await
    .expect_err("limit must be a number");
    assert_eq!(error.code, "invalid_args");
    assert!(
        !error.message.contains("hunter2"),
        "a value of the wrong type is not echoed: {}",
        error.message
    );

    let error = dispatch(app.handle().clone(), "open_external", json!(null))
        .await
        .expect_err("url missing");
    assert_eq!(error.code, "invalid_args");
    assert!(error.message.contains("url"), "{}", error.message);

    let error = dispatch(
        app.handle().clone(),
        "open_external",
        json!({"url": "file:///etc/passwd"}),
    )
    .await
    .expect_err("not an external link");
    assert_eq!(error.code, "invalid_link");
}
