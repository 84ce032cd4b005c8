import { describe, expect, it } from "vitest";
import { agentShellLines, revokePrompt, type Scope, scopeSummary, scopesToCreate } from "./connections";

describe("agentShellLines", () => {
  it("sets the relay URL and reads the token without echoing it or putting it in history", () => {
    const lines = agentShellLines("http://127.0.0.1:8457").split("\n");
    expect(lines).toEqual([
      "export HERALD_URL=http://127.0.0.1:8457",
      "read -rs HERALD_TOKEN && export HERALD_TOKEN   # paste the token, then Enter",
    ]);
  });

  it("never contains an assignment of the token", () => {
    expect(agentShellLines("https://relay.example.com")).not.toMatch(/HERALD_TOKEN=/);
  });
});

describe("revokePrompt", () => {
  it("names the connection and says what stops working", () => {
    expect(revokePrompt("deploy-bot")).toBe(
      "Revoke deploy-bot? Its token stops working at once; agents using it can no longer send or read answers.",
    );
  });
});

describe("scopesToCreate", () => {
  it("asks for the default (null) when every scope is ticked", () => {
    expect(scopesToCreate(new Set<Scope>(["events:read", "messages:read", "messages:send"]))).toBeNull();
  });

  it("lists fewer in the published order, and none when nothing is ticked", () => {
    expect(scopesToCreate(new Set<Scope>(["events:read", "messages:send"]))).toEqual(["messages:send", "events:read"]);
    expect(scopesToCreate(new Set<Scope>())).toEqual([]);
  });
});

describe("scopeSummary", () => {
  it("says nothing for a connection that may do everything", () => {
    expect(scopeSummary(["messages:send", "messages:read", "events:read"])).toBe("");
  });

  it("names what a narrower one may do", () => {
    expect(scopeSummary(["messages:send"])).toBe("only send");
    expect(scopeSummary(["messages:read", "events:read"])).toBe("only read, live updates");
  });
});
