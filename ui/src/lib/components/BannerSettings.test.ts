// @vitest-environment jsdom
// Settings → Notifications, this computer's banners: the mode, sound, previews and muted
// senders load, save at once on each change, and say what a banner shows.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { NotificationSettings } from "../bindings/NotificationSettings";
import BannerSettings from "./BannerSettings.svelte";
import { CONNECTIONS } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const get = vi.mocked(backend.notificationSettings);
const set = vi.mocked(backend.setNotificationSettings);
const connections = vi.mocked(backend.listConnections);
const keys = vi.mocked(backend.agentKeys);
const connectors = vi.mocked(backend.connectors);

const DEFAULTS: NotificationSettings = { banners: "everything", muted: [], sound: true, previews: true };

beforeEach(() => {
  vi.clearAllMocks();
  get.mockResolvedValue(DEFAULTS);
  // The backend answers with what it saved (muted sorted, as the core does).
  set.mockImplementation((s) => Promise.resolve({ ...s, muted: [...s.muted].sort() }));
  connections.mockResolvedValue(CONNECTIONS);
  keys.mockResolvedValue([{ id: "agk-1", name: "build-bot", createdAt: "2026-02-03T09:00:00Z" }]);
  connectors.mockResolvedValue([]);
});

function checked(testId: string): boolean {
  return (screen.getByTestId(testId) as HTMLInputElement).checked;
}

describe("banner settings", () => {
  it("shows the saved settings", async () => {
    get.mockResolvedValueOnce({ banners: "requestsOnly", muted: ["conn-2"], sound: false, previews: false });
    render(BannerSettings);
    await screen.findByTestId("banners-requestsOnly");
    expect(checked("banners-requestsOnly")).toBe(true);
    expect(checked("banners-everything")).toBe(false);
    expect(checked("banner-sound")).toBe(false);
    expect(checked("banner-previews")).toBe(false);
    await screen.findByTestId("mute-list");
    expect(checked("mute-conn-2"), "ci-agent is muted").toBe(true);
    expect(checked("mute-conn-1")).toBe(false);
  });

  it("saves the banner mode at once", async () => {
    render(BannerSettings);
    await fireEvent.click(await screen.findByTestId("banners-nothing"));
    expect(set).toHaveBeenCalledWith({ ...DEFAULTS, banners: "nothing" });
    await waitFor(() => expect(checked("banners-nothing")).toBe(true));
  });

  it("turns the sound off", async () => {
    render(BannerSettings);
    await fireEvent.click(await screen.findByTestId("banner-sound"));
    expect(set).toHaveBeenCalledWith({ ...DEFAULTS, sound: false });
    await waitFor(() => expect(checked("banner-sound")).toBe(false));
  });

  it("turns previews off and says what a banner shows then", async () => {
    render(BannerSettings);
    const note = await screen.findByTestId("banner-previews-note");
    expect(note.textContent).toContain("the sender and the title");
    await fireEvent.click(screen.getByTestId("banner-previews"));
    expect(set).toHaveBeenCalledWith({ ...DEFAULTS, previews: false });
    await waitFor(() => expect(screen.getByTestId("banner-previews-note").textContent).toContain("only the sender and “New message” or “Needs your reply”"));
  });

  it("lists connections and agents by name and mutes or unmutes one", async () => {
    render(BannerSettings);
    const list = await screen.findByTestId("mute-list");
    expect(list.textContent).toMatch(/build-bot[\s\S]*ci-agent[\s\S]*deploy-bot/);
    expect(list.textContent).toContain("agent key");

    await fireEvent.click(screen.getByTestId("mute-agk-1"));
    expect(set).toHaveBeenLastCalledWith({ ...DEFAULTS, muted: ["agk-1"] });
    await waitFor(() => expect(checked("mute-agk-1")).toBe(true));

    await fireEvent.click(screen.getByTestId("mute-conn-1"));
    expect(set).toHaveBeenLastCalledWith({ ...DEFAULTS, muted: ["agk-1", "conn-1"] });
    await waitFor(() => expect(checked("mute-conn-1")).toBe(true));

    await fireEvent.click(screen.getByTestId("mute-agk-1"));
    expect(set).toHaveBeenLastCalledWith({ ...DEFAULTS, muted: ["conn-1"] });
    await waitFor(() => expect(checked("mute-agk-1")).toBe(false));
  });

  it("still lists what it could when one list fails", async () => {
    keys.mockRejectedValueOnce(new Error("cannot reach the relay"));
    render(BannerSettings);
    await screen.findByTestId("mute-list");
    expect(screen.getByTestId("mute-list-error").textContent).toContain("cannot reach the relay");
    expect(screen.getByTestId("mute-conn-1")).toBeTruthy();
    expect(screen.queryByTestId("mute-agk-1")).toBeNull();
  });

  it("says when saving failed and keeps the saved settings", async () => {
    set.mockRejectedValueOnce(new backend.BackendError({ code: "storage", message: "disk full" }));
    render(BannerSettings);
    await fireEvent.click(await screen.findByTestId("banners-requestsOnly"));
    expect((await screen.findByTestId("banner-settings-save-error")).textContent).toContain("disk full");
    await waitFor(() => expect(checked("banners-everything"), "still what was saved").toBe(true));
  });

  it("says when the settings cannot be read", async () => {
    get.mockRejectedValueOnce(new Error("storage: unreadable"));
    render(BannerSettings);
    expect((await screen.findByTestId("banner-settings-error")).textContent).toContain("unreadable");
  });
});
