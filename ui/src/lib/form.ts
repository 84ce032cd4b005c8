// Form state → typed answer values, and checks before submit. Pure, so it is tested without a
// window.
//
// The person edits a draft per field (text as typed, chosen options, yes/no, Other); `collect`
// turns the drafts into the answer's JSON values, typed as the backend expects them (numbers as
// numbers, dates as `YYYY-MM-DD`, date-times as RFC 3339 with an offset, multiselect as an
// array), and names the fields that are not ready yet with a reason each.

import type { FieldKind } from "./bindings/FieldKind";
import type { FieldView } from "./bindings/FieldView";
import { isDate, localOffset, localToRfc3339, rfc3339ToLocal, type OffsetAt } from "./datetime";

/** One field while the person edits it. */
export interface FieldDraft {
  /** Text kinds, number and integer as typed, date, date-time (datetime-local), choice value. */
  text: string;
  /** Multiselect: the chosen option values, in the order chosen. */
  chosen: string[];
  /** Boolean: yes, no, or not answered yet. */
  bool: boolean | null;
  /** Choice: Other is picked (instead of `text`); multiselect: Other is ticked. */
  otherOn: boolean;
  otherText: string;
  /** File and secret-file: the file picked through the shell (which keeps its path). */
  file: PickedFileDraft | null;
}

/** A picked file as the UI knows it: an opaque id for the shell, the name and size to show. */
export interface PickedFileDraft {
  pickId: string;
  name: string;
  size: number;
}

export type FormDraft = Record<string, FieldDraft>;

/** Field id → why it cannot be sent as it is. */
export type FieldErrors = Record<string, string>;

/** Free text answering Other: at most this many characters (the protocol's limit). */
export const MAX_OTHER_CHARS = 100;
/** Any text answer: at most this many characters (the protocol's limit). */
export const MAX_TEXT_CHARS = 10_000;

/** File fields are answered with an upload the shell makes from the picked file. */
export function isFileKind(kind: FieldKind): boolean {
  return kind === "file" || kind === "secretFile";
}

/** Fields whose value must not outlive the submit (never prefilled, cleared after sending). */
export function isSecretKind(kind: FieldKind): boolean {
  return kind === "secret" || kind === "secretFile";
}

/** Length in characters (code points), as the backend counts. */
export function charCount(s: string): number {
  return [...s].length;
}

function emptyDraft(): FieldDraft {
  return { text: "", chosen: [], bool: null, otherOn: false, otherText: "", file: null };
}

function parseDefault(json: string | null): unknown {
  if (json === null) return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** The draft a field starts from: its default value when it has a usable one, else empty. */
export function initialDraft(field: FieldView): FieldDraft {
  const draft = emptyDraft();
  const value = parseDefault(field.defaultJson);
  const isOption = (v: string) => field.options.some((o) => o.value === v);
  switch (field.kind) {
    case "number":
    case "integer":
      if (typeof value === "number") draft.text = String(value);
      break;
    case "boolean":
      if (typeof value === "boolean") draft.bool = value;
      break;
    case "dateTime":
      if (typeof value === "string") draft.text = rfc3339ToLocal(value);
      break;
    case "choice":
      if (typeof value === "string") {
        if (isOption(value)) draft.text = value;
        else if (field.other) [draft.otherOn, draft.otherText] = [true, value];
      }
      break;
    case "multiselect":
      if (Array.isArray(value)) {
        for (const item of value) {
          if (typeof item !== "string") continue;
          if (isOption(item)) draft.chosen.push(item);
          else if (field.other && !draft.otherOn) [draft.otherOn, draft.otherText] = [true, item];
        }
      }
      break;
    default:
      // A secret is never prefilled: a default would travel in the request, not from the person.
      if (typeof value === "string" && field.kind !== "secret" && !isFileKind(field.kind)) draft.text = value;
  }
  return draft;
}

export function initialValues(fields: FieldView[]): FormDraft {
  return Object.fromEntries(fields.map((f) => [f.id, initialDraft(f)]));
}

/** One field read from its draft: a value to send, nothing (left out), or why not. */
export type FieldRead = { ok: true; value: unknown } | { ok: false; error: string };

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

const ok = (value: unknown): FieldRead => ({ ok: true, value });
const fail = (error: string): FieldRead => ({ ok: false, error });
const omitted: FieldRead = { ok: true, value: undefined };

function readOther(text: string): FieldRead {
  const t = text.trim();
  if (t === "") return fail("Describe your Other answer");
  if (charCount(t) > MAX_OTHER_CHARS) return fail(`Other must be at most ${MAX_OTHER_CHARS} characters`);
  return ok(t);
}

function readText(field: FieldView, text: string): FieldRead {
  if (text.trim() === "") return field.required ? fail("This field is required") : omitted;
  const n = charCount(text);
  const max = Math.min(field.maxLength ?? MAX_TEXT_CHARS, MAX_TEXT_CHARS);
  if (field.minLength !== null && n < field.minLength) return fail(`Use at least ${field.minLength} characters`);
  if (n > max) return fail(`Use at most ${max} characters`);
  return ok(text);
}

function readNumber(field: FieldView, text: string): FieldRead {
  const t = text.trim();
  if (t === "") return field.required ? fail("This field is required") : omitted;
  const integer = field.kind === "integer";
  if (!(integer ? INTEGER : NUMBER).test(t)) return fail(integer ? "Enter a whole number" : "Enter a number");
  const n = Number(t);
  if (!Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) return fail("This number is out of range");
  if (field.minimum !== null && n < field.minimum) return fail(`Must be at least ${field.minimum}`);
  if (field.maximum !== null && n > field.maximum) return fail(`Must be at most ${field.maximum}`);
  return ok(n);
}

/**
 * The value a field's draft sends, typed for its kind; `undefined` when an optional field is
 * empty (left out of the answer); an error naming what to fix otherwise.
 */
export function readField(field: FieldView, draft: FieldDraft, offsetAt: OffsetAt = localOffset): FieldRead {
  switch (field.kind) {
    case "text":
    case "textarea":
      return readText(field, draft.text);
    case "number":
    case "integer":
      return readNumber(field, draft.text);
    case "boolean":
      if (draft.bool === null) return field.required ? fail("Choose yes or no") : omitted;
      return ok(draft.bool);
    case "date": {
      const t = draft.text.trim();
      if (t === "") return field.required ? fail("This field is required") : omitted;
      return isDate(t) ? ok(t) : fail("Enter a date as YYYY-MM-DD");
    }
    case "dateTime": {
      const t = draft.text.trim();
      if (t === "") return field.required ? fail("This field is required") : omitted;
      const instant = localToRfc3339(t, offsetAt);
      return instant ? ok(instant) : fail("Enter a date and a time");
    }
    case "choice":
      if (field.other && draft.otherOn) return readOther(draft.otherText);
      if (draft.text === "") return field.required ? fail("Choose one option") : omitted;
      return field.options.some((o) => o.value === draft.text) ? ok(draft.text) : fail("Choose one of the options");
    case "multiselect": {
      const values = field.options.map((o) => o.value).filter((v) => draft.chosen.includes(v));
      if (field.other && draft.otherOn) {
        const other = readOther(draft.otherText);
        if (!other.ok) return other;
        if (!values.includes(other.value as string)) values.push(other.value as string);
      }
      if (values.length === 0) return field.required ? fail("Choose at least one option") : omitted;
      return ok(values);
    }
    case "secret":
      return readText(field, draft.text);
    case "file":
    case "secretFile":
      if (draft.file === null) return field.required ? fail("Choose a file") : omitted;
      return ok(draft.file);
  }
}

/** The typed answer values and the fields that are not ready, from all drafts. */
export interface Collected {
  values: Record<string, unknown>;
  /** File fields: field id → the picked file's id; the shell uploads it and fills the value. */
  files: Record<string, string>;
  errors: FieldErrors;
}

export function collect(fields: FieldView[], drafts: FormDraft, offsetAt: OffsetAt = localOffset): Collected {
  const values: Record<string, unknown> = {};
  const files: Record<string, string> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    const read = readField(field, drafts[field.id] ?? emptyDraft(), offsetAt);
    if (!read.ok) errors[field.id] = read.error;
    else if (read.value === undefined) continue;
    else if (isFileKind(field.kind)) files[field.id] = (read.value as PickedFileDraft).pickId;
    else values[field.id] = read.value;
  }
  return { values, files, errors };
}

