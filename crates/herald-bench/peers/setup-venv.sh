#!/usr/bin/env bash
# Makes the venv the `mcp` bench's Python peer runs in: target/mcp-sdk-venv with the official
# MCP SDK and uvicorn pinned in tests/mcp/requirements.txt. It is the same venv, made the same
# way, as tests/mcp/run.sh's (rebuilt when the requirements change), so the two share it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
venv=$target/mcp-sdk-venv
req=tests/mcp/requirements.txt
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  echo "$want" >"$venv/.requirements.sha256"
fi
echo "$venv/bin/python"
