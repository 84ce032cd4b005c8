#!/usr/bin/env bash
# Installs what building and testing the Herald desktop app needs on Debian 12 (bookworm):
# the Tauri/WebKitGTK build packages, the end-to-end test packages (Xvfb, a private D-Bus,
# WebKitWebDriver, ImageMagick, python3-gi for the test notification server, python3-venv for the MCP SDK and schemathesis tests, gnome-keyring for
# the OS-keychain test), the npm
# dependencies of ui/ and tests/e2e/, tauri-driver, and cargo-deny (the dependency policy check).
#
# Idempotent: apt is skipped when every package is already installed, `npm ci` is skipped when
# node_modules was installed from the current package-lock.json, tauri-driver and cargo-deny are
# installed only if missing.
# Runs as root, or through sudo otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# libspeechd-dev + libclang-dev: the `tts` crate's speech-dispatcher binding (read aloud).
BUILD_PACKAGES=(
  libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev pkg-config libspeechd-dev libclang-dev
)
# speech-dispatcher + espeak-ng: the speech service the app talks to (the e2e test sends its
# audio to libao's null driver, so an utterance really runs to its end without a sound card).
TEST_PACKAGES=(
  xvfb xauth webkit2gtk-driver dbus-x11 dbus-daemon imagemagick python3-gi gnome-keyring
  speech-dispatcher speech-dispatcher-espeak-ng espeak-ng
  python3-venv
)
TAURI_DRIVER_VERSION="2.1.0"

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
else
  SUDO=(sudo)
fi

missing=()
for pkg in "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"; do
  if ! dpkg -s "$pkg" >/dev/null 2>&1; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-desktop: installing ${missing[*]}"
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup-desktop: Debian packages already installed"
fi

# npm ci only when node_modules was not installed from this exact lockfile (a stamp records
# the lockfile's hash after a successful install).
npm_ci() {
  local dir="$1" stamp="$1/node_modules/.herald-lock.sha256" want
  want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "setup-desktop: ${dir#"$ROOT"/}/node_modules is current"
    return
  fi
  echo "setup-desktop: npm ci in ${dir#"$ROOT"/}"
  (cd "$dir" && npm ci --no-audit --no-fund)
  echo "$want" >"$stamp"
}
npm_ci "$ROOT/ui"
npm_ci "$ROOT/tests/e2e"

if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "setup-desktop: installing tauri-driver $TAURI_DRIVER_VERSION"
  cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked
else
  echo "setup-desktop: tauri-driver already installed"
fi

CARGO_DENY_VERSION=0.20.2
if ! command -v cargo-deny >/dev/null 2>&1; then
  echo "setup-desktop: installing cargo-deny $CARGO_DENY_VERSION"
  cargo install cargo-deny --version "$CARGO_DENY_VERSION" --locked
else
  echo "setup-desktop: cargo-deny already installed"
fi
