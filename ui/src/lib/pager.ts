// The question pager: questions (formSource `questions`) are shown one at a time, with a row of
// header chips to move between them, Back/Next, and Submit on the last. The answer is still one
// submission of every question's value.

import type { FieldView } from "./bindings/FieldView";
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

/** A chip's label: the question's header, else "Q1", "Q2"… */
export function chipLabel(field: FieldView, index: number): string {
  return field.header?.trim() || `Q${index + 1}`;
}

/** Where to go after a failed submit: the first question with an error, or stay. */
export function firstWithError(p: Pager, fields: FieldView[], errors: FieldErrors): Pager {
  const i = fields.findIndex((f) => f.id in errors);
  return i < 0 ? p : pagerAt(i, p.count);
}
