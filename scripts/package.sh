#!/usr/bin/env bash
# Builds Herald's release packages with the Tauri bundler (docs/packaging.md):
#   Linux   .deb, .rpm, .AppImage (the AppImage only when its tools are already on this machine)
#   macOS   .app, .dmg
#   Windows NSIS setup .exe, .msi (run from Git Bash)
# Every package carries the `herald` CLI beside the app (/usr/bin/herald in the .deb and .rpm),
# the desktop entry or its platform's equivalent, the icons and the herald:// URL scheme. On
# Linux the script then lists the .deb and .rpm and checks those parts are inside.
#
# Environment (all optional):
#   HERALD_BUNDLES              comma-separated formats (default: all of this platform's)
#   HERALD_UPDATE_ENDPOINT      https URL of the update manifest baked into the app
#                               (default: plugins.updater.endpoints in tauri.conf.json)
#   TAURI_SIGNING_PRIVATE_KEY   the updater signing key (its text or a path); with
#   TAURI_SIGNING_PRIVATE_KEY_PASSWORD  the packages get .sig files and a latest.json
#   HERALD_UPDATE_DOWNLOAD_URL  where the packages will be published (for latest.json;
#                               default: the endpoint's directory)
#   HERALD_RELEASE_NOTES        the notes in latest.json
#   HERALD_APPIMAGE_TOOLS       a directory holding AppRun-x86_64 and
#                               linuxdeploy-07333c6-x86_64.AppImage (the AppImage bundler's
#                               tools, which it otherwise downloads from GitHub)
#   HERALD_PACKAGE_PROFILE      release (default) or debug: packages from the dev profile, to
#                               test the packaging itself quickly; never for publishing
# Takes about 20 minutes on 2 cores the first time (8 of them installing the Tauri CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

# The Tauri CLI release that goes with the tauri crate in Cargo.lock (2.12.x).
TAURI_CLI_VERSION="2.12.4"
# The linuxdeploy build tauri-bundler $TAURI_CLI_VERSION asks for (bundle/linux/appimage).
LINUXDEPLOY_BUILD="07333c6"

step() { printf '\n==> %s\n' "$*"; }
die() {
  echo "package.sh: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) platform=linux default_bundles="deb,rpm,appimage" ;;
  Darwin) platform=macos default_bundles="app,dmg" ;;
  MINGW* | MSYS* | CYGWIN*) platform=windows default_bundles="nsis,msi" ;;
  *) die "unsupported platform $(uname -s)" ;;
esac
bundles="${HERALD_BUNDLES:-$default_bundles}"
case "${HERALD_PACKAGE_PROFILE:-release}" in
  release) profile=release cargo_profile=(--release) tauri_profile=() ;;
  debug) profile=debug cargo_profile=() tauri_profile=(--debug) ;;
  *) die "HERALD_PACKAGE_PROFILE must be release or debug" ;;
esac
triple="$(rustc -vV | sed -n 's/^host: //p')"
arch="${triple%%-*}"
exe=""
[ "$platform" = windows ] && exe=".exe"

step "Build dependencies"
if [ "$platform" = linux ] && command -v apt-get >/dev/null 2>&1; then
  bash scripts/setup-desktop.sh
  # rpm and cpio: rpm -qlp and rpm2cpio | cpio to check the built .rpm (the bundler itself
  # writes .rpm files without rpmbuild).
  if ! command -v rpm >/dev/null 2>&1 || ! command -v cpio >/dev/null 2>&1; then
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends rpm cpio
  fi
else
  command -v npm >/dev/null || die "npm is needed to build the UI"
  (cd ui && npm ci --no-audit --no-fund)
fi

step "Tauri CLI $TAURI_CLI_VERSION"
installed="$(cargo tauri --version 2>/dev/null || true)"
if [ "$installed" = "tauri-cli $TAURI_CLI_VERSION" ]; then
  echo "already installed"
else
  echo "installing (about 8 minutes; found: ${installed:-none})"
  cargo install tauri-cli --version "=$TAURI_CLI_VERSION" --locked
fi

step "UI (ui/dist, embedded in the app)"
(cd ui && npm run build)

step "The herald CLI, as the app's sidecar"
cargo build ${cargo_profile[@]+"${cargo_profile[@]}"} --locked -p herald-cli
stage="$ROOT/target/package"
mkdir -p "$stage/sidecar"
# The bundler wants the sidecar named for the target: herald-x86_64-unknown-linux-gnu.
cp "target/$profile/herald$exe" "$stage/sidecar/herald-$triple$exe"

