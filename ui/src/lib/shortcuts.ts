// Keyboard shortcuts of the inbox: j/k (or ArrowDown/ArrowUp) move between messages, Enter
// opens, and in an open request `a` approves / `r` rejects when such actions exist. Keys typed
// into a field never count, and `a`/`r` pressed inside an answer form (on a radio button, a
// checkbox) do not answer either. Ctrl+Enter (Cmd+Enter on macOS) submits the answer form from
// any of its fields, a multi-line one included.

export type Shortcut = "next" | "prev" | "open" | "approve" | "reject";

/** The parts of a KeyboardEvent that decide the shortcut. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The event target is a text input, textarea, select or editable element. */
  typing: boolean;
  /** Focus is on a control that handles the key itself (a button, link, radio…). */
  onControl: boolean;
  /** Focus is in the message list (arrows move there; elsewhere they scroll). */
  inList: boolean;
}

export function shortcutFor(press: KeyPress): Shortcut | null {
  if (press.typing || press.ctrlKey || press.metaKey || press.altKey) return null;
  switch (press.key) {
    case "j":
      return "next";
    case "k":
      return "prev";
    case "ArrowDown":
      return press.inList || !press.onControl ? "next" : null;
    case "ArrowUp":
      return press.inList || !press.onControl ? "prev" : null;
    case "Enter":
      return press.onControl ? null : "open";
    case "a":
      return "approve";
    case "r":
      return "reject";
    default:
      return null;
  }
}

/** Ctrl+Enter or Cmd+Enter (without Alt): submit the form the focus is in. */
export function isSubmitChord(press: Pick<KeyPress, "key" | "ctrlKey" | "metaKey" | "altKey">): boolean {
  return press.key === "Enter" && (press.ctrlKey || press.metaKey) && !press.altKey;
}

/**
 * Ctrl+Q or Cmd+Q (without Alt or Shift): quit Herald. Only one of the two counts, by platform
 * (`mac`), so that Ctrl+Q on a Mac stays the system's and Cmd on Linux (the Super key) stays
 * the desktop's.
 */
export function isQuitChord(press: Pick<KeyPress, "key" | "ctrlKey" | "metaKey" | "altKey"> & { shiftKey: boolean }, mac: boolean): boolean {
  if (press.key.toLowerCase() !== "q" || press.altKey || press.shiftKey) return false;
  return mac ? press.metaKey && !press.ctrlKey : press.ctrlKey && !press.metaKey;
}

/**
 * Ctrl+W or Cmd+W (without Alt or Shift): close the window, as its close button does (Herald
 * keeps running). By platform, as {@link isQuitChord}.
 */
export function isCloseChord(press: Pick<KeyPress, "key" | "ctrlKey" | "metaKey" | "altKey"> & { shiftKey: boolean }, mac: boolean): boolean {
  if (press.key.toLowerCase() !== "w" || press.altKey || press.shiftKey) return false;
  return mac ? press.metaKey && !press.ctrlKey : press.ctrlKey && !press.metaKey;
}

/** Whether keys pressed on this element are typing (never shortcuts). */
export function isTypingTarget(el: Pick<Element, "tagName" | "getAttribute"> | null): boolean {
  if (!el) return false;
  if ((el as Partial<HTMLElement>).isContentEditable === true) return true;
  const tag = el.tagName.toLowerCase();
  if (tag === "textarea" || tag === "select") return true;
  if (tag !== "input") return false;
  const type = (el.getAttribute("type") ?? "text").toLowerCase();
  return !["checkbox", "radio", "button", "submit", "reset"].includes(type);
}

/** The id `delta` rows away from `current` (the first row when nothing is current yet). */
export function moveCursor(ids: string[], current: string | null, delta: number): string | null {
  if (ids.length === 0) return null;
  const at = current === null ? -1 : ids.indexOf(current);
  if (at < 0) return delta > 0 ? ids[0] : ids[ids.length - 1];
  return ids[Math.max(0, Math.min(ids.length - 1, at + delta))];
}
