// @vitest-environment jsdom
// A `validation_failed` answer: the backend's structured `fields` list puts each reason beside
// its input. The message text is deliberately unparseable here: the pane must not read it.
import { fireEvent, render, screen } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import MessagePane from "./MessagePane.svelte";
import { formMessage } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const answer = vi.mocked(backend.answer);

beforeEach(() => {
  vi.clearAllMocks();
});

describe("field errors from the backend", () => {
  it("shows each reason beside the field its path names, and the rest above the form", async () => {
    answer.mockRejectedValueOnce(
      new backend.BackendError({
        code: "validation_failed",
        message: "the answer does not fit the form (3 problems)",
        fields: [
          { path: "replicas", message: "must be at most 5" },
          { path: "region[0]", message: '"mars" is not one of the options' },
          { path: "actionId", message: "no such action" },
        ],
      }),
    );
    render(MessagePane, { view: formMessage(), onChanged: vi.fn(), onOpen: vi.fn() });
    await fireEvent.input(screen.getByTestId("input-reason"), { target: { value: "Load is up" } });
    await fireEvent.click(screen.getByTestId("answer-submit"));

    const replicas = await screen.findByTestId("field-error-replicas");
    expect(replicas.textContent, "the reason, as a sentence").toBe("Must be at most 5");
    expect(screen.getByTestId("field-error-region").textContent).toBe('"mars" is not one of the options');
    expect(screen.queryByTestId("field-error-reason"), "a field not named has no error").toBeNull();
    expect(screen.getByTestId("answer-error").textContent, "what names no field stays general").toContain(
      "actionId: no such action",
    );
    expect(answer).toHaveBeenCalledTimes(1);
  });
});
