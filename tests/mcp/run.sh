#!/usr/bin/env bash
# The official Python MCP SDK (PyPI `mcp`, pinned in requirements.txt) against a running
# herald-relay binary, in its legacy, 2026-07-28 and auto modes (tests/mcp/sdk_client.py).
#
# Makes a venv under target/ (rebuilt when requirements.txt changes), builds the workspace's
# binaries, starts the relay on 127.0.0.1 with a port the OS picks, creates an account with
# `herald device init` and an agent key with `herald agent-key create` (the device API), then
# runs the script. The key goes to the script in a 0600 file, never on a command line.
# Everything it starts is stopped and its temp dir removed on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
venv=$target/mcp-sdk-venv
req=tests/mcp/requirements.txt

bash scripts/python-venv.sh "$venv" "$req" >/dev/null

# The same build command as tests/e2e/run.sh, so the two share one set of artifacts.
cargo build --quiet --workspace --bins

# shellcheck source=scripts/relay-session.sh
. scripts/relay-session.sh
# --allow-loopback-webhooks: the script's webhook receiver for the reply event is on 127.0.0.1.
start_relay_session --allow-loopback-webhooks

export HERALD_HOME="$work/device"
"$target/debug/herald" device init --relay "$url" --name mcp-sdk-test >"$work/init.out"
created=$("$target/debug/herald" agent-key create --name "MCP SDK test")
key=$(grep -o 'hrk_[A-Za-z0-9_-]\{43\}' <<<"$created" | head -n1 || true)
[ -n "$key" ] || { echo "herald agent-key create printed no key" >&2; exit 1; }
(umask 077 && printf '%s' "$key" >"$work/agent-key")
unset key created

HERALD_RELAY_URL="$url" HERALD_AGENT_KEY_FILE="$work/agent-key" \
  "$venv/bin/python" tests/mcp/sdk_client.py

# `herald mcp` (stdio) under the same SDK: the script starts its own relay and device.
HERALD_BIN="$target/debug/herald" HERALD_RELAY_BIN="$target/debug/herald-relay" \
  "$venv/bin/python" tests/mcp/stdio_client.py
