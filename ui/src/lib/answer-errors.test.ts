import { describe, expect, it } from "vitest";
import { mapValidationErrors, sentence } from "./answer-errors";

const ids = ["budget", "env", "why"];

describe("validation_failed → field errors", () => {
  it("maps each path to its field", () => {
    const mapped = mapValidationErrors("validation failed: budget: must be at most 10000; env: \"qa\" is not one of the options", ids);
    expect(mapped).toEqual({
      byField: { budget: "must be at most 10000", env: '"qa" is not one of the options' },
      general: [],
    });
  });
  it("works without the prefix and keeps unknown paths as general messages", () => {
    expect(mapValidationErrors("why: is required; actionId: no such action; values: too many", ids)).toEqual({
      byField: { why: "is required" },
      general: ["actionId: no such action", "values: too many"],
    });
  });
  it("maps nested paths to the field at their head", () => {
    expect(mapValidationErrors("env[0]: bad; budget.x: odd", ids).byField).toEqual({ env: "bad", budget: "odd" });
  });
  it("keeps a reason that contains '; ' whole", () => {
    const mapped = mapValidationErrors('validation failed: why: unknown key "x"; a file answer is {"attachmentId": ...}', ids);
    expect(mapped.byField.why).toBe('unknown key "x"; a file answer is {"attachmentId": ...}');
  });
  it("keeps a message that names nothing", () => {
    expect(mapValidationErrors("something odd happened", ids)).toEqual({ byField: {}, general: ["something odd happened"] });
  });
  it("capitalizes reasons", () => {
    expect(sentence("must be at most 5")).toBe("Must be at most 5");
  });
});
