#!/usr/bin/env bash
# Makes (or reuses) a Python venv with exactly the packages a pinned requirements file names,
# and prints the path of its python on stdout (nothing else goes to stdout).
#
#   bash scripts/python-venv.sh VENV_DIR REQUIREMENTS_FILE
#
# VENV_DIR is where the venv lives (the callers keep theirs under target/, so CI's disk use
# stays in the build dir); REQUIREMENTS_FILE pins every package with `==`. The venv is rebuilt
# from scratch when the requirements file's SHA-256 differs from the one recorded at the last
# successful install (VENV_DIR/.requirements.sha256), or when it has no python; the hash is
# written only after pip succeeded, so a failed install is retried on the next call.
# Used by tests/mcp/run.sh, tests/openapi/run.sh and crates/herald-bench/peers/setup-venv.sh.
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: $0 VENV_DIR REQUIREMENTS_FILE" >&2
  exit 2
fi
venv=$1
req=$2
[ -f "$req" ] || { echo "$req: no such requirements file" >&2; exit 2; }

want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$venv/.requirements.sha256"
fi
echo "$venv/bin/python"
