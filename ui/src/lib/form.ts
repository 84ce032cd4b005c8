// Form state → answer values. Pure, so it is tested without a window.

import type { FieldView } from "./bindings/FieldView";

/** One field's value while the person edits: text, or the chosen values of a multiselect. */
export type FieldValue = string | string[];

export type FormValues = Record<string, FieldValue>;

/** Initial values from the fields' defaults (JSON text), falling back to empty. */
export function initialValues(fields: FieldView[]): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const fallback: FieldValue = field.kind === "multiselect" ? [] : "";
    let value: FieldValue = fallback;
    if (field.defaultJson !== null) {
      try {
        const parsed: unknown = JSON.parse(field.defaultJson);
        if (field.kind === "multiselect" && Array.isArray(parsed)) {
          value = parsed.filter((v): v is string => typeof v === "string");
        } else if (field.kind !== "multiselect" && typeof parsed === "string") {
          value = parsed;
        }
      } catch {
        value = fallback;
      }
    }
    values[field.id] = value;
  }
  return values;
}

/** Labels of required fields that are still empty. */
export function missingRequired(fields: FieldView[], values: FormValues): string[] {
  return fields
    .filter((f) => f.required)
    .filter((f) => {
      const v = values[f.id];
      return Array.isArray(v) ? v.length === 0 : (v ?? "").trim() === "";
    })
    .map((f) => f.label);
}

/** The JSON object text sent as `valuesJson`; empty optional fields are left out. */
export function valuesJson(fields: FieldView[], values: FormValues): string {
  const out: Record<string, FieldValue> = {};
  for (const field of fields) {
    const v = values[field.id];
    if (v === undefined) continue;
    if (Array.isArray(v)) {
      if (v.length > 0 || field.required) out[field.id] = v;
    } else if (v.trim() !== "" || field.required) {
      out[field.id] = v;
    }
  }
  return JSON.stringify(out);
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
    const labelOf = (x: unknown) =>
      typeof x === "string" ? (field?.options.find((o) => o.value === x)?.label ?? x) : JSON.stringify(x);
    return Array.isArray(v) ? v.map(labelOf).join(", ") : labelOf(v);
  };
  const rows: AnswerRow[] = [];
  for (const field of fields) {
    if (field.id in values) rows.push({ label: field.label, value: show(field, values[field.id]) });
  }
  for (const [key, v] of Object.entries(values)) {
    if (!fields.some((f) => f.id === key)) rows.push({ label: key, value: show(undefined, v) });
  }
  return rows;
}
