// @vitest-environment jsdom
// The inbox tells the shell which message is open (`ui_viewing`), so the shell skips only that
// message's banner while the window is focused; leaving the inbox says nothing is open.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import { inboxState } from "../inbox.svelte";
import Inbox from "./Inbox.svelte";
import { messageView, summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const message = vi.mocked(backend.message);
const viewing = vi.mocked(backend.uiViewing);

beforeEach(() => {
  vi.clearAllMocks();
  inboxState.replaceAll([]);
});

describe("what the inbox reports", () => {
  it("names the open message, then none once the inbox is left", async () => {
    inboxState.replaceAll([summary({ id: "msg-1", unread: false })]);
    message.mockResolvedValueOnce(messageView({ summary: summary({ id: "msg-1", unread: false }) }));
    const inbox = render(Inbox);
    await fireEvent.click(screen.getByTestId("inbox-item"));
    await waitFor(() => expect(viewing.mock.calls.at(-1)?.[0]).toBe("msg-1"));
    expect(typeof viewing.mock.calls.at(-1)?.[1], "with the window's focus").toBe("boolean");

    inbox.unmount();
    await waitFor(() => expect(viewing.mock.calls.at(-1)?.[0]).toBeNull());
  });
});
