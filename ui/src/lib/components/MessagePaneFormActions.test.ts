// @vitest-environment jsdom
// A request with both a form and actions: both are shown and both answer. The form is sent
// with Submit (no action id); an action answers with the values its sender fixed, so the
// pane sends only its id (the core fills in those values) and says the typed form is not part
// of it. The keyboard: `a`/`r` outside the form, never from a control inside it, and
// Ctrl/Cmd+Enter submits the form.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { MessageView } from "../bindings/MessageView";
import MessagePane from "./MessagePane.svelte";
import { field, messageView, summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const answer = vi.mocked(backend.answer);

const FIELDS = [
  field({ id: "note", kind: "textarea", label: "Note" }),
  field({
    id: "severity",
    kind: "choice",
    label: "Severity",
    options: [
      { value: "low", label: "Low", description: null, previewHtml: null },
      { value: "high", label: "High", description: null, previewHtml: null },
    ],
  }),
];

const both = (patch: Partial<MessageView> = {}): MessageView =>
  messageView({
    fields: FIELDS,
    formSource: "fields",
    actions: [
      { id: "approve", label: "Approve" },
      { id: "reject", label: "Reject" },
    ],
    ...patch,
  });

function renderPane(view: MessageView) {
  return render(MessagePane, { view, onChanged: vi.fn(), onOpen: vi.fn() });
}

beforeEach(() => {
  vi.clearAllMocks();
  answer.mockImplementation(async (id) => both({ summary: summary({ id, status: "answered" }) }));
});

describe("a request with a form and actions", () => {
  it("shows the form and the actions together", () => {
    renderPane(both());

    expect(screen.queryByTestId("answer-form"), "the form is shown beside the actions").not.toBeNull();
    expect(screen.queryByTestId("input-note"), "its fields can be filled").not.toBeNull();
    expect(screen.queryByTestId("answer-submit"), "the form has its own Submit").not.toBeNull();
    for (const id of ["approve", "reject"]) {
      const button = screen.queryByTestId(`action-${id}`) as HTMLButtonElement | null;
      expect(button, `the ${id} action is shown with the form`).not.toBeNull();
      expect(button!.disabled, `the ${id} action can be pressed`).toBe(false);
      expect(button!.classList.contains("primary"), "Submit is the one primary button").toBe(false);
    }
    const note = screen.getByTestId("actions-note");
    expect(note.textContent!.replace(/\s+/g, " "), "the pane says what an action sends").toContain("not what you typed in the form");
  });

  it("sends the filled form with Submit, without an action id", async () => {
    renderPane(both());

    await fireEvent.input(screen.getByTestId("input-note"), { target: { value: "Looks fine" } });
    await fireEvent.click(screen.getByTestId("input-severity-high"));
    await fireEvent.click(screen.getByTestId("answer-submit"));

    await waitFor(() => expect(answer, "Submit answers the request").toHaveBeenCalledTimes(1));
    const [id, input] = answer.mock.calls[0];
    expect(id, "the answer goes to the open message").toBe("msg-1");
    expect(input.actionId, "a form answer carries no action id").toBeNull();
    expect(JSON.parse(input.valuesJson ?? "null"), "the typed values are sent").toStrictEqual({
      note: "Looks fine",
      severity: "high",
    });
  });

  it("answers with an action's id alone, even after typing in the form", async () => {
    renderPane(both());

    await fireEvent.input(screen.getByTestId("input-note"), { target: { value: "typed, not sent" } });
    await fireEvent.click(screen.getByTestId("action-reject"));

    await waitFor(() => expect(answer, "the action answers the request").toHaveBeenCalledTimes(1));
    expect(answer, "an action sends its id; its own values are the sender's (the core adds them)").toHaveBeenCalledWith(
      "msg-1",
      { actionId: "reject", valuesJson: null, files: {} },
    );
  });

  it("shows the actions on every step of a paged form", async () => {
    const paged = both({ fields: FIELDS.map((f, i) => ({ ...f, header: i === 0 ? "Note" : "Severity" })) });
    renderPane(paged);

    expect(screen.queryByTestId("question-next"), "the form is paged (its fields have headers)").not.toBeNull();
    expect(screen.queryByTestId("action-approve"), "the actions do not wait for the last step").not.toBeNull();
    await fireEvent.click(screen.getByTestId("action-approve"));
    await waitFor(() => expect(answer, "an action answers from the first step").toHaveBeenCalledTimes(1));
    expect(answer.mock.calls[0][1].actionId, "with its id").toBe("approve");
  });

  it("hides the form once answered and marks the chosen action", () => {
    renderPane(
      both({
        summary: summary({ status: "answered" }),
        answer: { actionId: "approve", valuesJson: "{}", answeredAt: "2026-03-01T10:01:00Z", attachments: [] },
      }),
    );
    expect(screen.queryByTestId("answer-form"), "an answered request shows its answer, not an empty form").toBeNull();
    expect(screen.queryByTestId("actions-note"), "nor the note about the form").toBeNull();
    const approve = screen.getByTestId("action-approve") as HTMLButtonElement;
    expect(approve.classList.contains("chosen"), "the chosen action is marked").toBe(true);
    expect(approve.disabled, "and cannot be pressed again").toBe(true);
  });
});

describe("the keyboard with a form and actions", () => {
  it("approves with `a` pressed outside the form", async () => {
    renderPane(both());

    await fireEvent.keyDown(document.body, { key: "a" });

    await waitFor(() => expect(answer, "`a` answers with the approve action").toHaveBeenCalledTimes(1));
    expect(answer.mock.calls[0][1].actionId, "the approve action").toBe("approve");
  });

  it("never answers with `a` or `r` pressed on a control of the form", async () => {
    renderPane(both());

    await fireEvent.keyDown(screen.getByTestId("input-severity-low"), { key: "a" });
    await fireEvent.keyDown(screen.getByTestId("input-severity-low"), { key: "r" });
    await fireEvent.keyDown(screen.getByTestId("input-note"), { key: "r" });

    expect(answer, "keys pressed inside the form are not shortcuts").not.toHaveBeenCalled();
  });

  it("submits the form with Ctrl+Enter or Cmd+Enter in a text area", async () => {
    renderPane(both());

    await fireEvent.input(screen.getByTestId("input-note"), { target: { value: "Ship it" } });
    await fireEvent.keyDown(screen.getByTestId("input-note"), { key: "Enter" });
    expect(answer, "a plain Enter in a text area is a new line, not a submit").not.toHaveBeenCalled();

    await fireEvent.keyDown(screen.getByTestId("input-note"), { key: "Enter", metaKey: true });

    await waitFor(() => expect(answer, "Cmd+Enter submits the form").toHaveBeenCalledTimes(1));
    expect(answer.mock.calls[0][1].actionId, "as a form answer").toBeNull();
    expect(JSON.parse(answer.mock.calls[0][1].valuesJson ?? "null"), "with the typed note").toStrictEqual({ note: "Ship it" });
  });
});
