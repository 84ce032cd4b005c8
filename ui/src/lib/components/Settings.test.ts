// @vitest-environment jsdom
// Settings: the devices list and revoke, approving a new device by its code (right and wrong),
// the safety code, and the careful reset with its new recovery key.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { SetupState } from "../bindings/SetupState";
import type { DeviceView } from "../bindings/DeviceView";
import Settings from "./Settings.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const devices = vi.mocked(backend.devices);
const revokeDevice = vi.mocked(backend.revokeDevice);
const pairingRequests = vi.mocked(backend.pairingRequests);
const approvePairing = vi.mocked(backend.approvePairing);
const resetAccount = vi.mocked(backend.resetAccount);
const BackendError = backend.BackendError;

const SAFETY = "12345 67890 13579 24680 11111 22222";
const SETUP: SetupState = {
  status: "ready",
  accountId: "acc_1",
  deviceId: "dev_1",
  deviceName: "laptop",
  relayUrl: "https://relay.example.com",
  safetyCode: SAFETY,
  secretStorage: "keychain",
  secretStoragePath: null,
};

const DEVICES: DeviceView[] = [
  { id: "dev_2", name: "old-phone", platform: "linux", createdAt: "2026-01-02T09:00:00Z", lastSeenAt: null, revokedAt: null, current: false },
  { id: "dev_1", name: "laptop", platform: "linux", createdAt: "2026-01-01T09:00:00Z", lastSeenAt: "2026-03-01T09:00:00Z", revokedAt: null, current: true },
  { id: "dev_3", name: "build-box", platform: "cli", createdAt: "2026-01-03T09:00:00Z", lastSeenAt: null, revokedAt: "2026-02-01T09:00:00Z", current: false },
];

const REQUEST = { id: "pair_1", name: "new-laptop", platform: "macos", createdAt: "2026-03-01T10:00:00Z", expiresAt: "2026-03-01T10:10:00Z" };

beforeEach(() => {
  vi.clearAllMocks();
  devices.mockResolvedValue(DEVICES);
  pairingRequests.mockResolvedValue([REQUEST]);
});

function open(tab: string, props: Partial<{ onChanged: () => void; onHold: (on: boolean) => void }> = {}) {
  render(Settings, { setup: SETUP, ...props });
  return fireEvent.click(screen.getByTestId(`settings-tab-${tab}`));
}

describe("devices", () => {
  it("lists every device with this one marked and no Revoke on it", async () => {
    await open("devices");
    const items = await screen.findAllByTestId("device-item");
    expect(items.map((i) => i.dataset.deviceId), "this device first, revoked last").toEqual(["dev_1", "dev_2", "dev_3"]);
    expect(within(items[0]).queryByTestId("device-current"), "this device is marked").not.toBeNull();
    expect(within(items[1]).queryByTestId("device-current"), "others are not").toBeNull();
    expect(items[1].textContent, "platform and last seen are shown").toMatch(/Linux.*last seen\s+never/s);
    expect(screen.queryByTestId("device-revoke-dev_1"), "this device cannot be revoked from itself").toBeNull();
    expect(screen.queryByTestId("device-revoke-dev_3"), "a revoked device has no Revoke").toBeNull();
  });

  it("asks before revoking, explains the key rotation, and revokes on confirm", async () => {
    revokeDevice.mockResolvedValue(undefined);
    await open("devices");
    await fireEvent.click(await screen.findByTestId("device-revoke-dev_2"));
    const prompt = screen.getByTestId("device-revoke-prompt");
    expect(prompt.textContent, "names the device").toContain("old-phone");
    expect(prompt.textContent, "says the keys rotate").toMatch(/encryption key is rotated/);
    expect(revokeDevice, "nothing revoked before Confirm").not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId("device-revoke-cancel"));
    expect(screen.queryByTestId("device-revoke-prompt"), "Cancel closes it").toBeNull();
    expect(revokeDevice).not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId("device-revoke-dev_2"));
    await fireEvent.click(screen.getByTestId("device-revoke-confirm"));
    expect(revokeDevice).toHaveBeenCalledWith("dev_2");
    await waitFor(() => expect(devices, "the list reloads").toHaveBeenCalledTimes(2));
  });
});

