#!/usr/bin/env bash
# Installed-package test (docs/packaging.md, "The installed-package test"): installs a built
# Herald .deb with dpkg, runs the installed app and CLI through the desktop end-to-end test's
# background stage, then removes the package and checks nothing of it is left.
#
#   tests/package/run.sh [PACKAGE.deb]
#
# PACKAGE.deb defaults to the newest .deb under target/release/bundle/deb, else
# target/debug/bundle/deb (scripts/package.sh builds them). What runs, in order:
#   1. dpkg -i on a machine where no Herald package is installed (the test refuses otherwise:
#      it would replace and then remove the person's own Herald); the package's Depends are
#      installed with apt-get first, so dpkg itself has nothing to resolve.
#   2. /usr/bin/herald and /usr/bin/herald-desktop are on PATH and start; the desktop entry
#      carries the herald:// scheme.
#   3. tests/e2e/run.sh with HERALD_E2E_APP=/usr/bin/herald-desktop, HERALD_E2E_CLI=/usr/bin/herald
#      and only the background stage (plus onboarding and the connection it needs): under Xvfb
#      and a private D-Bus session, an account is created through the UI (WebDriver), the window
#      is closed, the process keeps running and its embedded relay answers, `herald ask` with
#      Approve/Reject is sent, Approve is pressed on the banner and `herald ask` exits 0 with
#      the approval, a second launch, the tray and a herald:// link each reopen the window, and
#      Quit in the tray ends the process and its relay. Then the log check of every process.
#   4. dpkg -r: the binaries, desktop entry and icons are gone and no herald-desktop runs.
#
# Needs root (or sudo) for dpkg, and scripts/setup-desktop.sh's packages (run first here).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

die() {
  echo "package test: $*" >&2
  exit 1
}
step() { printf '\n==> %s\n' "$*"; }

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

deb="${1:-}"
if [ -z "$deb" ]; then
  for dir in target/release/bundle/deb target/debug/bundle/deb; do
    # shellcheck disable=SC2012 # names are the bundler's own (Herald_<version>_<arch>.deb)
    deb="$(ls -t "$dir"/*.deb 2>/dev/null | head -n 1 || true)"
    [ -n "$deb" ] && break
  done
  [ -n "$deb" ] || die "no .deb under target/{release,debug}/bundle/deb; build one with scripts/package.sh"
fi
[ -f "$deb" ] || die "$deb: no such file"
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
package="$(dpkg-deb -f "$deb" Package)"
echo "package test: $deb ($package $(dpkg-deb -f "$deb" Version))"

if dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'ok installed'; then
  die "$package is installed already; this test installs and removes it, so remove it first (dpkg -r $package)"
fi
for path in /usr/bin/herald /usr/bin/herald-desktop; do
  [ ! -e "$path" ] || die "$path exists outside any package; the test would not know whose it runs"
done

step "Test dependencies (scripts/setup-desktop.sh)"
bash scripts/setup-desktop.sh

removed=""
remove() {
  [ -n "$removed" ] && return 0
  removed=1
  "${sudo_cmd[@]}" dpkg -r "$package" >/dev/null 2>&1 || true
}
trap remove EXIT

step "Install with dpkg"
depends="$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/([^)]*)//; s/^ *//; s/ *$//' | grep -v '^$' || true)"
if [ -n "$depends" ]; then
  # shellcheck disable=SC2086 # one package name per word
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $depends >/dev/null
fi
"${sudo_cmd[@]}" dpkg -i "$deb"
dpkg-query -W -f '${Status}\n' "$package" | grep -q 'install ok installed' || die "dpkg did not install $package"

step "What the package put on the machine"
[ "$(command -v herald)" = /usr/bin/herald ] || die "herald on PATH is $(command -v herald || echo nothing), not /usr/bin/herald"
[ "$(command -v herald-desktop)" = /usr/bin/herald-desktop ] || die "herald-desktop is not /usr/bin/herald-desktop"
herald --version || die "/usr/bin/herald --version failed"
entry=/usr/share/applications/Herald.desktop
[ -f "$entry" ] || die "no desktop entry at $entry"
grep -qx 'MimeType=x-scheme-handler/herald;' "$entry" || die "$entry has no herald:// MimeType"
grep -q '^Exec=herald-desktop %u$' "$entry" || die "$entry does not pass the link (%u)"
[ -f /usr/share/icons/hicolor/128x128/apps/herald-desktop.png ] || die "no 128x128 icon"
if command -v desktop-file-validate >/dev/null 2>&1; then desktop-file-validate "$entry"; fi
# A quit request with no Herald running does nothing and exits 0: the binary starts and links.
HERALD_DATA_DIR="$(mktemp -d)" timeout 60 xvfb-run -a dbus-run-session -- herald-desktop --quit || die "herald-desktop --quit did not exit 0"
echo "ok: /usr/bin/herald, /usr/bin/herald-desktop, $entry (herald://), icons"

step "The installed app, in the background (tests/e2e/run.sh)"
HERALD_E2E_SKIP_BUILD=1 HERALD_E2E_APP=/usr/bin/herald-desktop HERALD_E2E_CLI=/usr/bin/herald \
  HERALD_E2E_ONLY="closing the window leaves Herald running" bash tests/e2e/run.sh

step "Remove with dpkg"
removed=1
"${sudo_cmd[@]}" dpkg -r "$package"
for path in /usr/bin/herald /usr/bin/herald-desktop "$entry" /usr/share/icons/hicolor/128x128/apps/herald-desktop.png; do
  [ ! -e "$path" ] || die "$path is still there after dpkg -r"
done
if [ -n "$(ls /proc/[0-9]*/exe -l 2>/dev/null | grep -F '/usr/bin/herald-desktop' || true)" ]; then
  die "a herald-desktop from the package still runs"
fi
echo "ok: removed; nothing of $package is left and no herald-desktop runs"
step "Passed: $deb"
