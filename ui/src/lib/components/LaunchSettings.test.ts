// @vitest-environment jsdom
// Settings → Startup and shortcut: the start-at-login switch, the shortcut shown the platform's
// way, a new one recorded from the keys pressed, Reset to default and Off, and the shell's
// refusals and warnings said as it words them.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { LaunchSettings as Launch } from "../backend/tauri";
import BackgroundNotice from "./BackgroundNotice.svelte";
import LaunchSettings from "./LaunchSettings.svelte";
import Settings from "./Settings.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const launchSettings = vi.mocked(backend.launchSettings);
const setAutostart = vi.mocked(backend.setAutostart);
const setShortcut = vi.mocked(backend.setShortcut);
const confirmClose = vi.mocked(backend.confirmClose);
const BackendError = backend.BackendError;

const LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const SAVED: Launch = { autostart: false, shortcut: "CommandOrControl+Shift+H", shortcutError: null };

beforeEach(() => {
  vi.clearAllMocks();
  launchSettings.mockResolvedValue(SAVED);
});

function show(userAgent = LINUX) {
  render(LaunchSettings, { userAgent });
}

const autostart = () => screen.getByTestId("launch-autostart") as HTMLInputElement;
const shortcut = () => screen.getByTestId("launch-shortcut");

async function startRecording(): Promise<HTMLInputElement> {
  await fireEvent.click(await screen.findByTestId("launch-shortcut-change"));
  const field = screen.getByTestId("launch-shortcut-record") as HTMLInputElement;
  await waitFor(() => expect(document.activeElement, "the field takes the keys").toBe(field));
  return field;
}

describe("start at login", () => {
  it("switches on and says it starts in the background", async () => {
    setAutostart.mockResolvedValueOnce({ ...SAVED, autostart: true });
    show();
    await waitFor(() => expect(autostart().checked).toBe(false));
    expect(screen.getByTestId("launch-settings").textContent).toContain("Start Herald when you log in");
    expect(screen.getByTestId("launch-settings").textContent, "in the background, no window").toMatch(/background.*system tray, no\s+window/s);

    await fireEvent.click(autostart());
    expect(setAutostart).toHaveBeenCalledWith(true);
    await waitFor(() => expect(autostart().checked).toBe(true));
  });

  it("switches off", async () => {
    launchSettings.mockResolvedValueOnce({ ...SAVED, autostart: true });
    setAutostart.mockResolvedValueOnce(SAVED);
    show();
    await waitFor(() => expect(autostart().checked).toBe(true));
    await fireEvent.click(autostart());
    expect(setAutostart).toHaveBeenCalledWith(false);
    await waitFor(() => expect(autostart().checked).toBe(false));
  });

  it("says why it could not, and shows the switch as it still is", async () => {
    setAutostart.mockRejectedValueOnce(new BackendError({ code: "storage", message: "Could not write the login item." }));
    show();
    await waitFor(() => expect(autostart().checked).toBe(false));
    await fireEvent.click(autostart());

    const error = await screen.findByTestId("launch-error");
    expect(error.textContent).toBe("Could not write the login item.");
    expect(autostart().checked, "the switch goes back").toBe(false);
  });
});

