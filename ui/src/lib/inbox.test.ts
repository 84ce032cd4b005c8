import { describe, expect, it } from "vitest";
import type { MessageSummary } from "./bindings/MessageSummary";
import { InboxState } from "./inbox.svelte";

function summary(id: string, createdAt: string, patch: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id,
    revision: 1,
    title: `title ${id}`,
    senderName: "ci-agent",
    senderId: "con-ci",
    createdAt,
    expiresAt: null,
    status: "pending",
    expectsAnswer: true,
    unread: true,
    error: null,
    threadId: id,
    threadSequence: 0,
    replyTo: null,
    kind: "message",
    ...patch,
  };
}

describe("InboxState", () => {
  it("keeps messages newest first as events arrive", () => {
    const inbox = new InboxState();
    inbox.replaceAll([summary("a", "2026-01-01T10:00:00Z")]);
    inbox.apply({ type: "messageUpserted", message: summary("b", "2026-01-01T11:00:00Z"), isNew: true });
    inbox.apply({ type: "messageUpserted", message: summary("c", "2026-01-01T09:00:00Z"), isNew: true });
    expect(inbox.messages.map((m) => m.id)).toEqual(["b", "a", "c"]);
    expect(inbox.unreadCount).toBe(3);
  });

  it("replaces a message in place when it changes", () => {
    const inbox = new InboxState();
    inbox.replaceAll([summary("a", "2026-01-01T10:00:00Z")]);
    inbox.apply({
      type: "messageUpserted",
      message: summary("a", "2026-01-01T10:00:00Z", { status: "answered" }),
      isNew: false,
    });
    expect(inbox.messages).toHaveLength(1);
    expect(inbox.messages[0].status).toBe("answered");
    expect(inbox.lastUpserted?.id).toBe("a");
  });

  it("tracks the sync state and local reads", () => {
    const inbox = new InboxState();
    inbox.apply({ type: "syncState", connected: false, error: "relay unreachable" });
    expect(inbox.connected).toBe(false);
    expect(inbox.syncError).toBe("relay unreachable");
    inbox.apply({ type: "syncState", connected: true, error: null });
    expect(inbox.connected).toBe(true);
    inbox.replaceAll([summary("a", "2026-01-01T10:00:00Z")]);
    inbox.markReadLocally("a");
    expect(inbox.unreadCount).toBe(0);
  });

  it("merges notifications from agents into the list, newest first, and counts them unread", () => {
    const inbox = new InboxState();
    inbox.replaceAll([summary("a", "2026-01-01T10:00:00Z", { unread: false })]);
    const note = {
      id: "ntf_1", notificationId: "n1", endToEnd: false, title: "Build finished", subtitle: null, body: null,
      speak: false, expectReply: false, priority: "normal" as const, sound: true, group: null, threadId: null,
      sourceKind: "agentKey", sourceName: "build-bot", sourceId: "agk-1", receivedAt: "2026-01-01T11:00:00.000Z",
      displayedAt: null, spokenAt: null, repliedAt: null, reply: null, suppressed: false, unread: true,
      error: null, revision: 3,
    };
    inbox.apply({ type: "notificationUpserted", notification: note, isNew: true });
    expect(inbox.entries.map((e) => e.id)).toEqual(["ntf_1", "a"]);
    expect(inbox.unreadCount).toBe(1);
    inbox.apply({ type: "notificationUpserted", notification: { ...note, displayedAt: "2026-01-01T11:00:01Z" }, isNew: false });
    expect(inbox.notifications).toHaveLength(1);
    expect(inbox.notifications[0].displayedAt, "an update replaces it").toBe("2026-01-01T11:00:01Z");
    inbox.markReadLocally("ntf_1");
    expect(inbox.unreadCount).toBe(0);
  });
});


/** A stand-in for the core's `inbox_page` over `all` (any order): the same keyset paging. */
function pager(all: MessageSummary[]) {
  const sorted = [...all].sort((a, b) =>
    a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1,
  );
  const calls: (string | null)[] = [];
  const load = async (before: string | null, limit: number) => {
    calls.push(before);
    let start = 0;
    if (before !== null) {
      start = sorted.findIndex((m) => m.id === before) + 1;
      if (start === 0) throw Object.assign(new Error("not cached"), { code: "not_found" });
    }
    const messages = sorted.slice(start, start + limit);
    const more = start + limit < sorted.length;
    const unreadOlder = more ? sorted.slice(start + limit).filter((m) => m.unread).length : 0;
    return { messages, more, unreadOlder };
  };
  return { load, calls };
}

/** `n` messages a minute apart, `m0000` the oldest; every third one read. */
function many(n: number): MessageSummary[] {
  return Array.from({ length: n }, (_, i) =>
    summary(`m${String(i).padStart(4, "0")}`, new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), { unread: i % 3 !== 0 }),
  );
}

