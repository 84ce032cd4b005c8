// The card's pager: a form shown one field at a time, with a row of chips to move between the
// fields, Back/Next, and Submit on the last. Questions (formSource `questions`) are always paged;
// a form written as `fields` or a JSON Schema is paged when the sender named its steps, that is
// when any field carries a `header` (docs/content.md). A chip shows the field's header, so the
// header names the field in the pager whichever way the form was written. The answer is still
// one submission of every field's value.

import type { FieldView } from "./bindings/FieldView";
import type { FormSource } from "./bindings/FormSource";
import type { FieldErrors } from "./form";

export interface Pager {
  index: number;
  count: number;
}

const clamp = (i: number, count: number) => Math.max(0, Math.min(i, count - 1));

export function pagerAt(index: number, count: number): Pager {
  return { index: clamp(index, count), count };
}

export const next = (p: Pager): Pager => pagerAt(p.index + 1, p.count);
export const back = (p: Pager): Pager => pagerAt(p.index - 1, p.count);
export const isFirst = (p: Pager): boolean => p.index === 0;
export const isLast = (p: Pager): boolean => p.index >= p.count - 1;

const headerOf = (field: FieldView): string => field.header?.trim() ?? "";

/** Whether the form is shown one field at a time (a single field never is). */
export function isPaged(source: FormSource, fields: FieldView[]): boolean {
  if (fields.length < 2) return false;
  return source === "questions" || fields.some((f) => headerOf(f) !== "");
}

/** A chip's label: the field's header, else "Q1", "Q2"… for questions and "Step 1"… otherwise. */
export function chipLabel(field: FieldView, index: number, source: FormSource): string {
  const header = headerOf(field);
  if (header) return header;
  return source === "questions" ? `Q${index + 1}` : `Step ${index + 1}`;
}

/** The words under the chips: "Question 2 of 3", or "Step 2 of 3" for other forms. */
export function stepText(p: Pager, source: FormSource): string {
  const noun = source === "questions" ? "Question" : "Step";
  return `${noun} ${p.index + 1} of ${p.count}`;
}

/** The chips' accessible name. */
export const chipsLabel = (source: FormSource): string => (source === "questions" ? "Questions" : "Steps");

/** Where to go after a failed submit: the first field with an error, or stay. */
export function firstWithError(p: Pager, fields: FieldView[], errors: FieldErrors): Pager {
  const i = fields.findIndex((f) => f.id in errors);
  return i < 0 ? p : pagerAt(i, p.count);
}
