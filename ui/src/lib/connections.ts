// Wording and shell lines of the Connections screen. Pure, so it is tested without a window.

/**
 * What the agent's shell runs to pick up a new connection. The token is never part of it:
 * `export HERALD_TOKEN='…'` would land in the shell history, so the token is read from the
 * terminal (`read -rs` echoes nothing) after being copied from the app.
 */
export function agentShellLines(relayUrl: string): string {
  return [
    `export HERALD_URL=${relayUrl}`,
    "read -rs HERALD_TOKEN && export HERALD_TOKEN   # paste the token, then Enter",
  ].join("\n");
}

/** Where the token may live instead of the environment. */
export const TOKEN_FILE = "~/.config/herald/token";

/** The question asked before a connection is revoked. */
export function revokePrompt(name: string): string {
  return `Revoke ${name}? Its token stops working at once; agents using it can no longer send or read answers.`;
}

/** A connection's scope, as the shell names it (docs/authorization.md, "Scopes"). */
export type Scope = "messages:send" | "messages:read" | "events:read";

/** Every scope with what it lets the agent do (and a word for the list), in the published order. */
export const SCOPES: readonly { scope: Scope; label: string; hint: string; short: string }[] = [
  { scope: "messages:send", label: "Send you messages and requests", hint: "and cancel its own requests", short: "send" },
  { scope: "messages:read", label: "Read its messages and your answers", hint: "needed to wait for an answer", short: "read" },
  { scope: "events:read", label: "Get live updates", hint: "a socket that says when something changed", short: "live updates" },
];

/**
 * The `scopes` argument of `createConnection` for the boxes ticked: null (all three, the
 * relay's default) when every box is ticked, else the ticked ones in the published order.
 */
export function scopesToCreate(ticked: ReadonlySet<Scope>): Scope[] | null {
  const chosen = SCOPES.map((s) => s.scope).filter((s) => ticked.has(s));
  return chosen.length === SCOPES.length ? null : chosen;
}

/** A short line of what a listed connection may do ("" when it may do everything). */
export function scopeSummary(scopes: readonly string[]): string {
  if (SCOPES.every((s) => scopes.includes(s.scope))) return "";
  return `only ${scopes.map((name) => SCOPES.find((s) => s.scope === name)?.short ?? name).join(", ")}`;
}
