// @vitest-environment jsdom
// "This is a new device": the recovery key path (any case, separators ignored, never echoed)
// and the approval path (the code large, a countdown, wrong-code and expired states, Try again).
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import NewDevice from "./NewDevice.svelte";
import PairingCode from "./PairingCode.svelte";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const unlock = vi.mocked(backend.unlockWithRecoveryKey);
const startPairing = vi.mocked(backend.startPairing);
const waitPairing = vi.mocked(backend.waitPairing);
const BackendError = backend.BackendError;

const RELAY = "https://relay.example.com";
const KEY = "7K2M-9QXD-4HVB-R8TN-3JWE-6PCA-Z1FG";
const SAFETY = "12345 67890 12345 67890 12345 67890";
const never = <T,>() => new Promise<T>(() => {});

beforeEach(() => vi.clearAllMocks());
afterEach(() => vi.useRealTimers());

async function typeRelay() {
  await fireEvent.input(screen.getByTestId("join-relay-url"), { target: { value: RELAY } });
}

describe("unlock with the recovery key", () => {
  it("accepts the key in lower case without dashes and shows the safety code after unlocking", async () => {
    unlock.mockResolvedValue({ accountId: "acc_1", safetyCode: SAFETY });
    const onDone = vi.fn();
    render(NewDevice, { onDone, onBack: vi.fn() });
    await typeRelay();
    const submit = screen.getByTestId("join-recovery-submit") as HTMLButtonElement;
    expect(submit.disabled, "Unlock waits for a complete key").toBe(true);

    const typed = KEY.replace(/-/g, "").toLowerCase();
    await fireEvent.input(screen.getByTestId("join-recovery-input"), { target: { value: typed } });
    expect(submit.disabled, "a complete key in lower case without dashes is accepted").toBe(false);
    await fireEvent.click(submit);

    await waitFor(() => expect(unlock).toHaveBeenCalledTimes(1));
    expect(unlock, "the relay and the key as typed go to the backend").toHaveBeenCalledWith(RELAY, typed);
    expect((await screen.findByTestId("safety-code")).textContent, "the safety code is shown to compare").toBe(SAFETY);
    await fireEvent.click(screen.getByTestId("setup-continue"));
    expect(onDone, "Continue leaves setup").toHaveBeenCalledTimes(1);
  });

  it("never shows the typed key in an error", async () => {
    const typed = KEY.toLowerCase();
    unlock.mockRejectedValue(new BackendError({ code: "storage", message: `could not store ${typed}` }));
    render(NewDevice, { onDone: vi.fn(), onBack: vi.fn() });
    await typeRelay();
    await fireEvent.input(screen.getByTestId("join-recovery-input"), { target: { value: typed } });
    await fireEvent.click(screen.getByTestId("join-recovery-submit"));

    const error = await screen.findByTestId("join-error");
    expect(error.textContent, "the key is cut out of the message").not.toContain(typed);
    expect(error.textContent!.toUpperCase(), "in any case").not.toContain("7K2M");
  });

  it("says plainly when the key is mistyped", async () => {
    unlock.mockRejectedValue(new BackendError({ code: "invalid_input", message: "recovery key: checksum" }));
    render(NewDevice, { onDone: vi.fn(), onBack: vi.fn() });
    await typeRelay();
    await fireEvent.input(screen.getByTestId("join-recovery-input"), { target: { value: KEY } });
    await fireEvent.click(screen.getByTestId("join-recovery-submit"));
    expect((await screen.findByTestId("join-error")).textContent).toBe("That is not a valid recovery key — check it for typos.");
  });
});

