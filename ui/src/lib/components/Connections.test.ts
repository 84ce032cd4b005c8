// @vitest-environment jsdom
// Revoking a connection asks first: Cancel leaves it alone, Confirm revokes that one.
import { fireEvent, render, screen } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import Connections from "./Connections.svelte";
import { CONNECTIONS } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const listConnections = vi.mocked(backend.listConnections);
const revokeConnection = vi.mocked(backend.revokeConnection);

beforeEach(() => {
  vi.clearAllMocks();
  listConnections.mockResolvedValue(CONNECTIONS);
  revokeConnection.mockResolvedValue(undefined);
});

describe("Connections revoke", () => {
  it("does not revoke when the prompt is cancelled", async () => {
    render(Connections);

    await fireEvent.click(await screen.findByTestId("connection-revoke-conn-1"));
    const prompt = screen.queryByTestId("connection-revoke-prompt");
    expect(prompt, "Revoke asks for confirmation first").not.toBeNull();
    expect(prompt!.textContent, "the prompt names the connection").toContain("deploy-bot");
    expect(revokeConnection, "pressing Revoke alone revokes nothing").not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId("connection-revoke-cancel"));

    expect(screen.queryByTestId("connection-revoke-prompt"), "Cancel closes the prompt").toBeNull();
    expect(screen.queryByTestId("connection-revoke-conn-1"), "Cancel brings the Revoke button back").not.toBeNull();
    expect(revokeConnection, "a cancelled revoke never reaches the backend").not.toHaveBeenCalled();
  });

  it("revokes the chosen connection on confirm", async () => {
    render(Connections);

    await fireEvent.click(await screen.findByTestId("connection-revoke-conn-2"));
    await fireEvent.click(screen.getByTestId("connection-revoke-confirm"));

    expect(revokeConnection, "Confirm revokes exactly once").toHaveBeenCalledTimes(1);
    expect(revokeConnection, "Confirm revokes the connection whose Revoke was pressed").toHaveBeenCalledWith("conn-2");
    await vi.waitFor(() =>
      expect(listConnections, "the list reloads after the revoke").toHaveBeenCalledTimes(2),
    );
  });
});
