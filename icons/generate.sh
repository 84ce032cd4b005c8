#!/usr/bin/env bash
# Regenerates Herald's PNG icons: a blue rounded square with a white envelope and an amber
# notification dot (the same mark as ui/public/herald-mark.svg). Drawn with ImageMagick
# primitives at 1024 px and downscaled, so no SVG delegate is needed.
# Needs the real ImageMagick (`apt-get install imagemagick`) and png2icns (`apt-get install
# icnsutils`, for the macOS icon); the output is committed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
IM=/usr/bin/convert
master="$(mktemp --suffix=.png)"
icns_dir="$(mktemp -d)"
trap 'rm -rf "$master" "$icns_dir"' EXIT

# Coordinates are the SVG's 64-unit grid times 16.
"$IM" -size 1024x1024 xc:none \
  -fill '#3457d5' -draw 'roundrectangle 32,32 992,992 224,224' \
  -fill white -draw 'roundrectangle 224,288 800,736 72,72' \
  -fill none -stroke '#3457d5' -strokewidth 52 -draw 'stroke-linejoin round stroke-linecap round polyline 248,328 512,544 776,328' \
  -stroke '#3457d5' -strokewidth 40 -fill '#ffb020' -draw 'circle 768,288 768,400' \
  "PNG32:$master"

render() { "$IM" "$master" -filter Lanczos -resize "$1x$1" -strip "PNG32:$2"; }
render 512 icon.png
render 256 128x128@2x.png
render 128 128x128.png
render 64 64x64.png
render 32 32x32.png
# Windows: the executable's icon resource (tauri-build needs an .ico there).
"$IM" "$master" -filter Lanczos -define icon:auto-resize=256,128,64,48,32,16 icon.ico
# macOS: the .app's icon (16 px to 1024 px, the last two for Retina 512@2x).
for size in 16 32 128 256 512 1024; do render "$size" "$icns_dir/icon_$size.png"; done
png2icns icon.icns "$icns_dir"/icon_{16,32,128,256,512,1024}.png >/dev/null
