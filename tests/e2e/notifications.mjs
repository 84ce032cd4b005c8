// The test notification server (notification-server.py) on the private session bus, and what
// it recorded: every Notify the app sent and every notification the app withdrew.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SERVER = join(dirname(fileURLToPath(import.meta.url)), "notification-server.py");
const NAME = "org.freedesktop.Notifications";

function nameHasOwner() {
  try {
    const out = execFileSync(
      "gdbus",
      ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
        "--method", "org.freedesktop.DBus.NameHasOwner", NAME],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    );
    return out.includes("true");
  } catch {
    return false;
  }
}

async function until(probe, ms, what) {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what} (waited ${ms} ms)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs notification-server.py, recording into `recordPath`; logs to `logPath`. */
export class NotificationServer {
  constructor(recordPath, logPath) {
    this.recordPath = recordPath;
    this.logPath = logPath;
    this.child = null;
  }

  /** Starts it (with or without the "actions" capability) and waits until it owns the name. */
  async start({ actions = true } = {}) {
    const log = openSync(this.logPath, "a");
    const args = [SERVER, this.recordPath, ...(actions ? [] : ["--no-actions"])];
    this.child = spawn("/usr/bin/python3", args, { stdio: ["ignore", log, log] });
    const child = this.child;
    await until(() => child.exitCode !== null || nameHasOwner(), 20_000, "the test notification server did not start");
    if (child.exitCode !== null) throw new Error(`the test notification server exited; see ${this.logPath}`);
  }

  /** Stops it and waits until the name is free again. */
  async stop() {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    await until(() => !nameHasOwner(), 20_000, "the notification name stayed owned");
  }
}

/** Every record, in order: Notify calls ({id, summary, body, actions, sound}) and withdrawals ({closed}). */
export function records(recordPath) {
  if (!recordPath || !existsSync(recordPath)) return [];
  return readFileSync(recordPath, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/** The Notify calls only. */
export function shown(recordPath) {
  return records(recordPath).filter((r) => typeof r.id === "number");
}

/** Whether the app withdrew (CloseNotification) the notification with server id `id`. */
export function wasClosed(recordPath, id) {
  return records(recordPath).some((r) => r.closed === id);
}

/**
 * What a notification server sends when the person presses `action` on notification `id`
 * ("default" is a click on the banner itself). The id must be typed uint32.
 */
export function press(id, action) {
  execFileSync("gdbus", [
    "emit", "--session", "--object-path", "/org/freedesktop/Notifications",
    "--signal", "org.freedesktop.Notifications.ActionInvoked", `uint32 ${id}`, `'${action}'`,
  ]);
}
