// @vitest-environment jsdom
// The first close of the window: the shell's `herald://close-requested` shows the notice once
// (Herald keeps running; how to quit), its buttons answer with confirmClose(false | true),
// Escape closes, later closes go through at once, Ctrl+Q quits, and while it is open the
// inbox's own keys do not fire behind it.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import BackgroundNotice from "./BackgroundNotice.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const onCloseRequested = vi.mocked(backend.onCloseRequested);
const closeHintShown = vi.mocked(backend.closeHintShown);
const confirmClose = vi.mocked(backend.confirmClose);

const LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)";

/** Renders the notice and returns what the shell's close event would call. */
async function mount(userAgent = LINUX): Promise<() => void> {
  render(BackgroundNotice, { userAgent });
  await waitFor(() => expect(onCloseRequested, "the notice listens for the shell's close event").toHaveBeenCalledTimes(1));
  return onCloseRequested.mock.calls[0][0];
}

async function closeWindow(): Promise<HTMLElement> {
  const close = await mount();
  close();
  return screen.findByTestId("background-notice");
}

beforeEach(() => {
  vi.clearAllMocks();
  closeHintShown.mockResolvedValue(false);
  confirmClose.mockResolvedValue();
});

describe("the first close of the window", () => {
  it("says Herald keeps running and how to quit, with the focus on OK", async () => {
    const notice = await closeWindow();

    expect(notice.getAttribute("role"), "it is a dialog").toBe("dialog");
    expect(notice.getAttribute("aria-modal"), "a modal one").toBe("true");
    const title = document.getElementById(notice.getAttribute("aria-labelledby")!);
    expect(title?.textContent, "its title says what happens").toBe("Herald keeps running in the background");
    const text = notice.textContent!.replace(/\s+/g, " ");
    expect(text, "agents can still reach the person").toContain("agents can still reach you");
    expect(text, "requests still notify").toContain("new requests still show notifications");
    expect(screen.getByTestId("background-notice-how").textContent!.replace(/\s+/g, " "), "how to quit, on Linux").toContain(
      "Quit from the menu of Herald's icon in the system tray, or press Ctrl+Q",
    );
    expect(
      screen.getByTestId("background-notice-no-tray").textContent!.replace(/\s+/g, " "),
      "and where there is no tray icon",
    ).toContain("run herald-desktop --quit");
    const ok = screen.getByTestId("background-notice-close");
    expect(ok.textContent?.trim(), "the primary button's words").toBe("OK, close the window");
    expect(screen.getByTestId("background-notice-quit").textContent?.trim(), "the other button's").toBe("Quit Herald");
    await waitFor(() => expect(document.activeElement, "the focus is on the primary button").toBe(ok));
    expect(confirmClose, "nothing is confirmed before the person chooses").not.toHaveBeenCalled();
  });

  it("names the menu bar and Cmd+Q on a Mac", async () => {
    const close = await mount(MAC);
    close();
    const how = await screen.findByTestId("background-notice-how");
    expect(how.textContent!.replace(/\s+/g, " "), "the Mac's words").toContain("Herald's icon in the menu bar, or press Cmd+Q");
  });

  it("closes the window and keeps Herald running with OK", async () => {
    await closeWindow();
    await fireEvent.click(screen.getByTestId("background-notice-close"));

    await waitFor(() => expect(confirmClose, "OK confirms the close").toHaveBeenCalledTimes(1));
    expect(confirmClose, "without quitting").toHaveBeenCalledWith(false);
    await waitFor(() => expect(screen.queryByTestId("background-notice"), "the notice goes away").toBeNull());
  });

  it("quits Herald with Quit Herald", async () => {
    await closeWindow();
    await fireEvent.click(screen.getByTestId("background-notice-quit"));

    await waitFor(() => expect(confirmClose, "Quit Herald answers the close").toHaveBeenCalledTimes(1));
    expect(confirmClose, "by quitting").toHaveBeenCalledWith(true);
  });

  it("takes Escape as OK, close the window", async () => {
    await closeWindow();
    await fireEvent.keyDown(screen.getByTestId("background-notice-close"), { key: "Escape" });

    await waitFor(() => expect(confirmClose, "Escape closes the window").toHaveBeenCalledWith(false));
    expect(confirmClose, "once").toHaveBeenCalledTimes(1);
  });

  it("keeps the notice, with the reason, when the shell refuses", async () => {
    confirmClose.mockRejectedValueOnce(new backend.BackendError({ code: "ipc", message: "no window" }));
    await closeWindow();
    await fireEvent.click(screen.getByTestId("background-notice-close"));

    const error = await screen.findByTestId("background-notice-error");
    expect(error.textContent, "the reason is shown").toContain("no window");
    expect(screen.queryByTestId("background-notice"), "the person can choose again").not.toBeNull();
  });

  it("keeps Tab on its two buttons", async () => {
    await closeWindow();
    const ok = screen.getByTestId("background-notice-close");
    const quit = screen.getByTestId("background-notice-quit");
    await waitFor(() => expect(document.activeElement, "OK has the focus").toBe(ok));

    await fireEvent.keyDown(ok, { key: "Tab" });
    expect(document.activeElement, "Tab from the last button wraps to the first").toBe(quit);
    await fireEvent.keyDown(quit, { key: "Tab", shiftKey: true });
    expect(document.activeElement, "Shift+Tab from the first wraps to the last").toBe(ok);
  });

  it("keeps other keys from the window's shortcuts while it is open", async () => {
    const behind = vi.fn();
    window.addEventListener("keydown", behind);
    try {
      await closeWindow();
      await fireEvent.keyDown(screen.getByTestId("background-notice-close"), { key: "a" });
      expect(behind, "`a` does not reach the inbox's shortcuts (it would approve)").not.toHaveBeenCalled();
    } finally {
      window.removeEventListener("keydown", behind);
    }
  });
});

