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
