import { describe, expect, it } from "vitest";
import type { FieldView } from "./bindings/FieldView";
import { back, chipLabel, chipsLabel, firstWithError, isFirst, isLast, isPaged, next, pagerAt, stepText } from "./pager";

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
    expect(chipLabel(q("q1", "Auth"), 0, "questions")).toBe("Auth");
    expect(chipLabel(q("q2", null), 1, "questions")).toBe("Q2");
    expect(chipLabel(q("q3", "  "), 2, "questions")).toBe("Q3");
  });
  it("names a field by its header in every kind of form", () => {
    for (const source of ["fields", "schema", "questions"] as const) {
      expect(chipLabel(q("env", "Target"), 0, source), `a ${source} field's header names its chip`).toBe("Target");
    }
    expect(chipLabel(q("env", null), 1, "fields"), "a field without a header is a numbered step").toBe("Step 2");
    expect(chipLabel(q("env", null), 1, "schema"), "so is a schema property").toBe("Step 2");
  });
  it("pages questions always, other forms when a field has a header", () => {
    const plain = [q("a", null), q("b", null)];
    const named = [q("a", null), q("b", "Reason")];
    expect(isPaged("questions", plain), "questions are paged without headers").toBe(true);
    expect(isPaged("fields", plain), "a fields form without headers is one form").toBe(false);
    expect(isPaged("schema", plain), "so is a schema form without headers").toBe(false);
    expect(isPaged("fields", named), "one header is enough to page a fields form").toBe(true);
    expect(isPaged("schema", named), "and a schema form").toBe(true);
    expect(isPaged("fields", [q("a", null), q("b", " ")]), "a blank header names nothing").toBe(false);
    expect(isPaged("questions", [q("q1", "Auth")]), "a single field is never paged").toBe(false);
    expect(isPaged("fields", [q("a", "Only")]), "not even with a header").toBe(false);
  });
  it("words the step after the kind of form", () => {
    expect(stepText(pagerAt(1, 3), "questions"), "questions count questions").toBe("Question 2 of 3");
    expect(stepText(pagerAt(0, 2), "fields"), "other forms count steps").toBe("Step 1 of 2");
    expect(chipsLabel("questions"), "the chips of questions").toBe("Questions");
    expect(chipsLabel("schema"), "the chips of other forms").toBe("Steps");
  });
  it("jumps to the first question with an error", () => {
    const fields = [q("q1", null), q("q2", null), q("q3", null)];
    expect(firstWithError(pagerAt(2, 3), fields, { q2: "x", q3: "y" }).index).toBe(1);
    expect(firstWithError(pagerAt(2, 3), fields, {}).index).toBe(2);
  });
});
