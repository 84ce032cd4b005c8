// A `validation_failed` error from the backend, split over the form's fields by its structured
// `fields` list (each a `path` and a `message`): a path is a field id, a path into one
// (`env[0]`, `budget.x`), or `actionId` / `values` for the answer as a whole. Nothing is parsed
// out of the message text.

import type { FieldError } from "./bindings/FieldError";
import type { FieldErrors } from "./form";

export interface MappedErrors {
  /** Field id → the backend's reasons, joined with "; ". */
  byField: FieldErrors;
  /** Errors that name no field of this form, as `path: reason` (or the reason alone). */
  general: string[];
}

/** The field a path points at: the id itself, or the id before `.`/`[`. */
function fieldOf(path: string, ids: Set<string>): string | null {
  if (ids.has(path)) return path;
  const head = path.split(/[.[]/, 1)[0];
  return ids.has(head) ? head : null;
}

export function mapFieldErrors(fields: FieldError[], fieldIds: string[]): MappedErrors {
  const ids = new Set(fieldIds);
  const byField: FieldErrors = {};
  const general: string[] = [];
  for (const { path, message } of fields) {
    const field = fieldOf(path, ids);
    if (field !== null && message !== "") {
      byField[field] = byField[field] ? `${byField[field]}; ${message}` : message;
    } else if (field !== null) {
      byField[field] = byField[field] ?? "is not valid";
    } else {
      general.push(path === "" ? message : message === "" ? path : `${path}: ${message}`);
    }
  }
  return { byField, general };
}

/** Upper-cases the first letter of a backend reason ("must be at most 5" → "Must be at most 5"). */
export function sentence(reason: string): string {
  return reason.charAt(0).toUpperCase() + reason.slice(1);
}
