// @vitest-environment jsdom
// The last step of creating an account and of unlocking a new device: "Start Herald when you
// log in?" — Start at login turns it on, Not now goes on without, and a failure is said while
// the person can still go on.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { SetupState } from "../bindings/SetupState";
import Setup from "./Setup.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const createAccount = vi.mocked(backend.createAccount);
const setupState = vi.mocked(backend.setupState);
const unlock = vi.mocked(backend.unlockWithRecoveryKey);
const setAutostart = vi.mocked(backend.setAutostart);
const BackendError = backend.BackendError;

const SAFETY = "12345 67890 13579 24680 11111 22222";
const NEEDS_SETUP: SetupState = {
  status: "needsSetup",
  accountId: null,
  deviceId: null,
  deviceName: null,
  relayUrl: null,
  safetyCode: null,
  secretStorage: "keychain",
  secretStoragePath: null,
};
const LAUNCH = { autostart: true, shortcut: "CommandOrControl+Shift+H", shortcutError: null };

beforeEach(() => {
  vi.clearAllMocks();
  createAccount.mockResolvedValue({ accountId: "acc_1", recoveryKey: "AAAA-BBBB-CCCC", safetyCode: SAFETY });
  setupState.mockResolvedValue({ ...NEEDS_SETUP, status: "ready", accountId: "acc_1" });
  unlock.mockResolvedValue({ accountId: "acc_1", safetyCode: SAFETY });
});

/** Creates an account and gets past the recovery key, up to the offer. */
async function createdAccount(onDone: () => void) {
  render(Setup, { setup: NEEDS_SETUP, onDone });
  await fireEvent.click(screen.getByTestId("setup-create"));
  await fireEvent.click(await screen.findByTestId("recovery-saved"));
  await fireEvent.click(screen.getByTestId("setup-continue"));
  return screen.findByTestId("autostart-offer");
}

/** Unlocks this device with the recovery key, up to the offer. */
async function unlockedDevice(onDone: () => void) {
  render(Setup, { setup: NEEDS_SETUP, onDone });
  await fireEvent.click(screen.getByTestId("setup-new-device"));
  await fireEvent.input(screen.getByTestId("join-relay-url"), { target: { value: "https://relay.example.com" } });
  await fireEvent.input(screen.getByTestId("join-recovery-input"), { target: { value: "7K2M-9QXD-4HVB-R8TN-3JWE-6PCA-Z1FG" } });
  await fireEvent.click(screen.getByTestId("join-recovery-submit"));
  await fireEvent.click(await screen.findByTestId("setup-continue"));
  return screen.findByTestId("autostart-offer");
}

describe("after creating an account", () => {
  it("offers to start at login, and Start at login turns it on before the inbox", async () => {
    setAutostart.mockResolvedValueOnce(LAUNCH);
    const onDone = vi.fn();
    const offer = await createdAccount(onDone);
    expect(offer.textContent).toContain("Start Herald when you log in?");
    expect(onDone, "the inbox waits for an answer").not.toHaveBeenCalled();
    expect(screen.queryByTestId("recovery-key"), "the recovery key has left the screen").toBeNull();

    await fireEvent.click(screen.getByTestId("autostart-offer-accept"));
    expect(setAutostart).toHaveBeenCalledWith(true);
    await waitFor(() => expect(onDone, "then the inbox").toHaveBeenCalledTimes(1));
  });

  it("goes on without it on Not now", async () => {
    const onDone = vi.fn();
    await createdAccount(onDone);
    await fireEvent.click(screen.getByTestId("autostart-offer-skip"));
    expect(onDone).toHaveBeenCalledTimes(1);
    expect(setAutostart, "nothing is changed").not.toHaveBeenCalled();
  });

  it("says when it could not be turned on, and lets the person go on", async () => {
    setAutostart.mockRejectedValueOnce(new BackendError({ code: "storage", message: "No permission to add a login item." }));
    const onDone = vi.fn();
    await createdAccount(onDone);
    await fireEvent.click(screen.getByTestId("autostart-offer-accept"));

    const error = await screen.findByTestId("autostart-offer-error");
    expect(error.textContent).toContain("No permission to add a login item.");
    expect(onDone, "not on into the inbox by itself").not.toHaveBeenCalled();
    const skip = screen.getByTestId("autostart-offer-skip");
    expect(skip.textContent?.trim()).toBe("Continue");
    await fireEvent.click(skip);
    expect(onDone).toHaveBeenCalledTimes(1);
  });
});

describe("after unlocking a new device", () => {
  it("offers the same step, and Start at login turns it on", async () => {
    setAutostart.mockResolvedValueOnce(LAUNCH);
    const onDone = vi.fn();
    await unlockedDevice(onDone);
    expect(onDone).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId("autostart-offer-accept"));
    expect(setAutostart).toHaveBeenCalledWith(true);
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
  });

  it("goes on without it on Not now", async () => {
    const onDone = vi.fn();
    await unlockedDevice(onDone);
    await fireEvent.click(screen.getByTestId("autostart-offer-skip"));
    expect(onDone).toHaveBeenCalledTimes(1);
    expect(setAutostart).not.toHaveBeenCalled();
  });

  it("can try again after a failure", async () => {
    setAutostart.mockRejectedValueOnce(new BackendError({ code: "storage", message: "busy" })).mockResolvedValueOnce(LAUNCH);
    const onDone = vi.fn();
    await unlockedDevice(onDone);
    await fireEvent.click(screen.getByTestId("autostart-offer-accept"));
    await screen.findByTestId("autostart-offer-error");
    await fireEvent.click(screen.getByTestId("autostart-offer-accept"));
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(setAutostart).toHaveBeenCalledTimes(2);
  });
});
