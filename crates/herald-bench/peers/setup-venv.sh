#!/usr/bin/env bash
# Makes the venv the `mcp` bench's Python peer runs in: target/mcp-sdk-venv with the official
# MCP SDK and uvicorn pinned in tests/mcp/requirements.txt. It is the same venv, made by the same
# scripts/python-venv.sh, as tests/mcp/run.sh's (rebuilt when the requirements change), so the
# two share it. Prints the venv's python.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
venv=$target/mcp-sdk-venv
req=tests/mcp/requirements.txt
exec bash scripts/python-venv.sh "$venv" "$req"
