#!/usr/bin/env bash
# schemathesis (PyPI, pinned in requirements.txt) against a running herald-relay binary and its
# own GET /openapi.json: no 5xx, and every status, content type, header and body as the
# document says (tests/openapi/schemathesis.toml; docs/openapi.md).
#
# Makes a venv under target/ (rebuilt when requirements.txt changes), builds the workspace's
# binaries, starts the relay on 127.0.0.1 with a port the OS picks and a temp data dir, makes
# one credential of every kind with herald-test-credentials (real keys, real HTTP; each in a
# 0600 file), and hands them to schemathesis through its environment, never a command line.
# Everything it starts is stopped and its temp dir removed on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
venv=$target/openapi-venv
req=tests/openapi/requirements.txt

want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/schemathesis" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  echo "$want" >"$venv/.requirements.sha256"
fi

# The same build command as tests/mcp/run.sh and tests/e2e/run.sh: one set of artifacts.
cargo build --quiet --workspace --bins

work=$(mktemp -d)
relay_pid=
cleanup() {
  if [ -n "$relay_pid" ]; then
    kill "$relay_pid" 2>/dev/null || true
    wait "$relay_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$target/debug/herald-relay" --listen 127.0.0.1:0 --data-dir "$work/relay" >"$work/relay.log" 2>&1 &
relay_pid=$!
url=
for _ in $(seq 1 100); do
  url=$(grep -o 'ready url=http://127\.0\.0\.1:[0-9]*' "$work/relay.log" | head -n1 | cut -d= -f2 || true)
  [ -n "$url" ] && break
  kill -0 "$relay_pid" 2>/dev/null || { cat "$work/relay.log" >&2; echo "the relay exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/relay.log" >&2; echo "the relay did not start" >&2; exit 1; }

(umask 077 && mkdir "$work/credentials")
HERALD_RELAY_URL="$url" HERALD_CREDENTIALS_DIR="$work/credentials" \
  "$target/debug/herald-test-credentials"
HERALD_DEVICE_SESSION=$(cat "$work/credentials/device-session")
HERALD_CONNECTION=$(cat "$work/credentials/connection")
HERALD_PAIRING_POLL=$(cat "$work/credentials/pairing-poll")
HERALD_AGENT_KEY=$(cat "$work/credentials/agent-key")
HERALD_CONNECTOR=$(cat "$work/credentials/connector")
export HERALD_DEVICE_SESSION HERALD_CONNECTION HERALD_PAIRING_POLL HERALD_AGENT_KEY HERALD_CONNECTOR

# Two passes: every operation but DELETE, then the DELETEs. schemathesis reuses ids it reads
# from responses (GET /connections, …), so a DELETE run early would revoke the credentials
# the other operations are tested with, leaving them only 401s to check.
st() {
  (cd "$work" && "$venv/bin/schemathesis" --config-file "$root/tests/openapi/schemathesis.toml" \
    run --url "$url" "$@" "$url/openapi.json")
}
status=0
st --exclude-method DELETE || status=$?
st --include-method DELETE || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- relay log (last 50 lines) ---" >&2
  tail -n 50 "$work/relay.log" >&2
  exit "$status"
fi
