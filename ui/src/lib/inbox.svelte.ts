// The inbox as the UI holds it: read from the local cache a page at a time (the newest page
// first, so the first paint does not wait for the whole cache), then kept current by the
// core's events (no reload). Svelte 5 runes make it reactive wherever it is read.

import type { UiErrorCode } from "./bindings/UiErrorCode";
import type { OpenNotice } from "./open-target";
import type { CoreEvent } from "./bindings/CoreEvent";
import type { InboxPage } from "./bindings/InboxPage";
import type { MessageSummary } from "./bindings/MessageSummary";
import type { NotificationView } from "./bindings/NotificationView";

/** Messages in the first page (what the first inbox paint waits for). */
export const FIRST_PAGE = 150;
/**
 * Messages per older page, read when the list scrolls (or the keyboard cursor moves) near the
 * end of what is loaded: an inbox of 10,000 keeps only what was looked at in the webview.
 */
export const OLDER_PAGE = 500;

/** Reads one page of the inbox (`inboxPage` in backend/tauri.ts). */
export type PageLoader = (before: string | null, limit: number) => Promise<InboxPage>;

// Milliseconds since the epoch of each summary or notification object, parsed once: the views
// are immutable (a change arrives as a new object), so a parsed time stays right for its object.
const parsedTimes = new WeakMap<object, number>();

function timeOf(item: MessageSummary | NotificationView): number {
  let time = parsedTimes.get(item);
  if (time === undefined) {
    time = Date.parse("createdAt" in item ? item.createdAt : item.receivedAt);
    parsedTimes.set(item, time);
  }
  return time;
}

/** Inbox order: newest first, then by id, descending (the core's order for equal times). */
function newer(aTime: number, aId: string, bTime: number, bId: string): number {
  if (aTime !== bTime) return bTime - aTime;
  return aId === bId ? 0 : aId < bId ? 1 : -1;
}

function newestFirst(a: MessageSummary | NotificationView, b: MessageSummary | NotificationView): number {
  return newer(timeOf(a), a.id, timeOf(b), b.id);
}

