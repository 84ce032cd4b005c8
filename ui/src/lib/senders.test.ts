import { describe, expect, it } from "vitest";
import { sendersToMute } from "./senders";

describe("senders to mute", () => {
  it("lists connections, agent keys and connectors by name, each with its id", () => {
    const list = sendersToMute(
      [{ id: "con_b", name: "deploy-bot", scopes: ["messages:send"], createdAt: "2026-01-01T00:00:00Z" }],
      [{ id: "agk_a", name: "build-bot", createdAt: "2026-01-01T00:00:00Z" }],
      [{ id: "ctr_c", name: "Claude", clientId: "claude", tokenIssued: true, createdAt: "2026-01-01T00:00:00Z" }],
    );
    expect(list).toEqual([
      { id: "agk_a", name: "build-bot", kind: "agent key" },
      { id: "ctr_c", name: "Claude", kind: "connector" },
      { id: "con_b", name: "deploy-bot", kind: "connection" },
    ]);
  });
});
