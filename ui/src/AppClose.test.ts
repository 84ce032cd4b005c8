// @vitest-environment jsdom
// The app shows the first-close notice on any screen, even one that could not start.
import { render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import App from "./App.svelte";
import * as backend from "./lib/backend/tauri";

vi.mock("./lib/backend/tauri", async () => (await import("./lib/components/test-fixtures")).fakeBackend());

const setupState = vi.mocked(backend.setupState);
const onCloseRequested = vi.mocked(backend.onCloseRequested);
const closeHintShown = vi.mocked(backend.closeHintShown);

beforeEach(() => {
  vi.clearAllMocks();
  closeHintShown.mockResolvedValue(false);
});

describe("closing the app's window", () => {
  it("shows the background notice when the shell reports the first close", async () => {
    setupState.mockRejectedValue(new backend.BackendError({ code: "storage", message: "locked" }));
    render(App);
    await screen.findByTestId("fatal-error");
    await waitFor(() => expect(onCloseRequested, "the app listens for the shell's close event").toHaveBeenCalledTimes(1));

    onCloseRequested.mock.calls[0][0]();

    expect(await screen.findByTestId("background-notice"), "the notice shows over whatever screen is up").not.toBeNull();
  });
});
