// Desktop end-to-end: the built Herald app under Xvfb, driven through tauri-driver and
// WebKitWebDriver, while the real `herald` CLI asks a question and waits for the answer.
//
// Run through ./run.sh, which builds everything, starts tauri-driver inside xvfb-run +
// dbus-run-session, and sets HERALD_DATA_DIR (the app's fresh data dir) for both.

import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Builder, By, Key, until } from "selenium-webdriver";

import { CLICK_CANDIDATES, corpus, INSPECT, INSTALL_HOOK, problems, startListener, VISIBLE_IN_MESSAGE, VISIBLE_IN_REQUEST } from "./hostile.mjs";
import { localKeysUnder, LogDir, scanLogs, Secrets } from "./logs.mjs";
import { NotificationServer, press, shown as shownNotifications, wasClosed } from "./notifications.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * The app and the CLI under test: the source build by default; the installed package's
 * (/usr/bin/herald-desktop, /usr/bin/herald) when tests/package/run.sh sets these.
 */
const APP = process.env.HERALD_E2E_APP ?? join(ROOT, "target/debug/herald-desktop");
/** Starts APP with RUST_LOG and its stderr in the log dir (when in-session.sh set one). */
const APP_LOGGED = join(ROOT, "tests/e2e/app-logged.sh");
const HERALD = process.env.HERALD_E2E_CLI ?? join(ROOT, "target/debug/herald");
const RELAY = join(ROOT, "target/debug/herald-relay");
const ARTIFACTS = join(ROOT, "test-artifacts");
const WEBDRIVER_URL = process.env.HERALD_E2E_WEBDRIVER ?? "http://127.0.0.1:4444/";
const DATA_DIR = process.env.HERALD_DATA_DIR;
const NOTIFICATIONS = process.env.HERALD_E2E_NOTIFICATIONS;
/** The tray host's record (tray-host.py, started by in-session.sh): every tray icon registered. */
const TRAY = process.env.HERALD_E2E_TRAY;
const TRAY_HOST = join(ROOT, "tests/e2e/tray-host.py");
/** Every Herald process's log goes here (logs.mjs); unset when the test runs outside run.sh. */
const LOG_DIR = process.env.HERALD_E2E_LOG_DIR;
const logs = LOG_DIR ? new LogDir(LOG_DIR) : undefined;
/** The `herald` CLI's log level (HERALD_LOG) and the standalone relay's (RUST_LOG). */
const CLI_LOG_LEVEL = process.env.HERALD_E2E_CLI_LOG ?? "trace";
const RELAY_LOG_LEVEL = process.env.HERALD_E2E_RUST_LOG ?? "trace";
/** What no log may hold: the stages add what they create and send. */
const secrets = new Secrets();
/**
 * `HERALD_E2E_ONLY=REGEX` runs only the stages whose name matches (case-insensitive), plus
 * onboarding and the connection every stage uses. Stages that need an earlier one fail alone.
 */
const ONLY = process.env.HERALD_E2E_ONLY ? new RegExp(process.env.HERALD_E2E_ONLY, "i") : null;
const ALWAYS = new Set(["first run: embedded relay, recovery key, safety code", "a connection's token is shown once"]);

const UI_TIMEOUT = 30_000;
const DELIVERY_TIMEOUT = 60_000;
const ANSWER_TIMEOUT = 60_000;

const TITLE = "Deploy v1.2 to production?";
const NOTIFY_TITLE = "Rotate the API key now?";
const CLOSED_TITLE = "Restart the staging workers?";
const FORM_TITLE = "Where should v1.3 go first?";
const FORM_REASON = "Smoke-test the new queue on staging first";
const BODY = "CI is green on `main` (build 481).\n\n- 3 migrations\n- rollback: `deploy v1.1`";
const QUESTIONS_TITLE = "Plan the sign-in refactor";
const OTHER_ANSWER = "Linux desktop";
const SCHEMA_TITLE = "Configure the release";
const SCHEMA_NOTES = "Ship after the canary is green.\nRoll back with deploy v1.2.";
const SCHEMA = {
  type: "object",
  required: ["channel"],
  properties: {
    channel: { type: "string", enum: ["beta", "stable"] },
    replicas: { type: "integer", minimum: 1, maximum: 5 },
    notes: { type: "string", "x-herald-type": "textarea" },
  },
};
const GALLERY_TITLE = "Gallery: every block and field type";
const FOLLOW_UP_TITLE = "Gallery: a follow-up";
const NEW_DEVICE = "e2e-headless";
const FILES_TITLE = "Build artifacts";
const SECRET_ASK_TITLE = "Paste the staging API token";
const SECRET_VALUE = "stg-7Hq2-x9Lm";
const OFFER_TITLE = "Staging database password";
const OFFERED_SECRET = "correct horse battery staple";
const CANCEL_TITLE = "Restart the worker pool?";
const EXPIRE_TITLE = "Approve the 5-second canary?";
const PLAIN_TITLE = "Merge the release branch?";
const IMAGE_TITLE = "The new architecture";
const IMAGE_ALT = "Architecture diagram";
const BACKLOG = 5;
const AGENT_KEY_NAME = "e2e-notifier";
const AGENT_TITLE = "Build 214 finished";
const AGENT_BODY = "All 214 tests passed. Deploy to staging?";
const AGENT_REPLY = "Yes, deploy it";
const QUIET_TITLE = "Nightly backup done";
const MESSAGE_TITLE = "Nightly build is green";
const HIDDEN_MESSAGE_TITLE = "Release notes for v1.3";
const HIDDEN_MESSAGE_BODY = "The queue moved to staging-eu.";
const HIDDEN_REQUEST_TITLE = "Rotate the staging certificate?";
/** Set by in-session.sh when it runs a speech service the app can use (audio to a null sink). */
const SPEECH = process.env.HERALD_E2E_SPEECH === "1";
/** The second line of a banner without buttons (src-tauri/src/notify_plan.rs). */
const OPEN_TO_ANSWER = "Open Herald to answer.";
/** The freedesktop sound names of the two kinds of banner (src-tauri/src/notify_plan/policy.rs). */
const SOUND_NEEDS_REPLY = "window-attention";
const SOUND_NEW_MESSAGE = "message-new-instant";
// A 1×1 PNG.
const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
// The gallery of the demo agent (crates/herald-client/src/demo.rs, `demo_messages()`), without
// its image block: an image block names an uploaded attachment's id, which `herald ask --json`
// cannot know in advance (files are checked in their own stage).
const GALLERY = {
  title: GALLERY_TITLE,
  body: "A tour of what an agent can send. Answer it to see the form at work.",
  blocks: [
    {
      type: "code", language: "python", title: "rollout.py",
      text: 'def rollout(percent: int) -> None:\n    # staged: 5% → 50% → 100%\n    canary(percent, region="eu-west-1")\n',
    },
    {
      type: "diff", title: "config.toml",
      text: '--- a/config.toml\n+++ b/config.toml\n@@ -1,3 +1,3 @@\n [deploy]\n-replicas = 2\n+replicas = 3\n region = "eu-west-1"\n',
    },
    {
      type: "json", title: "Health check",
      text: '{"status":"ok","latencyMs":{"p50":12,"p99":48},"regions":["eu-west-1","us-east-1"]}',
    },
    {
      type: "table", columns: ["Service", "Version", "Status"],
      rows: [["api", "1.2.0", "healthy"], ["worker", "1.1.9", "degraded"]],
    },
  ],
  fields: [
    { id: "summary", label: "One-line summary", type: "text", required: true },
    { id: "notes", label: "Notes", type: "textarea", help: "Markdown is fine." },
    { id: "budget", label: "Budget (EUR)", type: "number", minimum: 0, maximum: 10000 },
    { id: "replicas", label: "Replicas", type: "integer", minimum: 1, maximum: 10, default: 3 },
    { id: "notify", label: "Notify the team", type: "boolean", default: true },
    { id: "day", label: "Release day", type: "date" },
    { id: "window", label: "Maintenance window starts", type: "date-time" },
    {
      id: "strategy", label: "Strategy", type: "choice", header: "Strategy", other: true,
      options: [
        { value: "canary", label: "Canary", description: "Small slice first.", preview: "```text\n5% → 50% → 100%\n```" },
        { value: "blue-green", label: "Blue-green", description: "Switch all at once." },
      ],
    },
    {
      id: "regions", label: "Regions", type: "multiselect",
      options: [{ value: "eu", label: "Europe" }, { value: "us", label: "Americas" }, { value: "ap", label: "Asia-Pacific" }],
    },
  ],
};

/**
 * The plaintext the stages send (titles, bodies, answers), which no log may hold. Single
 * common words ("staging", "stable", "Web") are left out: they would match unrelated log text;
 * the longer values of the same messages stand for them.
 */
const PLAINTEXT = [
  TITLE, BODY, NOTIFY_TITLE, FORM_TITLE, FORM_REASON, QUESTIONS_TITLE, "Which sign-in method?",
  "Which platforms first?", "Passkeys", "Magic links", OTHER_ANSWER, SCHEMA_TITLE, SCHEMA_NOTES,
  GALLERY_TITLE, GALLERY.body, ...GALLERY.blocks.map((b) => b.text).filter(Boolean), FOLLOW_UP_TITLE,
  "The diagram follows.", FILES_TITLE, "All 481 checks passed.", IMAGE_TITLE, IMAGE_ALT, SECRET_ASK_TITLE,
  OFFER_TITLE, CANCEL_TITLE, EXPIRE_TITLE, PLAIN_TITLE, AGENT_TITLE, AGENT_BODY, AGENT_REPLY, QUIET_TITLE,
  MESSAGE_TITLE, HIDDEN_MESSAGE_TITLE, HIDDEN_MESSAGE_BODY, HIDDEN_REQUEST_TITLE,
  "Quiet hours are over",
];

/** @type {import("selenium-webdriver").WebDriver | undefined} */
let driver;
/** The test notification server on the private bus (when HERALD_E2E_NOTIFICATIONS is set). */
const notificationServer = NOTIFICATIONS
  ? new NotificationServer(NOTIFICATIONS, join(ARTIFACTS, "notification-server.log"))
  : undefined;

const byTestId = (id) => By.css(`[data-testid="${id}"]`);

async function find(id, timeout = UI_TIMEOUT) {
  const el = await driver.wait(until.elementLocated(byTestId(id)), timeout, `no [data-testid=${id}] within ${timeout} ms`);
  await driver.wait(until.elementIsVisible(el), timeout, `[data-testid=${id}] never became visible`);
  return el;
}

/**
 * The text of the element with `testid`, found afresh: the page may re-render it between a
 * find and a read (a message pane that just switched), which WebDriver reports as a stale
 * element; then it is found and read again.
 */
async function textOfTestId(testid) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await textOf(await find(testid));
    } catch (err) {
      if (err?.name !== "StaleElementReferenceError" || attempt >= 5) throw err;
    }
  }
}

/** Waits for a new connection's one-time token card, failing at once on an error card. */
async function tokenShown(what) {
  await driver.wait(
    async () => {
      await failOnErrorCard("connection-error");
      return (await driver.findElements(byTestId("connection-token"))).length > 0;
    },
    UI_TIMEOUT,
    what,
  );
}

async function click(id) {
  const el = await find(id);
  await driver.wait(until.elementIsEnabled(el), UI_TIMEOUT, `[data-testid=${id}] stayed disabled`);
  await el.click();
  return el;
}

/**
 * Clicks a button whose effect is to destroy the window (the background notice's OK). The
 * window can be gone before WebKitWebDriver answers the click, which it then reports as
 * NoSuchWindowError (or a lost session); that is the click's effect, not a failure. The caller checks that the
 * window went away (windowGone).
 */
async function clickClosingWindow(id) {
  try {
    await click(id);
  } catch (err) {
    // The window is a process of its own: with it goes the session's connection, which the
    // driver reports as a missing window or a lost session.
    if (!["NoSuchWindowError", "NoSuchSessionError", "WebDriverError"].includes(err?.name)) throw err;
  }
}

/**
 * The element's text content. WebKitWebDriver's getText() returns "" for text in boxes with
 * `overflow: hidden` (the list's ellipsized titles), though it is on screen.
 */
async function textOf(el) {
  return String(await driver.executeScript("return arguments[0].textContent;", el)).trim();
}

async function screenshot(name) {
  if (!driver) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  // WebKitWebDriver can return the previous frame on the first capture after a change (the
  // "before" shot showed the setup screen); a throwaway capture first gives the current one.
  await driver.takeScreenshot();
  const png = await driver.takeScreenshot();
  writeFileSync(join(ARTIFACTS, name), Buffer.from(png, "base64"));
}

