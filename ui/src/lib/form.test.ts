import { describe, expect, it } from "vitest";
import type { FieldView } from "./bindings/FieldView";
import type { OptionView } from "./bindings/OptionView";
import { answerRows, collect, initialDraft, initialValues, isFilled, readField, type FieldDraft } from "./form";

const opt = (value: string, label = value): OptionView => ({ value, label, description: null, previewHtml: null });

function field(id: string, kind: FieldView["kind"], extra: Partial<FieldView> = {}): FieldView {
  return {
    id,
    label: id[0].toUpperCase() + id.slice(1),
    kind,
    required: false,
    help: null,
    options: [],
    defaultJson: null,
    header: null,
    other: false,
    minimum: null,
    maximum: null,
    minLength: null,
    maxLength: null,
    ...extra,
  };
}

const draft = (d: Partial<FieldDraft>): FieldDraft => ({
  text: "",
  chosen: [],
  bool: null,
  otherOn: false,
  otherText: "",
  file: null,
  ...d,
});
const utc = () => 0;
const read = (f: FieldView, d: Partial<FieldDraft>) => readField(f, draft(d), utc);

describe("initial drafts from defaults", () => {
  it("types each default for its kind and ignores broken JSON", () => {
    const fields = [
      field("reason", "text", { required: true }),
      field("env", "choice", { options: [opt("staging"), opt("prod")], defaultJson: '"staging"' }),
      field("tags", "multiselect", { options: [opt("a"), opt("b")], defaultJson: '["a"]' }),
      field("notes", "textarea", { defaultJson: "{bad" }),
      field("budget", "number", { defaultJson: "12.5" }),
      field("go", "boolean", { defaultJson: "false" }),
      field("pw", "secret", { defaultJson: '"hunter2"' }),
    ];
    const drafts = initialValues(fields);
    expect(drafts.reason).toEqual(draft({}));
    expect(drafts.env.text).toBe("staging");
    expect(drafts.tags.chosen).toEqual(["a"]);
    expect(drafts.notes.text).toBe("");
    expect(drafts.budget.text).toBe("12.5");
    expect(drafts.go.bool).toBe(false);
    expect(drafts.pw.text).toBe("");
  });
  it("puts a default that is no option into Other when Other is allowed", () => {
    const f = field("env", "choice", { options: [opt("prod")], other: true, defaultJson: '"qa"' });
    expect(initialDraft(f)).toMatchObject({ otherOn: true, otherText: "qa", text: "" });
    const m = field("tags", "multiselect", { options: [opt("a")], other: true, defaultJson: '["a","zz"]' });
    expect(initialDraft(m)).toMatchObject({ chosen: ["a"], otherOn: true, otherText: "zz" });
  });
  it("shows a date-time default in the local zone", () => {
    const f = field("at", "dateTime", { defaultJson: '"2025-03-01T14:30:00Z"' });
    // The runtime's zone: the value round-trips to the same instant.
    const local = initialDraft(f).text;
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    const back = readField(f, draft({ text: local }));
    expect(back.ok && Date.parse(back.value as string)).toBe(Date.parse("2025-03-01T14:30:00Z"));
  });
});

