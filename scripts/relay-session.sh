# Sourced by the test runners that drive a real relay from outside Rust (tests/mcp/run.sh,
# tests/openapi/run.sh); not run on its own.
#
#   . scripts/relay-session.sh
#   start_relay_session [EXTRA_RELAY_ARGS...]
#
# Needs `target` (the cargo target dir) and the debug binaries built. Makes a temp dir `work`,
# starts `$target/debug/herald-relay --listen 127.0.0.1:0 --data-dir $work/relay` with the extra
# arguments (its log in `$work/relay.log`), waits up to 60 s for its ready line, and sets `url`
# (http://127.0.0.1:PORT) and `relay_pid`. An EXIT trap stops the relay and removes `work`.
# Exits the caller, with the relay's log on stderr, when the relay exits or does not start.

start_relay_session() {
  work=$(mktemp -d)
  relay_pid=
  trap stop_relay_session EXIT
  "$target/debug/herald-relay" --listen 127.0.0.1:0 --data-dir "$work/relay" "$@" \
    >"$work/relay.log" 2>&1 &
  relay_pid=$!
  url=
  for _ in $(seq 1 600); do
    url=$(grep -o 'ready url=http://127\.0\.0\.1:[0-9]*' "$work/relay.log" | head -n1 | cut -d= -f2 || true)
    [ -n "$url" ] && return 0
    kill -0 "$relay_pid" 2>/dev/null || { cat "$work/relay.log" >&2; echo "the relay exited" >&2; exit 1; }
    sleep 0.1
  done
  cat "$work/relay.log" >&2
  echo "the relay did not start" >&2
  exit 1
}

stop_relay_session() {
  if [ -n "${relay_pid:-}" ]; then
    kill "$relay_pid" 2>/dev/null || true
    wait "$relay_pid" 2>/dev/null || true
  fi
  rm -rf "${work:?}"
}
