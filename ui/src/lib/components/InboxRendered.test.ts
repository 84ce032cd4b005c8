// @vitest-environment jsdom
// Colour after first paint: the core shows long code plain at first (`highlight-skipped`), then
// announces `messageRendered`; the open pane swaps in the coloured body and nothing else —
// the same form inputs (with what was typed) stay.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import { inboxState } from "../inbox.svelte";
import { withRenderedBody } from "../rendered";
import Inbox from "./Inbox.svelte";
import { formMessage, messageView, summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const message = vi.mocked(backend.message);
const PLAIN = '<pre class="code-block hl-code highlight-skipped"><code>x = 1\n</code></pre>';
const COLOURED = '<pre class="code-block hl-code"><code><span class="hl-source">x = 1\n</span></code></pre>';

beforeEach(() => {
  vi.clearAllMocks();
  inboxState.replaceAll([]);
});

describe("withRenderedBody", () => {
  it("changes only the body, and only for the same message", () => {
    const current = formMessage({ bodyHtml: PLAIN });
    const fresh = formMessage({ bodyHtml: COLOURED });
    const swapped = withRenderedBody(current, fresh);
    expect(swapped.bodyHtml).toBe(COLOURED);
    expect(swapped.fields, "the form's fields keep their identity").toBe(current.fields);
    const other = messageView({ summary: summary({ id: "msg-2" }), bodyHtml: COLOURED });
    expect(withRenderedBody(current, other), "another message changes nothing").toBe(current);
    expect(withRenderedBody(current, formMessage({ bodyHtml: PLAIN })), "same body: same view").toBe(current);
  });
});

describe("messageRendered", () => {
  it("swaps the coloured body into the open pane and keeps what was typed", async () => {
    inboxState.replaceAll([summary({ unread: false })]);
    message.mockResolvedValueOnce(formMessage({ bodyHtml: PLAIN, summary: summary({ unread: false }) }));
    render(Inbox);
    await fireEvent.click(screen.getByTestId("inbox-item"));
    const body = await screen.findByTestId("message-body");
    expect(body.querySelector("pre.highlight-skipped"), "first paint is plain").not.toBeNull();
    const input = screen.getByTestId("input-reason") as HTMLInputElement;
    await fireEvent.input(input, { target: { value: "half typed" } });

    message.mockResolvedValueOnce(formMessage({ bodyHtml: COLOURED, summary: summary({ unread: false }) }));
    inboxState.apply({ type: "messageRendered", id: "msg-1" });

    await waitFor(() => expect(screen.getByTestId("message-body").querySelector("span.hl-source")).not.toBeNull());
    expect(screen.getByTestId("message-body").querySelector(".highlight-skipped")).toBeNull();
    expect(screen.getByTestId("input-reason"), "the same input element").toBe(input);
    expect(input.value, "what was typed is kept").toBe("half typed");
    expect(message).toHaveBeenCalledTimes(2);

    // An event for another message fetches nothing.
    inboxState.apply({ type: "messageRendered", id: "msg-other" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(message).toHaveBeenCalledTimes(2);
  });
});

describe("InboxState", () => {
  it("records messageRendered events", () => {
    inboxState.apply({ type: "messageRendered", id: "msg-9" });
    expect(inboxState.lastRendered?.id).toBe("msg-9");
  });
});