/** Where `item` goes in `sorted` (newest first) to keep it sorted. */
function insertionIndex<T extends MessageSummary | NotificationView>(sorted: readonly T[], item: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (newestFirst(sorted[mid], item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `list` without the item of `item.id`, and with `item` in its place in the order. */
function withItem<T extends MessageSummary | NotificationView>(list: readonly T[], item: T): T[] {
  const rest = list.filter((x) => x.id !== item.id);
  rest.splice(insertionIndex(rest, item), 0, item);
  return rest;
}

/**
 * The fresher of two copies of one message: the higher revision; at equal revisions the read
 * state wins (a message only goes from unread to read on this device).
 */
function fresher(a: MessageSummary, b: MessageSummary): MessageSummary {
  if (a.revision !== b.revision) return a.revision > b.revision ? a : b;
  return b.unread && !a.unread ? { ...b, unread: false } : b;
}

/** One row of the inbox: a message, or a notification from an agent. */
export type InboxEntry =
  | { kind: "message"; id: string; at: string; message: MessageSummary }
  | { kind: "notification"; id: string; at: string; notification: NotificationView };

// One entry object per summary object, so a change to one message builds one new entry.
const entryCache = new WeakMap<object, InboxEntry>();

function entryOf(item: MessageSummary | NotificationView): InboxEntry {
  let entry = entryCache.get(item);
  if (entry === undefined) {
    entry =
      "createdAt" in item
        ? { kind: "message", id: item.id, at: item.createdAt, message: item }
        : { kind: "notification", id: item.id, at: item.receivedAt, notification: item };
    entryCache.set(item, entry);
  }
  return entry;
}

/** Merges two lists that are each newest first into one. */
function mergeEntries(messages: readonly MessageSummary[], notifications: readonly NotificationView[]): InboxEntry[] {
  const out: InboxEntry[] = new Array(messages.length + notifications.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < messages.length && j < notifications.length) {
    out[k++] = newestFirst(messages[i], notifications[j]) <= 0 ? entryOf(messages[i++]) : entryOf(notifications[j++]);
  }
  while (i < messages.length) out[k++] = entryOf(messages[i++]);
  while (j < notifications.length) out[k++] = entryOf(notifications[j++]);
  return out;
}

/**
 * The inbox as the UI holds it. The newest page of messages is read first (`loadFirst`), so the
 * first paint does not wait for the whole cache; older pages are read on demand (`loadMore`,
 * when the list nears its end). Until the oldest is loaded `complete` is false and
 * `unreadOlder` (counted by the core) stands in for the unread messages not loaded yet.
 * Messages newer than the oldest loaded one are always all loaded (events add new ones).
 */
export class InboxState {
  // Arrays are replaced, never mutated: `raw` spares a reactive proxy per message.
  messages = $state.raw<MessageSummary[]>([]);
  /** Notifications from agents (not end-to-end encrypted), newest first. */
  notifications = $state.raw<NotificationView[]>([]);
  /** Whether every cached message has been read into `messages`. */
  complete = $state(true);
  /** Unread messages older than the loaded pages (0 once `complete`). */
  unreadOlder = $state(0);
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
  /** The oldest message of the loaded pages: older pages start after it. */
  #boundary: MessageSummary | null = null;
  /** Bumped by every (re)load, so an older load still running stops. */
  #generation = 0;
  /** The older page being read, if any (one at a time). */
  #loading: Promise<void> | null = null;

  /** Messages and notifications in one list, newest first. */
  readonly entries: InboxEntry[] = $derived(mergeEntries(this.messages, this.notifications));

  /**
   * Unread messages and notifications. While older pages are still loading, loaded messages
   * older than the last page (delivered by events) are left to the core's `unreadOlder`.
   */
  readonly unreadCount: number = $derived.by(() => {
    const boundary = this.complete ? null : this.#boundary;
    let count = this.complete ? 0 : this.unreadOlder;
    for (const m of this.messages) {
      if (m.unread && (boundary === null || newestFirst(m, boundary) <= 0)) count += 1;
    }
    for (const n of this.notifications) if (n.unread) count += 1;
    return count;
  });

  /** Sets every message at once (the whole inbox is loaded). */
  replaceAll(messages: MessageSummary[]): void {
    this.#generation += 1;
    this.messages = [...messages].sort(newestFirst);
    this.#boundary = null;
    this.complete = true;
    this.unreadOlder = 0;
  }

  /**
   * Reads the newest page and shows it, keeping the messages already held (delivered by
   * events meanwhile; the fresher copy of each; call `replaceAll([])` first to drop them).
   * The older pages are left to `loadMore`.
   */
  async loadFirst(load: PageLoader, limit = FIRST_PAGE): Promise<void> {
    const generation = ++this.#generation;
    const page = await load(null, limit);
    if (generation !== this.#generation) return;
    this.messages = this.#merged(page.messages, this.messages);
    this.#pageRead(page);
  }

  /**
   * Reads the next older page, unless the inbox is complete or one is being read (then that
   * read is awaited). A page that arrives after a reload is dropped; a cursor no longer cached
   * (the account was reset: a reload follows) ends quietly. Other errors are thrown.
   */
  loadMore(load: PageLoader, limit = OLDER_PAGE): Promise<void> {
    if (this.complete || this.#boundary === null) return Promise.resolve();
    if (this.#loading !== null) return this.#loading;
    const generation = this.#generation;
    const before = this.#boundary.id;
    this.#loading = (async () => {
      try {
        const page = await load(before, limit);
        if (generation !== this.#generation) return;
        this.messages = this.#merged(page.messages, this.messages);
        this.#pageRead(page);
      } catch (err) {
        if ((err as { code?: UiErrorCode } | null)?.code !== "not_found") throw err;
      } finally {
        this.#loading = null;
      }
    })();
    return this.#loading;
  }

  /** `loaded` (pages and messages from events) with the rows of a page merged in, sorted. */
  #merged(rows: readonly MessageSummary[], loaded: readonly MessageSummary[]): MessageSummary[] {
    const byId = new Map<string, MessageSummary>();
    for (const m of loaded) byId.set(m.id, m);
    for (const row of rows) {
      const known = byId.get(row.id);
      byId.set(row.id, known === undefined ? row : fresher(row, known));
    }
    return [...byId.values()].sort(newestFirst);
  }

  #pageRead(page: InboxPage): void {
    const last = page.messages.at(-1);
    if (last !== undefined) this.#boundary = last;
    this.complete = !page.more || last === undefined;
    this.unreadOlder = this.complete ? 0 : page.unreadOlder;
  }

  upsert(message: MessageSummary): void {
    this.messages = withItem(this.messages, message);
    this.#seq += 1;
    this.lastUpserted = { id: message.id, seq: this.#seq };
  }

  replaceNotifications(notifications: NotificationView[]): void {
    this.notifications = [...notifications].sort(newestFirst);
  }

  upsertNotification(notification: NotificationView): void {
    this.notifications = withItem(this.notifications, notification);
    this.#seq += 1;
    this.lastUpserted = { id: notification.id, seq: this.#seq };
  }

  requestOpenNotification(id: string): void {
    this.#seq += 1;
    this.openNotificationRequest = { id, seq: this.#seq };
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
}

export const inboxState = new InboxState();
