import { describe, expect, it } from "vitest";
import type { FieldView } from "./bindings/FieldView";
import { back, chipLabel, firstWithError, isFirst, isLast, next, pagerAt } from "./pager";

const q = (id: string, header: string | null): FieldView => ({
  id,
  label: id,
  kind: "choice",
  required: true,
  help: null,
  options: [],
  defaultJson: null,
  header,
  other: true,
  minimum: null,
  maximum: null,
  minLength: null,
  maxLength: null,
});

describe("question pager", () => {
  it("moves within bounds", () => {
    let p = pagerAt(0, 3);
    expect(isFirst(p)).toBe(true);
    expect(back(p)).toEqual({ index: 0, count: 3 });
    p = next(next(p));
    expect(p.index).toBe(2);
    expect(isLast(p)).toBe(true);
    expect(next(p).index).toBe(2);
    expect(pagerAt(9, 3).index).toBe(2);
  });
  it("labels chips by header, else by number", () => {
    expect(chipLabel(q("q1", "Auth"), 0)).toBe("Auth");
    expect(chipLabel(q("q2", null), 1)).toBe("Q2");
    expect(chipLabel(q("q3", "  "), 2)).toBe("Q3");
  });
  it("jumps to the first question with an error", () => {
    const fields = [q("q1", null), q("q2", null), q("q3", null)];
    expect(firstWithError(pagerAt(2, 3), fields, { q2: "x", q3: "y" }).index).toBe(1);
    expect(firstWithError(pagerAt(2, 3), fields, {}).index).toBe(2);
  });
});
