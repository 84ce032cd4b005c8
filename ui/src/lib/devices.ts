// Wording and input rules of the device screens (new device, approval, devices list, safety
// code, reset). Pure, so it is tested without a window; time is passed in.

import type { UiErrorCode } from "./bindings/UiErrorCode";

/** Crockford base32 as the recovery key uses it (I and L read as 1, O as 0). */
const RECOVERY_SYMBOL = /^[0-9A-HJKMNP-TV-Z]$/;
/** A recovery key is 28 symbols: 26 carry the 128 bits, 2 are check symbols. */
export const RECOVERY_KEY_SYMBOLS = 28;

/**
 * The typed recovery key as the backend reads it: upper case, without spaces, dashes or other
 * separators, I/L as 1 and O as 0. Only used to decide whether the key looks complete; the
 * typed text goes to the backend unchanged and is parsed there.
 */
export function normalizeRecoveryKey(typed: string): string {
  return typed
    .toUpperCase()
    .replace(/[\s\-_.·]/g, "")
    .replace(/[IL]/g, "1")
    .replace(/O/g, "0");
}

/** Whether the typed key has exactly the recovery key's symbols (checksum is the backend's). */
export function recoveryKeyComplete(typed: string): boolean {
  const symbols = [...normalizeRecoveryKey(typed)];
  return symbols.length === RECOVERY_KEY_SYMBOLS && symbols.every((c) => RECOVERY_SYMBOL.test(c));
}

/** Pairing codes are 8 digits. */
export const PAIRING_CODE_DIGITS = 8;

/** The digits of a typed pairing code (spaces and dashes ignored). */
export function normalizePairingCode(typed: string): string {
  return typed.replace(/[\s-]/g, "");
}

export function pairingCodeComplete(typed: string): boolean {
  return new RegExp(`^\\d{${PAIRING_CODE_DIGITS}}$`).test(normalizePairingCode(typed));
}

/** `12345678` → `1234 5678`; anything else is returned as it is. */
export function formatPairingCode(code: string): string {
  const digits = normalizePairingCode(code);
  return /^\d{8}$/.test(digits) ? `${digits.slice(0, 4)} ${digits.slice(4)}` : code;
}

/** Milliseconds left until `expiresAt`, never below 0 (an unreadable time counts as expired). */
export function remainingMs(expiresAt: string, now: Date): number {
  const end = new Date(expiresAt).getTime();
  if (Number.isNaN(end)) return 0;
  return Math.max(0, end - now.getTime());
}

/** `9:05` for the countdown (minutes:seconds, rounded up so 0:00 means expired). */
export function countdown(ms: number): string {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

/** What a failed pairing means for the person. */
export type PairingFailure = "wrongCode" | "expired" | "deviceLimit" | "other";

// The backend's stable codes for a pairing that cannot succeed any more.
const WRONG_CODE = new Set<UiErrorCode>(["wrong_pairing_code", "pairing_failed"]);
const EXPIRED = new Set<UiErrorCode>(["pairing_expired"]);
// The account holds the most devices it may (100, `device_limit_reached`).
const DEVICE_LIMIT: UiErrorCode = "device_limit_reached";

/** What to do when the account is full, shown on the new device and on the approving one. */
export const DEVICE_LIMIT_TEXT =
  "This account already has 100 devices, the most it may hold. On an unlocked device, open " +
  "Settings → Devices and revoke one you no longer use, then try again.";

export function pairingFailure(code: UiErrorCode): PairingFailure {
  if (WRONG_CODE.has(code)) return "wrongCode";
  if (EXPIRED.has(code)) return "expired";
  if (code === DEVICE_LIMIT) return "deviceLimit";
  return "other";
}

/**
 * The text shown when unlocking with a recovery key fails. Fixed sentences for the codes the
 * backend uses; for anything else its message, with the typed key cut out should it ever
 * appear there (the key must never reach the screen, a log or a bug report).
 */
export function unlockErrorText(code: UiErrorCode, message: string, typed: string): string {
  switch (code) {
    case "invalid_input":
      return "That is not a valid recovery key — check it for typos.";
    case "wrong_recovery_key":
      return "This recovery key does not open the account on this relay.";
    case "already_set_up":
      return "This device is already unlocked.";
    case "network":
      return "Cannot reach the relay. Check the URL and your connection.";
    case DEVICE_LIMIT:
      return DEVICE_LIMIT_TEXT;
    default:
      return scrub(message, typed);
  }
}

/** `message` with every form of `typed` (as typed, or normalized) replaced by `[recovery key]`. */
export function scrub(message: string, typed: string): string {
  let out = message;
  const forms = [typed.trim(), normalizeRecoveryKey(typed)].filter((f) => f.length >= 4);
  for (const form of forms) out = out.split(form).join("[recovery key]");
  // A reformatted key (other separators or case) is caught by comparing normalized text.
  const norm = normalizeRecoveryKey(typed);
  if (norm.length >= 8 && normalizeRecoveryKey(out).includes(norm)) return "Unlocking failed.";
  return out;
}

/** The question asked before a device is revoked. */
export function revokeDevicePrompt(name: string): string {
  return (
    `Revoke ${name}? It is signed out at once, and your account's encryption key is rotated so ` +
    "it cannot read anything sent after this. What it already downloaded stays on it."
  );
}

/** The safety code's six groups of five digits (empty when it is not 30 digits). */
export function safetyGroups(code: string | null): string[] {
  const digits = (code ?? "").replace(/\s/g, "");
  if (!/^\d{30}$/.test(digits)) return [];
  return digits.match(/\d{5}/g) ?? [];
}

/** The word typed to confirm a reset. */
export const RESET_WORD = "RESET";

export function resetConfirmed(typed: string): boolean {
  return typed.trim() === RESET_WORD;
}

/** Platform label as shown in the devices list. */
export function platformLabel(platform: string): string {
  switch (platform) {
    case "linux":
      return "Linux";
    case "macos":
      return "macOS";
    case "windows":
      return "Windows";
    case "cli":
      return "Terminal (herald CLI)";
    default:
      return platform;
  }
}
