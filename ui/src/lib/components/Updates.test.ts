// @vitest-environment jsdom
// Settings → Updates: check, install what was found, refusals by code, the daily-check switch.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { UpdateCheck } from "../bindings/UpdateCheck";
import type { UpdateSettings } from "../bindings/UpdateSettings";
import Updates from "./Updates.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const settings = vi.mocked(backend.updateSettings);
const setSettings = vi.mocked(backend.setUpdateSettings);
const check = vi.mocked(backend.checkForUpdate);
const install = vi.mocked(backend.installUpdate);
const BackendError = backend.BackendError;

const SETTINGS: UpdateSettings = { autoCheck: true, lastCheckedAt: null, lastCheck: null, currentVersion: "0.1.0" };
const FOUND: UpdateCheck = {
  available: true,
  currentVersion: "0.1.0",
  version: "0.2.0",
  notes: "Faster sync.",
  date: "2026-03-01T10:00:00Z",
  checkedAt: "2026-03-02T09:00:00Z",
};

beforeEach(() => {
  vi.clearAllMocks();
  settings.mockResolvedValue(SETTINGS);
});

const state = () => screen.getByTestId("update-state").dataset.state;

describe("updates", () => {
  it("checks, shows the new version with its notes, and installs it", async () => {
    check.mockResolvedValueOnce(FOUND);
    install.mockResolvedValueOnce(undefined);
    render(Updates);
    await waitFor(() => expect(state()).toBe("unknown"));
    expect(screen.queryByTestId("update-install"), "nothing to install before a check").toBeNull();

    await fireEvent.click(screen.getByTestId("update-check"));
    await waitFor(() => expect(state()).toBe("available"));
    expect(screen.getByTestId("update-state").textContent).toContain("Herald 0.2.0 is available");
    expect(screen.getByTestId("update-notes").textContent).toBe("Faster sync.");
    expect(screen.getByTestId("update-last-checked").textContent, "the check is dated").toMatch(/Last checked/);

    await fireEvent.click(screen.getByTestId("update-install"));
    expect(install).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(state()).toBe("restarting"));
    expect(screen.queryByTestId("update-install"), "no second install").toBeNull();
  });

  it("says when Herald is up to date", async () => {
    check.mockResolvedValueOnce({ ...FOUND, available: false, version: null, notes: null, date: null });
    render(Updates);
    await fireEvent.click(await screen.findByTestId("update-check"));
    await waitFor(() => expect(state()).toBe("current"));
    expect(screen.getByTestId("update-state").textContent).toContain("up to date");
  });

  it("shows what the automatic check found when Settings opens", async () => {
    settings.mockResolvedValueOnce({ ...SETTINGS, lastCheckedAt: FOUND.checkedAt, lastCheck: FOUND });
    render(Updates);
    await waitFor(() => expect(state()).toBe("available"));
    expect(check, "no new check needed").not.toHaveBeenCalled();
  });

  it("shows a refused package's reason and forgets the package", async () => {
    check.mockResolvedValueOnce(FOUND);
    const message = "The update was refused: its signature does not match Herald's release key. Nothing was installed.";
    install.mockRejectedValueOnce(new BackendError({ code: "update_bad_signature", message }));
    render(Updates);
    await fireEvent.click(await screen.findByTestId("update-check"));
    await fireEvent.click(await screen.findByTestId("update-install"));

    const error = await screen.findByTestId("update-error");
    expect(error.dataset.code).toBe("update_bad_signature");
    expect(error.textContent).toBe(message);
    expect(screen.queryByTestId("update-install"), "the refused package cannot be retried").toBeNull();
  });

  it("shows an unreachable server and keeps the button for another try", async () => {
    check.mockRejectedValueOnce(new BackendError({ code: "update_unreachable", message: "Could not reach the update server: connection refused." }));
    render(Updates);
    await fireEvent.click(await screen.findByTestId("update-check"));
    expect((await screen.findByTestId("update-error")).dataset.code).toBe("update_unreachable");
    expect((screen.getByTestId("update-check") as HTMLButtonElement).disabled).toBe(false);
  });

  it("switches the daily check off on this device", async () => {
    setSettings.mockResolvedValueOnce({ ...SETTINGS, autoCheck: false });
    render(Updates);
    const auto = (await screen.findByTestId("update-auto")) as HTMLInputElement;
    await waitFor(() => expect(auto.disabled).toBe(false));
    expect(auto.checked, "on by default").toBe(true);
    await fireEvent.click(auto);
    expect(setSettings).toHaveBeenCalledWith(false);
    await waitFor(() => expect(auto.checked).toBe(false));
  });

  it("puts the switch back when saving fails", async () => {
    setSettings.mockRejectedValueOnce(new BackendError({ code: "storage", message: "The update settings could not be saved: disk full." }));
    render(Updates);
    const auto = (await screen.findByTestId("update-auto")) as HTMLInputElement;
    await waitFor(() => expect(auto.disabled).toBe(false));
    await fireEvent.click(auto);
    expect((await screen.findByTestId("update-error")).dataset.code).toBe("storage");
    expect(auto.checked, "still on").toBe(true);
  });
});
