import { describe, expect, it } from "vitest";
import type { MessageSummary } from "./bindings/MessageSummary";
import { isReply, mayHaveConversation, showsConversation, threadKey, threadMembers } from "./thread";

function summary(id: string, patch: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id,
    revision: 1,
    title: `title ${id}`,
    senderName: "ci-agent",
    senderId: "con-ci",
    createdAt: "2026-01-01T10:00:00Z",
    expiresAt: null,
    status: "delivered",
    expectsAnswer: false,
    unread: true,
    error: null,
    threadId: id,
    threadSequence: 0,
    replyTo: null,
    kind: "message",
    ...patch,
  };
}

const first = summary("a", { createdAt: "2026-01-01T10:00:00Z" });
const reply = summary("b", { threadId: "a", threadSequence: 1, replyTo: "a", createdAt: "2026-01-01T11:00:00Z" });
const second = summary("c", { threadId: "a", threadSequence: 2, replyTo: "b", createdAt: "2026-01-01T12:00:00Z" });
const alone = summary("z", { createdAt: "2026-01-01T13:00:00Z" });

describe("threads", () => {
  it("marks replies only", () => {
    expect(isReply(first)).toBe(false);
    expect(isReply(reply)).toBe(true);
    expect(isReply(alone)).toBe(false);
  });

  it("collects a thread's messages oldest first from a newest-first inbox", () => {
    const inbox = [alone, second, reply, first];
    expect(threadMembers(inbox, "a").map((m) => m.id)).toEqual(["a", "b", "c"]);
    expect(threadMembers(inbox, "z").map((m) => m.id)).toEqual(["z"]);
  });

  it("asks for the conversation of a reply, or of a first message with replies", () => {
    expect(mayHaveConversation([alone, reply, first], first)).toBe(true);
    expect(mayHaveConversation([alone, reply, first], reply)).toBe(true);
    expect(mayHaveConversation([alone, first], first)).toBe(false);
    // The reply's first message may not be in this device's inbox; the backend decides.
    expect(mayHaveConversation([reply], reply)).toBe(true);
  });

  it("shows a conversation only when it holds more than the open message", () => {
    expect(showsConversation([first, reply], "b")).toBe(true);
    expect(showsConversation([first], "a")).toBe(false);
    expect(showsConversation([], "a")).toBe(false);
    expect(showsConversation([first, reply], "z")).toBe(false);
  });

  it("keys a thread by its members' state, so a new or changed reply reloads it", () => {
    const before = threadKey([first, alone], "a");
    expect(threadKey([alone, first], "a")).toBe(before);
    expect(threadKey([first, reply, alone], "a")).not.toBe(before);
    expect(threadKey([{ ...first, status: "answered", revision: 2 }, alone], "a")).not.toBe(before);
    expect(threadKey([first, { ...alone, revision: 5 }], "a")).toBe(before);
  });
});