describe("approve a new device", () => {
  it("approves the chosen request with the typed code", async () => {
    approvePairing.mockResolvedValue({ ...DEVICES[0], id: "dev_9", name: "new-laptop" });
    await open("approve");
    await fireEvent.click(await screen.findByTestId("pairing-request-approve-pair_1"));
    const submit = screen.getByTestId("approve-submit") as HTMLButtonElement;
    await fireEvent.input(screen.getByTestId("approve-code-input"), { target: { value: "1234 567" } });
    expect(submit.disabled, "7 digits are not a code").toBe(true);
    await fireEvent.input(screen.getByTestId("approve-code-input"), { target: { value: "1234 5678" } });
    await fireEvent.click(submit);

    expect(approvePairing, "the digits go to the backend").toHaveBeenCalledWith("pair_1", "12345678");
    const result = await screen.findByTestId("approve-result");
    expect(result.dataset.result).toBe("ok");
    expect(result.textContent).toContain("new-laptop");
  });

  it("shows a wrong code as such", async () => {
    approvePairing.mockRejectedValue(new BackendError({ code: "wrong_pairing_code", message: "wrong code" }));
    await open("approve");
    await fireEvent.click(await screen.findByTestId("pairing-request-approve-pair_1"));
    await fireEvent.input(screen.getByTestId("approve-code-input"), { target: { value: "00000000" } });
    await fireEvent.click(screen.getByTestId("approve-submit"));

    const result = await screen.findByTestId("approve-result");
    expect(result.dataset.result, "a wrong code is named").toBe("wrongCode");
    expect(result.textContent).toMatch(/Wrong code/);
    expect(screen.queryByTestId("approve-form"), "that request cannot be tried again").toBeNull();
  });

  it("says when no device is waiting", async () => {
    pairingRequests.mockResolvedValue([]);
    await open("approve");
    expect(await screen.findByTestId("pairing-request-empty")).not.toBeNull();
  });
});

describe("safety code", () => {
  it("shows six groups of five digits and explains that every device shows the same", async () => {
    await open("safety");
    const groups = screen.getAllByTestId("safety-group").map((g) => g.textContent);
    expect(groups).toEqual(["12345", "67890", "13579", "24680", "11111", "22222"]);
    expect(screen.getByTestId("safety").textContent).toMatch(/same code/);
  });
});

describe("reset", () => {
  it("needs RESET typed, explains what is lost, then shows the new recovery key until it is saved", async () => {
    resetAccount.mockResolvedValue({ accountId: "acc_2", recoveryKey: "AAAA-BBBB-CCCC", safetyCode: SAFETY });
    const onChanged = vi.fn();
    const onHold = vi.fn();
    await open("reset", { onChanged, onHold });

    const explanation = screen.getByTestId("reset-explanation").textContent ?? "";
    for (const consequence of [/new keys/, /All activity and files are deleted/, /Every connection is revoked/, /other devices must unlock again/]) {
      expect(explanation, `the consequences are spelled out: ${consequence}`).toMatch(consequence);
    }
    const submit = screen.getByTestId("reset-submit") as HTMLButtonElement;
    expect(submit.disabled, "nothing typed yet").toBe(true);
    await fireEvent.input(screen.getByTestId("reset-confirm-input"), { target: { value: "reset" } });
    expect(submit.disabled, "lower case does not confirm").toBe(true);
    await fireEvent.input(screen.getByTestId("reset-confirm-input"), { target: { value: "RESET" } });
    expect(submit.disabled).toBe(false);
    await fireEvent.click(submit);

    expect(resetAccount).toHaveBeenCalledTimes(1);
    expect((await screen.findByTestId("recovery-key")).textContent, "the new key is shown").toBe("AAAA-BBBB-CCCC");
    expect(onHold, "the app keeps the person here").toHaveBeenLastCalledWith(true);
    expect((screen.getByTestId("settings-tab-account") as HTMLButtonElement).disabled, "tabs are locked").toBe(true);
    const cont = screen.getByTestId("setup-continue") as HTMLButtonElement;
    expect(cont.disabled, "Continue waits for the saved box").toBe(true);
    await fireEvent.click(screen.getByTestId("recovery-saved"));
    await fireEvent.click(cont);
    expect(onHold).toHaveBeenLastCalledWith(false);
    expect(onChanged, "the app reloads the account").toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("recovery-key"), "the key is gone after Continue").toBeNull();
  });
});