describe("InboxState paging", () => {
  it("shows the newest page first, counts the unread older ones, then reads older pages in order", async () => {
    const all = many(25);
    const { load, calls } = pager(all);
    const inbox = new InboxState();
    await inbox.loadFirst(load, 10);
    expect(inbox.messages.map((m) => m.id)).toEqual(all.slice(15).reverse().map((m) => m.id));
    expect(inbox.complete).toBe(false);
    const unread = all.filter((m) => m.unread).length;
    expect(inbox.unreadCount, "the page's unread plus the core's count of older ones").toBe(unread);

    const twice = [inbox.loadMore(load, 7), inbox.loadMore(load, 7)];
    await Promise.all(twice);
    expect(calls, "one page read at a time").toEqual([null, "m0015"]);
    expect(inbox.messages).toHaveLength(17);
    expect(inbox.unreadCount).toBe(unread);
    while (!inbox.complete) await inbox.loadMore(load, 7);
    expect(calls).toEqual([null, "m0015", "m0008", "m0001"]);
    expect(inbox.complete).toBe(true);
    expect(inbox.unreadOlder).toBe(0);
    expect(inbox.messages.map((m) => m.id)).toEqual([...all].reverse().map((m) => m.id));
    expect(inbox.entries.map((e) => e.id)).toEqual([...all].reverse().map((m) => m.id));
    expect(inbox.unreadCount).toBe(unread);
  });

  it("keeps events that arrive while pages load, once each, without counting an unread one twice", async () => {
    const all = many(20);
    const { load } = pager(all);
    const inbox = new InboxState();
    const live = summary("live", "2026-02-01T00:00:00Z");
    inbox.apply({ type: "messageUpserted", message: live, isNew: true });
    await inbox.loadFirst(load, 5);
    expect(inbox.messages[0].id, "a message delivered during the first read stays").toBe("live");
    const unread = all.filter((m) => m.unread).length + 1;
    expect(inbox.unreadCount).toBe(unread);

    // An older message not loaded yet changes (answered elsewhere): shown in place, counted once.
    const older = all[4];
    expect(older.unread).toBe(true);
    inbox.apply({ type: "messageUpserted", message: { ...older, revision: 2, status: "answered" }, isNew: false });
    expect(inbox.unreadCount, "the core already counts it among the older unread").toBe(unread);
    expect(inbox.lastUpserted?.id).toBe(older.id);

    // And one not loaded yet is read on this device (opened from its OS notification).
    const read = all[7];
    inbox.apply({ type: "messageUpserted", message: { ...read, unread: false }, isNew: false });

    while (!inbox.complete) await inbox.loadMore(load, 6);
    const ids = inbox.messages.map((m) => m.id);
    expect(new Set(ids).size, "no message twice").toBe(ids.length);
    expect(ids).toEqual(["live", ...[...all].reverse().map((m) => m.id)]);
    expect(inbox.messages.find((m) => m.id === older.id)?.status, "the newer revision wins over the page").toBe("answered");
    expect(inbox.messages.find((m) => m.id === read.id)?.unread, "a read stays read").toBe(false);
    expect(inbox.unreadCount).toBe(unread - 1);
  });

  it("stops loading older pages when the inbox is replaced, or its cursor is no longer cached", async () => {
    const all = many(30);
    const { load } = pager(all);
    const inbox = new InboxState();
    await inbox.loadFirst(load, 10);
    const rest = inbox.loadMore(load, 5);
    inbox.replaceAll([summary("other", "2026-03-01T00:00:00Z")]);
    await rest;
    expect(inbox.messages.map((m) => m.id), "an old load does not touch the new inbox").toEqual(["other"]);
    expect(inbox.complete).toBe(true);

    const gone = pager(all.slice(25));
    inbox.replaceAll([]);
    await inbox.loadFirst(load, 10);
    await inbox.loadMore(gone.load, 5);
    expect(gone.calls).toEqual(["m0020"]);
    expect(inbox.complete, "a reload follows a reset; nothing is thrown").toBe(false);

    const failing = async () => Promise.reject(Object.assign(new Error("disk"), { code: "storage" }));
    await expect(inbox.loadMore(failing, 5)).rejects.toThrow("disk");
    await inbox.loadMore(load, 100);
    expect(inbox.complete, "and the next try reads the page").toBe(true);
    expect(inbox.messages).toHaveLength(30);
  });

  it("orders messages and notifications by time whatever the timestamps' precision", () => {
    const inbox = new InboxState();
    inbox.replaceAll([
      summary("a", "2026-01-01T10:00:00Z"),
      summary("b", "2026-01-01T10:00:00.500Z"),
      summary("c", "2026-01-01T09:59:59.999Z"),
    ]);
    expect(inbox.messages.map((m) => m.id)).toEqual(["b", "a", "c"]);
    inbox.upsert(summary("d", "2026-01-01T10:00:00.250Z"));
    expect(inbox.messages.map((m) => m.id), "an upsert goes to its place").toEqual(["b", "d", "a", "c"]);
    const note = {
      id: "ntf_1", notificationId: "n1", endToEnd: false, title: "t", subtitle: null, body: null,
      speak: false, expectReply: false, priority: "normal" as const, sound: true, group: null, threadId: null,
      sourceKind: "agentKey", sourceName: "bot", sourceId: "agk-1", receivedAt: "2026-01-01T10:00:00.100+00:00",
      displayedAt: null, spokenAt: null, repliedAt: null, reply: null, suppressed: false, unread: false,
      error: null, revision: 1,
    };
    inbox.replaceNotifications([note]);
    expect(inbox.entries.map((e) => e.id)).toEqual(["b", "d", "ntf_1", "a", "c"]);
    const before = inbox.entries;
    inbox.markReadLocally("a");
    expect(inbox.entries[0], "unchanged rows keep their entry objects").toBe(before[0]);
    expect(inbox.entries[3]).not.toBe(before[3]);
  });
});
