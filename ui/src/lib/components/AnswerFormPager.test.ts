// @vitest-environment jsdom
// The card's pager: questions are paged, and so is any form whose fields carry headers, the
// chips named by those headers whether the form was written as `fields`, `questions` or a JSON
// Schema. A form without headers stays one form. Ctrl+Enter goes on to the next step, then
// submits every value at once.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { FieldView } from "../bindings/FieldView";
import type { FormSource } from "../bindings/FormSource";
import AnswerForm from "./AnswerForm.svelte";
import { field } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const onSubmit = vi.fn<(valuesJson: string, files: Record<string, string>) => Promise<Record<string, string>>>();

const NAMED: FieldView[] = [
  field({ id: "env", kind: "text", label: "Which environment should get the release?", header: "Target" }),
  field({ id: "why", kind: "textarea", label: "Why now?", header: "Reason" }),
  field({ id: "count", kind: "integer", label: "How many replicas?" }),
];

function renderForm(fields: FieldView[], formSource: FormSource) {
  return render(AnswerForm, { fields, formSource, disabled: false, onSubmit });
}

const chips = () => screen.queryAllByTestId(/^question-chip-\d+$/).map((c) => c.textContent?.trim());

beforeEach(() => {
  vi.clearAllMocks();
  onSubmit.mockResolvedValue({});
});

describe("the pager names fields by their headers", () => {
  for (const source of ["fields", "schema", "questions"] as const) {
    it(`in a form written as ${source}`, () => {
      renderForm(NAMED, source);

      expect(screen.getByTestId("answer-form").dataset.paged, `a ${source} form with headers is paged`).toBe("true");
      const fallback = source === "questions" ? "Q3" : "Step 3";
      expect(chips(), "each chip shows its field's header, a field without one its number").toEqual([
        "Target",
        "Reason",
        fallback,
      ]);
      expect(screen.getByTestId("question-chip-1").title, "the chip's tooltip is the full label").toBe(NAMED[0].label);
      expect(screen.queryByTestId("input-env"), "the first step shows its field").not.toBeNull();
      expect(screen.queryByTestId("input-why"), "and only that field").toBeNull();
    });
  }

  it("counts steps, not questions, in a form that is not questions", () => {
    renderForm(NAMED, "fields");
    expect(screen.getByTestId("question-step").textContent, "the step line").toBe("Step 1 of 3");
    expect(screen.getByRole("navigation").getAttribute("aria-label"), "the chips are named as steps").toBe("Steps");
  });

  it("keeps a form without headers as one form", () => {
    renderForm(
      NAMED.map((f) => ({ ...f, header: null })),
      "fields",
    );
    expect(screen.getByTestId("answer-form").dataset.paged, "no header, no pager").toBe("false");
    expect(screen.queryByTestId("question-chips"), "no chips").toBeNull();
    for (const id of ["env", "why", "count"]) {
      expect(screen.queryByTestId(`input-${id}`), `field ${id} is shown at once`).not.toBeNull();
    }
  });
});

describe("moving through a paged fields form", () => {
  it("goes step by step with Next and the chips, then submits every value once", async () => {
    renderForm(NAMED, "fields");

    await fireEvent.input(screen.getByTestId("input-env"), { target: { value: "staging" } });
    await fireEvent.click(screen.getByTestId("question-next"));
    expect(screen.getByTestId("question-step").textContent, "Next moves to the second step").toBe("Step 2 of 3");
    await fireEvent.input(screen.getByTestId("input-why"), { target: { value: "Fixes the login bug" } });
    await fireEvent.click(screen.getByTestId("question-chip-3"));
    await fireEvent.input(screen.getByTestId("input-count"), { target: { value: "2" } });
    await fireEvent.click(screen.getByTestId("answer-submit"));

    await waitFor(() => expect(onSubmit, "the last step submits").toHaveBeenCalledTimes(1));
    expect(JSON.parse(onSubmit.mock.calls[0][0]), "one answer with every step's value").toStrictEqual({
      env: "staging",
      why: "Fixes the login bug",
      count: 2,
    });
  });

  it("takes Ctrl+Enter as Next, and as Submit on the last step", async () => {
    renderForm(NAMED.slice(0, 2), "fields");

    await fireEvent.input(screen.getByTestId("input-env"), { target: { value: "prod" } });
    await fireEvent.keyDown(screen.getByTestId("input-env"), { key: "Enter", ctrlKey: true });
    expect(screen.getByTestId("question-step").textContent, "Ctrl+Enter goes on to the next step").toBe("Step 2 of 2");
    expect(onSubmit, "nothing is sent before the last step").not.toHaveBeenCalled();

    await fireEvent.input(screen.getByTestId("input-why"), { target: { value: "line one\nline two" } });
    await fireEvent.keyDown(screen.getByTestId("input-why"), { key: "Enter", ctrlKey: true });

    await waitFor(() => expect(onSubmit, "Ctrl+Enter on the last step submits").toHaveBeenCalledTimes(1));
    expect(JSON.parse(onSubmit.mock.calls[0][0]), "with both values, the line break kept").toStrictEqual({
      env: "prod",
      why: "line one\nline two",
    });
  });
});
