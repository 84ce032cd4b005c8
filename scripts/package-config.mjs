// The JSON side of scripts/package.sh, in Node (which every platform that builds the UI has):
//
//   node scripts/package-config.mjs overlay OUT SIDECAR_BASE
//     writes the config overlay passed to `cargo tauri build --config OUT`: absolute paths
//     for what the Tauri CLI would otherwise resolve from src-tauri/ (the config lives at the
//     repository root), the herald CLI as a sidecar, the update endpoint chosen at build time,
//     and updater artifacts only when a signing key is present.
//
//   node scripts/package-config.mjs manifest BUNDLE_DIR OUT
//     writes Tauri's static update manifest (latest.json) for the signed packages found in
//     BUNDLE_DIR (each with its .sig), one platform key per installer kind.
//
// Environment: HERALD_UPDATE_ENDPOINT, TAURI_SIGNING_PRIVATE_KEY, HERALD_UPDATE_DOWNLOAD_URL,
// HERALD_RELEASE_NOTES, HERALD_TARGET_ARCH (docs/packaging.md).

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const config = JSON.parse(readFileSync(join(root, "tauri.conf.json"), "utf8"));
const abs = (p) => resolve(root, p);

function fail(message) {
  console.error(`package-config: ${message}`);
  process.exit(1);
}

function updateEndpoint() {
  const endpoint = process.env.HERALD_UPDATE_ENDPOINT?.trim();
  if (!endpoint) return null;
  let url;
  try {
    url = new URL(endpoint);
  } catch {
    fail(`HERALD_UPDATE_ENDPOINT is not a URL: ${endpoint}`);
  }
  // The updater refuses anything else in release builds.
  if (url.protocol !== "https:") fail(`HERALD_UPDATE_ENDPOINT must be an https:// URL, not ${endpoint}`);
  return endpoint;
}

function overlay(out, sidecarBase) {
  const signing = Boolean(process.env.TAURI_SIGNING_PRIVATE_KEY);
  const overlay = {
    build: {
      // package.sh builds the UI itself; the config's command assumes the repository root.
      beforeBuildCommand: "",
      frontendDist: abs(config.build.frontendDist),
    },
    bundle: {
      icon: config.bundle.icon.map(abs),
      externalBin: [resolve(sidecarBase)],
      createUpdaterArtifacts: signing,
      windows: { nsis: { installerIcon: abs(config.bundle.windows.nsis.installerIcon) } },
    },
  };
  const endpoint = updateEndpoint();
  if (endpoint) overlay.plugins = { updater: { endpoints: [endpoint] } };
  writeFileSync(out, JSON.stringify(overlay, null, 2) + "\n");
  console.log(`package-config: update endpoint ${endpoint ?? config.plugins.updater.endpoints[0]} (${endpoint ? "HERALD_UPDATE_ENDPOINT" : "tauri.conf.json"})`);
  console.log(`package-config: updater signatures ${signing ? "on (TAURI_SIGNING_PRIVATE_KEY is set)" : "off (no TAURI_SIGNING_PRIVATE_KEY)"}`);
}

/** Which updater platform key a bundle file serves (tauri-plugin-updater's `{os}-{arch}-{installer}`). */
function platformKey(file, arch) {
  if (file.endsWith(".deb")) return `linux-${arch}-deb`;
  if (file.endsWith(".rpm")) return `linux-${arch}-rpm`;
  if (file.endsWith(".AppImage")) return `linux-${arch}-appimage`;
  if (file.endsWith(".app.tar.gz")) return `darwin-${arch}-app`;
  if (file.endsWith("-setup.exe")) return `windows-${arch}-nsis`;
  if (file.endsWith(".msi")) return `windows-${arch}-msi`;
  return null;
}

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() && !name.endsWith(".app") ? walk(path) : [path];
  });
}

function manifest(bundleDir, out) {
  const arch = process.env.HERALD_TARGET_ARCH ?? "x86_64";
  const endpoint = updateEndpoint() ?? config.plugins.updater.endpoints[0];
  const base = (process.env.HERALD_UPDATE_DOWNLOAD_URL ?? new URL(".", endpoint).href).replace(/\/?$/, "/");
  const platforms = {};
  for (const path of walk(bundleDir)) {
    const name = path.split(/[\\/]/).pop();
    const key = platformKey(name, arch);
    if (!key || !existsSync(`${path}.sig`)) continue;
    platforms[key] = { url: new URL(encodeURIComponent(name), base).href, signature: readFileSync(`${path}.sig`, "utf8").trim() };
  }
  if (Object.keys(platforms).length === 0) fail(`no signed packages in ${bundleDir}`);
  const release = {
    version: config.version,
    notes: process.env.HERALD_RELEASE_NOTES ?? `Herald ${config.version}`,
    pub_date: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    platforms,
  };
  writeFileSync(out, JSON.stringify(release, null, 2) + "\n");
  console.log(`package-config: ${out}: ${Object.keys(platforms).join(", ")} (download base ${base})`);
}

const [command, ...args] = process.argv.slice(2);
if (command === "overlay" && args.length === 2) overlay(...args);
else if (command === "manifest" && args.length === 2) manifest(...args);
else fail("usage: package-config.mjs overlay OUT SIDECAR_BASE | manifest BUNDLE_DIR OUT");
