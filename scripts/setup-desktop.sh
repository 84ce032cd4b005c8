#!/usr/bin/env bash
# Installs what building and testing the Herald desktop app needs on Debian 12 (bookworm):
# the Tauri/WebKitGTK build packages, the end-to-end test packages (Xvfb, a private D-Bus,
# WebKitWebDriver, ImageMagick), the UI's npm dependencies and tauri-driver.
#
# Idempotent: apt is skipped when every package is already installed, `npm ci` is skipped when
# ui/node_modules matches ui/package-lock.json, tauri-driver is installed only if missing.
# Runs as root, or through sudo otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

BUILD_PACKAGES=(
  libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev pkg-config
)
TEST_PACKAGES=(
  xvfb xauth webkit2gtk-driver dbus-x11 imagemagick
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

# npm ci only when the installed tree does not match the lockfile.
if [ ! -f "$ROOT/ui/node_modules/.package-lock.json" ] \
  || ! cmp -s <(sed -n '/"packages"/,$p' "$ROOT/ui/package-lock.json" | grep -v '"": {' ) \
               <(sed -n '/"packages"/,$p' "$ROOT/ui/node_modules/.package-lock.json" | grep -v '"": {') 2>/dev/null; then
  echo "setup-desktop: npm ci in ui/"
  (cd "$ROOT/ui" && npm ci --no-audit --no-fund)
else
  echo "setup-desktop: ui/node_modules is current"
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "setup-desktop: installing tauri-driver $TAURI_DRIVER_VERSION"
  cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked
else
  echo "setup-desktop: tauri-driver already installed"
fi
