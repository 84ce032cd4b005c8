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

bash scripts/python-venv.sh "$venv" "$req" >/dev/null

# The same build command as tests/mcp/run.sh and tests/e2e/run.sh: one set of artifacts.
cargo build --quiet --workspace --bins

# shellcheck source=scripts/relay-session.sh
. scripts/relay-session.sh
start_relay_session

(umask 077 && mkdir "$work/credentials")
HERALD_RELAY_URL="$url" HERALD_CREDENTIALS_DIR="$work/credentials" \
  "$target/debug/herald-test-credentials"
HERALD_DEVICE_SESSION=$(cat "$work/credentials/device-session")
HERALD_CONNECTION=$(cat "$work/credentials/connection")
HERALD_PAIRING_POLL=$(cat "$work/credentials/pairing-poll")
HERALD_AGENT_KEY=$(cat "$work/credentials/agent-key")
HERALD_CONNECTOR=$(cat "$work/credentials/connector")
export HERALD_DEVICE_SESSION HERALD_CONNECTION HERALD_PAIRING_POLL HERALD_AGENT_KEY HERALD_CONNECTOR
# Ids of resources it made (not secrets), for the operations schemathesis.toml pins to them.
HERALD_SECRET_ANSWER_ID=$(cat "$work/credentials/secret-answer-id")
HERALD_OFFER_ID=$(cat "$work/credentials/offer-id")
HERALD_FILE_ID=$(cat "$work/credentials/file-id")
HERALD_RESERVATION_ID=$(cat "$work/credentials/reservation-id")
HERALD_NOTIFICATION_ID=$(cat "$work/credentials/notification-id")
HERALD_PAIRING_ID=$(cat "$work/credentials/pairing-id")
export HERALD_SECRET_ANSWER_ID HERALD_OFFER_ID HERALD_FILE_ID \
  HERALD_RESERVATION_ID HERALD_NOTIFICATION_ID HERALD_PAIRING_ID

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