# The AppImage bundler downloads linuxdeploy and AppRun from GitHub unless they are in its
# tools dir already; skip it rather than fail where they cannot be had.
if [[ ",$bundles," == *",appimage,"* ]]; then
  tools="${XDG_CACHE_HOME:-$HOME/.cache}/tauri"
  need=("AppRun-$arch" "linuxdeploy-$LINUXDEPLOY_BUILD-$arch.AppImage")
  if [ -n "${HERALD_APPIMAGE_TOOLS:-}" ]; then
    mkdir -p "$tools"
    for tool in "${need[@]}"; do
      [ -f "$HERALD_APPIMAGE_TOOLS/$tool" ] && install -m 0755 "$HERALD_APPIMAGE_TOOLS/$tool" "$tools/$tool"
    done
  fi
  missing=()
  for tool in "${need[@]}"; do [ -x "$tools/$tool" ] || missing+=("$tool"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "package.sh: skipping the AppImage: the bundler needs ${missing[*]} in $tools and would" >&2
    echo "  download them from GitHub, which this machine cannot reach. Put them in a directory and" >&2
    echo "  set HERALD_APPIMAGE_TOOLS to build it (docs/packaging.md, \"AppImage\")." >&2
    bundles="$(echo ",$bundles," | sed 's/,appimage,/,/; s/^,//; s/,$//')"
  fi
fi
[ -n "$bundles" ] || die "nothing left to build"

step "Bundling $bundles"
overlay="$stage/tauri.package.json"
node scripts/package-config.mjs overlay "$overlay" "$stage/sidecar/herald"
# The Tauri CLI reads tauri.conf.json from the crate's directory; Herald's is at the root
# (build.rs and generate_context! point at it). A link for the duration of the build, never
# committed (.gitignore); the overlay makes every path in it absolute.
link="src-tauri/tauri.conf.json"
made_link=""
cleanup() { [ -n "$made_link" ] && rm -f "$ROOT/$link"; }
trap cleanup EXIT
if [ ! -e "$link" ]; then
  ln -s ../tauri.conf.json "$link" 2>/dev/null || cp tauri.conf.json "$link"
  made_link=1
fi
(cd src-tauri && TAURI_APP_PATH="$ROOT/src-tauri" cargo tauri build --ci ${tauri_profile[@]+"${tauri_profile[@]}"} --bundles "$bundles" --config "$overlay")

out="$ROOT/target/$profile/bundle"
if [ -n "${TAURI_SIGNING_PRIVATE_KEY:-}" ]; then
  step "Update manifest"
  HERALD_TARGET_ARCH="$arch" node scripts/package-config.mjs manifest "$out" "$out/latest.json"
fi

step "Packages"
find "$out" -maxdepth 2 -type f \( -name '*.deb' -o -name '*.rpm' -o -name '*.AppImage' -o -name '*.dmg' \
  -o -name '*.msi' -o -name '*.exe' -o -name '*.tar.gz' -o -name '*.sig' -o -name 'latest.json' \) \
  -exec ls -l {} + | awk '{printf "%8.1f MB  %s\n", $5 / 1048576, $NF}'

if [ "$platform" = linux ]; then
  step "Checking what the Linux packages carry"
  # Each package is unpacked into a temp dir and checked: the CLI on PATH, the app, the desktop
  # entry with the herald:// scheme, icons.
  check_tree() { # $1 package, $2 the unpacked tree
    for path in usr/bin/herald usr/bin/herald-desktop usr/share/applications/Herald.desktop \
      usr/share/icons/hicolor/128x128/apps/herald-desktop.png; do
      [ -f "$2/$path" ] || die "$1: /$path is missing"
    done
    [ -x "$2/usr/bin/herald" ] || die "$1: /usr/bin/herald is not executable"
    entry="$2/usr/share/applications/Herald.desktop"
    grep -qx 'MimeType=x-scheme-handler/herald;' "$entry" || die "$1: the desktop entry has no herald:// MimeType"
    grep -q '^Exec=herald-desktop %u$' "$entry" || die "$1: the desktop entry does not pass the URL (%u)"
  }
  unpacked="$(mktemp -d)"
  for deb in "$out"/deb/*.deb; do
    [ -f "$deb" ] || continue
    rm -rf "${unpacked:?}"/* && dpkg-deb -x "$deb" "$unpacked"
    check_tree "$deb" "$unpacked"
    echo "ok: $deb"
  done
  for rpm in "$out"/rpm/*.rpm; do
    [ -f "$rpm" ] || continue
    # rpm2cpio exits 1 on the bundler's payloads even when it wrote them whole; cpio and the
    # checks below judge what came out.
    rm -rf "${unpacked:?}"/* && (cd "$unpacked" && { rpm2cpio "$rpm" || true; } | cpio -idm --quiet)
    check_tree "$rpm" "$unpacked"
    echo "ok: $rpm"
  done
  rm -rf "$unpacked"
fi
step "Done: $out"
