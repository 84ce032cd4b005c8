#!/usr/bin/env bash
# Runs inside xvfb-run + dbus-run-session (see run.sh): starts tauri-driver, waits until it
# answers, runs the WebDriver test, and stops tauri-driver (and with it the app) on the way out.
set -euo pipefail

E2E="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PORT=4444
: "${ARTIFACTS:?}" "${HERALD_DATA_DIR:?}"

if curl -fsS "http://127.0.0.1:$PORT/status" >/dev/null 2>&1; then
  echo "e2e: something already listens on 127.0.0.1:$PORT; stop it first" >&2
  exit 1
fi

# The test runs notification-server.py on this private bus itself (it restarts it without the
# "actions" capability for one stage); every Notify and CloseNotification lands in this file.
export HERALD_E2E_NOTIFICATIONS="$ARTIFACTS/notifications.jsonl"
rm -f "$HERALD_E2E_NOTIFICATIONS"

tauri-driver --port "$PORT" >"$ARTIFACTS/tauri-driver.log" 2>&1 &
DRIVER_PID=$!
stop() {
  if kill -0 "$DRIVER_PID" 2>/dev/null; then
    kill "$DRIVER_PID" 2>/dev/null || true
    wait "$DRIVER_PID" 2>/dev/null || true
  fi
}
trap stop EXIT

# tauri-driver answers in well under a second.
deadline=$((SECONDS + 20))

until curl -fsS "http://127.0.0.1:$PORT/status" >/dev/null 2>&1; do
  if ! kill -0 "$DRIVER_PID" 2>/dev/null; then
    echo "e2e: tauri-driver exited; see $ARTIFACTS/tauri-driver.log" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "e2e: tauri-driver did not answer on port $PORT" >&2
    exit 1
  fi
  sleep 0.2
done

cd "$E2E"
node --test --test-reporter=spec desktop.test.mjs
