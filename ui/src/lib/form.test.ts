import { describe, expect, it } from "vitest";
import type { FieldView } from "./bindings/FieldView";
import { answerRows, initialValues, missingRequired, valuesJson } from "./form";

// Settings these tests do not exercise.
const unset = { header: null, other: false, minimum: null, maximum: null, minLength: null, maxLength: null };

const fields: FieldView[] = [
  { id: "reason", label: "Reason", kind: "text", required: true, help: null, options: [], defaultJson: null, ...unset },
  {
    id: "env",
    label: "Environment",
    kind: "choice",
    required: false,
    help: null,
    options: [
      { value: "staging", label: "Staging", description: null, previewHtml: null },
      { value: "prod", label: "Production", description: null, previewHtml: null },
    ],
    defaultJson: '"staging"',
    ...unset,
  },
  { id: "tags", label: "Tags", kind: "multiselect", required: false, help: null, options: [], defaultJson: "[\"a\"]", ...unset },
  { id: "notes", label: "Notes", kind: "textarea", required: false, help: null, options: [], defaultJson: "{bad", ...unset },
];

describe("form values", () => {
  it("starts from defaults and ignores broken default JSON", () => {
    expect(initialValues(fields)).toEqual({ reason: "", env: "staging", tags: ["a"], notes: "" });
  });
  it("lists required fields still empty", () => {
    const values = initialValues(fields);
    expect(missingRequired(fields, values)).toEqual(["Reason"]);
    values.reason = "  ok ";
    expect(missingRequired(fields, values)).toEqual([]);
  });
  it("leaves out empty optional fields", () => {
    const values = initialValues(fields);
    values.reason = "looks good";
    expect(JSON.parse(valuesJson(fields, values))).toEqual({ reason: "looks good", env: "staging", tags: ["a"] });
  });
});

describe("answerRows", () => {
  it("shows values in field order with option labels", () => {
    const rows = answerRows(fields, '{"tags":["a","b"],"env":"prod","reason":"ok","extra":1}');
    expect(rows).toEqual([
      { label: "Reason", value: "ok" },
      { label: "Environment", value: "Production" },
      { label: "Tags", value: "a, b" },
      { label: "extra", value: "1" },
    ]);
  });
  it("falls back to the raw text", () => {
    expect(answerRows(fields, "not json")).toEqual([{ label: "Answer", value: "not json" }]);
  });
});
