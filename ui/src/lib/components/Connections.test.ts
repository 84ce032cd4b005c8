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

describe("Connections scopes", () => {
  const createConnection = vi.mocked(backend.createConnection);

  it("creates with every scope by default, and with fewer when boxes are unticked", async () => {
    createConnection.mockResolvedValue({
      id: "conn-3",
      name: "notifier",
      token: "hdr_x.y.z",
      relayUrl: "http://127.0.0.1:8457",
      scopes: ["messages:send"],
    });
    render(Connections);
    const name = await screen.findByTestId("connection-name-input");

    await fireEvent.input(name, { target: { value: "full" } });
    await fireEvent.click(screen.getByTestId("connection-create"));
    await vi.waitFor(() => expect(createConnection).toHaveBeenCalledTimes(1));
    expect(createConnection, "all ticked: the relay's default").toHaveBeenLastCalledWith("full", null);
    await fireEvent.click(await screen.findByTestId("connection-done"));

    await fireEvent.click(screen.getByTestId("connection-scope-messages:read"));
    await fireEvent.click(screen.getByTestId("connection-scope-events:read"));
    await fireEvent.input(screen.getByTestId("connection-name-input"), { target: { value: "notifier" } });
    await fireEvent.click(screen.getByTestId("connection-create"));
    await vi.waitFor(() => expect(createConnection).toHaveBeenCalledTimes(2));
    expect(createConnection, "send only").toHaveBeenLastCalledWith("notifier", ["messages:send"]);
    await fireEvent.click(await screen.findByTestId("connection-done"));
    const boxes = ["messages:send", "messages:read", "events:read"].map(
      (scope) => screen.getByTestId(`connection-scope-${scope}`) as HTMLInputElement,
    );
    expect(
      boxes.map((b) => b.checked),
      "the next connection starts from everything again",
    ).toEqual([true, true, true]);
  });

  it("cannot create a connection that may do nothing, and tells a send-only one to use send", async () => {
    createConnection.mockResolvedValue({
      id: "conn-4",
      name: "quiet",
      token: "hdr_x.y.z",
      relayUrl: "http://127.0.0.1:8457",
      scopes: ["messages:send"],
    });
    render(Connections);
    await fireEvent.input(await screen.findByTestId("connection-name-input"), { target: { value: "none" } });
    for (const scope of ["messages:send", "messages:read", "events:read"]) {
      await fireEvent.click(screen.getByTestId(`connection-scope-${scope}`));
    }
    expect((screen.getByTestId("connection-create") as HTMLButtonElement).disabled, "nothing ticked").toBe(true);
    expect(screen.getByTestId("connection-scope-none").textContent).toContain("at least one");
    await fireEvent.click(screen.getByTestId("connection-scope-messages:send"));
    await fireEvent.click(screen.getByTestId("connection-create"));
    const next = await screen.findByTestId("connection-next");
    expect(next.textContent, "send, not ask").toContain("herald send");
    expect(next.textContent).not.toContain("herald ask");
  });

  it("says what a narrower connection may do in the list", async () => {
    render(Connections);
    const notes = await screen.findAllByTestId("connection-scope-note");
    expect(notes.map((n) => n.textContent), "only ci-agent is narrower").toEqual(["only send"]);
  });
});
