//! Content within every per-part limit can still seal to more than the relay's 1 MiB envelope
//! cap (docs/content.md, "Total size"). The real `herald` against a real relay refuses it
//! before anything is uploaded or sent, naming the limit and the size; with `--file` and
//! `--block image:` nothing reaches the relay's file store either.

use crate::common;

use common::*;
use serde_json::json;

/// Four code blocks of 50,000 emoji: each block within its 50,000-character limit, about
/// 1.07 MB once sealed.
fn too_big_content() -> serde_json::Value {
    let block = json!({"type": "code", "text": "😀".repeat(50_000)});
    json!({"title": "Four blocks of emoji", "blocks": [block, block, block, block]})
}

/// Every file the relay keeps for uploads.
fn stored_files(s: &Setup) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(s.relay.dir.path().join("files")) {
        Ok(dir) => dir.map(|e| e.expect("entry").path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn content_over_the_envelope_cap_is_refused_before_anything_is_sent() {
    let s = setup();
    let dir = tempfile::tempdir().expect("temp dir");
    let content = dir.path().join("content.json");
    std::fs::write(&content, too_big_content().to_string()).expect("content file");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, b"some notes").expect("attachment");
    let image = dir.path().join("chart.png");
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend([0u8; 64]);
    std::fs::write(&image, png).expect("image");

    let content = content.to_str().unwrap();
    let image_block = format!("image:{}", image.display());
    let cases: [Vec<&str>; 4] = [
        vec!["send", "--json", content],
        vec!["send", "--json", content, "--file", file.to_str().unwrap()],
        vec!["send", "--json", content, "--block", &image_block],
        vec!["ask", "--json", content, "--action", "ok:OK"],
    ];
    for args in cases {
        let out = run(agent(&s).args(&args));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?} is refused: {stderr}");
        assert!(
            stderr.contains("the sealed message would be")
                && stderr.contains("1048576 bytes (1 MiB)"),
            "{args:?}: the refusal names the limit and the size: {stderr}"
        );
        let size: usize = stderr
            .split("would be ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a size in bytes: {stderr}"));
        assert!(size > 1_048_576, "the size is over the limit: {size}");
        assert!(
            !stderr.contains("payload_too_large"),
            "refused here, not by the relay: {stderr}"
        );
        assert!(
            stored_files(&s).is_empty(),
            "{args:?}: nothing was uploaded: {:?}",
            stored_files(&s)
        );
    }
    assert!(inbox_list(&s).is_empty(), "nothing reached the inbox");

    // Just under: three such blocks fit and are delivered.
    let block = json!({"type": "code", "text": "😀".repeat(50_000)});
    let fits = json!({"title": "Three blocks of emoji", "blocks": [block, block, block]});
    let path = dir.path().join("fits.json");
    std::fs::write(&path, fits.to_string()).expect("content file");
    ok_stdout(agent(&s).args(["send", "--json", path.to_str().unwrap()]));
    wait_for_title(&s, "Three blocks of emoji");
}
