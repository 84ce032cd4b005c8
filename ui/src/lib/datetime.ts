// Dates and date-times between the form's inputs and the answer's wire format.
//
// The answer wants `YYYY-MM-DD` days and RFC 3339 instants with an offset; a
// `<input type="datetime-local">` gives `YYYY-MM-DDTHH:MM[:SS]` in the person's zone. The zone's
// offset is passed in (minutes east of UTC, for that local time) so tests do not depend on the
// machine's zone.

/** Minutes east of UTC at a local wall-clock time; the default asks the JS runtime. */
export type OffsetAt = (year: number, month: number, day: number, hour: number, minute: number) => number;

export const localOffset: OffsetAt = (year, month, day, hour, minute) =>
  -new Date(year, month - 1, day, hour, minute).getTimezoneOffset();

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const RFC3339 =
  /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** `YYYY-MM-DD`, a day that exists. */
export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** RFC 3339 date-time with seconds and an offset (what the backend accepts). */
export function isDateTime(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m || !isDate(m[1])) return false;
  const ok = Number(m[2]) <= 23 && Number(m[3]) <= 59 && Number(m[4]) <= 60;
  if (!ok) return false;
  const zone = m[6];
  if (zone.length === 1) return true;
  return Number(zone.slice(1, 3)) <= 23 && Number(zone.slice(4, 6)) <= 59;
}

const pad = (n: number) => String(n).padStart(2, "0");

function formatOffset(minutes: number): string {
  if (minutes === 0) return "Z";
  const sign = minutes > 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * A datetime-local value (`2025-03-01T14:30`) as RFC 3339 with the local offset
 * (`2025-03-01T14:30:00+01:00`); null when it is not a valid local date-time.
 */
export function localToRfc3339(local: string, offsetAt: OffsetAt = localOffset): string | null {
  const m = LOCAL.exec(local.trim());
  if (!m || !isDate(m[1])) return null;
  const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4] ?? "0")];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const [year, month, day] = m[1].split("-").map(Number);
  const offset = offsetAt(year, month, day, hour, minute);
  return `${m[1]}T${pad(hour)}:${pad(minute)}:${pad(second)}${formatOffset(offset)}`;
}

/**
 * An RFC 3339 instant (a default value) as the datetime-local value showing the same instant
 * in the local zone; "" when it does not parse. `offsetOf` gives the local offset at an instant
 * (minutes east of UTC).
 */
export function rfc3339ToLocal(
  value: string,
  offsetOf: (utcMillis: number) => number = (ms) => -new Date(ms).getTimezoneOffset(),
): string {
  if (!isDateTime(value)) return "";
  const utc = Date.parse(value);
  if (Number.isNaN(utc)) return "";
  const local = new Date(utc + offsetOf(utc) * 60_000);
  const date = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  return `${date}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`;
}
