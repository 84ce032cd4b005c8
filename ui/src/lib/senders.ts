// Who can be muted in Settings → Notifications: every connection (end-to-end encrypted
// messages and requests), agent key and connector (notifications from agents), by the id the
// shell matches against a message's `senderId` or a notification's `sourceId`.

import type { AgentKeyView } from "./bindings/AgentKeyView";
import type { ConnectionView } from "./bindings/ConnectionView";
import type { ConnectorView } from "./bindings/ConnectorView";

export type Sender = { id: string; name: string; kind: "connection" | "agent key" | "connector" };

/** One list, by name (then kind), of everything that sends. */
export function sendersToMute(connections: ConnectionView[], keys: AgentKeyView[], linked: ConnectorView[]): Sender[] {
  const all: Sender[] = [
    ...connections.map((c) => ({ id: c.id, name: c.name, kind: "connection" as const })),
    ...keys.map((k) => ({ id: k.id, name: k.name, kind: "agent key" as const })),
    ...linked.map((c) => ({ id: c.id, name: c.name, kind: "connector" as const })),
  ];
  return all.sort((a, b) => a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind));
}
