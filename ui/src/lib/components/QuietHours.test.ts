// @vitest-environment jsdom
// Settings → Notifications: quiet hours load and save; whether they hold now; speech status.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import QuietHours from "./QuietHours.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const get = vi.mocked(backend.quietHours);
const set = vi.mocked(backend.setQuietHours);
const speech = vi.mocked(backend.speechStatus);

const SAVED = { enabled: true, start: "22:00", end: "07:00", timezone: "Europe/Paris", active: false };

beforeEach(() => {
  vi.clearAllMocks();
  get.mockResolvedValue(SAVED);
});

describe("quiet hours", () => {
  it("saves the edited period and shows that it holds now", async () => {
    set.mockResolvedValueOnce({ ...SAVED, start: "00:00", end: "23:59", active: true });
    render(QuietHours);
    const start = (await screen.findByTestId("quiet-start")) as HTMLInputElement;
    expect(start.value).toBe("22:00");
    expect(screen.getByTestId("quiet-state").dataset.active).toBe("false");
    const save = screen.getByTestId("quiet-save") as HTMLButtonElement;
    expect(save.disabled, "nothing changed yet").toBe(true);

    await fireEvent.input(start, { target: { value: "00:00" } });
    await fireEvent.input(screen.getByTestId("quiet-end"), { target: { value: "23:59" } });
    await fireEvent.click(save);

    expect(set).toHaveBeenCalledWith({ enabled: true, start: "00:00", end: "23:59", timezone: "Europe/Paris", active: false });
    await waitFor(() => expect(screen.getByTestId("quiet-state").dataset.active).toBe("true"));
    expect(screen.getByTestId("quiet-state").textContent).toContain("on now");
  });

  it("refuses a period that ends where it starts", async () => {
    render(QuietHours);
    await fireEvent.input(await screen.findByTestId("quiet-end"), { target: { value: "22:00" } });
    expect((screen.getByTestId("quiet-save") as HTMLButtonElement).disabled).toBe(true);
  });

  it("says when speech is unavailable, and that replies are typed", async () => {
    speech.mockResolvedValueOnce({ available: false, reason: "no speech service" });
    render(QuietHours);
    await waitFor(() => expect(screen.getByTestId("speech-status").dataset.available).toBe("false"));
    expect(screen.getByTestId("speech-status").textContent).toContain("Speech is unavailable on this computer (no speech service)");
    expect(screen.getByTestId("voice-reply-note").textContent).toContain("Voice replies are not available");
  });
});
