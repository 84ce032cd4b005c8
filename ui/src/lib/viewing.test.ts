import { describe, expect, it, vi } from "vitest";
import { ViewingReporter, type Page } from "./viewing";

vi.mock("./backend/tauri", () => ({ uiViewing: vi.fn() }));

/** A document or window whose focus and visibility the test sets. */
class FakePage implements Page {
  focus = true;
  visibilityState: DocumentVisibilityState = "visible";
  listeners = new Map<string, Set<() => void>>();
  hasFocus() {
    return this.focus;
  }
  addEventListener(type: string, listener: () => void) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }
  removeEventListener(type: string, listener: () => void) {
    this.listeners.get(type)?.delete(listener);
  }
  fire(type: string) {
    for (const listener of this.listeners.get(type) ?? []) listener();
  }
}

function setup() {
  const doc = new FakePage();
  const win = new FakePage();
  const send = vi.fn((_id: string | null, _focused: boolean) => Promise.resolve());
  return { doc, win, send, reporter: new ViewingReporter(send, doc, win) };
}

describe("what the window shows", () => {
  it("reports the open message and the focus, each change once", () => {
    const { doc, win, send, reporter } = setup();
    const stop = reporter.watch();
    expect(send).toHaveBeenLastCalledWith(null, true);
    reporter.open("msg_1");
    expect(send).toHaveBeenLastCalledWith("msg_1", true);
    reporter.open("msg_1");
    expect(send, "the same state is not sent again").toHaveBeenCalledTimes(2);

    doc.focus = false;
    win.fire("blur");
    expect(send).toHaveBeenLastCalledWith("msg_1", false);
    doc.focus = true;
    win.fire("focus");
    expect(send).toHaveBeenLastCalledWith("msg_1", true);

    doc.visibilityState = "hidden";
    doc.fire("visibilitychange");
    expect(send, "a hidden page is not looked at").toHaveBeenLastCalledWith("msg_1", false);
    doc.visibilityState = "visible";
    doc.fire("visibilitychange");
    reporter.open(null);
    expect(send).toHaveBeenLastCalledWith(null, true);

    stop();
    const calls = send.mock.calls.length;
    doc.focus = false;
    win.fire("blur");
    expect(send, "stopped watching").toHaveBeenCalledTimes(calls);
  });

  it("sends again after a report that failed", async () => {
    const { send, reporter } = setup();
    send.mockRejectedValueOnce(new Error("not ready"));
    reporter.open("msg_1");
    await Promise.resolve();
    await Promise.resolve();
    reporter.open("msg_1");
    expect(send).toHaveBeenCalledTimes(2);
  });
});
