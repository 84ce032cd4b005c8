import { describe, expect, it } from "vitest";
import { agentKeyShellLines, isClockTime, normalizeUserCode, revokeConnectorPrompt, revokeKeyPrompt } from "./agents";

describe("agent key shell lines", () => {
  it("read the key from the terminal and never hold it", () => {
    const lines = agentKeyShellLines("http://127.0.0.1:8457");
    expect(lines).toContain("read -rs HERALD_AGENT_KEY");
    expect(lines).toContain("http://127.0.0.1:8457/v1/notify");
    expect(lines).toContain('"Authorization: Bearer $HERALD_AGENT_KEY"');
    expect(lines, "no key literal to land in shell history").not.toMatch(/hrk_/);
  });

  it("revoke prompts name what stops working", () => {
    expect(revokeKeyPrompt("build-bot")).toBe(
      "Revoke build-bot? The key stops working at once; agents using it can no longer notify you.",
    );
    expect(revokeConnectorPrompt("Claude")).toContain("Revoke Claude?");
  });
});

describe("user codes", () => {
  it.each([
    ["BCDF-GHJK", "BCDF-GHJK"],
    ["bcdfghjk", "BCDF-GHJK"],
    [" bcdf ghjk ", "BCDF-GHJK"],
    ["BCDF-GHJ", null],
    ["ABCD-EFGH", null],
    ["BCDF-GHJK1", null],
  ])("%j is %j", (typed, want) => {
    expect(normalizeUserCode(typed)).toBe(want);
  });
});

describe("clock times", () => {
  it.each([
    ["22:00", true],
    ["07:30", true],
    ["23:59", true],
    ["24:00", false],
    ["7:00", false],
    ["12:60", false],
  ])("%s → %s", (value, ok) => {
    expect(isClockTime(value)).toBe(ok);
  });
});
