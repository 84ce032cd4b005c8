// A `validation_failed` error from the backend, split into the fields it names.
//
// Its message is `validation failed: <path>: <reason>; <path>: <reason>…`, where an answer's
// paths are field ids (or `actionId` / `values` for the answer as a whole). Each reason goes to
// its field's error slot; whatever names no field is kept as a general message.

import type { FieldErrors } from "./form";

export interface MappedErrors {
  /** Field id → the backend's reason. */
  byField: FieldErrors;
  /** Parts that name no field of this form, as written. */
  general: string[];
}

const PREFIX = /^\s*validation failed:\s*/i;
/** What a violation path looks like: `env`, `values`, `fields[2].label`. */
const PATH = /^[A-Za-z0-9_$.[\]-]+$/;

/** The field a violation path points at: the id itself, or the id before `.`/`[`. */
function fieldOf(path: string, ids: Set<string>): string | null {
  if (ids.has(path)) return path;
  const head = path.split(/[.[]/, 1)[0];
  return ids.has(head) ? head : null;
}

export function mapValidationErrors(message: string, fieldIds: string[]): MappedErrors {
  const ids = new Set(fieldIds);
  const byField: FieldErrors = {};
  const general: string[] = [];
  let last: { field: string } | { general: number } | null = null;
  for (const part of message.replace(PREFIX, "").split("; ")) {
    if (part.trim() === "") continue;
    const colon = part.indexOf(": ");
    const path = colon > 0 ? part.slice(0, colon).trim() : "";
    const isPath = PATH.test(path);
    const field = isPath ? fieldOf(path, ids) : null;
    if (field !== null) {
      const reason = part.slice(colon + 2).trim();
      byField[field] = byField[field] ? `${byField[field]}; ${reason}` : reason;
      last = { field };
    } else if (!isPath && last !== null) {
      // A reason that itself contained "; " continues the part before it.
      if ("field" in last) byField[last.field] += `; ${part}`;
      else general[last.general] += `; ${part}`;
    } else {
      general.push(part.trim());
      last = { general: general.length - 1 };
    }
  }
  return { byField, general };
}

/** Upper-cases the first letter of a backend reason ("must be at most 5" → "Must be at most 5"). */
export function sentence(reason: string): string {
  return reason.charAt(0).toUpperCase() + reason.slice(1);
}
