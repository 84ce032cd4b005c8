#!/usr/bin/env bash
# Command 2 of the README: installs what the tests need (Debian packages, npm packages,
# tauri-driver, cargo-deny), then runs every check and test: formatting, lints, the dependency
# policy, generated TypeScript bindings, Rust unit and integration tests (real relay on 127.0.0.1:0,
# real SQLite, real websockets, real crypto), UI checks, the desktop end-to-end test under Xvfb,
# and the installed-package test (a debug .deb built with the Tauri bundler, installed with dpkg).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
# A one-off build gains nothing from incremental caches, and they double target/'s size.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

# Each step's wall time, printed at the end (or when a step fails) so CI time per step is known.
step_name="" step_start=$SECONDS
timings=()
step() {
  [ -n "$step_name" ] && timings+=("$(printf '%6ds  %s' $((SECONDS - step_start)) "$step_name")")
  step_name="$*" step_start=$SECONDS
  printf '\n==> %s\n' "$*"
}
report_timings() {
  local status=$?
  step "(end)"
  printf '\n==> Time per step (total %ds, exit %d)\n' "$SECONDS" "$status"
  printf '%s\n' "${timings[@]}"
}
trap report_timings EXIT

step "Installing dependencies"
bash scripts/setup-desktop.sh

step "Building the UI (the desktop crate embeds ui/dist)"
(cd ui && npm run build)

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "Crate graph follows docs/ARCHITECTURE.md (scripts/check-structure.py)"
python3 scripts/check-structure.py

step "cargo deny: licences, banned crates, sources (deny.toml; offline, no advisory database)"
cargo deny --log-level error check licenses bans sources

step "Rust tests (all crates), on a private session bus with an unlocked gnome-keyring"
# The session bus and keyring let the OS-keychain test (herald-client/tests/keychain.rs, ignored
# without them) use a real Secret Service; every other test ignores them.
keyring_home=$(mktemp -d)
XDG_DATA_HOME="$keyring_home" dbus-run-session -- scripts/with-keyring.sh bash -c '
  cargo test --workspace --no-fail-fast &&
    cargo test -p herald-client --test keychain -- --ignored'
rm -rf "$keyring_home"
df -h . | tail -n1 | awk '{print "disk: " $4 " free after the Rust tests"}'

step "TypeScript bindings are current"
if ! git diff --exit-code -- ui/src/lib/bindings; then
  echo "ui/src/lib/bindings changed when regenerated: run 'cargo test -p herald-client' and 'cargo test -p herald-desktop' (commands.ts and the shell's types) and commit them" >&2
  exit 1
fi
if [ -n "$(git status --porcelain -- ui/src/lib/bindings)" ]; then
  git status --porcelain -- ui/src/lib/bindings >&2
  echo "new, uncommitted TypeScript bindings: commit them" >&2
  exit 1
fi

step "MCP: the official Python SDK against the relay's POST /mcp and against herald mcp (stdio)"
bash tests/mcp/run.sh

step "OpenAPI: schemathesis against a live relay"
bash tests/openapi/run.sh

step "UI checks and tests"
(cd ui && npm run check && npm test)

step "Desktop end-to-end test (Xvfb + tauri-driver + WebKitWebDriver)"
bash tests/e2e/run.sh

step "Installed-package test: a debug .deb built by scripts/package.sh, installed with dpkg, run, removed"
# The dev profile keeps this step to minutes (a release build would add about ten); the package
# layout, the installed app and CLI, and the uninstall are the same (docs/packaging.md).
HERALD_PACKAGE_PROFILE=debug HERALD_BUNDLES=deb bash scripts/package.sh
bash tests/package/run.sh "$(ls -t target/debug/bundle/deb/*.deb | head -n 1)"

printf '\n==> All tests passed\n'
