// @vitest-environment jsdom
// What a window shows as it starts, besides the inbox. A window that closed on "Save your
// recovery key" (the page ends with it) and is opened again shows the same key first, and tells
// the shell once it is saved; with nothing unsaved the inbox comes at once
// (src-tauri/src/unsaved_key.rs). The sidebar says in words why sync is offline.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import App from "./App.svelte";
import * as backend from "./lib/backend/tauri";
import type { SetupState } from "./lib/bindings/SetupState";
import { READY_SETUP } from "./lib/components/test-fixtures";
import { inboxState } from "./lib/inbox.svelte";

vi.mock("./lib/backend/tauri", async () => (await import("./lib/components/test-fixtures")).fakeBackend());

const setupState = vi.mocked(backend.setupState);
const unsavedRecoveryKey = vi.mocked(backend.unsavedRecoveryKey);
const recoveryKeySaved = vi.mocked(backend.recoveryKeySaved);
const inboxPage = vi.mocked(backend.inboxPage);

const READY: SetupState = READY_SETUP;

beforeEach(() => {
  vi.clearAllMocks();
  inboxState.replaceAll([]);
  setupState.mockResolvedValue(READY);
  unsavedRecoveryKey.mockResolvedValue(null);
});

describe("an unsaved recovery key", () => {
  it("comes back in a reopened window, before the inbox, until it is saved", async () => {
    unsavedRecoveryKey.mockResolvedValue({
      accountId: "acc_1",
      recoveryKey: "ABCD-EFGH-JKMN-PQRS",
      safetyCode: READY.safetyCode!,
    });
    render(App);
    expect((await screen.findByTestId("recovery-key")).textContent, "the same key").toBe("ABCD-EFGH-JKMN-PQRS");
    expect(screen.queryByTestId("app-shell"), "not the inbox yet").toBeNull();
    expect(inboxPage, "the inbox is not read behind it").not.toHaveBeenCalled();

    const next = screen.getByTestId("setup-continue") as HTMLButtonElement;
    expect(next.disabled, "Continue needs the 'I have saved it' tick").toBe(true);
    await fireEvent.click(screen.getByTestId("recovery-saved"));
    await fireEvent.click(next);
    expect(recoveryKeySaved, "the shell is told once").toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("recovery-key"), "the key left the screen").toBeNull();

    await fireEvent.click(await screen.findByTestId("autostart-offer-skip"));
    await screen.findByTestId("app-shell");
  });

  it("leaves a window with nothing unsaved on its inbox", async () => {
    render(App);
    await screen.findByTestId("app-shell");
    await waitFor(() => expect(unsavedRecoveryKey).toHaveBeenCalledTimes(1));
    expect(screen.queryByTestId("recovery-key")).toBeNull();
    expect(recoveryKeySaved).not.toHaveBeenCalled();
  });
});

describe("the sidebar's sync line", () => {
  it("says why it is offline in words, not only in a tooltip, and nothing once connected", async () => {
    const syncState = vi.mocked(backend.syncState);
    const reason = "the embedded relay could not start: port 8457 on 127.0.0.1 is not free";
    syncState.mockResolvedValueOnce({ type: "syncState", connected: false, error: reason });
    render(App);
    expect((await screen.findByTestId("sync-error")).textContent).toBe(reason);
    expect(screen.getByTestId("sync-state").textContent).toContain("Offline");
    inboxState.apply({ type: "syncState", connected: true, error: null });
    await waitFor(() => expect(screen.queryByTestId("sync-error")).toBeNull());
  });
});
