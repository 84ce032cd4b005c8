#!/usr/bin/env bash
# Runs a command under a private D-Bus session with an unlocked gnome-keyring (Secret Service),
# so the OS-keychain path is tested for real on a headless machine:
#   dbus-run-session -- scripts/with-keyring.sh <command...>
set -euo pipefail
# An empty password unlocks the login keyring non-interactively.
eval "$(printf '\n' | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL SSH_AUTH_SOCK 2>/dev/null || true
exec "$@"
