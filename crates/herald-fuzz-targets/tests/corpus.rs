//! Replays every committed fuzz input (`fuzz/corpus/<target>/*`) through its target, so each
//! one is checked on every `cargo test`, without cargo-fuzz or a nightly toolchain
//! (docs/fuzzing.md).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use herald_fuzz_targets::TARGETS;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
}

#[test]
fn every_committed_input_passes_its_target() {
    let mut failures = Vec::new();
    for (name, target) in TARGETS {
        let dir = corpus_dir(name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
            .map(|entry| entry.expect("corpus entry").path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(
            files.len() >= 5,
            "{name}: expected a committed corpus, found {} files",
            files.len()
        );
        for file in &files {
            let data = std::fs::read(file).expect("read corpus file");
            if catch_unwind(AssertUnwindSafe(|| target(&data))).is_err() {
                failures.push(file.display().to_string());
            }
        }
        println!("{name}: {} inputs replayed", files.len());
    }
    assert!(
        failures.is_empty(),
        "inputs failing their target: {failures:#?}"
    );
}