/** Whether a draft holds anything yet (for the question pager's chips). */
export function isFilled(field: FieldView, draft: FieldDraft | undefined): boolean {
  if (!draft) return false;
  switch (field.kind) {
    case "boolean":
      return draft.bool !== null;
    case "multiselect":
      return draft.chosen.length > 0 || (draft.otherOn && draft.otherText.trim() !== "");
    case "choice":
      return draft.text !== "" || (draft.otherOn && draft.otherText.trim() !== "");
    case "file":
    case "secretFile":
      return draft.file !== null;
    default:
      return draft.text.trim() !== "";
  }
}

/** Shown instead of a secret answer (whatever the cache holds, it is not displayed). */
export const SECRET_SENT = "Sent encrypted to the asking agent — not shown or kept here";

function fileShown(value: unknown, kind: FieldKind): string {
  const name = typeof value === "object" && value !== null ? (value as { name?: unknown }).name : undefined;
  const what = typeof name === "string" && name ? name : "A file";
  return kind === "secretFile" ? `${what} (only the asking agent can download it)` : `${what} sent`;
}

/** One line of a given answer, for display. */
export interface AnswerRow {
  label: string;
  value: string;
}

/**
 * The answer's values as label/value rows in field order; unknown keys follow under their id.
 * Falls back to one row with the raw text when it is not a JSON object.
 */
export function answerRows(fields: FieldView[], valuesJson: string): AnswerRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(valuesJson);
  } catch {
    return [{ label: "Answer", value: valuesJson }];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return [{ label: "Answer", value: valuesJson }];
  }
  const values = parsed as Record<string, unknown>;
  const show = (field: FieldView | undefined, v: unknown): string => {
    const labelOf = (x: unknown) => {
      if (typeof x === "string") return field?.options.find((o) => o.value === x)?.label ?? x;
      if (typeof x === "boolean" && field?.kind === "boolean") return x ? "Yes" : "No";
      return JSON.stringify(x);
    };
    return Array.isArray(v) ? v.map(labelOf).join(", ") : labelOf(v);
  };
  const rows: AnswerRow[] = [];
  for (const field of fields) {
    if (!(field.id in values)) continue;
    if (field.kind === "secret") rows.push({ label: field.label, value: SECRET_SENT });
    else if (isFileKind(field.kind)) rows.push({ label: field.label, value: fileShown(values[field.id], field.kind) });
    else rows.push({ label: field.label, value: show(field, values[field.id]) });
  }
  for (const [key, v] of Object.entries(values)) {
    if (!fields.some((f) => f.id === key)) rows.push({ label: key, value: show(undefined, v) });
  }
  return rows;
}
