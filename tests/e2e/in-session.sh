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

# A notification server on this private bus that records every Notify for the test.
export HERALD_E2E_NOTIFICATIONS="$ARTIFACTS/notifications.jsonl"
rm -f "$HERALD_E2E_NOTIFICATIONS"
/usr/bin/python3 "$E2E/notification-server.py" "$HERALD_E2E_NOTIFICATIONS" \
  >"$ARTIFACTS/notification-server.log" 2>&1 &
NOTIFY_PID=$!

tauri-driver --port "$PORT" >"$ARTIFACTS/tauri-driver.log" 2>&1 &
DRIVER_PID=$!
stop() {
  for pid in "$DRIVER_PID" "$NOTIFY_PID"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
}
trap stop EXIT

# Both must be up before the app starts; each is ready in well under a second.
deadline=$((SECONDS + 20))
until gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.NameHasOwner org.freedesktop.Notifications 2>/dev/null | grep -q true; do
  if ! kill -0 "$NOTIFY_PID" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
    echo "e2e: the test notification server did not start; see $ARTIFACTS/notification-server.log" >&2
    exit 1
  fi
  sleep 0.1
done

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
