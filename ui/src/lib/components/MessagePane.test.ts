// @vitest-environment jsdom
// The reading pane with a fake backend: the answer form (fields of every common kind, typed
// values), one-tap actions, closed requests, and the review gate.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { MessageView } from "../bindings/MessageView";
import { closedReason } from "../format";
import MessagePane from "./MessagePane.svelte";
import { actionMessage, formMessage, summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const answer = vi.mocked(backend.answer);
const message = vi.mocked(backend.message);

function renderPane(view: MessageView) {
  const onChanged = vi.fn();
  const result = render(MessagePane, { view, onChanged, onOpen: vi.fn() });
  return { ...result, onChanged };
}

beforeEach(() => {
  vi.clearAllMocks();
  answer.mockImplementation(async (id) => actionMessage({ summary: summary({ id, status: "answered" }) }));
});

describe("answer form", () => {
  it("shows the required error beside the text field and sends nothing when submitted empty", async () => {
    renderPane(formMessage());

    await fireEvent.click(screen.getByTestId("answer-submit"));

    const error = screen.queryByTestId("field-error-reason");
    expect(error, "submitting empty shows an error for the required text field").not.toBeNull();
    expect(error!.textContent, "the error says the field is required").toContain("This field is required");
    expect(
      screen.getByTestId("field-reason").contains(error),
      "the error sits inside the text field's own block, beside its input",
    ).toBe(true);
    for (const id of ["replicas", "notify", "region", "checks"]) {
      expect(screen.queryByTestId(`field-error-${id}`), `optional field "${id}" shows no error when empty`).toBeNull();
    }
    expect(answer, "an invalid form never reaches the backend").not.toHaveBeenCalled();
  });

  it("sends the filled form once, with values typed for their fields", async () => {
    const { onChanged } = renderPane(formMessage());

    await fireEvent.input(screen.getByTestId("input-reason"), { target: { value: "Load is up" } });
    await fireEvent.input(screen.getByTestId("input-replicas"), { target: { value: "3" } });
    await fireEvent.click(screen.getByTestId("input-notify-yes"));
    await fireEvent.click(screen.getByTestId("other-region"));
    await fireEvent.input(screen.getByTestId("other-text-region"), { target: { value: "Asia Pacific" } });
    await fireEvent.click(screen.getByTestId("input-checks-lint"));
    await fireEvent.click(screen.getByTestId("input-checks-e2e"));
    await fireEvent.click(screen.getByTestId("answer-submit"));

    await waitFor(() => expect(answer, "submitting a valid form calls the backend's answer").toHaveBeenCalled());
    expect(answer, "the answer is sent exactly once").toHaveBeenCalledTimes(1);
    const [id, input] = answer.mock.calls[0];
    expect(id, "the answer goes to the open message").toBe("msg-1");
    expect(input.actionId, "a form answer carries no action id").toBeNull();
    const values = JSON.parse(input.valuesJson ?? "null");
    expect(values, "valuesJson holds every filled field, typed").toStrictEqual({
      reason: "Load is up",
      replicas: 3,
      notify: true,
      region: "Asia Pacific",
      checks: ["lint", "e2e"],
    });
    expect(typeof values.replicas, "the integer typed as \"3\" is sent as a number").toBe("number");
    expect(typeof values.notify, "Yes is sent as the boolean true").toBe("boolean");
    expect(Array.isArray(values.checks), "the multiselect is sent as an array").toBe(true);
    await waitFor(() => expect(onChanged, "the pane hands on the backend's updated view").toHaveBeenCalledTimes(1));
    expect(screen.queryByTestId("form-problem"), "an accepted form shows no problem summary").toBeNull();
  });
});

describe("actions", () => {
  it("renders Approve and Reject, and Approve answers with its action id", async () => {
    renderPane(actionMessage());

    const approve = screen.getByTestId("action-approve");
    const reject = screen.getByTestId("action-reject");
    expect(approve.textContent?.trim(), "the approve button shows its label").toBe("Approve");
    expect(reject.textContent?.trim(), "the reject button shows its label").toBe("Reject");
    expect((approve as HTMLButtonElement).disabled, "actions of a pending request are enabled").toBe(false);

    await fireEvent.click(approve);

    await waitFor(() => expect(answer, "clicking Approve calls the backend's answer").toHaveBeenCalledTimes(1));
    expect(answer, "Approve answers the open message with actionId \"approve\" and no values").toHaveBeenCalledWith(
      "msg-1",
      { actionId: "approve", valuesJson: null, files: {} },
    );
  });

  it("disables the actions of an expired request and says why", async () => {
    renderPane(actionMessage({ summary: summary({ status: "expired" }) }));

    for (const id of ["approve", "reject"]) {
      const button = screen.getByTestId(`action-${id}`) as HTMLButtonElement;
      expect(button.disabled, `the ${id} button of an expired request is disabled`).toBe(true);
    }
    const closed = screen.queryByTestId("message-closed");
    expect(closed, "an expired request shows why it cannot be answered").not.toBeNull();
    expect(closed!.textContent, "the reason names the expiry").toBe(closedReason("expired"));
    expect(closed!.textContent, "the reason mentions that the request expired").toContain("expired");

    await fireEvent.click(screen.getByTestId("action-approve"));
    expect(answer, "an expired request is never answered").not.toHaveBeenCalled();
  });
});

describe("an answer that lost the race", () => {
  it("says plainly it was already answered, shows the winning answer, and raises no error", async () => {
    const answered = actionMessage({
      summary: summary({ status: "answered" }),
      answer: { actionId: "reject", valuesJson: "{}", answeredAt: "2026-03-01T10:01:00Z", attachments: [] },
    });
    answer.mockRejectedValueOnce(new backend.BackendError({ code: "already_answered", message: "This request was already answered." }));
    message.mockResolvedValueOnce(answered);
    const { onChanged } = renderPane(actionMessage());

    await fireEvent.click(screen.getByTestId("action-approve"));

    const notice = await screen.findByTestId("answer-notice");
    expect(notice.textContent, "the loser is told, in words").toContain("Already answered");
    expect(notice.textContent, "and that nothing was sent twice").toContain("not sent again");
    expect(screen.queryByTestId("answer-error"), "no error banner").toBeNull();
    expect(answer, "one attempt, no retry").toHaveBeenCalledTimes(1);
    await waitFor(() => expect(onChanged, "the pane reloads the answered request").toHaveBeenCalledWith(answered));
  });

  it("shows the shell's already-answered notice for a press on a stale notification", () => {
    render(MessagePane, {
      view: actionMessage({ summary: summary({ status: "answered" }) }),
      notice: "alreadyAnswered",
      onChanged: vi.fn(),
      onOpen: vi.fn(),
    });
    expect(screen.getByTestId("answer-notice").textContent).toContain("Already answered");
    expect(screen.queryByTestId("answer-error")).toBeNull();
  });
});

describe("review gate", () => {
  it("hides the actions until the person confirms the review", async () => {
    renderPane(actionMessage({ requiresReview: true }));

    expect(screen.queryByTestId("review-gate"), "a request asking for review shows the gate").not.toBeNull();
    expect(screen.queryByTestId("action-approve"), "Approve is hidden before the review").toBeNull();
    expect(screen.queryByTestId("action-reject"), "Reject is hidden before the review").toBeNull();

    await fireEvent.click(screen.getByTestId("review-confirm"));

    expect(screen.queryByTestId("review-gate"), "the gate goes away once confirmed").toBeNull();
    expect(screen.queryByTestId("action-approve"), "Approve appears after the review").not.toBeNull();
    expect(screen.queryByTestId("action-reject"), "Reject appears after the review").not.toBeNull();
    expect(answer, "confirming the review answers nothing by itself").not.toHaveBeenCalled();
  });

  it("hides the form until the person confirms the review", async () => {
    renderPane(formMessage({ requiresReview: true }));

    const respond = screen.getByTestId("message-respond");
    expect(within(respond).queryByTestId("review-gate"), "a form asking for review shows the gate").not.toBeNull();
    expect(screen.queryByTestId("answer-form"), "the form is hidden before the review").toBeNull();
    expect(screen.queryByTestId("input-reason"), "no field can be filled before the review").toBeNull();

    await fireEvent.click(screen.getByTestId("review-confirm"));

    expect(screen.queryByTestId("answer-form"), "the form appears after the review").not.toBeNull();
    expect(screen.queryByTestId("input-reason"), "the fields appear after the review").not.toBeNull();
  });
});
