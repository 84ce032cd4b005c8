// @vitest-environment jsdom
// The shell's one "open" event (`herald://open`, an OpenTarget) leads to the right place, and a
// window made afresh asks once (`take_open_target`) what it was made for. A connector link only
// fills in the code: nothing is approved until the person presses Approve.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { tick } from "svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import App from "./App.svelte";
import * as backend from "./lib/backend/tauri";
import type { SetupState } from "./lib/bindings/SetupState";
import { agentNotification, messageView, READY_SETUP, summary } from "./lib/components/test-fixtures";
import { inboxState } from "./lib/inbox.svelte";
import type { OpenTarget } from "./lib/open-target";
import { settingsOpen } from "./lib/settings-open.svelte";

vi.mock("./lib/backend/tauri", async () => (await import("./lib/components/test-fixtures")).fakeBackend());

const setupState = vi.mocked(backend.setupState);
const onOpen = vi.mocked(backend.onOpen);
const takeOpenTarget = vi.mocked(backend.takeOpenTarget);
const message = vi.mocked(backend.message);
const notifications = vi.mocked(backend.notifications);
const approveConnector = vi.mocked(backend.approveConnector);
const resetAccount = vi.mocked(backend.resetAccount);
const createAccount = vi.mocked(backend.createAccount);

const READY: SetupState = READY_SETUP;
const NEEDS_SETUP: SetupState = { ...READY, status: "needsSetup", accountId: null, deviceId: null, deviceName: null, relayUrl: null, safetyCode: null };

beforeEach(() => {
  vi.clearAllMocks();
  inboxState.replaceAll([]);
  inboxState.replaceNotifications([]);
  settingsOpen.clear();
  inboxState.openRequest = null;
  inboxState.openNotificationRequest = null;
  setupState.mockResolvedValue(READY);
  message.mockImplementation((id) => Promise.resolve(messageView({ summary: summary({ id, threadId: id }) })));
});

/** Renders the app, waits for the inbox, and returns the shell's side of `herald://open`. */
async function start(): Promise<(target: OpenTarget) => void> {
  render(App);
  await screen.findByTestId("app-shell");
  await waitFor(() => expect(takeOpenTarget, "the start is over once the window asked").toHaveBeenCalled());
  expect(onOpen, "one listener for every open target").toHaveBeenCalledTimes(1);
  return onOpen.mock.calls[0][0];
}

/** Lets Svelte apply what changed and run the effects it started. */
async function settled() {
  await tick();
  await new Promise((later) => setTimeout(later, 0));
}

const current = () => document.querySelector('[aria-current="page"]')?.getAttribute("data-testid");