describe("later closes and quitting", () => {
  it("closes at once without a notice once it was shown", async () => {
    closeHintShown.mockResolvedValue(true);
    const close = await mount();
    close();

    await waitFor(() => expect(confirmClose, "the close is confirmed at once").toHaveBeenCalledWith(false));
    expect(screen.queryByTestId("background-notice"), "no notice the second time").toBeNull();
  });

  it("shows the notice when the shell cannot say whether it was shown", async () => {
    closeHintShown.mockRejectedValue(new backend.BackendError({ code: "ipc", message: "gone" }));
    const close = await mount();
    close();

    expect(await screen.findByTestId("background-notice"), "better told twice than not at all").not.toBeNull();
    expect(confirmClose, "and the person chooses").not.toHaveBeenCalled();
  });

  it("quits with Ctrl+Q in the window, notice or not", async () => {
    await mount();
    await fireEvent.keyDown(document.body, { key: "q", ctrlKey: true });

    await waitFor(() => expect(confirmClose, "Ctrl+Q quits").toHaveBeenCalledWith(true));
    expect(screen.queryByTestId("background-notice"), "without a notice").toBeNull();
  });

  it("closes the window with Ctrl+W as its close button does", async () => {
    await mount();
    await fireEvent.keyDown(document.body, { key: "w", ctrlKey: true });
    expect(await screen.findByTestId("background-notice"), "the first time, the notice").not.toBeNull();
    expect(confirmClose, "nothing closes before the person chooses").not.toHaveBeenCalled();
  });

  it("closes at once with Ctrl+W once the notice was shown", async () => {
    closeHintShown.mockResolvedValue(true);
    await mount();
    await fireEvent.keyDown(document.body, { key: "w", ctrlKey: true });
    await waitFor(() => expect(confirmClose, "closed, not quit").toHaveBeenCalledWith(false));
    expect(screen.queryByTestId("background-notice")).toBeNull();
  });

  it("leaves a plain q alone", async () => {
    await mount();
    await fireEvent.keyDown(document.body, { key: "q" });
    expect(confirmClose, "typing q quits nothing").not.toHaveBeenCalled();
  });
});
