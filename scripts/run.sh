#!/usr/bin/env bash
# Command 1 of the README: installs what is needed, builds the UI, the desktop app and the
# `herald` CLI, and opens the app with the embedded relay. After you create your account the
# app's demo agent (HERALD_DEMO=1) sends a few real, encrypted requests through the relay.
#
# Environment: HERALD_DATA_DIR (default: the platform's app data dir) to keep a separate
# profile, e.g. HERALD_DATA_DIR=/tmp/herald-demo scripts/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-desktop.sh
(cd ui && npm run build)
cargo build -p herald-desktop -p herald-cli

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "No display found (DISPLAY/WAYLAND_DISPLAY unset): the app needs a desktop session." >&2
  echo "On a headless machine, try: xvfb-run -a scripts/run.sh (and a VNC viewer), or use the CLI device: docs/cli.md" >&2
  exit 1
fi

echo "Opening Herald. The CLI is at $(pwd)/target/debug/herald"
echo "Closing the window leaves Herald running (tray icon); quit with Ctrl+Q, the tray's Quit or Ctrl+C here."
echo "(If Herald was already running, this launch only opens its window: Ctrl+C here closes the window, and Herald keeps running.)"
echo "If Herald already runs for this data dir, its window comes forward instead (quit it first with"
echo "target/debug/herald-desktop --quit to start this build)."
HERALD_DEMO=1 exec target/debug/herald-desktop
