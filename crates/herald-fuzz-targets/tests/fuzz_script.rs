//! scripts/fuzz.sh checks its arguments before building anything: `--help` prints the usage
//! with the real target list (fuzz/fuzz_targets/), an unknown target or option exits 2 with
//! the usage and creates no corpus folder. Needs bash, not cargo-fuzz.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fuzz(args: &[&str]) -> Output {
    Command::new("bash")
        .arg(root().join("scripts/fuzz.sh"))
        .args(args)
        .output()
        .expect("bash runs scripts/fuzz.sh")
}

#[test]
fn help_lists_the_real_targets() {
    let out = fuzz(&["--help"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("Usage:"), "{stdout}");
    let targets = std::fs::read_dir(root().join("fuzz/fuzz_targets")).unwrap();
    for entry in targets {
        let name = entry.unwrap().file_name();
        let name = name.to_string_lossy();
        let target = name.trim_end_matches(".rs");
        assert!(stdout.contains(target), "{target} listed: {stdout}");
    }
    assert!(
        !root().join("fuzz/target/corpus/--help").exists(),
        "no corpus folder named after the flag"
    );
}

#[test]
fn unknown_targets_and_options_exit_2() {
    for arg in ["nosuchtarget", "--nosuchoption"] {
        let out = fuzz(&[arg]);
        assert_eq!(out.status.code(), Some(2), "{arg}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("Usage:"), "{arg}: {stderr}");
        assert!(!stderr.contains("crashes in"), "{arg}: {stderr}");
        assert!(
            !root().join("fuzz/target/corpus").join(arg).exists(),
            "{arg}: no corpus folder"
        );
    }
}
