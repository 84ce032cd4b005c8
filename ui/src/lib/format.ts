// Pure formatting helpers: time is passed in, never read inside.

import type { MessageStatus } from "./bindings/MessageStatus";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// One formatter of each kind for the page's life (the system locale does not change under it):
// `Date.prototype.toLocale*String` with options sets up a new formatter on every call, and the
// inbox list formats two times per row.
let dateFormat: Intl.DateTimeFormat | null = null;
let dateTimeFormat: Intl.DateTimeFormat | null = null;

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", or a date. */
export function relativeTime(iso: string, now: Date): string {
  const then = new Date(iso);
  const ms = now.getTime() - then.getTime();
  if (Number.isNaN(ms)) return "";
  if (ms < MINUTE) return "just now";
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h ago`;
  if (ms < 2 * DAY) return "yesterday";
  if (ms < 7 * DAY) return `${Math.floor(ms / DAY)} days ago`;
  dateFormat ??= new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });
  return dateFormat.format(then);
}

/** Full local date and time for tooltips and the reading pane. */
export function fullTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  return dateTimeFormat.format(d);
}

const STATUS_LABELS: Record<MessageStatus, string> = {
  delivered: "Delivered",
  pending: "Needs reply",
  answered: "Answered",
  expired: "Expired",
  cancelled: "Cancelled",
};

export function statusLabel(status: MessageStatus): string {
  return STATUS_LABELS[status];
}

/** Why a request can no longer be answered, or null while it can. */
export function closedReason(status: MessageStatus): string | null {
  switch (status) {
    case "expired":
      return "This request expired before it was answered.";
    case "cancelled":
      return "The sender cancelled this request.";
    default:
      return null;
  }
}
