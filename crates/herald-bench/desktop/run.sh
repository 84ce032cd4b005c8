#!/usr/bin/env bash
# Desktop benchmark (docs/benchmarks.md, "Desktop"): the release herald-desktop on a profile
# with N cached messages — process spawn to first inbox paint, and idle PSS of all its
# processes — side by side with a minimal Tauri 2 app (peers/minimal-tauri) measured the same
# way. Not run in CI. Needs scripts/setup-desktop.sh (Xvfb, dbus, WebKitGTK, npm deps).
#
#   crates/herald-bench/desktop/run.sh
#   RUNS=10 N=10000 IDLE_SECS=10 crates/herald-bench/desktop/run.sh
#   HERALD_BENCH_SKIP_BUILD=1 ...   use the binaries already in target/release
#   BACKGROUND=0 ...                skip the background run (CPU_SECS, BACKGROUND_CYCLES tune it)
#   SOAK=1 ...                      also the soak: SOAK_N messages (10000) over SOAK_SECS (1800)
#                                   while the window opens and closes SOAK_CYCLES (100) times
#   ONLY=soak ...                   only the soak (ONLY=background: only the background run)
#
# The profile (a relay database and a device data dir with N synced messages) is made once
# under target/bench-desktop/profile-N and reused; delete it to make a new one. App logs of
# every start land in target/bench-desktop/logs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-10}"
N="${N:-10000}"
IDLE_SECS="${IDLE_SECS:-10}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET/bench-desktop"
PROFILE="$OUT/profile-$N"
REL="$TARGET/release"

for tool in xvfb-run dbus-run-session npm cargo python3; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "desktop bench: '$tool' is missing; run scripts/setup-desktop.sh" >&2
    exit 1
  }
done

if [ "${HERALD_BENCH_SKIP_BUILD:-0}" != "1" ]; then
  if [ ! -d ui/node_modules ]; then (cd ui && npm ci --no-audit --no-fund); fi
  (cd ui && npm run build)
  cargo build --release -p herald-desktop
  cargo build --release -p herald-relay --bin herald-relay
  cargo build --release -p herald-bench --bin desktop_start
  # The peer: its own project, the same target dir (reuses the compiled Tauri dependencies).
  (cd crates/herald-bench/peers/minimal-tauri && CARGO_TARGET_DIR="$TARGET" cargo build --release)
fi

mkdir -p "$OUT"
if [ ! -f "$PROFILE/relay-port" ]; then
  rm -rf "$PROFILE"
  echo "desktop bench: preparing a profile with $N cached messages in $PROFILE"
  "$REL/desktop_start" prepare --profile "$PROFILE" --relay-bin "$REL/herald-relay" --n "$N"
fi

# A private XDG home and session bus, as tests/e2e/run.sh: the webview's storage stays here.
XDG_TMP="$(mktemp -d -t herald-bench-xdg-XXXXXX)"
trap 'rm -rf "$XDG_TMP"' EXIT
export XDG_DATA_HOME="$XDG_TMP/data" XDG_CACHE_HOME="$XDG_TMP/cache" XDG_CONFIG_HOME="$XDG_TMP/config"
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_CONFIG_HOME"
unset HERALD_DEMO HERALD_URL HERALD_TOKEN

RESULTS="$OUT/results.jsonl"
: >"$RESULTS"
common=(--runs "$RUNS" --idle-secs "$IDLE_SECS" --log-dir "$OUT/logs")
mkdir -p "$OUT/logs"
ONLY="${ONLY:-}"
if [ -z "$ONLY" ]; then
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- bash -c '
    set -euo pipefail
    "$0" measure --app "$1/herald-desktop" --label herald-desktop --profile "$2" \
      --relay-bin "$1/herald-relay" "${@:4}" | tee -a "$3"
    "$0" measure --app "$1/minimal-tauri" --label minimal-tauri "${@:4}" | tee -a "$3"
  ' "$REL/desktop_start" "$REL" "$PROFILE" "$RESULTS" "${common[@]}"
fi

# Herald left running with its window closed (docs/desktop-lifecycle.md): idle PSS and CPU in
# the background, reopen time, PSS after each close. BACKGROUND_CYCLES=0 skips the reopens.
if [ "${BACKGROUND:-1}" = "1" ] && { [ -z "$ONLY" ] || [ "$ONLY" = background ]; }; then
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- \
    "$REL/desktop_start" background --app "$REL/herald-desktop" --profile "$PROFILE" \
    --relay-bin "$REL/herald-relay" --close-script "$ROOT/tests/e2e/close-window.py" \
    --cycles "${BACKGROUND_CYCLES:-10}" --idle-secs "$IDLE_SECS" --cpu-secs "${CPU_SECS:-60}" \
    --log "$OUT/logs/background.log" | tee -a "$RESULTS"
fi

# The soak (soak.rs): a copy of the profile, a private notification server recording every
# banner, messages arriving evenly over SOAK_SECS while the window opens and closes.
if [ "${SOAK:-0}" = "1" ] || [ "$ONLY" = soak ]; then
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- \
    "$REL/desktop_start" soak --app "$REL/herald-desktop" --profile "$PROFILE" \
    --relay-bin "$REL/herald-relay" --close-script "$ROOT/tests/e2e/close-window.py" \
    --notification-server "$ROOT/tests/e2e/notification-server.py" --work-dir "$OUT/soak" \
    --n "${SOAK_N:-10000}" --duration-secs "${SOAK_SECS:-1800}" --cycles "${SOAK_CYCLES:-100}" \
    --idle-secs "$IDLE_SECS" --log "$OUT/logs/soak.log" | tee -a "$RESULTS"
fi

python3 - "$RESULTS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
pss = {r["case"].split()[0]: r["summary"]["p50"] for r in rows if r["case"].endswith("idle PSS")}
paint = {r["case"].split()[0]: r["summary"]["p50"] for r in rows if r["case"].endswith("first paint")}
h, m = pss.get("herald-desktop"), pss.get("minimal-tauri")
if h and m:
    print(f"# idle PSS p50: herald-desktop {h:.1f} MiB, minimal-tauri {m:.1f} MiB, ratio {h / m:.3f} (target <= 1.3)")
if paint:
    print(f"# first paint p50: herald-desktop {paint.get('herald-desktop')} ms (target <= 800), minimal-tauri {paint.get('minimal-tauri')} ms")
PY