describe("approve from another device", () => {
  const T0 = new Date("2026-03-01T10:00:00Z");
  const started = (code: string, id = "pair_1") => ({ pairingId: id, code, expiresAt: "2026-03-01T10:10:00Z" });

  it("shows the code large with a 10-minute countdown while it waits", async () => {
    startPairing.mockResolvedValue(started("12345678"));
    waitPairing.mockImplementation(never);
    render(PairingCode, { relayUrl: RELAY, onUnlocked: vi.fn(), onCancel: vi.fn(), clock: () => T0 });

    expect((await screen.findByTestId("pairing-code")).textContent, "grouped as 1234 5678").toBe("1234 5678");
    expect(screen.getByTestId("pairing-countdown").textContent, "ten minutes to go").toBe("10:00");
    expect(screen.getByTestId("pairing-waiting"), "the waiting state is shown").not.toBeNull();
    expect(startPairing).toHaveBeenCalledWith(RELAY);
    expect(waitPairing, "it waits on that request").toHaveBeenCalledWith("pair_1");
  });

  it("unlocks when the other device approves", async () => {
    startPairing.mockResolvedValue(started("12345678"));
    waitPairing.mockResolvedValue({ accountId: "acc_1", safetyCode: SAFETY });
    const onUnlocked = vi.fn();
    render(PairingCode, { relayUrl: RELAY, onUnlocked, onCancel: vi.fn(), clock: () => T0 });
    await waitFor(() => expect(onUnlocked).toHaveBeenCalledWith({ accountId: "acc_1", safetyCode: SAFETY }));
  });

  it("reports a wrong code, and Try again shows a new code", async () => {
    startPairing.mockResolvedValueOnce(started("12345678")).mockResolvedValueOnce(started("87654321", "pair_2"));
    waitPairing
      .mockRejectedValueOnce(new BackendError({ code: "wrong_pairing_code", message: "wrong code" }))
      .mockImplementationOnce(never);
    render(PairingCode, { relayUrl: RELAY, onUnlocked: vi.fn(), onCancel: vi.fn(), clock: () => T0 });

    const failed = await screen.findByTestId("pairing-failed");
    expect(failed.dataset.reason, "a wrong code is named as such").toBe("wrongCode");
    expect(failed.textContent).toContain("did not match");
    expect(screen.queryByTestId("pairing-code"), "the burnt code is no longer shown").toBeNull();

    await fireEvent.click(screen.getByTestId("pairing-retry"));
    expect((await screen.findByTestId("pairing-code")).textContent, "a fresh code").toBe("8765 4321");
    expect(startPairing, "a new request").toHaveBeenCalledTimes(2);
    expect(waitPairing).toHaveBeenLastCalledWith("pair_2");
  });

  it("shows the request as expired when the backend says so", async () => {
    startPairing.mockResolvedValue(started("12345678"));
    waitPairing.mockRejectedValue(new BackendError({ code: "pairing_expired", message: "expired" }));
    render(PairingCode, { relayUrl: RELAY, onUnlocked: vi.fn(), onCancel: vi.fn(), clock: () => T0 });
    expect((await screen.findByTestId("pairing-failed")).dataset.reason).toBe("expired");
    expect(screen.getByTestId("pairing-retry"), "with Try again").not.toBeNull();
  });

  it("shows the request as expired when the countdown runs out", async () => {
    vi.useFakeTimers();
    let now = T0;
    startPairing.mockResolvedValue(started("12345678"));
    waitPairing.mockImplementation(never);
    render(PairingCode, { relayUrl: RELAY, onUnlocked: vi.fn(), onCancel: vi.fn(), clock: () => now });
    await vi.waitFor(() => expect(screen.getByTestId("pairing-code")).not.toBeNull());

    now = new Date("2026-03-01T10:09:58Z");
    await vi.advanceTimersByTimeAsync(1000);
    expect(screen.getByTestId("pairing-countdown").textContent, "two seconds left").toBe("0:02");

    now = new Date("2026-03-01T10:10:00Z");
    await vi.advanceTimersByTimeAsync(1000);
    expect(screen.getByTestId("pairing-failed").dataset.reason, "expired at 0:00").toBe("expired");
  });
});
