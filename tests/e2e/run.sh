#!/usr/bin/env bash
# Desktop end-to-end test: builds the UI, the desktop app and the CLI, then runs
# desktop.test.mjs under Xvfb and a private D-Bus session with tauri-driver on 127.0.0.1:4444.
# Exits non-zero on any failure. Artifacts (screenshots, logs) land in test-artifacts/.
#
#   tests/e2e/run.sh               build, then test
#   HERALD_E2E_SKIP_BUILD=1 ...    test the binaries already in target/debug
#   HERALD_E2E_KEEP_DATA=1 ...     keep the app's temp data dir for inspection
#   HERALD_E2E_ONLY=REGEX ...      only the stages whose name matches (and onboarding)
#   HERALD_E2E_APP, HERALD_E2E_CLI the app and CLI to test instead of target/debug's
#                                  (tests/package/run.sh: the installed package's)
#
# Needs: scripts/setup-desktop.sh (Debian packages, npm deps, tauri-driver).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
E2E="$ROOT/tests/e2e"
ARTIFACTS="$ROOT/test-artifacts"

for tool in xvfb-run dbus-run-session WebKitWebDriver tauri-driver node npm cargo curl; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "e2e: '$tool' is missing; run scripts/setup-desktop.sh" >&2
    exit 1
  }
done

if [ "${HERALD_E2E_SKIP_BUILD:-0}" != "1" ]; then
  echo "e2e: building the UI"
  if [ ! -d "$ROOT/ui/node_modules" ]; then (cd "$ROOT/ui" && npm ci --no-audit --no-fund); fi
  (cd "$ROOT/ui" && npm run build)
  echo "e2e: building herald-desktop, herald and herald-relay"
  # The same build command as tests/mcp/run.sh, so the two share one set of artifacts.
  (cd "$ROOT" && cargo build --workspace --bins)
fi
if [ ! -d "$E2E/node_modules" ]; then (cd "$E2E" && npm ci --no-audit --no-fund); fi

# The test sets exactly what the app and the CLI see.
unset HERALD_DEMO HERALD_URL HERALD_TOKEN
# WebKitWebDriver's screenshot never answers when WebKitGTK draws without accelerated
# compositing (Herald's default on Linux, src-tauri/src/rendering.rs): the tests keep
# WebKitGTK's own choice. The app draws the same either way (docs/desktop-lifecycle.md).
export HERALD_GPU=1

mkdir -p "$ARTIFACTS"
rm -f "$ARTIFACTS"/desktop-e2e*.png
DATA_DIR="$(mktemp -d -t herald-e2e-XXXXXX)"
# A private XDG home: the webview's storage, any keyring the session bus activates and the
# CLI's config fallback all stay in temp dirs, never the user's own.
XDG_TMP="$(mktemp -d -t herald-e2e-xdg-XXXXXX)"
export XDG_DATA_HOME="$XDG_TMP/data" XDG_CACHE_HOME="$XDG_TMP/cache" XDG_CONFIG_HOME="$XDG_TMP/config"
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_CONFIG_HOME"
# A private HOME too, apart from XDG_CONFIG_HOME: the test accepts the offer to launch at login
# and checks the entry lands in $XDG_CONFIG_HOME/autostart, not under HOME.
export HOME="$XDG_TMP/home"
mkdir -p "$HOME"
cleanup() {
  rm -rf "$XDG_TMP"
  if [ "${HERALD_E2E_KEEP_DATA:-0}" = "1" ]; then
    echo "e2e: data dir kept at $DATA_DIR"
  else
    rm -rf "$DATA_DIR"
  fi
}
trap cleanup EXIT

echo "e2e: data dir $DATA_DIR"
HERALD_DATA_DIR="$DATA_DIR" ARTIFACTS="$ARTIFACTS" \
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
  dbus-run-session -- bash "$E2E/in-session.sh"
