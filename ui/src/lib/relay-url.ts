// What a typed relay URL would mean for the connection. Message content is end-to-end encrypted
// whatever the scheme, but this device's session token, agents' tokens and notifications from
// agents without end-to-end keys travel as the connection carries them: over plain `http://` to
// another machine they cross the network readable. Loopback (127.0.0.0/8, ::1, localhost) never
// leaves this computer, so plain http there is fine. The URL is read with the WHATWG parser,
// the same rules as the shell's (Rust `url`): the scheme in any case, IPv4 in any of its
// spellings (`127.1`, `0x7f.0.0.1`) and IPv6 in brackets come out normalized.

export type RelayUrlCheck =
  /** Not an absolute http(s) URL with a host: nothing to connect to yet. */
  | { kind: "invalid" }
  /** https: encrypted in transit. */
  | { kind: "secure"; host: string }
  /** http to this computer: never on the network. */
  | { kind: "loopback"; host: string }
  /** http to another machine: tokens and notifications would travel in clear. */
  | { kind: "cleartext"; host: string };

/** Whether a URL's hostname (as `URL.hostname` gives it: IPv6 in brackets) is this computer. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost") return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) return Number(v4[1]) === 127;
  if (host.startsWith("[") && host.endsWith("]")) {
    const v6 = host.slice(1, -1);
    // ::1, and 127.0.0.0/8 written as an IPv4-mapped address (::ffff:7f00:1 once normalized).
    return v6 === "::1" || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(v6);
  }
  return false;
}

/** Classifies a typed relay URL (surrounding spaces ignored). */
export function checkRelayUrl(typed: string): RelayUrlCheck {
  let url: URL;
  try {
    url = new URL(typed.trim());
  } catch {
    return { kind: "invalid" };
  }
  const host = url.hostname;
  if (host === "") return { kind: "invalid" };
  if (url.protocol === "https:") return { kind: "secure", host };
  if (url.protocol !== "http:") return { kind: "invalid" };
  return isLoopbackHost(host) ? { kind: "loopback", host } : { kind: "cleartext", host };
}

/**
 * Whether the typed URL may be used: a valid one, and a cleartext one only when the person
 * accepted it as it is typed now (`accepted`: the trimmed URL they confirmed, or null).
 */
export function relayUrlUsable(typed: string, accepted: string | null): boolean {
  const check = checkRelayUrl(typed);
  if (check.kind === "invalid") return false;
  return check.kind !== "cleartext" || accepted === typed.trim();
}
