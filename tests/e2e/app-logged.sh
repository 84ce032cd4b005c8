#!/bin/sh
# What tauri-driver starts as "the application" (desktop.test.mjs): the built desktop app, with
# its log level set and its standard error (its own log, its embedded relay's, and the webview
# processes') appended to $HERALD_E2E_LOG_DIR/app.log, so the log check can read it.
#   HERALD_E2E_RUST_LOG   the app's RUST_LOG (default: trace, the most verbose)
#   HERALD_E2E_APP        the app to start (default: the source build in target/debug)
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
APP="${HERALD_E2E_APP:-$HERE/../../target/debug/herald-desktop}"
: "${HERALD_E2E_LOG_DIR:?set by desktop.test.mjs through in-session.sh}"
mkdir -p "$HERALD_E2E_LOG_DIR"
printf -- '----- herald-desktop started\n' >>"$HERALD_E2E_LOG_DIR/app.log"
RUST_LOG="${HERALD_E2E_RUST_LOG:-trace}" exec "$APP" "$@" 2>>"$HERALD_E2E_LOG_DIR/app.log"
