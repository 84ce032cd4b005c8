// @vitest-environment jsdom
// An answer given while the relay is out of reach: the core keeps it (`answer_queued`) and sends
// it on reconnect. The pane shows a calm pending state, not an error, until the answer arrives.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { MessageView } from "../bindings/MessageView";
import MessagePane from "./MessagePane.svelte";
import { actionMessage, formMessage, summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const answer = vi.mocked(backend.answer);
const QUEUED = "Saved — will be sent when the relay is reachable.";

function renderPane(view: MessageView) {
  const onChanged = vi.fn();
  const result = render(MessagePane, { view, onChanged, onOpen: vi.fn() });
  return { ...result, onChanged };
}

function queuedError() {
  return new backend.BackendError({ code: "answer_queued", message: "The relay is out of reach; the answer will be sent later." });
}

beforeEach(() => {
  vi.clearAllMocks();
});

describe("an answer queued while offline", () => {
  it("shows a pending note instead of an error and sends nothing twice", async () => {
    answer.mockRejectedValueOnce(queuedError());
    const { onChanged } = renderPane(actionMessage());

    await fireEvent.click(screen.getByTestId("action-approve"));

    const pending = await screen.findByTestId("answer-queued");
    expect(pending.textContent?.trim(), "the pane says the answer is kept and when it goes").toBe(QUEUED);
    expect(pending.getAttribute("role"), "announced politely, as a status").toBe("status");
    expect(screen.queryByTestId("answer-error"), "no error banner").toBeNull();
    for (const id of ["approve", "reject"]) {
      const button = screen.getByTestId(`action-${id}`) as HTMLButtonElement;
      expect(button.disabled, `${id} waits while the answer is pending`).toBe(true);
    }
    await fireEvent.click(screen.getByTestId("action-reject"));
    expect(answer, "a second press sends nothing").toHaveBeenCalledTimes(1);
    expect(onChanged, "nothing changed yet").not.toHaveBeenCalled();
  });

  it("clears the pending note once the delivered answer arrives", async () => {
    answer.mockRejectedValueOnce(queuedError());
    const { rerender } = renderPane(actionMessage());
    await fireEvent.click(screen.getByTestId("action-approve"));
    await screen.findByTestId("answer-queued");

    // The core posts it on reconnect and announces the message; the inbox reloads the view.
    await rerender({
      view: actionMessage({
        summary: summary({ status: "answered" }),
        answer: { actionId: "approve", valuesJson: "{}", answeredAt: "2026-03-01T10:02:00Z", attachments: [] },
      }),
    });

    await waitFor(() => expect(screen.queryByTestId("answer-queued"), "the pending note is gone").toBeNull());
    expect(screen.getByTestId("answer-action").textContent, "the answer given is shown").toBe("Approve");
    expect(screen.queryByTestId("answer-error"), "still no error").toBeNull();
  });

  it("keeps a queued form answer's values on screen, with the submit button waiting", async () => {
    answer.mockRejectedValueOnce(queuedError());
    renderPane(formMessage());
    await fireEvent.input(screen.getByTestId("input-reason"), { target: { value: "Load is up" } });
    await fireEvent.click(screen.getByTestId("answer-submit"));

    await screen.findByTestId("answer-queued");
    expect((screen.getByTestId("input-reason") as HTMLInputElement).value, "the typed value stays").toBe("Load is up");
    expect((screen.getByTestId("answer-submit") as HTMLButtonElement).disabled, "submit waits").toBe(true);
    expect(screen.queryByTestId("answer-error")).toBeNull();
  });

  it("still shows other failures as errors", async () => {
    answer.mockRejectedValueOnce(new backend.BackendError({ code: "network", message: "The relay cannot be reached." }));
    renderPane(actionMessage());
    await fireEvent.click(screen.getByTestId("action-approve"));
    expect((await screen.findByTestId("answer-error")).textContent).toContain("cannot be reached");
    expect(screen.queryByTestId("answer-queued")).toBeNull();
  });
});

describe("a request opened with its answer still queued", () => {
  it("shows the pending note from the view, with the controls waiting", async () => {
    renderPane(actionMessage({ answerQueued: true }));
    expect(screen.getByTestId("answer-queued").textContent?.trim()).toBe(QUEUED);
    await fireEvent.click(screen.getByTestId("action-approve"));
    expect(answer, "nothing is sent again").not.toHaveBeenCalled();
  });
});
