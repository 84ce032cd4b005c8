// The inbox as the UI holds it: loaded once from the local cache, then kept current by the
// core's events (no reload). Svelte 5 runes make it reactive wherever it is read.

import type { OpenNotice } from "./backend/tauri";
import type { CoreEvent } from "./bindings/CoreEvent";
import type { MessageSummary } from "./bindings/MessageSummary";

function newestFirst(a: MessageSummary, b: MessageSummary): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : -1;
}

export class InboxState {
  messages = $state<MessageSummary[]>([]);
  connected = $state(false);
  syncError = $state<string | null>(null);
  /** A request to open a message (from an OS notification); seq makes repeats distinct. */
  openRequest = $state<{ id: string; seq: number; notice: OpenNotice | null } | null>(null);
  /** Bumped on every upsert so the open message can refresh itself. */
  lastUpserted = $state<{ id: string; seq: number } | null>(null);
  #seq = 0;

  replaceAll(messages: MessageSummary[]): void {
    this.messages = [...messages].sort(newestFirst);
  }

  upsert(message: MessageSummary): void {
    const rest = this.messages.filter((m) => m.id !== message.id);
    this.messages = [...rest, message].sort(newestFirst);
    this.#seq += 1;
    this.lastUpserted = { id: message.id, seq: this.#seq };
  }

  requestOpen(id: string, notice: OpenNotice | null = null): void {
    this.#seq += 1;
    this.openRequest = { id, seq: this.#seq, notice };
  }

  markReadLocally(id: string): void {
    this.messages = this.messages.map((m) => (m.id === id ? { ...m, unread: false } : m));
  }

  apply(event: CoreEvent): void {
    switch (event.type) {
      case "messageUpserted":
        this.upsert(event.message);
        break;
      case "syncState":
        this.connected = event.connected;
        this.syncError = event.error;
        break;
    }
  }

  get unreadCount(): number {
    return this.messages.filter((m) => m.unread).length;
  }
}

export const inboxState = new InboxState();