describe("the shortcut", () => {
  it("is shown readably and says what it does", async () => {
    show();
    await waitFor(() => expect(shortcut().textContent).toBe("Ctrl+Shift+H"));
    expect(screen.getByTestId("launch-settings").textContent).toContain(
      "Opens the newest request waiting for you; then A approves and R rejects as in the window.",
    );
  });

  it("is shown with the Mac's symbols on a Mac", async () => {
    show(MAC);
    await waitFor(() => expect(shortcut().textContent).toBe("⌘⇧H"));
  });

  it("records the chord pressed and saves it", async () => {
    setShortcut.mockResolvedValueOnce({ ...SAVED, shortcut: "CommandOrControl+Alt+J" });
    show();
    const field = await startRecording();

    await fireEvent.keyDown(field, { key: "Control", code: "ControlLeft", ctrlKey: true });
    await fireEvent.keyDown(field, { key: "Alt", code: "AltLeft", ctrlKey: true, altKey: true });
    expect(setShortcut, "modifiers alone are not a shortcut").not.toHaveBeenCalled();
    await fireEvent.keyDown(field, { key: "j", code: "KeyJ", ctrlKey: true, altKey: true });

    expect(setShortcut).toHaveBeenCalledWith("CommandOrControl+Alt+J");
    await waitFor(() => expect(shortcut().textContent).toBe("Ctrl+Alt+J"));
    expect(screen.queryByTestId("launch-shortcut-record"), "the field closes once saved").toBeNull();
  });

  it("asks for Ctrl or Alt with the key and saves nothing meanwhile", async () => {
    show();
    const field = await startRecording();
    await fireEvent.keyDown(field, { key: "H", code: "KeyH", shiftKey: true });

    expect(screen.getByTestId("launch-shortcut-hint").textContent).toMatch(/Hold Ctrl or Alt with the key/);
    expect(setShortcut).not.toHaveBeenCalled();
  });

  it("takes Ctrl+Q as a chord while recording, and Herald does not quit", async () => {
    setShortcut.mockResolvedValueOnce({ ...SAVED, shortcut: "CommandOrControl+Q" });
    render(BackgroundNotice, { userAgent: LINUX });
    show();
    const field = await startRecording();
    await fireEvent.keyDown(field, { key: "q", code: "KeyQ", ctrlKey: true });

    expect(setShortcut).toHaveBeenCalledWith("CommandOrControl+Q");
    expect(confirmClose, "Ctrl+Q in the field is not a quit").not.toHaveBeenCalled();
  });

  it("shows the shell's refusal and lets another chord be tried", async () => {
    const message = "Ctrl+Shift+K is used by another app.";
    setShortcut
      .mockRejectedValueOnce(new BackendError({ code: "shortcut_taken", message }))
      .mockResolvedValueOnce({ ...SAVED, shortcut: "CommandOrControl+Shift+L" });
    show();
    const field = await startRecording();
    await fireEvent.keyDown(field, { key: "K", code: "KeyK", ctrlKey: true, shiftKey: true });

    const error = await screen.findByTestId("launch-error");
    expect(error.dataset.code).toBe("shortcut_taken");
    expect(error.textContent).toBe(message);
    expect(shortcut().textContent, "the saved shortcut is unchanged").toBe("Ctrl+Shift+H");

    await fireEvent.keyDown(screen.getByTestId("launch-shortcut-record"), { key: "L", code: "KeyL", ctrlKey: true, shiftKey: true });
    await waitFor(() => expect(shortcut().textContent).toBe("Ctrl+Shift+L"));
    expect(screen.queryByTestId("launch-error"), "the error goes with the next success").toBeNull();
  });

  it("closes the field on Escape without saving", async () => {
    show();
    const field = await startRecording();
    await fireEvent.keyDown(field, { key: "Escape", code: "Escape" });
    expect(screen.queryByTestId("launch-shortcut-record")).toBeNull();
    expect(setShortcut).not.toHaveBeenCalled();
  });

  it("turns off, and comes back with Reset to default", async () => {
    setShortcut.mockResolvedValueOnce({ ...SAVED, shortcut: "" }).mockResolvedValueOnce(SAVED);
    show();
    const reset = (await screen.findByTestId("launch-shortcut-default")) as HTMLButtonElement;
    expect(reset.disabled, "already the default").toBe(true);

    await fireEvent.click(screen.getByTestId("launch-shortcut-off"));
    expect(setShortcut).toHaveBeenLastCalledWith("");
    await waitFor(() => expect(shortcut().textContent).toBe("Off"));
    expect((screen.getByTestId("launch-shortcut-off") as HTMLButtonElement).disabled, "already off").toBe(true);

    await fireEvent.click(reset);
    expect(setShortcut).toHaveBeenLastCalledWith("CommandOrControl+Shift+H");
    await waitFor(() => expect(shortcut().textContent).toBe("Ctrl+Shift+H"));
  });

  it("warns when the shortcut could not be registered", async () => {
    launchSettings.mockResolvedValueOnce({ ...SAVED, shortcutError: "Another app has registered Ctrl+Shift+H." });
    show();
    const warning = await screen.findByTestId("launch-shortcut-warning");
    expect(warning.textContent).toContain("does not work right now");
    expect(warning.textContent).toContain("Another app has registered Ctrl+Shift+H.");
  });

  it("says when the settings cannot be read", async () => {
    launchSettings.mockRejectedValueOnce(new BackendError({ code: "storage", message: "unreadable" }));
    show();
    expect((await screen.findByTestId("launch-load-error")).textContent).toBe("unreadable");
  });
});

describe("in Settings", () => {
  it("has its own tab", async () => {
    render(Settings, {
      setup: {
        status: "ready",
        accountId: "acc_1",
        deviceId: "dev_1",
        deviceName: "laptop",
        relayUrl: null,
        safetyCode: null,
        secretStorage: "keychain",
        secretStoragePath: null,
      },
    });
    const tab = screen.getByTestId("settings-tab-startup");
    expect(tab.textContent?.trim()).toBe("Startup and shortcut");
    await fireEvent.click(tab);
    expect(await screen.findByTestId("launch-settings")).not.toBeNull();
  });
});
