// Verbose logs of every Herald process in the e2e run, and the check that none of them holds a
// secret (docs/security-tests.md).
//
// Where the logs are (all under test-artifacts/logs/):
//   app.log              the desktop app (and its embedded relay and webview processes), through
//                        app-logged.sh, at RUST_LOG=trace unless HERALD_E2E_RUST_LOG says otherwise
//   herald-cli.log       standard error of every `herald` run, at HERALD_LOG=trace
//   relay-standalone.log the standalone herald-relay of the new-device stages, at RUST_LOG=trace
//
// The stages register what they create or send (`secrets.add`): tokens, keys, codes, secret
// values and plaintext. `scanLogs` then looks for each (and for its JSON-escaped form, each
// line of a multi-line value, and for key bytes their hex and base64 forms) and for anything
// shaped like a Herald credential, whatever the test knew of it.

import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Credential shapes (herald-protocol: wire.rs, devices.rs, agents.rs; herald-crypto files.rs). */
const CREDENTIAL_PATTERNS = [
  { label: "a bearer token (hdr_/hds_/hdp_/hrk_/hra_)", re: /\b(?:hdr|hds|hdp|hrk|hra)_[A-Za-z0-9_-]{16,}/g },
  { label: "a webhook secret (whsec_)", re: /\bwhsec_[A-Za-z0-9+/=_-]{16,}/g },
  { label: "a file key (AGE-SECRET-KEY-1)", re: /AGE-SECRET-KEY-1[0-9A-Z]{16,}/g },
];
/** Shorter needles would match unrelated log text by chance; every value checked is longer. */
const MIN_NEEDLE = 6;

export class LogDir {
  constructor(dir) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  path(name) {
    return join(this.dir, name);
  }

  /** Appends `text` to the log `name`, under a header line naming what wrote it. */
  append(name, header, text) {
    appendFileSync(this.path(name), `----- ${header}\n${text}${text.endsWith("\n") || !text ? "" : "\n"}`);
  }
}

/** What the stages must never find in a log. */
export class Secrets {
  constructor() {
    /** @type {{label: string, needle: string, digits: boolean}[]} */
    this.needles = [];
  }

  /** A string value (token, code, plaintext): itself, JSON-escaped, and each longer line. */
  add(label, value) {
    if (typeof value !== "string" || !value) return;
    const forms = new Set([value, JSON.stringify(value).slice(1, -1)]);
    for (const line of value.split("\n")) forms.add(line.trim());
    for (const form of forms) this.#push(label, form, false);
    // Hex: how tungstenite's trace log prints a websocket frame's payload.
    for (const form of [value, ...value.split("\n").map((l) => l.trim())]) {
      if (form.length >= MIN_NEEDLE) this.#push(label, Buffer.from(form, "utf8").toString("hex"), false);
    }
  }

  /** A numeric code (pairing codes): matched only where it is not part of a longer number. */
  addDigits(label, value) {
    if (!value) return;
    const digits = value.replace(/\D/g, "");
    this.#push(label, digits, true);
    if (value !== digits) this.#push(label, value, true);
  }

  /** A recovery key: grouped as shown, and ungrouped in either case. */
  addRecoveryKey(label, value) {
    if (!value) return;
    const plain = value.replace(/-/g, "");
    this.add(label, value);
    this.add(label, plain);
    this.add(label, plain.toLowerCase());
  }

  /** Raw key bytes: hex (both cases), base64 and base64url, and a Debug byte-array prefix. */
  addKeyBytes(label, bytes) {
    if (!bytes || bytes.length < 16) return;
    const b = Buffer.from(bytes);
    const base64 = b.toString("base64");
    for (const form of [
      b.toString("hex"),
      b.toString("hex").toUpperCase(),
      base64,
      base64.replace(/=+$/, ""),
      b.toString("base64url"),
    ]) {
      this.#push(label, form, false);
    }
    // Debug byte arrays (`[12, 200, …]`, as zbus and others print buffers), two windows of 12.
    for (const from of [0, 16]) this.#push(label, [...b.subarray(from, from + 12)].join(", "), true);
  }

  #push(label, needle, digits) {
    if (needle.length < MIN_NEEDLE) return;
    if (this.needles.some((n) => n.needle === needle)) return;
    this.needles.push({ label, needle, digits });
  }
}

/** The `local.key` files (raw 32-byte local keys) under `dir`, recursively. */
export function localKeysUnder(dir) {
  const found = [];
  if (!dir || !existsSync(dir)) return found;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name === "local.key") found.push({ path: p, bytes: readFileSync(p) });
    }
  };
  walk(dir);
  return found;
}

/** `text` with every needle and credential shape replaced by a label, cut around `at`. */
function redactedContext(line, at, length, needles) {
  const from = Math.max(0, at - 60);
  const to = Math.min(line.length, at + length + 60);
  let text = line.slice(from, to);
  for (const n of needles) text = text.split(n.needle).join(`<${n.label}>`);
  for (const p of CREDENTIAL_PATTERNS) text = text.replace(p.re, "<credential>");
  return `${from > 0 ? "…" : ""}${text}${to < line.length ? "…" : ""}`;
}

/**
 * Every log file under `dir` searched for every needle and credential shape. Returns findings
 * `{file, line, what, context}` with the secret itself redacted from `context`.
 */
export function scanLogs(dir, secrets) {
  const findings = [];
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile()) : [];
  // Longest first, so a redacted context replaces a whole value before a line of it.
  const needles = [...secrets.needles].sort((a, b) => b.needle.length - a.needle.length);
  for (const file of files) {
    // Colour codes (the app's log is coloured) could split a value; they go first.
    // eslint-disable-next-line no-control-regex
    const content = readFileSync(join(dir, file), "utf8").replace(/\x1b\[[0-9;]*m/g, "");
    // Whole-file search first (logs at trace are large); lines only for what was found.
    let lines;
    const lineOf = (offset) => {
      lines ??= content.split("\n");
      let n = 0;
      let seen = 0;
      while (n < lines.length && seen + lines[n].length < offset) seen += lines[n++].length + 1;
      return { number: n + 1, text: lines[n] ?? "", at: offset - seen };
    };
    for (const n of needles) {
      let at = content.indexOf(n.needle);
      while (at >= 0 && n.digits && (/\d/.test(content[at - 1] ?? "") || /\d/.test(content[at + n.needle.length] ?? ""))) {
        at = content.indexOf(n.needle, at + 1);
      }
      if (at < 0) continue;
      const l = lineOf(at);
      findings.push({ file, line: l.number, what: n.label, context: redactedContext(l.text, l.at, n.needle.length, needles) });
    }
    for (const p of CREDENTIAL_PATTERNS) {
      for (const m of content.matchAll(p.re)) {
        const l = lineOf(m.index);
        findings.push({ file, line: l.number, what: p.label, context: redactedContext(l.text, l.at, m[0].length, needles) });
      }
    }
  }
  return { files, findings };
}