describe("the open event", () => {
  it("opens the message a banner was for, with the note that it was answered already", async () => {
    const open = await start();
    open({ kind: "message", id: "msg-2", notice: "alreadyAnswered" });

    const pane = await screen.findByTestId("message-pane");
    expect(pane.dataset.messageId, "that message is open").toBe("msg-2");
    expect(message).toHaveBeenCalledWith("msg-2");
    expect(screen.getByTestId("answer-notice").textContent, "the note is said").toMatch(/Already answered/i);
  });

  it("opens an agent's notification", async () => {
    notifications.mockResolvedValue([agentNotification({ id: "ntf_7", unread: false })]);
    const open = await start();
    open({ kind: "notification", id: "ntf_7" });

    expect((await screen.findByTestId("notification-pane")).dataset.notificationId).toBe("ntf_7");
    expect(message, "a notification is not loaded as a message").not.toHaveBeenCalled();
  });

  it("comes back to the inbox for the inbox and the newest pending request", async () => {
    const open = await start();
    for (const target of [{ kind: "inbox" }, { kind: "newestPending" }] as OpenTarget[]) {
      await fireEvent.click(screen.getByTestId("nav-connections"));
      expect(current()).toBe("nav-connections");
      open(target);
      await waitFor(() => expect(current(), `${target.kind} shows the inbox`).toBe("nav-inbox"));
    }
  });

  it("fills a connector's code in at Settings → Agents and approves only on the person's press", async () => {
    const open = await start();
    open({ kind: "connector", userCode: "BCDF-GHJK" });

    const input = (await screen.findByTestId("connector-code-input")) as HTMLInputElement;
    expect(current(), "Settings is shown").toBe("nav-settings");
    expect(screen.getByTestId("settings-tab-agents").getAttribute("aria-selected"), "on the Agents tab").toBe("true");
    await waitFor(() => expect(input.value, "the code is filled in").toBe("BCDF-GHJK"));
    const approve = screen.getByTestId("connector-approve") as HTMLButtonElement;
    await waitFor(() => expect(document.activeElement, "the focus is on the code, not on Approve (an Enter meant for another app approves nothing)").toBe(input));
    expect(screen.getByTestId("connector-from-link").textContent, "it says to compare the code").toMatch(/only if it is the code/);
    expect(approveConnector, "a link approves nothing by itself").not.toHaveBeenCalled();

    approveConnector.mockResolvedValueOnce({ id: "ctr_1", name: "Claude", clientId: "claude", tokenIssued: false, createdAt: "2026-03-01T10:00:00Z" });
    await fireEvent.click(approve);
    expect(approveConnector, "the press approves that code").toHaveBeenCalledWith("BCDF-GHJK", null);
    expect((await screen.findByTestId("connector-result")).dataset.result).toBe("approved");
  });

  it("fills in a second link's code over the first", async () => {
    const open = await start();
    open({ kind: "connector", userCode: "BCDF-GHJK" });
    const input = (await screen.findByTestId("connector-code-input")) as HTMLInputElement;
    await waitFor(() => expect(input.value).toBe("BCDF-GHJK"));
    open({ kind: "connector", userCode: "MNPQ-RSTV" });
    await waitFor(() => expect(input.value, "the newer code").toBe("MNPQ-RSTV"));
    expect(approveConnector).not.toHaveBeenCalled();
  });

  it("opens Settings at approving a new device", async () => {
    const open = await start();
    open({ kind: "approveDevice" });

    expect(await screen.findByTestId("approve-device")).not.toBeNull();
    expect(screen.getByTestId("settings-tab-approve").getAttribute("aria-selected")).toBe("true");
  });

  it("moves nowhere while a new recovery key is on screen", async () => {
    resetAccount.mockResolvedValueOnce({ accountId: "acc_2", recoveryKey: "AAAA-BBBB-CCCC", safetyCode: READY.safetyCode! });
    const open = await start();
    await fireEvent.click(screen.getByTestId("nav-settings"));
    await fireEvent.click(screen.getByTestId("settings-tab-reset"));
    await fireEvent.input(screen.getByTestId("reset-confirm-input"), { target: { value: "RESET" } });
    await fireEvent.click(screen.getByTestId("reset-submit"));
    await screen.findByTestId("recovery-key");

    for (const target of [
      { kind: "message", id: "msg-2", notice: null },
      { kind: "notification", id: "ntf_7" },
      { kind: "inbox" },
      { kind: "approveDevice" },
      { kind: "connector", userCode: "BCDF-GHJK" },
    ] as OpenTarget[]) {
      open(target);
      await settled();
      expect(screen.queryByTestId("recovery-key")?.textContent, `the key stays on screen after ${target.kind}`).toBe("AAAA-BBBB-CCCC");
    }
    expect(message, "no message was opened").not.toHaveBeenCalled();
    expect(screen.queryByTestId("connector-code-input"), "nor Settings → Agents").toBeNull();
  });
});

describe("a window made afresh", () => {
  it("asks once, after listening and once the account is ready, and opens what it names", async () => {
    takeOpenTarget.mockResolvedValueOnce({ kind: "message", id: "msg-3", notice: null });
    render(App);

    expect((await screen.findByTestId("message-pane")).dataset.messageId, "the target is open").toBe("msg-3");
    expect(takeOpenTarget, "asked once").toHaveBeenCalledTimes(1);
    const asked = takeOpenTarget.mock.invocationCallOrder[0];
    expect(onOpen.mock.invocationCallOrder[0], "the listener came first").toBeLessThan(asked);
    expect(setupState.mock.invocationCallOrder[0], "the setup state was known first").toBeLessThan(asked);
  });

  it("opens a connector link it was made for at Settings → Agents, unapproved", async () => {
    takeOpenTarget.mockResolvedValueOnce({ kind: "connector", userCode: "BCDF-GHJK" });
    render(App);

    const input = (await screen.findByTestId("connector-code-input")) as HTMLInputElement;
    await waitFor(() => expect(input.value).toBe("BCDF-GHJK"));
    expect(approveConnector).not.toHaveBeenCalled();
  });

  it("stays on the inbox when there is nothing to show", async () => {
    await start();
    expect(current()).toBe("nav-inbox");
    expect(screen.getByTestId("reading-empty")).not.toBeNull();
  });

  it("does not ask before an account exists, and asks once it does", async () => {
    setupState.mockResolvedValueOnce(NEEDS_SETUP).mockResolvedValueOnce(NEEDS_SETUP).mockResolvedValue(READY);
    createAccount.mockResolvedValueOnce({ accountId: "acc_1", recoveryKey: "AAAA-BBBB-CCCC", safetyCode: READY.safetyCode! });
    takeOpenTarget.mockResolvedValueOnce({ kind: "approveDevice" });
    render(App);

    await fireEvent.click(await screen.findByTestId("setup-create"));
    await fireEvent.click(await screen.findByTestId("recovery-saved"));
    await fireEvent.click(screen.getByTestId("setup-continue"));
    expect(takeOpenTarget, "not during setup").not.toHaveBeenCalled();
    await fireEvent.click(await screen.findByTestId("autostart-offer-skip"));

    expect(await screen.findByTestId("approve-device"), "the target opens after setup").not.toBeNull();
    expect(takeOpenTarget).toHaveBeenCalledTimes(1);
  });
});