describe("typed values per kind", () => {
  it("sends text as typed and leaves out empty optional text", () => {
    expect(read(field("a", "text"), { text: " hi " })).toEqual({ ok: true, value: " hi " });
    expect(read(field("a", "text"), { text: "   " })).toEqual({ ok: true, value: undefined });
    expect(read(field("a", "text", { required: true }), { text: " " })).toEqual({ ok: false, error: "This field is required" });
  });
  it("checks text lengths in characters", () => {
    const f = field("a", "textarea", { minLength: 3, maxLength: 4 });
    expect(read(f, { text: "ab" })).toEqual({ ok: false, error: "Use at least 3 characters" });
    expect(read(f, { text: "abcde" })).toEqual({ ok: false, error: "Use at most 4 characters" });
    expect(read(f, { text: "😀😀😀" }).ok).toBe(true);
  });
  it("sends numbers as JSON numbers within bounds", () => {
    const f = field("budget", "number", { minimum: 0, maximum: 10000 });
    expect(read(f, { text: " 12.5 " })).toEqual({ ok: true, value: 12.5 });
    expect(read(f, { text: "1e3" })).toEqual({ ok: true, value: 1000 });
    expect(read(f, { text: "12,5" })).toEqual({ ok: false, error: "Enter a number" });
    expect(read(f, { text: "0x10" })).toEqual({ ok: false, error: "Enter a number" });
    expect(read(f, { text: "-1" })).toEqual({ ok: false, error: "Must be at least 0" });
    expect(read(f, { text: "10001" })).toEqual({ ok: false, error: "Must be at most 10000" });
  });
  it("sends integers as whole numbers", () => {
    const f = field("n", "integer", { required: true });
    expect(read(f, { text: "42" })).toEqual({ ok: true, value: 42 });
    expect(read(f, { text: "4.2" })).toEqual({ ok: false, error: "Enter a whole number" });
    expect(read(f, { text: "" })).toEqual({ ok: false, error: "This field is required" });
    expect(read(f, { text: "99999999999999999999" })).toEqual({ ok: false, error: "This number is out of range" });
  });
  it("sends booleans as true/false", () => {
    expect(read(field("go", "boolean"), { bool: true })).toEqual({ ok: true, value: true });
    expect(read(field("go", "boolean"), { bool: false })).toEqual({ ok: true, value: false });
    expect(read(field("go", "boolean"), {})).toEqual({ ok: true, value: undefined });
    expect(read(field("go", "boolean", { required: true }), {})).toEqual({ ok: false, error: "Choose yes or no" });
  });
  it("checks dates and converts date-times to RFC 3339", () => {
    expect(read(field("d", "date"), { text: "2024-02-29" })).toEqual({ ok: true, value: "2024-02-29" });
    expect(read(field("d", "date"), { text: "2023-02-29" })).toEqual({ ok: false, error: "Enter a date as YYYY-MM-DD" });
    expect(readField(field("t", "dateTime"), draft({ text: "2025-03-01T14:30" }), () => 60)).toEqual({
      ok: true,
      value: "2025-03-01T14:30:00+01:00",
    });
    expect(read(field("t", "dateTime"), { text: "2025-03-01" })).toEqual({ ok: false, error: "Enter a date and a time" });
  });
  it("sends a choice as its value, or the Other text", () => {
    const f = field("env", "choice", { options: [opt("prod"), opt("staging")], other: true, required: true });
    expect(read(f, { text: "staging" })).toEqual({ ok: true, value: "staging" });
    expect(read(f, {})).toEqual({ ok: false, error: "Choose one option" });
    expect(read(f, { text: "prod", otherOn: true, otherText: "  qa box " })).toEqual({ ok: true, value: "qa box" });
    expect(read(f, { otherOn: true, otherText: " " })).toEqual({ ok: false, error: "Describe your Other answer" });
    expect(read(f, { otherOn: true, otherText: "x".repeat(101) })).toEqual({
      ok: false,
      error: "Other must be at most 100 characters",
    });
    // Other is ignored when the field does not allow it.
    const closed = field("env", "choice", { options: [opt("prod")] });
    expect(read(closed, { text: "prod", otherOn: true, otherText: "qa" })).toEqual({ ok: true, value: "prod" });
  });
  it("sends a multiselect as an array in option order, plus one Other item", () => {
    const f = field("tags", "multiselect", { options: [opt("a"), opt("b"), opt("c")], other: true });
    expect(read(f, { chosen: ["c", "a"] })).toEqual({ ok: true, value: ["a", "c"] });
    expect(read(f, { chosen: ["b"], otherOn: true, otherText: "zz" })).toEqual({ ok: true, value: ["b", "zz"] });
    expect(read(f, { chosen: ["b"], otherOn: true, otherText: "b" })).toEqual({ ok: true, value: ["b"] });
    expect(read(f, {})).toEqual({ ok: true, value: undefined });
    expect(read({ ...f, required: true }, {})).toEqual({ ok: false, error: "Choose at least one option" });
  });
  it("sends a secret as typed, with the text rules", () => {
    expect(read(field("pw", "secret"), { text: "s3cr3t " })).toEqual({ ok: true, value: "s3cr3t " });
    expect(read(field("pw", "secret", { required: true }), {})).toEqual({ ok: false, error: "This field is required" });
    expect(read(field("pw", "secret", { minLength: 8 }), { text: "short" }).ok).toBe(false);
  });
  it("needs a picked file for a required file field and keeps files out of the values", () => {
    expect(read(field("f", "file", { required: true }), {})).toEqual({ ok: false, error: "Choose a file" });
    expect(read(field("f", "secretFile"), {})).toEqual({ ok: true, value: undefined });
    const picked = { pickId: "pick_1", name: "kubeconfig", size: 120 };
    const fields = [field("f", "secretFile"), field("note", "text")];
    const collected = collect(fields, { f: draft({ file: picked }), note: draft({ text: "hi" }) }, utc);
    expect(collected.values, "the file is not a JSON value").toEqual({ note: "hi" });
    expect(collected.files, "the picked file goes to the shell by id").toEqual({ f: "pick_1" });
    expect(isFilled(fields[0], draft({ file: picked }))).toBe(true);
  });
  it("never shows a secret answer's value", () => {
    const rows = answerRows([field("pw", "secret", { label: "Token" })], '{"pw":"hunter2"}');
    expect(rows).toHaveLength(1);
    expect(rows[0].value, "the secret is not displayed").not.toContain("hunter2");
  });
});

