import { describe, expect, it } from "vitest";
import { mapFieldErrors, sentence } from "./answer-errors";

const ids = ["budget", "env", "why"];
const f = (path: string, message: string) => ({ path, message });

describe("validation_failed → field errors", () => {
  it("maps each path to its field", () => {
    const mapped = mapFieldErrors([f("budget", "must be at most 10000"), f("env", '"qa" is not one of the options')], ids);
    expect(mapped).toEqual({
      byField: { budget: "must be at most 10000", env: '"qa" is not one of the options' },
      general: [],
    });
  });
  it("keeps paths that name no field as general messages", () => {
    expect(mapFieldErrors([f("why", "is required"), f("actionId", "no such action"), f("values", "too many")], ids)).toEqual({
      byField: { why: "is required" },
      general: ["actionId: no such action", "values: too many"],
    });
  });
  it("maps nested paths to the field at their head and joins two reasons", () => {
    expect(mapFieldErrors([f("env[0]", "bad"), f("budget.x", "odd"), f("budget", "too big")], ids).byField).toEqual({
      env: "bad",
      budget: "odd; too big",
    });
  });
  it("keeps a reason that contains '; ' whole", () => {
    const mapped = mapFieldErrors([f("why", 'unknown key "x"; a file answer is {"attachmentId": ...}')], ids);
    expect(mapped.byField.why).toBe('unknown key "x"; a file answer is {"attachmentId": ...}');
  });
  it("marks a field named without a reason, and keeps a reason without a path", () => {
    expect(mapFieldErrors([f("env", ""), f("", "something odd happened")], ids)).toEqual({
      byField: { env: "is not valid" },
      general: ["something odd happened"],
    });
  });
  it("capitalizes reasons", () => {
    expect(sentence("must be at most 5")).toBe("Must be at most 5");
  });
});
