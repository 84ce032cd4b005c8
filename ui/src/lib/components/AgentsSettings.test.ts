// @vitest-environment jsdom
// Settings → Agents: an agent key is shown once (copy, then gone), revoking asks first;
// a connector is approved (or denied) by the user code its app shows.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import AgentsSettings from "./AgentsSettings.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const keys = vi.mocked(backend.agentKeys);
const createKey = vi.mocked(backend.createAgentKey);
const revokeKey = vi.mocked(backend.revokeAgentKey);
const connectors = vi.mocked(backend.connectors);
const approve = vi.mocked(backend.approveConnector);
const deny = vi.mocked(backend.denyConnector);

const KEY = { id: "akey_1", name: "build-bot", createdAt: "2026-03-01T10:00:00Z" };
const CONNECTOR = { id: "ctr_1", name: "Claude", clientId: "claude", tokenIssued: true, createdAt: "2026-03-01T10:00:00Z" };

beforeEach(() => {
  vi.clearAllMocks();
  keys.mockResolvedValue([KEY]);
  connectors.mockResolvedValue([CONNECTOR]);
});

describe("agent keys", () => {
  it("shows a new key once, with the lines that read it, then forgets it", async () => {
    createKey.mockResolvedValueOnce({ ...KEY, id: "akey_2", name: "nightly", key: "hrk_secretvalue", relayUrl: "http://127.0.0.1:8457" });
    render(AgentsSettings);
    await fireEvent.input(await screen.findByTestId("agent-key-name-input"), { target: { value: " nightly " } });
    await fireEvent.click(screen.getByTestId("agent-key-create"));

    expect(createKey).toHaveBeenCalledWith("nightly");
    expect((await screen.findByTestId("agent-key-value")).textContent).toBe("hrk_secretvalue");
    expect(screen.getByTestId("agent-key-copy")).toBeTruthy();
    const shell = screen.getByTestId("agent-key-shell").textContent ?? "";
    expect(shell).toContain("http://127.0.0.1:8457/v1/notify");
    expect(shell, "the key is not in the shell lines").not.toContain("hrk_secretvalue");

    await fireEvent.click(screen.getByTestId("agent-key-done"));
    expect(screen.queryByTestId("agent-key-value"), "gone after Done").toBeNull();
    expect(document.body.textContent).not.toContain("hrk_secretvalue");
  });

  it("revokes only after the confirmation", async () => {
    revokeKey.mockResolvedValueOnce(undefined);
    render(AgentsSettings);
    await fireEvent.click(await screen.findByTestId("agent-key-revoke-akey_1"));
    expect(screen.getByTestId("agent-key-revoke-prompt").textContent).toContain("Revoke build-bot?");
    expect(revokeKey).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId("agent-key-revoke-confirm"));
    expect(revokeKey).toHaveBeenCalledWith("akey_1");
    await waitFor(() => expect(keys).toHaveBeenCalledTimes(2));
  });
});

describe("connectors", () => {
  it("approves by the typed user code, in its display form", async () => {
    approve.mockResolvedValueOnce({ ...CONNECTOR, id: "ctr_2", name: "Codex" });
    render(AgentsSettings);
    const approveButton = (await screen.findByTestId("connector-approve")) as HTMLButtonElement;
    await fireEvent.input(screen.getByTestId("connector-code-input"), { target: { value: "bcdf ghj" } });
    expect(approveButton.disabled, "7 letters are not a code").toBe(true);
    expect(screen.getByTestId("connector-code-hint")).toBeTruthy();
    await fireEvent.input(screen.getByTestId("connector-code-input"), { target: { value: "bcdf ghjk" } });
    await fireEvent.click(approveButton);

    expect(approve).toHaveBeenCalledWith("BCDF-GHJK", null);
    const result = await screen.findByTestId("connector-result");
    expect(result.dataset.result).toBe("approved");
    expect(result.textContent).toContain("Codex is approved");
  });

  it("says when no connector waits with that code", async () => {
    approve.mockRejectedValueOnce(new backend.BackendError({ code: "not_found", message: "not found" }));
    render(AgentsSettings);
    await fireEvent.input(await screen.findByTestId("connector-code-input"), { target: { value: "BCDF-GHJK" } });
    await fireEvent.click(screen.getByTestId("connector-approve"));
    expect((await screen.findByTestId("connector-error")).textContent).toContain("No connector is waiting with that code");
  });

  it("denies by the code", async () => {
    deny.mockResolvedValueOnce(undefined);
    render(AgentsSettings);
    await fireEvent.input(await screen.findByTestId("connector-code-input"), { target: { value: "BCDF-GHJK" } });
    await fireEvent.click(screen.getByTestId("connector-deny"));
    expect(deny).toHaveBeenCalledWith("BCDF-GHJK");
    expect((await screen.findByTestId("connector-result")).dataset.result).toBe("denied");
  });
});