/** Fails the wait early with the reason when `shown` reports an error card. */
async function failOnErrorCard(id) {
  const cards = await driver.findElements(byTestId(id));
  if (cards.length > 0) {
    const text = await cards[0].getText();
    if (text.trim()) throw new Error(`the app reported an error: ${text}`);
  }
}

/** One named stage of the flow; a failure stops the flow there (later stages depend on it). */
async function step(name, fn) {
  if (ONLY && !ONLY.test(name) && !ALWAYS.has(name)) {
    console.log(`skip - ${name} (HERALD_E2E_ONLY)`);
    return;
  }
  const started = Date.now();
  let skipped = false;
  try {
    await fn(() => {
      skipped = true;
    });
  } catch (err) {
    err.message = `[${name}] ${err.message}`;
    throw err;
  }
  console.log(skipped ? `skip - ${name}` : `ok - ${name} (${Date.now() - started} ms)`);
}

/** A Notify call's action buttons as {id: label}, without "default" (a click on the banner). */
function buttonsOf(notification) {
  const buttons = {};
  for (let i = 0; i + 1 < notification.actions.length; i += 2) {
    if (notification.actions[i] !== "default") buttons[notification.actions[i]] = notification.actions[i + 1];
  }
  return buttons;
}

/**
 * The inbox row whose title is `title`, or false. One script call, so a list re-rendered by a
 * live update between two WebDriver calls cannot hand back a stale row.
 */
async function inboxItem(title) {
  const row = await driver.executeScript(
    `const rows = document.querySelectorAll('[data-testid="inbox-item"]');
     for (const row of rows) {
       const t = row.querySelector('[data-testid="inbox-item-title"]');
       if (t && t.textContent.trim() === arguments[0]) return row;
     }
     return null;`,
    title,
  );
  return row ?? false;
}

/**
 * The recorded notification for a request titled `title` (its body's first line), once it is
 * shown.
 */
function notificationFor(title) {
  return pollFor(
    () => recordedNotifications().find((n) => n.body.split("\n")[0] === title),
    UI_TIMEOUT,
    `no OS notification for "${title}"`,
  );
}

/** Calls an agent endpoint (`/v1/*`) of the relay with an agent key; resolves with status and JSON. */
async function agentCall(relayUrl, key, method, path, body) {
  const response = await fetch(`${relayUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    assert.fail(`${method} ${path} answered no JSON (${response.status}): ${text}`);
  }
  return { status: response.status, json };
}

/**
 * Calls one of the relay's MCP tools (`POST /mcp`, session-less `tools/call`) as an agent
 * platform would, and returns its `structuredContent` (the endpoint's JSON).
 */
async function mcpTool(relayUrl, key, name, args) {
  const { status, json } = await agentCall(relayUrl, key, "POST", "/mcp", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  assert.equal(status, 200, `tools/call ${name}: ${JSON.stringify(json)}`);
  assert.ok(json.result && !json.result.isError, `tools/call ${name} succeeded: ${JSON.stringify(json)}`);
  assert.deepEqual(JSON.parse(json.result.content[0].text), json.result.structuredContent, "text and structuredContent agree");
  return json.result.structuredContent;
}

/** `HH:MM` in UTC, `minutes` from now. */
function utcClock(minutes) {
  const at = new Date(Date.now() + minutes * 60_000);
  return `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")}`;
}

/** The inbox row of the agent notification titled `title`, or false. */
async function notificationItem(title) {
  for (const el of await driver.findElements(byTestId("inbox-notification"))) {
    if ((await textOf(await el.findElement(byTestId("inbox-item-title")))) === title) return el;
  }
  return false;
}

/** Waits until the app withdrew (CloseNotification) the notification `shown`. */
function withdrawn(shown, what) {
  return pollFor(() => wasClosed(NOTIFICATIONS, shown.id), UI_TIMEOUT, `${what}: its notification was not withdrawn`);
}

/** Runs the real CLI (with `input` on its standard input, if given); resolves with its exit code and output. */
function runHerald(args, env, input) {
  const stdin = input === undefined ? "ignore" : "pipe";
  const child = spawn(HERALD, args, {
    env: { ...process.env, HERALD_LOG: CLI_LOG_LEVEL, ...env },
    stdio: [stdin, "pipe", "pipe"],
  });
  if (input !== undefined) child.stdin.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const done = new Promise((resolveDone, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      // Its log is its standard error. The header names the command only: the arguments
      // carry titles and bodies, which the log check looks for.
      const command = ["device", "connection", "inbox"].includes(args[0]) ? args.slice(0, 2) : args.slice(0, 1);
      logs?.append("herald-cli.log", `herald ${command.join(" ")} (exit ${code ?? signal})`, stderr);
      resolveDone({ code, signal, stdout, stderr });
    });
  });
  return { child, done, output: () => ({ stdout, stderr }) };
}

/** Polls `probe` every 100 ms until it returns a truthy value or the deadline passes. */
async function pollFor(probe, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} (waited ${ms} ms)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Notify calls the test notification server recorded. */
function recordedNotifications() {
  return shownNotifications(NOTIFICATIONS);
}

function withDeadline(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The answer's action id, wherever the CLI's JSON puts it (top level or under `answer`). */
function actionIdOf(answer) {
  if (answer && typeof answer === "object") {
    if (typeof answer.actionId === "string") return answer.actionId;
    if (answer.answer && typeof answer.answer.actionId === "string") return answer.answer.actionId;
  }
  return undefined;
}

/** The answer's field values, wherever the CLI's JSON puts them (top level or under `answer`). */
function valuesOf(answer) {
  if (answer && typeof answer === "object") {
    if (answer.values && typeof answer.values === "object") return answer.values;
    if (answer.answer && typeof answer.answer.values === "object") return answer.answer.values;
  }
  return undefined;
}

/** The CLI's stdout as JSON, failing the test with the output when it is not. */
function jsonOf(result, what) {
  try {
    return JSON.parse(result.stdout);
  } catch (err) {
    assert.fail(`${what} printed no JSON: ${err}\n${result.stdout}\n${result.stderr}`);
  }
}

/** Waits until the reading pane shows the message titled `title`. */
async function paneShows(title, what = `the reading pane shows "${title}"`) {
  await driver.wait(async () => (await textOfTestId("message-title")) === title, UI_TIMEOUT, what);
}

/**
 * Starts `herald ask ARGS` in the background, waits until its request shows up in the inbox
 * (failing early if the CLI exits first) and opens it. Returns the running CLI.
 */
async function askAndOpen(args, title, env) {
  const asking = runHerald(["ask", "--title", title, ...args], env);
  let exitedEarly = null;
  asking.done.then((r) => (exitedEarly = r)).catch((e) => (exitedEarly = { error: e }));
  const item = await driver.wait(
    async () => {
      if (exitedEarly) throw new Error(`herald ask exited early: ${JSON.stringify(exitedEarly)}`);
      return inboxItem(title);
    },
    DELIVERY_TIMEOUT,
    `"${title}" never appeared in the inbox`,
  );
  await item.click();
  await paneShows(title);
  return asking;
}

/**
 * A WebDriver session drives one window process (docs/desktop-lifecycle.md, "Window process"):
 * the first launch starts Herald, whose window process inherits the driver's inspector address;
 * a launch while Herald runs with no window open becomes the window itself. `args`: the
 * launch's command line (a `herald://` link). When the window closes, the session is over.
 */
function launchApp(args = []) {
  return new Builder()
    .usingServer(WEBDRIVER_URL)
    .withCapabilities({ browserName: "wry", "tauri:options": { application: LOG_DIR ? APP_LOGGED : APP, args } })
    .build();
}

/** Herald's long-running processes for this data dir: `herald-desktop` with HERALD_DATA_DIR=DATA_DIR (read from /proc). */
function appPids() {
  return pidsNamed("herald-desktop");
}

/** Herald's window processes for this data dir (they name themselves `herald-window`). */
function windowPids() {
  return pidsNamed("herald-window");
}

function pidsNamed(comm) {
  const pids = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== comm) continue;
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
      if (environ.includes(`HERALD_DATA_DIR=${DATA_DIR}`)) pids.push(pid);
    } catch {
      // The process ended while it was read.
    }
  }
  return pids;
}

/**
 * Ends the WebDriver session and the app: closing a window no longer ends Herald, so the app
 * is asked to quit the way a person or a script does (`herald-desktop --quit`, which a running
 * Herald of this data dir obeys and which does nothing otherwise), then waits until it is gone.
 */
async function quitApp() {
  if (driver) await driver.quit().catch(() => undefined);
  driver = undefined;
  // Its exit status does not matter: an app already ending (the session's own stop) may leave
  // the call unanswered; the wait below is what counts.
  if (appPids().length > 0) spawnSync(APP, ["--quit"], { env: process.env, timeout: 30_000, stdio: "ignore" });
  await pollFor(() => appPids().length + windowPids().length === 0, UI_TIMEOUT, "herald-desktop --quit: the app did not end");
}

/** The tray icon the running app registered last (its D-Bus service), once it did. */
function trayService() {
  return pollFor(
    () => {
      if (!existsSync(TRAY)) return false;
      const lines = readFileSync(TRAY, "utf8").split("\n").filter(Boolean);
      return lines.length > 0 && JSON.parse(lines.at(-1)).registered;
    },
    UI_TIMEOUT,
    "the app's tray icon never registered with the tray host",
  );
}

/** The tray icon as a panel shows it: {tooltip, title, status, labels}. */
function trayShows(service) {
  return JSON.parse(execFileSync("/usr/bin/python3", [TRAY_HOST, "show", service], { encoding: "utf8", timeout: 10_000 }));
}

/** Presses the tray menu entry labelled `label`, as a panel does on a click. */
function trayClick(service, label) {
  execFileSync("/usr/bin/python3", [TRAY_HOST, "click", service, label], { timeout: 10_000 });
}

/** How many requests the tray's tooltip says wait. */
function trayCount(tooltip) {
  const m = /(\d+) requests? waits? for you/.exec(tooltip);
  if (m) return Number(m[1]);
  assert.match(tooltip, /nothing waits for you/, `a tooltip with a count: ${tooltip}`);
  return 0;
}

/**
 * A launch while Herald runs with its window closed: a new session whose launch becomes the
 * window process (`args`: its command line), on the app shell.
 */
async function reopenedBy(args, what) {
  // The last session ended with its window; its launched process (Herald itself, or an
  // earlier window) is not the driver's to stop.
  await driver?.quit().catch(() => undefined);
  driver = await withDeadline(launchApp(args), UI_TIMEOUT, what);
  await find("app-shell");
}

/** Waits until the window process has ended (its session ends with it). */
function windowGone(what) {
  return pollFor(() => windowPids().length === 0, UI_TIMEOUT, what);
}

/** The one window process, once it runs. */
async function windowPid(what) {
  const pids = await pollFor(() => windowPids().length === 1 && windowPids(), UI_TIMEOUT, what);
  return pids[0];
}

/** Sends the window manager's close (WM_DELETE_WINDOW) to Herald's window (close-window.py). */
function closeWindow(pid) {
  execFileSync("/usr/bin/python3", [join(ROOT, "tests/e2e/close-window.py"), String(pid), "Herald"], { timeout: 10_000 });
}

/** Quits the app, empties its data dir and starts it again: a computer Herald has never seen. */
async function freshApp() {
  await quitApp();
  for (const entry of readdirSync(DATA_DIR)) rmSync(join(DATA_DIR, entry), { recursive: true, force: true });
  driver = await launchApp();
  await find("setup-form");
}

before(async () => {
  assert.ok(DATA_DIR, "HERALD_DATA_DIR must point at a fresh data dir (run.sh sets it)");
  assert.ok(existsSync(APP), `the desktop app is built at ${APP}`);
  console.log(`app under test: ${APP}; CLI: ${HERALD}`);
  await notificationServer?.start();
  for (const text of PLAINTEXT) secrets.add("plaintext", text);
  driver = await launchApp();
});

after(async () => {
  await quitApp().catch(() => undefined);
  await notificationServer?.stop().catch(() => undefined);
});

