//! Defects a break-it pass found after issue 15 landed: one-line labels under the title rule,
//! relay URLs checked up front, data-dir errors naming the path, JSON arrays refused where an
//! object is expected, and local files checked before the first upload. The real `herald`
//! binary against a real relay on 127.0.0.1:0.

mod common;

use common::*;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd`, which must fail with exit 1; returns its stderr.
fn fails(cmd: &mut std::process::Command) -> String {
    let out = run(cmd);
    assert_eq!(
        out.status.code(),
        Some(1),
        "refused with exit 1: stdout {} stderr {}",
        String::from_utf8_lossy(&out.stdout),
        stderr_of(&out)
    );
    stderr_of(&out)
}

#[test]
fn headers_and_option_labels_follow_the_title_rule() {
    let s = setup();
    let err = fails(agent(&s).args(["ask", "--title", "T", "--question", "H\u{202e}|Q?|a,b"]));
    assert!(err.contains("questions[0].header"), "{err}");
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("form.json");
    std::fs::write(
        &file,
        r#"{"title":"T","fields":[{"id":"a","type":"choice","label":"A","header":"a\nb\u200b\u0000","options":[{"value":"x","label":"X"}]}]}"#,
    )
    .expect("form");
    let err = fails(agent(&s).args(["ask", "--json", &file.display().to_string()]));
    assert!(err.contains("fields[0].header"), "{err}");
    assert!(inbox_list(&s).is_empty(), "nothing reached the inbox");
}
