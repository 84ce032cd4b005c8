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

# Every Herald process logs at the most verbose level into this dir (the app through
# app-logged.sh, which tauri-driver starts with this environment); the test's last check reads
# them all for secrets (logs.mjs).
export HERALD_E2E_LOG_DIR="$ARTIFACTS/logs"
rm -rf "$HERALD_E2E_LOG_DIR"
mkdir -p "$HERALD_E2E_LOG_DIR"

# A speech service of its own, when speech-dispatcher is installed: its audio goes to libao's
# null driver (no sound card here), so an utterance really runs to its end and the app can
# report it spoken. The app finds it through SPEECHD_ADDRESS. Without it the test expects the
# app to say that speech is unavailable.
SPEECH_PID=""
if command -v speech-dispatcher >/dev/null 2>&1 && [ -d /etc/speech-dispatcher ]; then
  SPEECH_DIR="$(mktemp -d -t herald-e2e-speech-XXXXXX)"
  cp -r /etc/speech-dispatcher "$SPEECH_DIR/conf"
  printf '\nAudioOutputMethod "libao"\n' >>"$SPEECH_DIR/conf/speechd.conf"
  mkdir -p "$SPEECH_DIR/home" "$SPEECH_DIR/logs"
  printf 'default_driver=null\n' >"$SPEECH_DIR/home/.libao"
  HOME="$SPEECH_DIR/home" speech-dispatcher --run-single --timeout 0 \
    --config-dir "$SPEECH_DIR/conf" --log-dir "$SPEECH_DIR/logs" \
    --communication-method unix_socket --socket-path "$SPEECH_DIR/speechd.sock" \
    >"$ARTIFACTS/speech-dispatcher.log" 2>&1 &
  SPEECH_PID=$!
  export SPEECHD_ADDRESS="unix_socket:$SPEECH_DIR/speechd.sock" HERALD_E2E_SPEECH=1
fi

# A tray host (a panel's StatusNotifierWatcher, tray-host.py): the app's tray icon registers
# with it, and the test reads the icon's tooltip and presses its menu entries over D-Bus.
export HERALD_E2E_TRAY="$ARTIFACTS/tray.jsonl"
rm -f "$HERALD_E2E_TRAY"
/usr/bin/python3 "$E2E/tray-host.py" serve "$HERALD_E2E_TRAY" >"$ARTIFACTS/tray-host.log" 2>&1 &
TRAY_PID=$!
tray_deadline=$((SECONDS + 20))
until gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.NameHasOwner org.kde.StatusNotifierWatcher 2>/dev/null | grep -q true; do
  if ! kill -0 "$TRAY_PID" 2>/dev/null || [ "$SECONDS" -ge "$tray_deadline" ]; then
    echo "e2e: the tray host did not start; see $ARTIFACTS/tray-host.log" >&2
    exit 1
  fi
  sleep 0.2
done

tauri-driver --port "$PORT" >"$ARTIFACTS/tauri-driver.log" 2>&1 &
DRIVER_PID=$!
stop() {
  for pid in "$DRIVER_PID" $SPEECH_PID $TRAY_PID; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  if [ -n "${SPEECH_DIR:-}" ]; then rm -rf "$SPEECH_DIR"; fi
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
