// The inbox as the UI holds it: loaded once from the local cache, then kept current by the
// core's events (no reload). Svelte 5 runes make it reactive wherever it is read.

import type { OpenNotice } from "./backend/tauri";
import type { CoreEvent } from "./bindings/CoreEvent";
import type { MessageSummary } from "./bindings/MessageSummary";
import type { NotificationView } from "./bindings/NotificationView";

function newestFirst(a: MessageSummary, b: MessageSummary): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : -1;
}

function newestNotificationFirst(a: NotificationView, b: NotificationView): number {
  const byTime = Date.parse(b.receivedAt) - Date.parse(a.receivedAt);
  return byTime !== 0 ? byTime : a.id < b.id ? 1 : -1;
}

/** One row of the inbox: a message, or a notification from an agent. */
export type InboxEntry =
  | { kind: "message"; id: string; at: string; message: MessageSummary }
  | { kind: "notification"; id: string; at: string; notification: NotificationView };

export class InboxState {
  messages = $state<MessageSummary[]>([]);
  /** Notifications from agents (not end-to-end encrypted), newest first. */
  notifications = $state<NotificationView[]>([]);
  connected = $state(false);
  syncError = $state<string | null>(null);
  /** A request to open a message (from an OS notification); seq makes repeats distinct. */
  openRequest = $state<{ id: string; seq: number; notice: OpenNotice | null } | null>(null);
  /** Bumped on every upsert so the open message can refresh itself. */
  lastUpserted = $state<{ id: string; seq: number } | null>(null);
  /** Bumped when the core has the fully highlighted body of a message (`messageRendered`). */
  lastRendered = $state<{ id: string; seq: number } | null>(null);
  /** A request to open a notification (from its banner). */
  openNotificationRequest = $state<{ id: string; seq: number } | null>(null);
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

  replaceNotifications(notifications: NotificationView[]): void {
    this.notifications = [...notifications].sort(newestNotificationFirst);
  }

  upsertNotification(notification: NotificationView): void {
    const rest = this.notifications.filter((n) => n.id !== notification.id);
    this.notifications = [...rest, notification].sort(newestNotificationFirst);
    this.#seq += 1;
    this.lastUpserted = { id: notification.id, seq: this.#seq };
  }

  requestOpenNotification(id: string): void {
    this.#seq += 1;
    this.openNotificationRequest = { id, seq: this.#seq };
  }

  /** Messages and notifications in one list, newest first. */
  get entries(): InboxEntry[] {
    const rows: InboxEntry[] = [
      ...this.messages.map((m) => ({ kind: "message" as const, id: m.id, at: m.createdAt, message: m })),
      ...this.notifications.map((n) => ({ kind: "notification" as const, id: n.id, at: n.receivedAt, notification: n })),
    ];
    return rows.sort((a, b) => {
      const byTime = Date.parse(b.at) - Date.parse(a.at);
      return byTime !== 0 ? byTime : a.id < b.id ? 1 : -1;
    });
  }

  requestOpen(id: string, notice: OpenNotice | null = null): void {
    this.#seq += 1;
    this.openRequest = { id, seq: this.#seq, notice };
  }

  markReadLocally(id: string): void {
    this.messages = this.messages.map((m) => (m.id === id ? { ...m, unread: false } : m));
    this.notifications = this.notifications.map((n) => (n.id === id ? { ...n, unread: false } : n));
  }

  apply(event: CoreEvent): void {
    switch (event.type) {
      case "messageUpserted":
        this.upsert(event.message);
        break;
      case "notificationUpserted":
        this.upsertNotification(event.notification);
        break;
      case "messageRendered":
        this.#seq += 1;
        this.lastRendered = { id: event.id, seq: this.#seq };
        break;
      case "syncState":
        this.connected = event.connected;
        this.syncError = event.error;
        break;
    }
  }

  get unreadCount(): number {
    return this.messages.filter((m) => m.unread).length + this.notifications.filter((n) => n.unread).length;
  }
}

export const inboxState = new InboxState();
