// @vitest-environment jsdom
// The relay URL on the first screen and on "This is a new device": plain http:// to another
// machine shows a warning and needs the "use it anyway" box ticked for the URL as typed;
// https and loopback http go ahead without one.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { SetupState } from "../bindings/SetupState";
import NewDevice from "./NewDevice.svelte";
import Setup from "./Setup.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const createAccount = vi.mocked(backend.createAccount);
const never = <T,>() => new Promise<T>(() => {});

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

beforeEach(() => {
  vi.clearAllMocks();
  createAccount.mockImplementation(never);
});

async function typeUrl(value: string) {
  await fireEvent.click(screen.getByTestId("setup-relay-url"));
  await fireEvent.input(screen.getByTestId("setup-relay-url-input"), { target: { value } });
}

const create = () => screen.getByTestId("setup-create") as HTMLButtonElement;

describe("creating an account on a relay URL", () => {
  it("warns about plain http to another machine and waits for the box to be ticked", async () => {
    render(Setup, { setup: NEEDS_SETUP, onDone: vi.fn() });
    await typeUrl("http://relay.example.com:8457");

    const warning = screen.queryByTestId("setup-cleartext");
    expect(warning, "plain http to another machine is warned about").not.toBeNull();
    expect(warning!.textContent, "the warning names the host").toContain("relay.example.com");
    expect(warning!.textContent, "and says what would travel in clear").toContain("tokens");
    expect(create().disabled, "Create waits for the explicit acceptance").toBe(true);
    await fireEvent.submit(screen.getByTestId("setup-form"));
    expect(createAccount, "Enter in the URL field does not get around it").not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId("setup-cleartext-accept"));
    expect(create().disabled, "ticked, the account can be created").toBe(false);
    await fireEvent.click(create());

    await waitFor(() => expect(createAccount, "the account is created once").toHaveBeenCalledTimes(1));
    expect(createAccount, "on the URL as typed").toHaveBeenCalledWith({ kind: "url", url: "http://relay.example.com:8457" });
  });

  it("asks again when the URL changes after it was accepted", async () => {
    render(Setup, { setup: NEEDS_SETUP, onDone: vi.fn() });
    await typeUrl("http://relay.example.com");
    await fireEvent.click(screen.getByTestId("setup-cleartext-accept"));
    expect(create().disabled, "accepted").toBe(false);

    await fireEvent.input(screen.getByTestId("setup-relay-url-input"), { target: { value: "http://other.example.com" } });

    const accept = screen.getByTestId("setup-cleartext-accept") as HTMLInputElement;
    expect(accept.checked, "the box is clear again for the new URL").toBe(false);
    expect(create().disabled, "and Create waits again").toBe(true);
  });

  for (const url of ["https://relay.example.com", "HTTPS://Relay.Example.com/herald/", "http://127.0.0.1:8457", "http://[::1]:8457", "http://localhost.:8457"]) {
    it(`goes ahead without a warning for ${url}`, async () => {
      render(Setup, { setup: NEEDS_SETUP, onDone: vi.fn() });
      await typeUrl(url);

      expect(screen.queryByTestId("setup-cleartext"), `${url} needs no warning`).toBeNull();
      expect(create().disabled, `${url} can be used at once`).toBe(false);
      await fireEvent.click(create());
      await waitFor(() => expect(createAccount, "the account is created").toHaveBeenCalledTimes(1));
    });
  }

  it("shows no warning for the embedded relay", () => {
    render(Setup, { setup: NEEDS_SETUP, onDone: vi.fn() });
    expect(screen.queryByTestId("setup-cleartext"), "the embedded relay is on this computer").toBeNull();
    expect(create().disabled, "and needs nothing typed").toBe(false);
  });
});

describe("unlocking a new device on a relay URL", () => {
  it("warns about plain http and keeps both ways to unlock closed until accepted", async () => {
    render(NewDevice, { onDone: vi.fn(), onBack: vi.fn() });
    await fireEvent.input(screen.getByTestId("join-relay-url"), { target: { value: "http://10.1.2.3:8457" } });
    await fireEvent.input(screen.getByTestId("join-recovery-input"), {
      target: { value: "7K2M-9QXD-4HVB-R8TN-3JWE-6PCA-Z1FG" },
    });

    expect(screen.queryByTestId("join-cleartext"), "plain http to another machine is warned about").not.toBeNull();
    const unlock = screen.getByTestId("join-recovery-submit") as HTMLButtonElement;
    expect(unlock.disabled, "Unlock waits for the acceptance").toBe(true);
    await fireEvent.click(screen.getByTestId("join-method-pairing"));
    const pair = screen.getByTestId("join-pairing-start") as HTMLButtonElement;
    expect(pair.disabled, "so does showing a pairing code").toBe(true);

    await fireEvent.click(screen.getByTestId("join-cleartext-accept"));
    expect(pair.disabled, "accepted, a pairing code can be shown").toBe(false);
  });

  it("needs no acceptance for loopback http", async () => {
    render(NewDevice, { onDone: vi.fn(), onBack: vi.fn() });
    await fireEvent.input(screen.getByTestId("join-relay-url"), { target: { value: "HTTP://127.0.0.1:8457" } });
    await fireEvent.click(screen.getByTestId("join-method-pairing"));

    expect(screen.queryByTestId("join-cleartext"), "loopback is not warned about").toBeNull();
    expect((screen.getByTestId("join-pairing-start") as HTMLButtonElement).disabled, "an upper-case scheme is fine").toBe(false);
  });
});
