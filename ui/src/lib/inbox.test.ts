import { describe, expect, it } from "vitest";
import type { MessageSummary } from "./bindings/MessageSummary";
import { InboxState } from "./inbox.svelte";

function summary(id: string, createdAt: string, patch: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id,
    revision: 1,
    title: `title ${id}`,
    senderName: "ci-agent",
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
      sourceKind: "agentKey", sourceName: "build-bot", receivedAt: "2026-01-01T11:00:00.000Z",
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

