import { describe, expect, it } from "vitest";
import {
  countdown,
  formatPairingCode,
  pairingCodeComplete,
  pairingFailure,
  recoveryKeyComplete,
  remainingMs,
  resetConfirmed,
  safetyGroups,
  scrub,
  unlockErrorText,
} from "./devices";

const KEY = "7K2M-9QXD-4HVB-R8TN-3JWE-6PCA-Z1FG";

describe("recovery key input", () => {
  it("accepts the key in any case, with or without separators", () => {
    expect(recoveryKeyComplete(KEY), "the key as shown").toBe(true);
    expect(recoveryKeyComplete(KEY.toLowerCase()), "lower case").toBe(true);
    expect(recoveryKeyComplete(KEY.replace(/-/g, "")), "no separators").toBe(true);
    expect(recoveryKeyComplete(KEY.replace(/-/g, " ")), "spaces instead of dashes").toBe(true);
    expect(recoveryKeyComplete(` ${KEY.replace(/-/g, " - ")} `), "loose spacing").toBe(true);
    expect(recoveryKeyComplete(KEY.replace("1", "l")), "l reads as 1").toBe(true);
  });

  it("refuses keys with a symbol missing, extra or outside the alphabet", () => {
    expect(recoveryKeyComplete(KEY.slice(0, -1)), "27 symbols").toBe(false);
    expect(recoveryKeyComplete(`${KEY}A`), "29 symbols").toBe(false);
    expect(recoveryKeyComplete(KEY.replace("K", "U")), "U is not Crockford").toBe(false);
    expect(recoveryKeyComplete(""), "empty").toBe(false);
  });

  it("never shows the typed key in an error", () => {
    const leaky = `cannot parse ${KEY.toLowerCase()}`;
    expect(unlockErrorText("protocol", leaky, KEY.toLowerCase()), "the key is cut out").not.toContain(KEY.toLowerCase());
    expect(scrub(`bad key ${KEY.replace(/-/g, " ")}`, KEY), "a reformatted key is caught too").not.toMatch(/7K2M/);
    expect(unlockErrorText("invalid_input", "recovery key: bad checksum", KEY), "a fixed sentence by code").toBe(
      "That is not a valid recovery key — check it for typos.",
    );
    expect(unlockErrorText("network", "x", KEY), "network says so").toMatch(/Cannot reach the relay/);
  });
});

describe("pairing code", () => {
  it("shows 8 digits as two groups of 4", () => {
    expect(formatPairingCode("12345678")).toBe("1234 5678");
    expect(formatPairingCode("1234 5678"), "already grouped").toBe("1234 5678");
    expect(formatPairingCode("123"), "anything else unchanged").toBe("123");
  });

  it("is complete with exactly 8 digits, spaces ignored", () => {
    expect(pairingCodeComplete("1234 5678")).toBe(true);
    expect(pairingCodeComplete("12345678")).toBe(true);
    expect(pairingCodeComplete("1234567"), "7 digits").toBe(false);
    expect(pairingCodeComplete("1234567a"), "a letter").toBe(false);
  });

  it("counts down to the expiry and stops at 0:00", () => {
    const now = new Date("2026-03-01T10:00:00Z");
    expect(countdown(remainingMs("2026-03-01T10:10:00Z", now)), "10 minutes").toBe("10:00");
    expect(countdown(remainingMs("2026-03-01T10:00:05.200Z", now)), "rounded up").toBe("0:06");
    expect(remainingMs("2026-03-01T09:59:00Z", now), "past is 0").toBe(0);
    expect(remainingMs("not a time", now), "unreadable is expired").toBe(0);
    expect(countdown(0)).toBe("0:00");
  });

  it("tells a wrong code from an expired request", () => {
    expect(pairingFailure("wrong_pairing_code")).toBe("wrongCode");
    expect(pairingFailure("pairing_expired")).toBe("expired");
    expect(pairingFailure("network")).toBe("other");
    expect(pairingFailure("device_limit_reached"), "a full account says what to do").toBe("deviceLimit");
    expect(unlockErrorText("device_limit_reached", "relay refused", KEY)).toMatch(/revoke one you no longer use/);
  });
});

describe("safety code and reset", () => {
  it("splits the safety code into six groups of five", () => {
    expect(safetyGroups("12345 67890 12345 67890 12345 67890")).toEqual([
      "12345", "67890", "12345", "67890", "12345", "67890",
    ]);
    expect(safetyGroups("123"), "not 30 digits").toEqual([]);
    expect(safetyGroups(null)).toEqual([]);
  });

  it("needs RESET typed exactly", () => {
    expect(resetConfirmed("RESET")).toBe(true);
    expect(resetConfirmed(" RESET "), "surrounding spaces are fine").toBe(true);
    expect(resetConfirmed("reset"), "lower case is not a confirmation").toBe(false);
    expect(resetConfirmed("RESE"), "nor a prefix").toBe(false);
  });
});
