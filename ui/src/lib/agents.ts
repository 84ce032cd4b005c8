// Wording and shell lines of Settings → Agents and the quiet-hours form. Pure, so it is tested
// without a window.

/**
 * What an agent's shell runs to send a notification with a new agent key. The key is never
 * part of it (it would land in the shell history): it is read from the terminal.
 */
export function agentKeyShellLines(relayUrl: string): string {
  return [
    "read -rs HERALD_AGENT_KEY && export HERALD_AGENT_KEY   # paste the key, then Enter",
    `curl -sS ${relayUrl}/v1/notify \\`,
    '  -H "Authorization: Bearer $HERALD_AGENT_KEY" -H "Content-Type: application/json" \\',
    `  -d '{"title": "Build finished", "body": "All tests passed."}'`,
  ].join("\n");
}

/** The question asked before an agent key is revoked. */
export function revokeKeyPrompt(name: string): string {
  return `Revoke ${name}? The key stops working at once; agents using it can no longer notify you.`;
}

/** The question asked before a connector is revoked. */
export function revokeConnectorPrompt(name: string): string {
  return `Revoke ${name}? Its token stops working at once; it can no longer notify you.`;
}

/** The letters of a user code (herald_protocol::agents::USER_CODE_ALPHABET: no vowels). */
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/;

/**
 * A user code as typed (`bcdf ghjk`, `BCDF-GHJK`) in the form its OAuth device flow shows,
 * `BCDF-GHJK`; null when it is not 8 letters of the user-code alphabet.
 */
export function normalizeUserCode(typed: string): string | null {
  const letters = typed.replace(/[\s-]/g, "").toUpperCase();
  return USER_CODE.test(letters) ? `${letters.slice(0, 4)}-${letters.slice(4)}` : null;
}

/** `HH:MM`, 24-hour (what quiet hours take). */
export function isClockTime(value: string): boolean {
  return /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
}

/** This computer's IANA time zone, for quiet hours never set before ("UTC" if unknown). */
export function localTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}
