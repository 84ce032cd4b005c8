#!/usr/bin/env bash
# Runs Herald's fuzz targets (docs/fuzzing.md) with cargo-fuzz / libFuzzer, each for a fixed
# time, one process at a time. Installs cargo-fuzz when it is missing. Stable Rust is enough:
# RUSTC_BOOTSTRAP=1 lets it take the nightly flags cargo-fuzz passes (sanitizer, coverage).
#
#   scripts/fuzz.sh                      every target, 60 s each
#   FUZZ_SECONDS=300 scripts/fuzz.sh envelope jsonrpc
#   FUZZ_MERGE=1 scripts/fuzz.sh         then add a set-cover merge of new inputs to fuzz/corpus/
#
# New inputs go to fuzz/target/corpus/<target>/ (not committed); a crash is saved under
# fuzz/artifacts/<target>/ and fails the run. Replay one without cargo-fuzz:
#   cargo run -p herald-fuzz-targets --example replay -- <target> <file>
# Not part of CI: CI replays the committed corpus with `cargo test -p herald-fuzz-targets`.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

# The real targets: fuzz/fuzz_targets/<name>.rs.
all=()
for f in fuzz_targets/*.rs; do
  all+=("$(basename "$f" .rs)")
done

usage() {
  cat <<USAGE
Usage: scripts/fuzz.sh [TARGET...]

Fuzzes each TARGET (default: all) for FUZZ_SECONDS (default 60) seconds with cargo-fuzz.
Targets: ${all[*]}
Environment: FUZZ_SECONDS=<seconds>, FUZZ_MERGE=1 (merge new inputs into fuzz/corpus/).
USAGE
}

for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $arg" >&2; usage >&2; exit 2 ;;
  esac
  if [[ " ${all[*]} " != *" $arg "* ]]; then
    echo "fuzz.sh: unknown target $arg" >&2
    usage >&2
    exit 2
  fi
done

seconds=${FUZZ_SECONDS:-60}
if [[ ! "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: FUZZ_SECONDS must be a positive whole number of seconds, not '$seconds'" >&2
  exit 2
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1
# A one-off build gains nothing from incremental caches; 16 codegen units build much faster
# on two cores for a small loss of fuzzing speed.
export CARGO_INCREMENTAL=0
build=(--codegen-units 16)

failed=()
for target in "${targets[@]}"; do
  printf '\n==> fuzzing %s for %s s\n' "$target" "$seconds"
  mkdir -p "target/corpus/$target"
  # The first corpus folder receives new inputs; the committed one is only read.
  if ! cargo fuzz run "${build[@]}" "$target" "target/corpus/$target" "corpus/$target" -- \
      -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1; then
    failed+=("$target")
    continue
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    cargo fuzz run "${build[@]}" "$target" "corpus/$target" "target/corpus/$target" -- \
      -merge=1 -set_cover_merge=1 -max_len=65536
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "crashes in: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzzed ${targets[*]}: no crash in ${seconds} s each"