describe("collect", () => {
  it("builds the values object and the errors by field id", () => {
    const fields = [
      field("env", "choice", { required: true, options: [opt("prod"), opt("staging")] }),
      field("why", "text"),
      field("budget", "number", { maximum: 10 }),
      field("notes", "textarea"),
    ];
    const drafts = initialValues(fields);
    drafts.env.text = "staging";
    drafts.why.text = "smoke test first";
    drafts.budget.text = "11";
    expect(collect(fields, drafts, utc)).toEqual({
      values: { env: "staging", why: "smoke test first" },
      files: {},
      errors: { budget: "Must be at most 10" },
    });
    drafts.budget.text = "7";
    expect(JSON.stringify(collect(fields, drafts, utc).values)).toBe('{"env":"staging","why":"smoke test first","budget":7}');
  });
  it("knows which drafts hold something", () => {
    expect(isFilled(field("go", "boolean"), draft({ bool: false }))).toBe(true);
    expect(isFilled(field("env", "choice"), draft({ otherOn: true, otherText: " " }))).toBe(false);
    expect(isFilled(field("a", "text"), draft({ text: "x" }))).toBe(true);
  });
});

describe("answerRows", () => {
  const fields = [
    field("reason", "text"),
    field("env", "choice", { options: [opt("staging", "Staging"), opt("prod", "Production")] }),
    field("tags", "multiselect"),
    field("go", "boolean"),
  ];
  it("shows values in field order with option labels", () => {
    const rows = answerRows(fields, '{"tags":["a","b"],"env":"prod","reason":"ok","go":true,"extra":1}');
    expect(rows).toEqual([
      { label: "Reason", value: "ok" },
      { label: "Env", value: "Production" },
      { label: "Tags", value: "a, b" },
      { label: "Go", value: "Yes" },
      { label: "extra", value: "1" },
    ]);
  });
  it("falls back to the raw text", () => {
    expect(answerRows(fields, "not json")).toEqual([{ label: "Answer", value: "not json" }]);
  });
});