test("onboard, connect an agent, answer its request from the inbox", async () => {
  let asking;
  let recoveryKey;
  // The second account's relay and owner device (the new-device stages).
  let relay;
  let ownerHome;
  let ownerSafety;
  let secondRelayUrl;
  // Files the agent sends (a schema, the gallery's JSON).
  const scratch = mkdtempSync(join(tmpdir(), "herald-e2e-files-"));
  try {
    await step("first run: embedded relay, recovery key, safety code", async () => {
      const embedded = await find("setup-relay-embedded");
      assert.ok(await embedded.isSelected(), "the embedded relay is the default choice");
      await click("setup-create");
      await driver.wait(
        async () => {
          await failOnErrorCard("setup-error");
          return (await driver.findElements(byTestId("recovery-key"))).length > 0;
        },
        UI_TIMEOUT,
        "the recovery key screen did not appear",
      );
      recoveryKey = (await (await find("recovery-key")).getText()).trim();
      assert.match(recoveryKey, /^[0-9A-Z]{4}(-[0-9A-Z]{4})+$/, "recovery key is grouped Crockford base32");
      secrets.addRecoveryKey("the recovery key", recoveryKey);
      for (const key of localKeysUnder(DATA_DIR)) secrets.addKeyBytes("the app's local key", key.bytes);
      const safetyCode = (await (await find("safety-code")).getText()).trim();
      assert.match(safetyCode, /^\d{5}( \d{5}){5}$/, "safety code is 30 digits in 6 groups");
      const storage = await find("secret-storage");
      const kind = await storage.getAttribute("data-kind");
      assert.ok(kind === "keychain" || kind === "file", `secret storage is named (${kind})`);
      if (kind === "file") {
        const shownPath = await textOf(await find("secret-storage-path"));
        assert.equal(dirname(shownPath), resolve(DATA_DIR), "the key file shown is in the data dir");
        assert.match(await textOf(storage), /protected only by file permissions/, "and it says so plainly");
      }
      const continueButton = await find("setup-continue");
      assert.equal(await continueButton.isEnabled(), false, "Continue waits for the saved checkbox");
      await click("recovery-saved");
      await click("setup-continue");
      // The offer to start at login: accepted here (the login item lands in the test's private
      // HOME, run.sh), declined on the later onboardings.
      await find("autostart-offer");
      await screenshot("desktop-e2e-autostart-offer.png");
      await click("autostart-offer-accept");
      await find("app-shell");
      // Where the desktop's autostart reader looks: XDG_CONFIG_HOME (run.sh sets it, apart
      // from HOME), never ~/.config then.
      const entry = join(process.env.XDG_CONFIG_HOME ?? "", "autostart", "Herald.desktop");
      await pollFor(() => existsSync(entry), UI_TIMEOUT, `no login item at ${entry}`);
      assert.ok(!existsSync(join(process.env.HOME ?? "", ".config", "autostart")), "nothing under HOME/.config");
      const exec = /^Exec=(.*)$/m.exec(readFileSync(entry, "utf8"))?.[1];
      assert.equal(exec, `${realpathSync(APP)} --background`, "it starts this Herald in the background");
    });

    let token;
    let relayUrl;
    await step("a connection's token is shown once", async () => {
      await click("nav-connections");
      await (await find("connection-name-input")).sendKeys("ci-agent");
      await click("connection-create");
      await tokenShown("the new connection's token did not appear");
      token = (await (await find("connection-token")).getText()).trim();
      assert.match(token, /^hdr_\S+$/, "the token has the hdr_ prefix");
      secrets.add("the connection token", token);
      const envLines = await (await find("connection-env")).getText();
      assert.ok(
        envLines.includes("read -rs HERALD_TOKEN && export HERALD_TOKEN"),
        `the shell lines read HERALD_TOKEN without echo: ${envLines}`,
      );
      assert.ok(!envLines.includes(token), "the token itself is not in the shell lines (it would land in history)");
      assert.ok(!/HERALD_TOKEN=/.test(envLines), "no HERALD_TOKEN=… assignment is suggested");
      const tokenFile = await textOf(await find("connection-token-file"));
      assert.ok(
        tokenFile.includes("~/.config/herald/token") && tokenFile.includes("0600"),
        `the token file alternative is named with its mode: ${tokenFile}`,
      );
      relayUrl = readFileSync(join(DATA_DIR, "relay-url"), "utf8").trim();
      assert.match(relayUrl, /^http:\/\/127\.0\.0\.1:\d+$/, "the app wrote the embedded relay URL for the CLI");
      assert.ok(envLines.includes(`HERALD_URL=${relayUrl}`), "the shell lines name the same relay");
      await click("connection-done");
      const items = await driver.findElements(byTestId("connection-token"));
      assert.equal(items.length, 0, "the token is gone after Done");
      const names = await Promise.all(
        (await driver.findElements(byTestId("connection-item"))).map((el) => el.getText()),
      );
      assert.ok(names.some((n) => n.includes("ci-agent")), `ci-agent is listed (saw ${JSON.stringify(names)})`);
    });

    await step("a connection made with fewer scopes is listed as such", async () => {
      // Every box starts ticked; the person keeps only "send".
      for (const scope of ["messages:read", "events:read"]) {
        const box = await find(`connection-scope-${scope}`);
        assert.equal(await box.isSelected(), true, `${scope} is ticked by default`);
        await box.click();
      }
      await (await find("connection-name-input")).sendKeys("notifier");
      await click("connection-create");
      await tokenShown("the send-only connection's token did not appear");
      secrets.add("the send-only connection token", (await (await find("connection-token")).getText()).trim());
      assert.ok((await textOf(await find("connection-next"))).includes("herald send"), "a send-only token is for herald send");
      await screenshot("desktop-e2e-connection-send-only.png");
      await click("connection-done");
      const note = await driver.wait(
        async () => {
          for (const el of await driver.findElements(byTestId("connection-item"))) {
            if ((await textOf(el)).includes("notifier")) {
              const notes = await el.findElements(byTestId("connection-scope-note"));
              return notes.length > 0 ? textOf(notes[0]) : false;
            }
          }
          return false;
        },
        UI_TIMEOUT,
        "notifier is not listed with its scope",
      );
      assert.equal(note, "only send", "the relay kept exactly the one scope");
      await screenshot("desktop-e2e-connection-scopes.png");
    });

    await step("the request arrives live and is answered with Approve", async () => {
      await click("nav-inbox");
      await find("inbox-list");
      assert.ok(existsSync(HERALD), `the CLI is built at ${HERALD}`);
      asking = runHerald(
        ["ask", "--title", TITLE, "--body", BODY, "--action", "approve:Approve", "--action", "reject:Reject", "--deadline", "10m"],
        { HERALD_URL: relayUrl, HERALD_TOKEN: token },
      );
      let exitedEarly = null;
      asking.done.then((r) => (exitedEarly = r)).catch((e) => (exitedEarly = { error: e }));

      // No reload: the item must appear through the herald://event stream.
      const item = await driver.wait(
        async () => {
          if (exitedEarly) {
            throw new Error(`herald ask exited before the request showed up: ${JSON.stringify(exitedEarly)}`);
          }
          return inboxItem(TITLE);
        },
        DELIVERY_TIMEOUT,
        "the request never appeared in the inbox",
      );
      assert.equal(await item.getAttribute("data-status"), "pending", "a new request is pending");

      let shown;
      if (NOTIFICATIONS) {
        shown = await notificationFor(TITLE);
        assert.equal(shown.summary, "ci-agent", "the notification names the sender");
        assert.deepEqual(buttonsOf(shown), { approve: "Approve", reject: "Reject" }, "it offers the request's actions");
        assert.ok(!shown.body.includes("build 481"), "it carries the title only, never the body");
      }
      await item.click();

      const title = await find("message-title");
      assert.equal((await title.getText()).trim(), TITLE, "the reading pane shows the request");
      const body = await (await find("message-body")).getText();
      assert.ok(body.includes("build 481"), "the Markdown body is rendered");
      const approve = await find("action-approve");
      await find("action-reject");
      await driver.wait(until.elementIsEnabled(approve), UI_TIMEOUT, "Approve stayed disabled");
      await screenshot("desktop-e2e-before.png");

      await approve.click();
      const summary = await find("answer-summary");
      assert.ok((await summary.getText()).includes("Approve"), "the pane shows the answer given");
      await driver.wait(
        async () => !(await (await find("action-approve")).isEnabled()),
        UI_TIMEOUT,
        "buttons are disabled after answering",
      );
      await screenshot("desktop-e2e.png");

      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald ask");
      assert.equal(result.code, 0, `herald ask exits 0 when answered (stderr: ${result.stderr})`);
      let answer;
      try {
        answer = JSON.parse(result.stdout);
      } catch (err) {
        assert.fail(`herald ask printed no JSON: ${err}\n${result.stdout}`);
      }
      assert.equal(actionIdOf(answer), "approve", `the CLI got the approve action: ${result.stdout}`);
      if (shown) await withdrawn(shown, "answered in the window");
    });

    await step("a form request is checked beside its fields and answered with typed values", async () => {
      asking = runHerald(
        [
          "ask", "--title", FORM_TITLE,
          "--field", "env!:choice:Environment:prod,staging",
          "--field", "why:text:Why",
        ],
        { HERALD_URL: relayUrl, HERALD_TOKEN: token },
      );
      let exitedEarly = null;
      asking.done.then((r) => (exitedEarly = r)).catch((e) => (exitedEarly = { error: e }));
      const item = await driver.wait(
        async () => {
          if (exitedEarly) throw new Error(`herald ask exited early: ${JSON.stringify(exitedEarly)}`);
          return inboxItem(FORM_TITLE);
        },
        DELIVERY_TIMEOUT,
        "the form request never appeared in the inbox",
      );
      await item.click();
      await driver.wait(
        async () => (await textOfTestId("message-title")) === FORM_TITLE,
        UI_TIMEOUT,
        "the reading pane shows the form request",
      );
      await find("field-env");
      await find("field-why");

      // Submitting without the required choice is stopped in the app, beside the field.
      await click("answer-submit");
      const envError = await find("field-error-env");
      assert.ok((await textOf(envError)).length > 0, "the missing choice is named beside its field");
      assert.equal((await driver.findElements(byTestId("field-error-why"))).length, 0, "the optional field has no error");

      await click("input-env-staging");
      await driver.wait(
        async () => (await driver.findElements(byTestId("field-error-env"))).length === 0,
        UI_TIMEOUT,
        "choosing an option clears its error",
      );
      await (await find("input-why")).sendKeys(FORM_REASON);
      await screenshot("desktop-e2e-form.png");
      await click("answer-submit");

      const summary = await find("answer-summary");
      const shown = await textOf(summary);
      assert.ok(shown.includes("staging") && shown.includes(FORM_REASON), `the pane shows the values given: ${shown}`);

      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald ask (form)");
      assert.equal(result.code, 0, `herald ask exits 0 when answered (stderr: ${result.stderr})`);
      let answer;
      try {
        answer = JSON.parse(result.stdout);
      } catch (err) {
        assert.fail(`herald ask printed no JSON: ${err}\n${result.stdout}`);
      }
      assert.deepEqual(valuesOf(answer), { env: "staging", why: FORM_REASON }, `the CLI got the typed values: ${result.stdout}`);
      assert.equal(actionIdOf(answer), undefined, "a form answer carries no action");
    });

    await step("a request is answered from its OS notification, once", async (skip) => {
      if (!NOTIFICATIONS) return skip();
      asking = runHerald(
        ["ask", "--title", NOTIFY_TITLE, "--action", "rotate:Rotate", "--action", "later:Later"],
        { HERALD_URL: relayUrl, HERALD_TOKEN: token },
      );
      const shown = await notificationFor(NOTIFY_TITLE);
      assert.deepEqual(buttonsOf(shown), { rotate: "Rotate", later: "Later" }, "the buttons are the request's actions");
      assert.equal(shown.body, NOTIFY_TITLE, "a banner with buttons carries the title only");

      // A click on the banner itself opens the request in the window.
      press(shown.id, "default");
      await paneShows(NOTIFY_TITLE, "a click on the notification opens its request");
      const windowButton = await find("action-rotate");

      // "Rotate" pressed twice on the banner (the id typed uint32, as a server sends it) and at
      // once in the window too: one answer is posted, the others are told it was answered.
      press(shown.id, "rotate");
      press(shown.id, "rotate");
      await windowButton.click().catch(() => undefined);
      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald ask (answered from the notification)");
      assert.equal(result.code, 0, `herald ask exits 0 (stderr: ${result.stderr})`);
      assert.equal(actionIdOf(JSON.parse(result.stdout)), "rotate", `the CLI got the rotate action: ${result.stdout}`);
      await driver.wait(
        async () => {
          const item = await inboxItem(NOTIFY_TITLE);
          return item && (await item.getAttribute("data-status")) === "answered";
        },
        UI_TIMEOUT,
        "the inbox shows the request answered, live",
      );
      await driver.wait(
        async () => (await driver.findElements(byTestId("answer-summary"))).length > 0,
        UI_TIMEOUT,
        "the window shows the answer",
      );
      assert.ok((await textOf(await find("answer-summary"))).includes("Rotate"), "showing the answer given");
      assert.equal((await driver.findElements(byTestId("answer-error"))).length, 0, "no error for the losing answers");
      assert.equal((await driver.findElements(byTestId("app-error"))).length, 0, "and no error banner");
      await withdrawn(shown, "answered from the notification");
      const again = recordedNotifications().filter((n) => n.body.split("\n")[0] === NOTIFY_TITLE);
      assert.equal(again.length, 1, "the answer raised no second banner");
    });

    await step("cancelled and expired requests lose their notifications", async (skip) => {
      if (!NOTIFICATIONS) return skip();
      const env = { HERALD_URL: relayUrl, HERALD_TOKEN: token };
      // `ask --timeout 1s` stops waiting (exit 3), the request stays open.
      const asked = await withDeadline(
        runHerald(["ask", "--title", CANCEL_TITLE, "--action", "ok:Restart", "--timeout", "1s"], env).done,
        ANSWER_TIMEOUT,
        "herald ask (to cancel)",
      );
      assert.equal(asked.code, 3, `herald ask stops waiting (stderr: ${asked.stderr})`);
      const cancelShown = await notificationFor(CANCEL_TITLE);
      const cancelled = await withDeadline(
        runHerald(["cancel", jsonOf(asked, "herald ask (to cancel)").id], env).done,
        ANSWER_TIMEOUT,
        "herald cancel",
      );
      assert.equal(cancelled.code, 0, `the request is cancelled (stderr: ${cancelled.stderr})`);
      await withdrawn(cancelShown, "cancelled by its sender");

      // The deadline must outlast the delivery: a request the relay has already expired when
      // the app fetches it gets no banner at all (10 s: delivery takes well under a second,
      // but not always under a loaded machine's 3 s).
      const expiring = await withDeadline(
        runHerald(["ask", "--title", EXPIRE_TITLE, "--action", "ok:Approve", "--deadline", "10s", "--timeout", "1s"], env).done,
        ANSWER_TIMEOUT,
        "herald ask (to expire)",
      );
      assert.equal(expiring.code, 3, `herald ask stops waiting (stderr: ${expiring.stderr})`);
      const expireShown = await notificationFor(EXPIRE_TITLE);
      await withdrawn(expireShown, "past its deadline");
    });

    await step("without the actions capability the notification opens the request", async (skip) => {
      if (!NOTIFICATIONS) return skip();
      await notificationServer.stop();
      await notificationServer.start({ actions: false });
      try {
        const asked = await withDeadline(
          runHerald(
            ["ask", "--title", PLAIN_TITLE, "--action", "merge:Merge", "--action", "wait:Wait", "--timeout", "1s"],
            { HERALD_URL: relayUrl, HERALD_TOKEN: token },
          ).done,
          ANSWER_TIMEOUT,
          "herald ask (no buttons)",
        );
        assert.equal(asked.code, 3, `herald ask stops waiting (stderr: ${asked.stderr})`);
        const shown = await notificationFor(PLAIN_TITLE);
        assert.deepEqual(buttonsOf(shown), {}, "no buttons where the server cannot show them");
        assert.ok(shown.actions.includes("default"), "a click on it is still reported");
        assert.equal(shown.body, `${PLAIN_TITLE}\n${OPEN_TO_ANSWER}`, "it says where to answer");
        assert.notEqual(await textOfTestId("message-title"), PLAIN_TITLE, "another message is open");
        press(shown.id, "default");
        await paneShows(PLAIN_TITLE, "a click on the notification opens its request");
        await find("action-merge");
      } finally {
        await notificationServer.stop();
        await notificationServer.start();
      }
    });

    await step("a plain message gets a banner too, with its own sound, while another message is open", async (skip) => {
      if (!NOTIFICATIONS) return skip();
      const request = await notificationFor(TITLE);
      assert.equal(request.sound, SOUND_NEEDS_REPLY, "a request sounds like it needs a reply");
      // The window is open and focused on another message: that keeps no banner away.
      assert.notEqual(await textOfTestId("message-title"), MESSAGE_TITLE, "another message is open");
      const sent = await withDeadline(
        runHerald(["send", "--title", MESSAGE_TITLE, "--body", "All 481 checks passed."], { HERALD_URL: relayUrl, HERALD_TOKEN: token }).done,
        ANSWER_TIMEOUT,
        "herald send (plain message)",
      );
      assert.equal(sent.code, 0, `sent (stderr: ${sent.stderr})`);
      const shown = await notificationFor(MESSAGE_TITLE);
      assert.equal(shown.summary, "ci-agent", "it names the sender");
      assert.equal(shown.body, MESSAGE_TITLE, "it carries the title only, never the body");
      assert.deepEqual(buttonsOf(shown), {}, "nothing to answer");
      assert.equal(shown.sound, SOUND_NEW_MESSAGE, "a message sounds different from a request");
      press(shown.id, "default");
      await paneShows(MESSAGE_TITLE, "a click on the banner opens the message");
    });

    await step("with previews and sound off a banner says only the sender and New message or Needs your reply", async (skip) => {
      if (!NOTIFICATIONS) return skip();
      // The switches are disabled while a save is in flight: wait for each save to end, so the
      // next click does not land on a disabled switch.
      const toggle = async (id, on) => {
        const box = await find(id);
        await driver.wait(until.elementIsEnabled(box), UI_TIMEOUT, `${id} stayed disabled`);
        if ((await box.isSelected()) !== on) await box.click();
        await driver.wait(
          async () => {
            const now = await find(id);
            return (await now.isSelected()) === on && (await now.isEnabled());
          },
          UI_TIMEOUT,
          `${id} saved ${on ? "on" : "off"}`,
        );
      };
      await click("nav-settings");
      await click("settings-tab-notifications");
      await toggle("banner-previews", false);
      await toggle("banner-sound", false);
      await click("nav-inbox");
      try {
        const before = recordedNotifications().length;
        const env = { HERALD_URL: relayUrl, HERALD_TOKEN: token };
        const sent = await withDeadline(
          runHerald(["send", "--title", HIDDEN_MESSAGE_TITLE, "--body", HIDDEN_MESSAGE_BODY], env).done,
          ANSWER_TIMEOUT,
          "herald send (previews off)",
        );
        assert.equal(sent.code, 0, `sent (stderr: ${sent.stderr})`);
        const message = await pollFor(
          () => recordedNotifications().slice(before).find((n) => n.body === "New message"),
          UI_TIMEOUT,
          "no banner for the message",
        );
        const asked = await withDeadline(
          runHerald(["ask", "--title", HIDDEN_REQUEST_TITLE, "--action", "rotate:Rotate", "--timeout", "1s"], env).done,
          ANSWER_TIMEOUT,
          "herald ask (previews off)",
        );
        assert.equal(asked.code, 3, `herald ask stops waiting (stderr: ${asked.stderr})`);
        const request = await pollFor(
          () => recordedNotifications().slice(before).find((n) => n.body === "Needs your reply"),
          UI_TIMEOUT,
          "no banner for the request",
        );
        for (const banner of [message, request]) {
          assert.equal(banner.summary, "ci-agent", "the sender only");
          assert.deepEqual(buttonsOf(banner), {}, "no buttons: nothing is answered unseen");
          assert.equal(banner.sound, null, "sound off: no sound hint");
        }
        for (const n of recordedNotifications().slice(before)) {
          const text = `${n.summary}\n${n.body}\n${n.actions.join(" ")}`;
          for (const hidden of [HIDDEN_MESSAGE_TITLE, HIDDEN_MESSAGE_BODY, HIDDEN_REQUEST_TITLE, "Rotate"]) {
            assert.ok(!text.includes(hidden), `"${hidden}" is not in a banner: ${text}`);
          }
        }
        await screenshot("desktop-e2e-previews-off.png");
      } finally {
        await click("nav-settings");
        await click("settings-tab-notifications");
        await toggle("banner-previews", true);
        await toggle("banner-sound", true);
        await click("nav-inbox");
      }
    });

    let agentKey;
    await step("an agent key from Settings notifies the desktop: banner, inbox entry not E2E, receipts, typed reply", async () => {
      await click("nav-settings");
      await click("settings-tab-agents");
      await (await find("agent-key-name-input")).sendKeys(AGENT_KEY_NAME);
      await click("agent-key-create");
      agentKey = (await textOf(await find("agent-key-value"))).trim();
      assert.match(agentKey, /^hrk_\S+$/, "the key has the hrk_ prefix");
      secrets.add("the agent key", agentKey);
      assert.ok(!(await textOf(await find("agent-key-shell"))).includes(agentKey), "the shell lines do not hold the key");
      await click("agent-key-done");
      assert.equal((await driver.findElements(byTestId("agent-key-value"))).length, 0, "the key is gone after Done");
      const listed = await driver.wait(
        async () => {
          for (const el of await driver.findElements(byTestId("agent-key-item"))) if ((await textOf(el)).includes(AGENT_KEY_NAME)) return true;
          return false;
        },
        UI_TIMEOUT,
        "the key is listed",
      );
      assert.ok(listed);
      await click("nav-inbox");

      const sent = await agentCall(relayUrl, agentKey, "POST", "/v1/notify", {
        title: AGENT_TITLE, body: AGENT_BODY, speak: true, expectReply: true, notificationId: "build-214",
      });
      assert.equal(sent.status, 201, `the relay queues it (201 Created): ${JSON.stringify(sent.json)}`);
      assert.equal(sent.json.received, true);
      assert.equal(sent.json.suppressed, false, "no quiet hours yet");

      if (NOTIFICATIONS) {
        const banner = await notificationFor(AGENT_TITLE);
        assert.equal(banner.summary, AGENT_KEY_NAME, "the banner names the agent");
        assert.equal(banner.body, `${AGENT_TITLE}\n${AGENT_BODY}`, "and carries its text");
        assert.deepEqual(buttonsOf(banner), {}, "agents get no buttons");
      }
      const item = await driver.wait(() => notificationItem(AGENT_TITLE), DELIVERY_TIMEOUT, "the notification never reached the inbox");
      assert.equal(await item.getAttribute("data-end-to-end"), "false");
      assert.equal(await textOf(await item.findElement(byTestId("inbox-item-not-e2e"))), "Not end-to-end encrypted");
      await item.click();
      assert.equal(await textOf(await find("notification-title")), AGENT_TITLE);
      assert.match(await textOf(await find("notification-not-e2e")), /Sent through the relay, not end-to-end encrypted/);

      // Receipts, as the agent reads them.
      const receipt = await pollFor(
        async () => {
          const r = await agentCall(relayUrl, agentKey, "GET", "/v1/receipts/build-214");
          return r.json.displayed && (!SPEECH || r.json.spoken) ? r.json : false;
        },
        DELIVERY_TIMEOUT,
        `the receipt says displayed${SPEECH ? " and spoken" : ""}`,
      );
      assert.ok(receipt.displayedAt, "displayed with its time");
      assert.equal(receipt.suppressed, false);
      if (SPEECH) {
        assert.ok(receipt.spokenAt, "spoken with its time");
        await driver.wait(
          async () => (await (await find("receipt-spoken")).getAttribute("data-state")) === "yes",
          UI_TIMEOUT,
          "the pane shows it read aloud",
        );
      } else {
        // No speech service: never reported spoken, and the pane says why.
        await find("speech-unavailable", DELIVERY_TIMEOUT);
        assert.equal(receipt.spoken, false, "not spoken without a speech service");
      }

      // The typed reply reaches the waiting agent.
      assert.match(await textOf(await find("voice-reply-unavailable")), /Voice replies are not available/);
      await (await find("notification-reply-input")).sendKeys(AGENT_REPLY);
      await click("notification-reply-send");
      assert.equal(await textOf(await find("notification-reply-text")), AGENT_REPLY, "the pane shows the reply sent");
      const reply = await agentCall(relayUrl, agentKey, "GET", "/v1/replies/build-214?wait=5");
      assert.equal(reply.json.replied, true, `the agent gets the reply: ${JSON.stringify(reply.json)}`);
      assert.equal(reply.json.text, AGENT_REPLY);
      await screenshot("desktop-e2e-agent-notification.png");
    });

    await step("quiet hours hold banners back; the agent sees them on and the receipt suppressed", async () => {
      await click("nav-settings");
      await click("settings-tab-notifications");
      const enabled = await find("quiet-enabled");
      if (!(await enabled.isSelected())) await enabled.click();
      // A period around now, in UTC.
      const setTime = async (id, value) =>
        driver.executeScript(
          "const el = arguments[0]; el.value = arguments[1]; el.dispatchEvent(new Event('input', { bubbles: true }));",
          await find(id),
          value,
        );
      await setTime("quiet-start", utcClock(-60));
      await setTime("quiet-end", utcClock(60));
      const zone = await find("quiet-timezone");
      await zone.clear();
      await zone.sendKeys("UTC");
      await click("quiet-save");
      await driver.wait(
        async () => (await (await find("quiet-state")).getAttribute("data-active")) === "true",
        UI_TIMEOUT,
        "the app says quiet hours are on now",
      );
      const status = await mcpTool(relayUrl, agentKey, "herald_status", {});
      assert.deepEqual(status.quietHours, { active: true }, `herald_status shows them: ${JSON.stringify(status)}`);
      assert.equal(status.online, true, "and the app online");

      const before = recordedNotifications().length;
      const sent = await agentCall(relayUrl, agentKey, "POST", "/v1/notify", { title: QUIET_TITLE, speak: true, notificationId: "backup-1" });
      assert.equal(sent.status, 201, "queued");
      assert.equal(sent.json.suppressed, true, "held back on arrival");
      await click("nav-inbox");
      await driver.wait(() => notificationItem(QUIET_TITLE), DELIVERY_TIMEOUT, "it still reaches the inbox");
      const receipt = await mcpTool(relayUrl, agentKey, "get_receipt", { notificationId: "backup-1" });
      assert.equal(receipt.suppressed, true, `get_receipt says suppressed: ${JSON.stringify(receipt)}`);
      assert.equal(receipt.displayed, false, "no banner");
      assert.equal(receipt.spoken, false, "not read aloud");

      // Off again; the next notification gets its banner, and nothing came before it: banners
      // are shown in arrival order, so a banner for the held-back one would be recorded first.
      await click("nav-settings");
      await click("settings-tab-notifications");
      await click("quiet-enabled");
      await click("quiet-save");
      await driver.wait(
        async () => (await (await find("quiet-state")).getAttribute("data-active")) === "false",
        UI_TIMEOUT,
        "quiet hours are off again",
      );
      await click("nav-inbox");
      const after = await agentCall(relayUrl, agentKey, "POST", "/v1/notify", { title: "Quiet hours are over", notificationId: "after-quiet" });
      assert.equal(after.json.suppressed, false);
      if (NOTIFICATIONS) {
        await notificationFor("Quiet hours are over");
        // What quiet hours held back is summed up once they are over (here: turned off, seen
        // with the next arrival), never shown on its own.
        const since = await pollFor(
          () => {
            const shown = recordedNotifications().slice(before);
            return shown.length >= 2 ? shown : false;
          },
          UI_TIMEOUT,
          "no summary of what quiet hours held back",
        );
        assert.deepEqual(
          since.map((n) => n.summary).sort(),
          ["1 new during quiet hours", AGENT_KEY_NAME].sort(),
          `one summary and the new banner: ${JSON.stringify(since)}`,
        );
        const summary = since.find((n) => n.summary === "1 new during quiet hours");
        assert.equal(summary.body, `1 notification from ${AGENT_KEY_NAME}. Open Herald to read them.`);
        assert.ok(!since.some((n) => n.body.includes(QUIET_TITLE)), "the held-back one never reached the notification server");
      }
    });

    await step("a multi-question card is answered with an Other answer", async () => {
      asking = await askAndOpen(
        [
          "--question", "Auth|Which sign-in method?|Passkeys,Magic links",
          "--question", "Platforms|Which platforms first?|Web,macOS,Android|multi",
        ],
        QUESTIONS_TITLE,
        { HERALD_URL: relayUrl, HERALD_TOKEN: token },
      );
      const form = await find("answer-form");
      assert.equal(await form.getAttribute("data-source"), "questions", "questions are shown as a card");
      assert.equal(await textOf(await find("question-step")), "Question 1 of 2");
      assert.equal(await textOf(await find("question-chip-1")), "Auth", "the chips carry the headers");
      assert.equal(await textOf(await find("question-chip-2")), "Platforms");

      await click("input-q1-Passkeys");
      await click("question-next");
      await driver.wait(
        async () => (await textOf(await find("question-step"))) === "Question 2 of 2",
        UI_TIMEOUT,
        "Next moves to the second question",
      );
      await click("input-q2-Web");
      await click("other-q2");
      await (await find("other-text-q2")).sendKeys(OTHER_ANSWER);
      await click("answer-submit");

      const shown = await textOf(await find("answer-summary"));
      assert.ok(shown.includes("Passkeys") && shown.includes(OTHER_ANSWER), `the pane shows the answers given: ${shown}`);

      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald ask (questions)");
      assert.equal(result.code, 0, `herald ask exits 0 when answered (stderr: ${result.stderr})`);
      const answer = jsonOf(result, "herald ask (questions)");
      // A multiselect's Other is one more item of its array; questionAnswers joins them.
      assert.deepEqual(valuesOf(answer), { q1: "Passkeys", q2: ["Web", OTHER_ANSWER] }, `the values: ${result.stdout}`);
      assert.deepEqual(
        answer.questionAnswers,
        { "Which sign-in method?": "Passkeys", "Which platforms first?": `Web, ${OTHER_ANSWER}` },
        `the CLI maps the answers back by question text: ${result.stdout}`,
      );
    });

    await step("a JSON Schema form is answered with typed values", async () => {
      const schemaFile = join(scratch, "release.schema.json");
      writeFileSync(schemaFile, JSON.stringify(SCHEMA));
      asking = await askAndOpen(["--schema", schemaFile], SCHEMA_TITLE, { HERALD_URL: relayUrl, HERALD_TOKEN: token });
      const form = await find("answer-form");
      assert.equal(await form.getAttribute("data-source"), "schema", "the schema is one form");
      assert.equal(await (await find("field-channel")).getAttribute("data-kind"), "choice", "a string enum is a choice");
      assert.equal(await (await find("field-replicas")).getAttribute("data-kind"), "integer");
      assert.equal(await (await find("field-notes")).getAttribute("data-kind"), "textarea", "x-herald-type picks the textarea");

      await click("input-channel-stable");
      await (await find("input-replicas")).sendKeys("3");
      // A newline in sendKeys' text is dropped by WebKitWebDriver; the Enter key types one.
      await (await find("input-notes")).sendKeys(...SCHEMA_NOTES.split("\n").flatMap((line, i) => (i ? [Key.ENTER, line] : [line])));
      await click("answer-submit");
      const shown = await textOf(await find("answer-summary"));
      assert.ok(shown.includes("stable") && shown.includes("3"), `the pane shows the values given: ${shown}`);

      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald ask (schema)");
      assert.equal(result.code, 0, `herald ask exits 0 when answered (stderr: ${result.stderr})`);
      const values = valuesOf(jsonOf(result, "herald ask (schema)"));
      assert.deepEqual(values, { channel: "stable", replicas: 3, notes: SCHEMA_NOTES }, `typed values: ${result.stdout}`);
      assert.equal(typeof values.replicas, "number", "the integer is a JSON number");
    });

    await step("the gallery shows every block, and its follow-up shows the conversation", async () => {
      const env = { HERALD_URL: relayUrl, HERALD_TOKEN: token };
      const galleryFile = join(scratch, "gallery.json");
      writeFileSync(galleryFile, JSON.stringify(GALLERY));
      // The gallery has a form, so it is a request: `ask` sends it and stops waiting after 1 s
      // (exit 3, the request stays open), printing its id.
      const sent = await withDeadline(
        runHerald(["ask", "--json", galleryFile, "--timeout", "1s"], env).done,
        ANSWER_TIMEOUT,
        "herald ask (gallery)",
      );
      assert.equal(sent.code, 3, `herald ask stops waiting with exit 3 (stderr: ${sent.stderr})`);
      const galleryId = jsonOf(sent, "herald ask (gallery)").id;
      assert.match(galleryId, /^msg_/, "ask prints the message id");
      const replied = await withDeadline(
        runHerald(["send", "--title", FOLLOW_UP_TITLE, "--body", "The diagram follows.", "--reply-to", galleryId], env).done,
        ANSWER_TIMEOUT,
        "herald send (follow-up)",
      );
      assert.equal(replied.code, 0, `the reply is sent (stderr: ${replied.stderr})`);
      const followUpId = jsonOf(replied, "herald send (follow-up)").id;

      // The reply is marked in the list; the first message is not.
      const followUp = await driver.wait(() => inboxItem(FOLLOW_UP_TITLE), DELIVERY_TIMEOUT, "the follow-up never arrived");
      assert.equal((await followUp.findElements(byTestId("inbox-item-reply"))).length, 1, "a reply has the ↳ reply marker");
      const gallery = await driver.wait(() => inboxItem(GALLERY_TITLE), DELIVERY_TIMEOUT, "the gallery never arrived");
      assert.equal((await gallery.findElements(byTestId("inbox-item-reply"))).length, 0, "a first message has none");

      // The follow-up shows its conversation above it; a click opens the earlier message.
      await followUp.click();
      await paneShows(FOLLOW_UP_TITLE);
      const thread = await find("thread");
      assert.equal(await thread.getAttribute("data-count"), "2", "the conversation holds both messages");
      const rows = await thread.findElements(By.css('[data-testid^="thread-item-"]'));
      const order = await Promise.all(rows.map((r) => r.getAttribute("data-testid")));
      assert.deepEqual(order, [`thread-item-${galleryId}`, `thread-item-${followUpId}`], "oldest first");
      assert.equal(await (await find(`thread-item-${followUpId}`)).getAttribute("data-current"), "true", "the open one is highlighted");
      await click(`thread-item-${galleryId}`);
      await paneShows(GALLERY_TITLE, "a click on a conversation row opens that message");
      assert.equal(
        await (await find(`thread-item-${galleryId}`)).getAttribute("data-current"),
        "true",
        "the gallery shows the same conversation, itself highlighted",
      );

      const kinds = [];
      for (let i = 0; i < GALLERY.blocks.length; i++) kinds.push(await (await find(`block-${i}`)).getAttribute("data-kind"));
      assert.deepEqual(kinds, ["code", "diff", "json", "table"], "every block renders, in order");
      assert.ok((await textOf(await find("block-0"))).includes("canary(percent"), "the code is shown");
      const diff = await find("block-1");
      assert.ok((await diff.findElements(By.css(".diff-added"))).length >= 1, "the diff has added rows");
      assert.ok((await diff.findElements(By.css(".diff-removed"))).length >= 1, "and removed rows");
      assert.ok((await textOf(diff)).includes("replicas = 3"), "with the new line's text");
      assert.ok((await textOf(await find("block-2"))).includes("latencyMs"), "the JSON is shown");
      const cells = await Promise.all(
        (await (await find("block-3")).findElements(By.css("table.data-table th, table.data-table td"))).map(textOf),
      );
      assert.deepEqual(
        cells,
        ["Service", "Version", "Status", "api", "1.2.0", "healthy", "worker", "1.1.9", "degraded"],
        "the table shows its header and cells",
      );
      await driver.executeScript("arguments[0].scrollIntoView({block: 'start'});", await find("thread"));
      await screenshot("desktop-e2e-gallery.png");
      await driver.executeScript("arguments[0].scrollIntoView({block: 'start'});", await find("block-2"));
      await screenshot("desktop-e2e-gallery-table.png");
    });

    await step("a hostile Markdown/HTML corpus renders inert", async () => {
      const env = { HERALD_URL: relayUrl, HERALD_TOKEN: token };
      // Every remote URL of the corpus points at this listener; it must see no connection.
      const listener = await startListener();
      try {
        const hostile = corpus(listener);
        secrets.add("plaintext", hostile.message.title);
        secrets.add("plaintext", hostile.request.title);
        const messageFile = join(scratch, "hostile-message.json");
        writeFileSync(messageFile, JSON.stringify(hostile.message));
        const requestFile = join(scratch, "hostile-request.json");
        writeFileSync(requestFile, JSON.stringify(hostile.request));
        await click("nav-inbox");
        assert.equal(await driver.executeScript(INSTALL_HOOK), true, "the hook is installed");
        const startUrl = await driver.getCurrentUrl();

        const sent = await withDeadline(runHerald(["send", "--json", messageFile], env).done, ANSWER_TIMEOUT, "herald send (hostile)");
        assert.equal(sent.code, 0, `the hostile message is sent (stderr: ${sent.stderr})`);
        const asked = await withDeadline(
          runHerald(["ask", "--json", requestFile, "--timeout", "1s"], env).done,
          ANSWER_TIMEOUT,
          "herald ask (hostile)",
        );
        assert.equal(asked.code, 3, `the hostile request is sent (stderr: ${asked.stderr})`);

        /** Inspects the page with the open pane; fails with every finding. */
        const assertInert = async (what) => {
          // A remote load or a script would start as the content is put in; give it a moment
          // to show on the listener before looking (a bounded wait for something that must not come).
          await new Promise((r) => setTimeout(r, 1500));
          const found = await driver.executeScript(INSPECT, await find("message-pane"), listener.host);
          const listed = problems(found);
          for (const hit of listener.hits) listed.push(`listener: ${hit.firstLine || "a connection"}`);
          assert.deepEqual(listed, [], `${what}: not inert`);
          assert.equal(await driver.getCurrentUrl(), startUrl, `${what}: the webview stayed on the app`);
        };

        // The message: every raw-HTML and Markdown trick in the body, and in its title.
        const item = await driver.wait(() => inboxItem(hostile.message.title), DELIVERY_TIMEOUT, "the hostile message never arrived");
        await item.click();
        await paneShows(hostile.message.title, "the title is shown as text, exactly as sent");
        const body = await textOf(await find("message-body"));
        for (const text of VISIBLE_IN_MESSAGE) assert.ok(body.includes(text), `the body still shows ${text}`);
        await assertInert("the hostile message");
        await screenshot("desktop-e2e-hostile.png");

        // Clicks on what were javascript:, vbscript: and data: links: nothing runs, nothing loads.
        for (const text of CLICK_CANDIDATES) {
          const targets = await (await find("message-body")).findElements(By.xpath(`.//*[text()[contains(., "${text}")]]`));
          assert.ok(targets.length > 0, `${text} is on screen to click`);
          await driver.executeScript("arguments[0].scrollIntoView({block: 'center'});", targets[0]);
          await targets[0].click();
        }
        await assertInert("after clicking the link candidates");
        assert.equal((await driver.findElements(byTestId("app-error"))).length, 0, "no error banner from the clicks");

        // The request: payloads in its title, blocks, labels, help, options and an option's preview.
        const request = await driver.wait(() => inboxItem(hostile.request.title), DELIVERY_TIMEOUT, "the hostile request never arrived");
        // The test notification server says it reads body markup (as GNOME's does): the
        // banner carries the title with its tags escaped, so none is fetched or linked.
        const escaped = hostile.request.title.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
        const banner = await notificationFor(escaped);
        assert.ok(!banner.body.includes("<"), `no raw markup reaches the notification server: ${banner.body}`);
        await request.click();
        await paneShows(hostile.request.title);
        // The long payloads widen the pane; each control is brought to the middle before a click.
        const clickCentered = async (id) => {
          await driver.executeScript("arguments[0].scrollIntoView({block: 'center'});", await find(id));
          await click(id);
        };
        await clickCentered("input-pick-evil");
        await find("preview-pick-evil");
        const pane = await textOf(await find("message-pane"));
        for (const text of [...VISIBLE_IN_REQUEST, "PREVIEW-TEXT"]) assert.ok(pane.includes(text), `the request still shows ${text}`);
        await assertInert("the hostile request with its preview open");
        await screenshot("desktop-e2e-hostile-request.png");

        // An answer carrying a payload is shown back as text.
        const answer = '<img src=x onerror="window.__pwned=1"> ANSWER-TEXT';
        secrets.add("plaintext", answer);
        const note = await find("input-note");
        await note.clear();
        await note.sendKeys(answer);
        await clickCentered("answer-submit");
        const summary = await textOf(await find("answer-summary"));
        assert.ok(summary.includes(answer), `the answer is shown as typed: ${summary}`);
        await assertInert("the answered hostile request");

        // The inspection sees a bypass: content put into the pane by hand, as if the sanitizer
        // had let it through, is reported, and the CSP (the last layer) blocks and reports it.
        await driver.executeScript(
          `const canary = document.createElement("div");
           canary.setAttribute("data-testid", "hostile-canary");
           canary.innerHTML = '<img src="' + arguments[1] + '/canary.png" onerror="window.__pwned=1">';
           const script = document.createElement("script");
           script.textContent = "window.__pwned = 1";
           canary.appendChild(script);
           arguments[0].appendChild(canary);`,
          await find("message-pane"),
          listener.origin,
        );
        await pollFor(
          () => driver.executeScript("return window.__heraldHook.csp.length >= 2;"),
          UI_TIMEOUT,
          "the CSP did not report the canary's image and script",
        );
        const caught = problems(await driver.executeScript(INSPECT, await find("message-pane"), listener.host)).join("\n");
        for (const expected of ["img in hostile-canary [onerror]", "elements: img in hostile-canary", "elements: script in hostile-canary", "urls: img in hostile-canary src=", "elements added: script", "CSP violations"]) {
          assert.ok(caught.includes(expected), `the inspection reports the canary (${expected}):\n${caught}`);
        }
        assert.equal(await driver.executeScript("return window.__pwned;"), null, "the CSP kept the canary's script from running");
        await driver.executeScript(
          `document.querySelector('[data-testid="hostile-canary"]').remove();
           window.__heraldHook.csp = []; window.__heraldHook.added = [];`,
        );
      } finally {
        await listener.close();
      }
    });

    await step("attached files are listed with name, type and size", async () => {
      const env = { HERALD_URL: relayUrl, HERALD_TOKEN: token };
      const report = join(scratch, "report.txt");
      writeFileSync(report, "All 481 checks passed.\n");
      const diagram = join(scratch, "diagram.png");
      writeFileSync(diagram, Buffer.from(PNG_1X1, "base64"));
      const sent = await withDeadline(
        runHerald(["send", "--title", FILES_TITLE, "--body", "Two files.", "--file", report, "--file", diagram], env).done,
        ANSWER_TIMEOUT,
        "herald send --file",
      );
      assert.equal(sent.code, 0, `the message with files is sent (stderr: ${sent.stderr})`);
      const item = await driver.wait(() => inboxItem(FILES_TITLE), DELIVERY_TIMEOUT, "the message with files never arrived");
      await item.click();
      await paneShows(FILES_TITLE);
      const rows = await (await find("attachments")).findElements(By.css('li[data-testid^="attachment-"]'));
      const shown = [];
      for (const row of rows) {
        shown.push([
          await textOf(await row.findElement(byTestId("attachment-name"))),
          await textOf(await row.findElement(byTestId("attachment-type"))),
          await textOf(await row.findElement(byTestId("attachment-size"))),
        ]);
      }
      assert.deepEqual(
        shown,
        [["report.txt", "Text", "23 B"], ["diagram.png", "PNG image", `${Buffer.from(PNG_1X1, "base64").length} B`]],
        "each file with its real name, type and size, in the sender's order",
      );
      await screenshot("desktop-e2e-attachments.png");
    });

    await step("an image block shows the uploaded image", async () => {
      const diagram = join(scratch, "diagram.png");
      writeFileSync(diagram, Buffer.from(PNG_1X1, "base64"));
      const sent = await withDeadline(
        runHerald(["send", "--title", IMAGE_TITLE, "--block", `image:${diagram}:${IMAGE_ALT}`], { HERALD_URL: relayUrl, HERALD_TOKEN: token }).done,
        ANSWER_TIMEOUT,
        "herald send --block image",
      );
      assert.equal(sent.code, 0, `the message with an image is sent (stderr: ${sent.stderr})`);
      const item = await driver.wait(() => inboxItem(IMAGE_TITLE), DELIVERY_TIMEOUT, "the image message never arrived");
      await item.click();
      await paneShows(IMAGE_TITLE);
      const img = await find("image-img");
      assert.equal(await img.getAttribute("alt"), IMAGE_ALT, "with the sender's alt text");
      assert.match(await img.getAttribute("src"), /^blob:/, "decrypted in the app, shown from a blob: URL");
      const width = await driver.wait(
        async () => Number(await driver.executeScript("return arguments[0].complete ? arguments[0].naturalWidth : 0;", img)),
        UI_TIMEOUT,
        "the image never decoded",
      );
      assert.ok(width > 0, "the browser decoded the image");
    });

    await step("a secret field is answered masked; only the asking agent gets the value", async () => {
      const out = join(scratch, "api-token");
      secrets.add("the secret field's value", SECRET_VALUE);
      asking = await askAndOpen(
        ["--field", "token!:secret:API token", "--out", out, "--deadline", "10m"],
        SECRET_ASK_TITLE,
        { HERALD_URL: relayUrl, HERALD_TOKEN: token },
      );
      const input = await find("input-token");
      assert.equal(await input.getAttribute("type"), "password", "the secret is typed into a masked field");
      assert.equal(await input.getAttribute("autocomplete"), "off", "without autocomplete");
      await input.sendKeys(SECRET_VALUE);
      await click("answer-submit");
      const shown = await textOf(await find("answer-summary"));
      assert.ok(!shown.includes(SECRET_VALUE), `the pane never shows the secret: ${shown}`);
      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald ask (secret)");
      assert.equal(result.code, 0, `herald ask exits 0 (stderr: ${result.stderr})`);
      assert.ok(!result.stdout.includes(SECRET_VALUE) && !result.stderr.includes(SECRET_VALUE), "the CLI prints no secret");
      assert.equal(readFileSync(out, "utf8"), SECRET_VALUE, "the value lands in the --out file");
      assert.equal(statSync(out).mode & 0o777, 0o600, "which only its owner can read");
    });

    await step("a secret offer is revealed once, masked until Show", async () => {
      const secretFile = join(scratch, "staging-password");
      writeFileSync(secretFile, OFFERED_SECRET);
      secrets.add("the offered secret file's content", OFFERED_SECRET);
      asking = runHerald(["send", "--secret-file", secretFile, "--title", OFFER_TITLE], { HERALD_URL: relayUrl, HERALD_TOKEN: token });
      const item = await driver.wait(() => inboxItem(OFFER_TITLE), DELIVERY_TIMEOUT, "the secret offer never arrived");
      await item.click();
      await paneShows(OFFER_TITLE);
      await click("secret-reveal");
      const value = await find("secret-value", DELIVERY_TIMEOUT);
      assert.equal(await value.getAttribute("data-masked"), "true", "masked at first");
      assert.ok(!(await textOf(value)).includes(OFFERED_SECRET), "the secret is not on screen yet");
      await click("secret-show");
      assert.equal(await textOf(await find("secret-value")), OFFERED_SECRET, "Show reveals the sender's secret");
      assert.match(await textOf(await find("secret-note")), /Shown once and not stored/, "with the once-only note");
      await screenshot("desktop-e2e-secret-offer.png");
      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald send --secret-file");
      assert.equal(result.code, 0, `the sender hands the secret over (stderr: ${result.stderr})`);
      for (const n of recordedNotifications()) {
        const text = `${n.summary}\n${n.body}`;
        assert.ok(!text.includes(SECRET_VALUE) && !text.includes(OFFERED_SECRET), `no secret in a notification: ${text}`);
      }
    });

    await step("the saved recovery key checks out in Settings", async () => {
      await click("nav-settings");
      const safety = await textOf(await find("settings-safety-code"));
      assert.match(safety, /^\d{5}( \d{5}){5}$/, "Settings shows the safety code");
      assert.equal(await textOf(await find("settings-relay-url")), relayUrl, "and the relay");
      await (await find("recovery-check-input")).sendKeys(recoveryKey);
      await click("recovery-check-submit");
      const result = await find("recovery-check-result");
      assert.equal(await result.getAttribute("data-result"), "ok", `the key opens the account: ${await textOf(result)}`);
      await click("nav-inbox");
    });

    // A headless `herald` device (its own HERALD_HOME) asks to join; the app approves it by the
    // code it printed, typed into "Approve a new device". A wrong code burns the request on
    // both sides; the right one unlocks it with the same safety code; revoking it rotates keys.
    const pairing = async (home) => {
      const proc = runHerald(["device", "pair", "--relay", relayUrl, "--name", NEW_DEVICE], { HERALD_HOME: home });
      let exited = null;
      proc.done.then((r) => (exited = r)).catch((e) => (exited = { error: e }));
      const code = await pollFor(
        () => {
          if (exited) throw new Error(`herald device pair exited early: ${JSON.stringify(exited)}`);
          return /Pairing code: (\d{4} \d{4})/.exec(proc.output().stdout)?.[1];
        },
        UI_TIMEOUT,
        "herald device pair printed no code",
      );
      secrets.addDigits("a pairing code", code);
      return { proc, code };
    };
    /** Picks the waiting request from NEW_DEVICE in Settings → Approve a new device and types `code`. */
    const approveWith = async (code) => {
      await click("nav-settings");
      await click("settings-tab-approve");
      const request = await driver.wait(
        async () => {
          for (const el of await driver.findElements(byTestId("pairing-request"))) {
            if ((await textOf(el)).includes(NEW_DEVICE)) return el;
          }
          return false;
        },
        UI_TIMEOUT,
        `the pairing request of ${NEW_DEVICE} is not listed`,
      );
      await click(`pairing-request-approve-${await request.getAttribute("data-request-id")}`);
      await (await find("approve-code-input")).sendKeys(code);
      await click("approve-submit");
      const result = await find("approve-result");
      return { kind: await result.getAttribute("data-result"), text: await textOf(result) };
    };
    let safetyCode;
    let pairedHome;

    await step("a wrong pairing code is refused on both screens", async () => {
      const home = join(scratch, "wrong-code-device");
      const { proc, code } = await pairing(home);
      const digits = code.replace(" ", "");
      const wrong = digits.slice(0, 7) + String((Number(digits[7]) + 1) % 10);
      secrets.addDigits("a mistyped pairing code", wrong);
      const result = await approveWith(wrong);
      assert.equal(result.kind, "wrongCode", `the app names the wrong code: ${result.text}`);
      await screenshot("desktop-e2e-pairing-wrong.png");
      const refused = await withDeadline(proc.done, ANSWER_TIMEOUT, "herald device pair (wrong code)");
      assert.notEqual(refused.code, 0, `the new device gives up (stdout: ${refused.stdout})`);
      assert.match(refused.stderr, /code/i, `and says the code was wrong: ${refused.stderr}`);
      assert.equal((await driver.findElements(byTestId("approve-form"))).length, 0, "the burnt request cannot be retried");
    });

    await step("a new device is approved by its typed code and shows the same safety code", async () => {
      pairedHome = join(scratch, "paired-device");
      const { proc, code } = await pairing(pairedHome);
      const result = await approveWith(code);
      assert.equal(result.kind, "ok", `the app approves it: ${result.text}`);
      assert.ok(result.text.includes(NEW_DEVICE), "naming the device");
      const paired = await withDeadline(proc.done, ANSWER_TIMEOUT, "herald device pair");
      assert.equal(paired.code, 0, `the new device is unlocked (stderr: ${paired.stderr})`);
      for (const key of localKeysUnder(pairedHome)) secrets.addKeyBytes("the paired device's local key", key.bytes);

      await click("settings-tab-safety");
      const groups = await Promise.all((await driver.findElements(byTestId("safety-group"))).map(textOf));
      assert.equal(groups.length, 6, "the safety code is shown in 6 groups");
      safetyCode = groups.join(" ");
      assert.ok(paired.stdout.includes(`Safety code:  ${safetyCode}`), `the new device shows the same code: ${paired.stdout}`);
      const whoami = await withDeadline(runHerald(["whoami"], { HERALD_HOME: pairedHome }).done, ANSWER_TIMEOUT, "herald whoami");
      assert.equal(whoami.code, 0, `whoami works on the new device (stderr: ${whoami.stderr})`);
      assert.ok(whoami.stdout.includes(`Safety code:  ${safetyCode}`), `and prints the same code: ${whoami.stdout}`);
      await screenshot("desktop-e2e-safety-code.png");
    });

    await step("the devices list shows the new device; revoking it locks it out", async () => {
      await click("settings-tab-devices");
      const item = await driver.wait(
        async () => {
          for (const el of await driver.findElements(byTestId("device-item"))) {
            if ((await textOf(el)).includes(NEW_DEVICE)) return el;
          }
          return false;
        },
        UI_TIMEOUT,
        `${NEW_DEVICE} is not in the devices list`,
      );
      const id = await item.getAttribute("data-device-id");
      const current = await driver.findElements(byTestId("device-current"));
      assert.equal(current.length, 1, "exactly one device is marked as this one");
      await click(`device-revoke-${id}`);
      const prompt = await textOf(await find("device-revoke-prompt"));
      assert.match(prompt, /rotated/, `the prompt says the keys rotate: ${prompt}`);
      await screenshot("desktop-e2e-device-revoke.png");
      await click("device-revoke-confirm");
      await driver.wait(
        async () => {
          await failOnErrorCard("device-error");
          const el = await driver.findElements(By.css(`[data-testid="device-item"][data-device-id="${id}"]`));
          return el.length === 1 && (await el[0].getAttribute("data-revoked")) === "true";
        },
        UI_TIMEOUT,
        "the device shows as revoked",
      );
      const locked = await withDeadline(
        runHerald(["inbox", "list"], { HERALD_HOME: pairedHome }).done,
        ANSWER_TIMEOUT,
        "herald inbox list (revoked device)",
      );
      assert.notEqual(locked.code, 0, `the revoked device cannot sync (stdout: ${locked.stdout})`);
      await click("nav-inbox");
    });

    await step("closing the window leaves Herald running: its relay answers, a banner approves, the tray and a second launch reopen it, Quit ends it", async (skip) => {
      if (!NOTIFICATIONS || !TRAY) return skip();
      const pids = appPids();
      assert.equal(pids.length, 1, `one Herald runs: ${pids}`);
      assert.equal(readlinkSync(`/proc/${pids[0]}/exe`), realpathSync(APP), "it is the app under test");
      // The window is a process of its own, the same binary; Herald never loads a webview.
      const firstWindow = await windowPid("the window runs as its own process");
      assert.equal(readlinkSync(`/proc/${firstWindow}/exe`), realpathSync(APP), "the window process is the app under test");
      const webkitOf = (pid) =>
        readdirSync("/proc").filter((p) => {
          try {
            return /^\d+$/.test(p) && readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ")[1] === pid
              && /^WebKit/.test(readFileSync(`/proc/${p}/comm`, "utf8"));
          } catch {
            return false;
          }
        });
      assert.equal(webkitOf(pids[0]).length, 0, "Herald itself has no WebKit processes");
      assert.ok(webkitOf(firstWindow).length > 0, "the window process has its WebKit processes");
      const service = await trayService();
      const menu = trayShows(service);
      for (const label of ["Open Herald", "Pause notifications", "For 1 hour", "Until tomorrow, 08:00", "Quit Herald"]) {
        assert.ok(menu.labels.includes(label), `the tray menu has "${label}": ${JSON.stringify(menu.labels)}`);
      }
      const waitingBefore = trayCount(menu.tooltip);

      // The window manager's close (WM_DELETE_WINDOW); the first time, the notice says what it does.
      closeWindow(firstWindow);
      const notice = await find("background-notice");
      assert.match(await textOf(notice), /keeps running in the background/, "the notice says Herald keeps running");
      await screenshot("desktop-e2e-background-notice.png");
      await clickClosingWindow("background-notice-close");
      await windowGone("the window was not closed");
      assert.deepEqual(appPids(), pids, "the same Herald process still runs with no window");
      assert.equal(webkitOf(firstWindow).length, 0, "the window's WebKit processes ended with it");
      const health = await fetch(`${relayUrl}/health`);
      assert.equal(health.status, 200, "the embedded relay still answers");

      // An agent asks while the window is closed: the tray counts it and lists it; Approve on
      // the banner answers it.
      const asking = runHerald(
        ["ask", "--title", CLOSED_TITLE, "--action", "approve:Approve", "--action", "reject:Reject"],
        { HERALD_URL: relayUrl, HERALD_TOKEN: token },
      );
      const shown = await notificationFor(CLOSED_TITLE);
      assert.deepEqual(buttonsOf(shown), { approve: "Approve", reject: "Reject" }, "the banner offers both");
      const waiting = await pollFor(
        () => {
          const now = trayShows(service);
          return trayCount(now.tooltip) === waitingBefore + 1 && now;
        },
        UI_TIMEOUT,
        "the tray never counted the new request",
      );
      assert.ok(
        waiting.labels.some((l) => l.startsWith(CLOSED_TITLE) || l.endsWith("Needs your reply")),
        `the tray lists the request: ${JSON.stringify(waiting.labels)}`,
      );
      press(shown.id, "approve");
      const result = await withDeadline(asking.done, ANSWER_TIMEOUT, "herald ask (approved from the banner, window closed)");
      assert.equal(result.code, 0, `herald ask exits 0 (stderr: ${result.stderr})`);
      assert.equal(actionIdOf(JSON.parse(result.stdout)), "approve", `the CLI got the approval: ${result.stdout}`);
      await pollFor(() => trayCount(trayShows(service).tooltip) === waitingBefore, UI_TIMEOUT, "the tray still counts the answered request");

      // A second launch becomes the window of the running Herald.
      await reopenedBy([], "the second launch did not reopen the window");
      assert.deepEqual(appPids(), pids, "no second Herald runs");
      const secondWindow = await windowPid("the second launch is the window");
      // A third launch while the window is open hands over to it and exits.
      const third = spawn(APP, [], { env: process.env, stdio: "ignore" });
      const code = await withDeadline(new Promise((r) => third.on("exit", r)), UI_TIMEOUT, "a launch while the window is open");
      assert.equal(code, 0, "a launch while the window is open hands over and exits 0");
      assert.deepEqual(windowPids(), [secondWindow], "still one window");
      const item = await driver.wait(() => inboxItem(CLOSED_TITLE), UI_TIMEOUT, "the reopened window paints from the cache");
      assert.equal(await item.getAttribute("data-status"), "answered", "showing the request approved from the banner");
      const id = await item.getAttribute("data-message-id");
      assert.match(id ?? "", /^msg_/, "the inbox row carries its message id");
      await screenshot("desktop-e2e-reopened.png");

      // Later closes need no notice; the tray's Open Herald starts a window process (not
      // driven: it inherits the first session's inspector address).
      closeWindow(secondWindow);
      await windowGone("the second close did not close the window at once");
      trayClick(service, "Open Herald");
      const trayWindow = await windowPid("Open Herald in the tray did not reopen the window");
      assert.equal(Number(readFileSync(`/proc/${trayWindow}/stat`, "utf8").split(") ")[1].split(" ")[1]), Number(pids[0]), "Herald started it");
      await pollFor(() => {
        try {
          closeWindow(trayWindow); // exits 1 until the window is mapped
          return true;
        } catch {
          return false;
        }
      }, UI_TIMEOUT, "the tray's window never showed");
      await windowGone("the third close did not close the window");

      // A herald:// link reopens the window on its message.
      await reopenedBy([`herald://message/${id}`], "the link did not reopen the window");
      await paneShows(CLOSED_TITLE, "the link opened its message");

      // Quit in the tray ends Herald: the process, and with it the embedded relay.
      trayClick(service, "Quit Herald");
      await pollFor(() => appPids().length + windowPids().length === 0, UI_TIMEOUT, "Quit in the tray did not end Herald and its window");
      await assert.rejects(fetch(`${relayUrl}/health`), "the embedded relay stopped with it");
    });

    await step("after a restart the account, relay and answer are still there", async () => {
      await quitApp();
      driver = await launchApp();
      await find("app-shell");
      assert.equal(
        readFileSync(join(DATA_DIR, "relay-url"), "utf8").trim(),
        relayUrl,
        "the embedded relay came back on the same port",
      );
      await driver.wait(
        async () => (await (await find("sync-state")).getAttribute("data-connected")) === "true",
        UI_TIMEOUT,
        "sync reconnected to the embedded relay",
      );
      const item = await driver.wait(() => inboxItem(TITLE), UI_TIMEOUT, "the request is cached");
      assert.equal(await item.getAttribute("data-status"), "answered", "and shows as answered");
    });

    await step("a revoked connection's token stops working at once", async () => {
      await click("nav-connections");
      const item = await driver.wait(
        async () => {
          for (const el of await driver.findElements(byTestId("connection-item"))) {
            if ((await textOf(el)).includes("ci-agent")) return el;
          }
          return false;
        },
        UI_TIMEOUT,
        "ci-agent is not listed",
      );
      const id = await item.getAttribute("data-connection-id");

      // Cancel leaves it alone.
      await click(`connection-revoke-${id}`);
      const prompt = await textOf(await (await find("connection-revoke-prompt")).findElement(By.css("p")));
      assert.equal(
        prompt,
        "Revoke ci-agent? Its token stops working at once; agents using it can no longer send or read answers.",
        "the confirmation names the connection and the consequence",
      );
      await click("connection-revoke-cancel");
      assert.equal((await driver.findElements(byTestId("connection-revoke-prompt"))).length, 0, "Cancel closes the prompt");

      await click(`connection-revoke-${id}`);
      await find("connection-revoke-prompt");
      await screenshot("desktop-e2e-revoke.png");
      await click("connection-revoke-confirm");
      await driver.wait(
        async () => {
          await failOnErrorCard("connection-error");
          return (await driver.findElements(By.css(`[data-testid="connection-item"][data-connection-id="${id}"]`))).length === 0;
        },
        UI_TIMEOUT,
        "the revoked connection left the list",
      );

      const refused = await withDeadline(
        runHerald(["send", "--title", "x"], { HERALD_URL: relayUrl, HERALD_TOKEN: token }).done,
        ANSWER_TIMEOUT,
        "herald send (revoked)",
      );
      assert.equal(refused.code, 1, `herald send with a revoked token exits 1 (stdout: ${refused.stdout})`);
      assert.match(refused.stderr, /revoked or is unknown \(401\)/, "and says the token was revoked");
    });

    // Last, because it replaces the app's account: a second account on its own relay, owned by
    // a headless device; the app (its data dir emptied) joins it as a new device, first with
    // the recovery key, then — emptied again — by a code the headless device types.
    await step("the app unlocks as a new device with the recovery key", async () => {
      assert.ok(existsSync(RELAY), `the relay is built at ${RELAY}`);
      relay = spawn(RELAY, ["--listen", "127.0.0.1:0", "--data-dir", join(scratch, "relay-2")], {
        env: { ...process.env, RUST_LOG: RELAY_LOG_LEVEL, NO_COLOR: "1" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let relayLog = "";
      relay.stderr.on("data", (d) => {
        relayLog += d;
        if (logs) appendFileSync(logs.path("relay-standalone.log"), d);
      });
      const url = await pollFor(() => /url=(http:\/\/127\.0\.0\.1:\d+)/.exec(relayLog)?.[1], UI_TIMEOUT, "the second relay did not start");
      secondRelayUrl = url;
      ownerHome = join(scratch, "owner-device");
      const init = await withDeadline(
        runHerald(["device", "init", "--relay", url, "--name", "owner-box"], { HERALD_HOME: ownerHome }).done,
        ANSWER_TIMEOUT,
        "herald device init",
      );
      assert.equal(init.code, 0, `the headless device creates the account (stderr: ${init.stderr})`);
      const key = /Recovery key: (\S+)/.exec(init.stdout)?.[1];
      ownerSafety = /Safety code: +([\d ]+\d)/.exec(init.stdout)?.[1];
      secrets.addRecoveryKey("the second account's recovery key", key);
      for (const k of localKeysUnder(ownerHome)) secrets.addKeyBytes("the owner device's local key", k.bytes);
      assert.ok(key && ownerSafety, `init prints the recovery key and safety code: ${init.stdout.replace(key ?? "-", "<key>")}`);

      await freshApp();
      await click("setup-new-device");
      await (await find("join-relay-url")).sendKeys(url);
      await click("join-method-recovery");
      // One symbol changed: the checksum catches it, and the key is not echoed.
      const symbols = key.replace(/-/g, "");
      const mistyped = (symbols[0] === "A" ? "B" : "A") + symbols.slice(1);
      const input = await find("join-recovery-input");
      await input.sendKeys(mistyped);
      await click("join-recovery-submit");
      const error = await textOf(await find("join-error"));
      assert.match(error, /typos/, `a mistyped key is named as such: ${error}`);
      assert.ok(!error.includes(symbols.slice(1, 8)), "the typed key is not echoed");
      // Lower case without dashes, as a person may type it.
      await input.clear();
      await input.sendKeys(symbols.toLowerCase());
      await click("join-recovery-submit");
      await find("unlocked");
      assert.equal(await textOf(await find("safety-code")), ownerSafety, "the same safety code as the owner device");
      for (const k of localKeysUnder(DATA_DIR)) secrets.addKeyBytes("the app's local key (new device)", k.bytes);
      await screenshot("desktop-e2e-unlocked.png");
      await click("setup-continue");
      await click("autostart-offer-skip");
      await find("app-shell");
      await driver.wait(
        async () => (await (await find("sync-state")).getAttribute("data-connected")) === "true",
        UI_TIMEOUT,
        "the unlocked app syncs with the second relay",
      );
    });

    await step("a backlog after time offline is one summary notification", async (skip) => {
      if (!NOTIFICATIONS) return skip();
      const created = await withDeadline(
        runHerald(["connection", "create", "--name", "backlog-bot"], { HERALD_HOME: ownerHome }).done,
        ANSWER_TIMEOUT,
        "herald connection create",
      );
      assert.equal(created.code, 0, `a connection for the second account (stderr: ${created.stderr})`);
      const env = { HERALD_URL: secondRelayUrl, HERALD_TOKEN: created.stdout.trim() };
      secrets.add("the backlog connection's token", env.HERALD_TOKEN);
      // The app is not running while the requests arrive.
      await quitApp();
      const before = recordedNotifications().length;
      const titles = [];
      for (let i = 1; i <= BACKLOG; i++) {
        titles.push(`Backlog request ${i}`);
        secrets.add("plaintext", titles.at(-1));
        const asked = await withDeadline(
          runHerald(["ask", "--title", titles.at(-1), "--action", "ok:OK", "--timeout", "1s"], env).done,
          ANSWER_TIMEOUT,
          "herald ask (backlog)",
        );
        assert.equal(asked.code, 3, `request ${i} is sent (stderr: ${asked.stderr})`);
      }
      driver = await launchApp();
      await find("app-shell");
      for (const title of titles) await driver.wait(() => inboxItem(title), DELIVERY_TIMEOUT, `${title} never arrived`);
      const summary = await pollFor(
        () => recordedNotifications().slice(before).find((n) => n.summary === `${BACKLOG} new requests`),
        UI_TIMEOUT,
        "no summary notification",
      );
      assert.ok(summary.body.includes("backlog-bot"), `the summary names the sender: ${summary.body}`);
      const since = recordedNotifications().slice(before);
      assert.deepEqual(since.map((n) => n.summary), [summary.summary], "one banner, not a flood");
      await click("nav-settings");
      press(summary.id, "default");
      await driver.wait(
        async () => (await (await find("nav-inbox")).getAttribute("aria-current")) === "page",
        UI_TIMEOUT,
        "a click on the summary shows the inbox",
      );
    });

    await step("the app as a new device shows a code; a wrong one is reported, the right one unlocks it", async () => {
      await freshApp();
      await click("setup-new-device");
      await (await find("join-relay-url")).sendKeys(secondRelayUrl);
      await click("join-method-pairing");
      await click("join-pairing-start");
      const approve = async (code) =>
        withDeadline(runHerald(["device", "approve"], { HERALD_HOME: ownerHome }, `${code}\n`).done, ANSWER_TIMEOUT, "herald device approve");

      const first = (await textOf(await find("pairing-code"))).replace(" ", "");
      assert.match(first, /^\d{8}$/, "an 8-digit code is shown");
      secrets.addDigits("the app's pairing code", first);
      assert.match(await textOf(await find("pairing-countdown")), /^(10:00|9:[0-5]\d)$/, "with a 10-minute countdown");
      await screenshot("desktop-e2e-pairing-code.png");
      const wrong = await approve(first.slice(0, 7) + String((Number(first[7]) + 1) % 10));
      assert.notEqual(wrong.code, 0, `the approving device refuses a wrong code (stdout: ${wrong.stdout})`);
      const failed = await find("pairing-failed");
      assert.equal(await failed.getAttribute("data-reason"), "wrongCode", `the new device says so: ${await textOf(failed)}`);
      await screenshot("desktop-e2e-pairing-failed.png");

      await click("pairing-retry");
      const second = await driver.wait(
        async () => {
          const el = await driver.findElements(byTestId("pairing-code"));
          return el.length === 1 && (await textOf(el[0])).replace(" ", "");
        },
        UI_TIMEOUT,
        "Try again shows a new code",
      );
      secrets.addDigits("the app's second pairing code", second);
      const approved = await approve(second);
      assert.equal(approved.code, 0, `the right code is approved (stderr: ${approved.stderr})`);
      await find("unlocked");
      assert.equal(await textOf(await find("safety-code")), ownerSafety, "the same safety code as the owner device");
      await click("setup-continue");
      await click("autostart-offer-skip");
      await find("app-shell");
    });

    await step("Reset asks for RESET, shows a new recovery key, and signs the other device out", async () => {
      await click("nav-settings");
      await click("settings-tab-reset");
      const explanation = await textOf(await find("reset-explanation"));
      for (const consequence of ["new keys", "All activity and files are deleted", "Every connection is revoked", "must unlock again"]) {
        assert.ok(explanation.includes(consequence), `the consequences are spelled out (${consequence}): ${explanation}`);
      }
      const input = await find("reset-confirm-input");
      await input.sendKeys("reset");
      assert.equal(await (await find("reset-submit")).isEnabled(), false, "lower case does not confirm");
      await input.clear();
      await input.sendKeys("RESET");
      await click("reset-submit");
      const newKey = await textOf(await find("recovery-key"));
      assert.match(newKey, /^[0-9A-Z]{4}(-[0-9A-Z]{4})+$/, "a new recovery key is shown");
      secrets.addRecoveryKey("the recovery key after reset", newKey);
      const newSafety = await textOf(await find("safety-code"));
      assert.notEqual(newSafety, ownerSafety, "new keys, new safety code");
      assert.equal(await (await find("nav-inbox")).isEnabled(), false, "the app stays on the key until it is saved");
      await screenshot("desktop-e2e-reset.png");
      await click("recovery-saved");
      await click("setup-continue");
      await click("settings-tab-safety");
      assert.equal((await Promise.all((await driver.findElements(byTestId("safety-group"))).map(textOf))).join(" "), newSafety);
      const owner = await withDeadline(runHerald(["inbox", "list"], { HERALD_HOME: ownerHome }).done, ANSWER_TIMEOUT, "herald inbox list (after reset)");
      assert.notEqual(owner.code, 0, `the other device must unlock again (stdout: ${owner.stdout})`);
    });
  } catch (err) {
    await screenshot("desktop-e2e-failure.png").catch(() => undefined);
    throw err;
  } finally {
    if (asking && asking.child.exitCode === null) asking.child.kill("SIGTERM");
    if (relay && relay.exitCode === null) relay.kill("SIGTERM");
    rmSync(scratch, { recursive: true, force: true });
  }
});

// Last: every process of the run logged at the most verbose level (run.sh: app-logged.sh for
// the app and its embedded relay, HERALD_LOG for the CLI, RUST_LOG for the standalone relay);
// none of those logs may hold a token, key, code, secret value or the plaintext sent.
test("no secret, token, key or plaintext reaches any log", { skip: !LOG_DIR && "HERALD_E2E_LOG_DIR is not set (run.sh sets it)" }, async () => {
  // The app's last lines are written as it exits.
  if (driver) {
    await driver.quit().catch(() => undefined);
    driver = undefined;
  }
  const { files, findings } = scanLogs(LOG_DIR, secrets);
  assert.ok(files.includes("app.log") && files.includes("herald-cli.log"), `the app and the CLI wrote logs (found ${files.join(", ")})`);
  for (const file of files) {
    // eslint-disable-next-line no-control-regex
    const text = readFileSync(join(LOG_DIR, file), "utf8").replace(/\x1b\[[0-9;]*m/g, "");
    assert.ok(/ TRACE /.test(text), `${file} was written at trace level`);
  }
  assert.ok(secrets.needles.length >= 20, `the stages registered what to look for (${secrets.needles.length} values)`);
  const report = findings.slice(0, 40).map((f) => `  ${f.file}:${f.line}: ${f.what}: ${f.context}`);
  assert.equal(
    findings.length,
    0,
    `${findings.length} secret(s) in the logs under ${LOG_DIR} (values redacted):\n${report.join("\n")}`,
  );
  console.log(`ok - ${secrets.needles.length} values and the credential shapes are in none of: ${files.join(", ")}`);
});
