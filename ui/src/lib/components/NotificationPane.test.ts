// @vitest-environment jsdom
// A notification from an agent: marked plainly as not end-to-end encrypted, its receipts, the
// reply box for expectReply, and what is said when speech or voice replies are unavailable.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import NotificationPane from "./NotificationPane.svelte";
import { agentNotification } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const seen = vi.mocked(backend.notificationSeen);
const reply = vi.mocked(backend.replyNotification);
const speech = vi.mocked(backend.speechStatus);

beforeEach(() => {
  vi.clearAllMocks();
  seen.mockImplementation(async (id) => agentNotification({ id, displayedAt: "2026-03-01T10:05:01Z" }));
});

function renderPane(patch: Parameters<typeof agentNotification>[0] = {}) {
  const onChanged = vi.fn();
  render(NotificationPane, { notification: agentNotification(patch), onChanged });
  return onChanged;
}

describe("a notification from an agent", () => {
  it("says plainly it went through the relay, not end to end", () => {
    renderPane();
    const note = screen.getByTestId("notification-not-e2e");
    expect(note.textContent).toContain("Sent through the relay, not end-to-end encrypted");
    expect(screen.getByTestId("notification-body").textContent).toBe("All 214 tests passed.");
    expect(screen.getByTestId("notification-source").textContent).toBe("build-bot");
  });

  it("counts as displayed once opened, and shows when", async () => {
    const onChanged = renderPane();
    await waitFor(() => expect(seen).toHaveBeenCalledWith("ntf_1"));
    await waitFor(() => expect(onChanged).toHaveBeenCalledWith(expect.objectContaining({ displayedAt: "2026-03-01T10:05:01Z" })));
  });

  it("reports nothing for one held back by quiet hours, and says why", () => {
    renderPane({ suppressed: true, speak: true });
    expect(seen, "held back: not displayed").not.toHaveBeenCalled();
    expect(screen.getByTestId("receipt-displayed").dataset.state).toBe("suppressed");
    expect(screen.getByTestId("receipt-spoken").textContent).toContain("quiet hours");
  });

  it("says speech is unavailable when the speech service is, never that it spoke", async () => {
    speech.mockResolvedValueOnce({ available: false, reason: "no speech service (connection refused)" });
    renderPane({ speak: true, displayedAt: "2026-03-01T10:05:01Z" });
    const unavailable = await screen.findByTestId("speech-unavailable");
    expect(unavailable.textContent).toContain("speech is unavailable on this computer");
    expect(unavailable.textContent).toContain("connection refused");
    expect(screen.getByTestId("receipt-spoken").dataset.state).toBe("no");
  });

  it("shows when it was read aloud", () => {
    renderPane({ speak: true, spokenAt: "2026-03-01T10:05:03Z", displayedAt: "2026-03-01T10:05:01Z" });
    expect(screen.getByTestId("receipt-spoken").dataset.state).toBe("yes");
  });
});

describe("the reply box", () => {
  it("sends the typed reply once and shows it", async () => {
    const replied = agentNotification({ expectReply: true, reply: "Ship it", repliedAt: "2026-03-01T10:06:00Z" });
    reply.mockResolvedValueOnce(replied);
    const onChanged = renderPane({ expectReply: true, displayedAt: "2026-03-01T10:05:01Z" });

    expect(screen.getByTestId("voice-reply-unavailable").textContent).toContain("Voice replies are not available");
    const send = screen.getByTestId("notification-reply-send") as HTMLButtonElement;
    expect(send.disabled, "nothing typed, nothing to send").toBe(true);
    await fireEvent.input(screen.getByTestId("notification-reply-input"), { target: { value: "Ship it" } });
    await fireEvent.click(send);

    await waitFor(() => expect(reply).toHaveBeenCalledTimes(1));
    expect(reply).toHaveBeenCalledWith("ntf_1", "Ship it");
    await waitFor(() => expect(onChanged).toHaveBeenCalledWith(replied));
  });

  it("shows the reply already given instead of the box", () => {
    renderPane({ expectReply: true, reply: "Later", repliedAt: "2026-03-01T10:06:00Z", displayedAt: "2026-03-01T10:05:01Z" });
    expect(screen.queryByTestId("notification-reply-input")).toBeNull();
    expect(screen.getByTestId("notification-reply-text").textContent).toBe("Later");
  });

  it("explains a reply that was already given elsewhere", async () => {
    reply.mockRejectedValueOnce(new backend.BackendError({ code: "already_answered", message: "already" }));
    renderPane({ expectReply: true, displayedAt: "2026-03-01T10:05:01Z" });
    await fireEvent.input(screen.getByTestId("notification-reply-input"), { target: { value: "Yes" } });
    await fireEvent.click(screen.getByTestId("notification-reply-send"));
    const error = await screen.findByTestId("notification-reply-error");
    expect(error.textContent).toContain("already sent");
  });

  it("has no reply box when no reply is expected", () => {
    renderPane();
    expect(screen.queryByTestId("notification-reply")).toBeNull();
  });
});
