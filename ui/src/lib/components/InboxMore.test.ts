// @vitest-environment jsdom
// A large inbox is read a page at a time: the first page paints, and when the list's sentinel
// row nears the viewport past the last loaded message, the next older page is read.
import { render, screen, waitFor } from "@testing-library/svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { MessageSummary } from "../bindings/MessageSummary";
import { inboxState } from "../inbox.svelte";
import Inbox from "./Inbox.svelte";
import { summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const inboxPage = vi.mocked(backend.inboxPage);

/** The IntersectionObservers the list made (jsdom has none); `seen` plays a scroll. */
const observers: { callback: IntersectionObserverCallback; targets: Element[] }[] = [];
class FakeObserver {
  readonly entry: { callback: IntersectionObserverCallback; targets: Element[] };
  constructor(callback: IntersectionObserverCallback) {
    this.entry = { callback, targets: [] };
    observers.push(this.entry);
  }
  observe(target: Element) {
    this.entry.targets.push(target);
  }
  disconnect() {
    this.entry.targets = [];
  }
}
function seen() {
  for (const o of observers) {
    for (const target of o.targets) {
      o.callback([{ isIntersecting: true, target } as unknown as IntersectionObserverEntry], {} as IntersectionObserver);
    }
  }
}

// 700 messages a minute apart, newest first; m0699 is the newest.
const all: MessageSummary[] = Array.from({ length: 700 }, (_, i) => {
  const n = 699 - i;
  return summary({ id: `m${String(n).padStart(4, "0")}`, createdAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(), unread: true });
});

beforeEach(() => {
  vi.clearAllMocks();
  observers.length = 0;
  vi.stubGlobal("IntersectionObserver", FakeObserver);
  inboxState.replaceAll([]);
  inboxPage.mockImplementation(async (before, limit) => {
    const start = before === null ? 0 : all.findIndex((m) => m.id === before) + 1;
    const rest = all.slice(start + limit);
    return { messages: all.slice(start, start + limit), more: rest.length > 0, unreadOlder: rest.length };
  });
});

afterEach(() => vi.unstubAllGlobals());

// Generous: the rows render in jsdom, on a machine that may be busy.
const WAIT = { timeout: 20_000 };

describe("Inbox paging", () => {
  it("reads the next older page when the list nears the end of what is loaded", { timeout: 60_000 }, async () => {
    await inboxState.loadFirst(backend.inboxPage);
    render(Inbox);
    expect(screen.getAllByTestId("inbox-item")).toHaveLength(100);
    expect(screen.getByTestId("unread-count").textContent).toBe("700 unread");
    expect(inboxPage).toHaveBeenCalledTimes(1);

    seen(); // 150 loaded, 200 wanted: the next page is read
    await waitFor(() => expect(inboxState.messages).toHaveLength(650), WAIT);
    expect(inboxPage).toHaveBeenLastCalledWith("m0550", 500);
    await waitFor(() => expect(screen.getAllByTestId("inbox-item")).toHaveLength(200), WAIT);
    expect(screen.getByTestId("unread-count").textContent, "the count does not move").toBe("700 unread");

    seen();
    seen();
    seen(); // rows 300, 400, 500: all loaded already
    expect(inboxPage).toHaveBeenCalledTimes(2);
    seen(); // 600 wanted of 650: still loaded
    seen(); // 700 wanted: the last page
    await waitFor(() => expect(inboxState.complete).toBe(true), WAIT);
    expect(inboxPage).toHaveBeenCalledTimes(3);
    expect(inboxState.messages.map((m) => m.id)).toEqual(all.map((m) => m.id));
    await waitFor(() => expect(screen.queryByTestId("inbox-more")).toBeNull(), WAIT);
  });
});
