// The global shortcut as the shell registers it: an accelerator such as
// `CommandOrControl+Shift+H` — modifiers first, then one key named like KeyboardEvent.code
// (tauri-plugin-global-shortcut parses it). Recorded here from a key press in the window, and
// shown the way the platform writes shortcuts: "Ctrl+Shift+H", or "⌘⇧H" on a Mac.

import { isMac } from "./background";

/** The shortcut Herald registers unless the person chose another. */
export const DEFAULT_SHORTCUT = "CommandOrControl+Shift+H";

export type Platform = "mac" | "windows" | "linux";

export function platformOf(userAgent: string): Platform {
  if (isMac(userAgent)) return "mac";
  return /Windows/.test(userAgent) ? "windows" : "linux";
}

/** The parts of a keydown that make a chord (`code` is the physical key, whatever the layout). */
export interface ChordPress {
  key: string;
  code: string;
  ctrlKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  metaKey: boolean;
}

export type Recorded =
  /** A complete chord, as an accelerator. */
  | { kind: "chord"; accelerator: string }
  /** Only modifiers so far: wait for the key. */
  | { kind: "waiting" }
  /** A key without Ctrl, Alt or Cmd (Super): it would take that key from every app. */
  | { kind: "needsModifier" }
  /** A key a global shortcut cannot use. */
  | { kind: "unsupported" };

const MODIFIER_KEYS = new Set(["Control", "Shift", "Alt", "AltGraph", "Meta", "OS", "Super", "Hyper"]);

const NAMED_KEYS = new Set([
  "Space",
  "Enter",
  "Backspace",
  "Delete",
  "Insert",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Comma",
  "Period",
  "Slash",
  "Semicolon",
  "Quote",
  "BracketLeft",
  "BracketRight",
  "Backslash",
  "Backquote",
  "Minus",
  "Equal",
]);

/** The accelerator's name for a physical key, or null when a shortcut cannot use it. */
function keyName(code: string): string | null {
  const letter = /^Key([A-Z])$/.exec(code);
  if (letter) return letter[1];
  const digit = /^Digit([0-9])$/.exec(code);
  if (digit) return digit[1];
  if (/^F([1-9]|1[0-9]|2[0-4])$/.test(code) || /^Numpad[0-9]$/.test(code) || NAMED_KEYS.has(code)) return code;
  return null;
}

/**
 * The chord a keydown makes. Cmd on a Mac and Ctrl elsewhere become `CommandOrControl` (the
 * default's modifier); Ctrl on a Mac is `Control`, the Windows/Super key elsewhere `Super`.
 */
export function recordChord(press: ChordPress, platform: Platform): Recorded {
  if (MODIFIER_KEYS.has(press.key) || /^(Control|Shift|Alt|Meta|OS)(Left|Right)?$/.test(press.code)) {
    return { kind: "waiting" };
  }
  const key = keyName(press.code);
  if (key === null) return { kind: "unsupported" };
  if (!press.ctrlKey && !press.altKey && !press.metaKey) return { kind: "needsModifier" };
  const mac = platform === "mac";
  const parts: string[] = [];
  if (mac ? press.metaKey : press.ctrlKey) parts.push("CommandOrControl");
  if (mac && press.ctrlKey) parts.push("Control");
  if (press.altKey) parts.push("Alt");
  if (press.shiftKey) parts.push("Shift");
  if (!mac && press.metaKey) parts.push("Super");
  parts.push(key);
  return { kind: "chord", accelerator: parts.join("+") };
}

const MAC_MODIFIERS: Record<string, string> = {
  commandorcontrol: "⌘",
  commandorctrl: "⌘",
  cmdorctrl: "⌘",
  cmdorcontrol: "⌘",
  command: "⌘",
  cmd: "⌘",
  super: "⌘",
  meta: "⌘",
  control: "⌃",
  ctrl: "⌃",
  alt: "⌥",
  option: "⌥",
  shift: "⇧",
};

function otherModifier(token: string, platform: Platform): string | null {
  switch (token) {
    case "commandorcontrol":
    case "commandorctrl":
    case "cmdorctrl":
    case "cmdorcontrol":
    case "control":
    case "ctrl":
      return "Ctrl";
    case "alt":
    case "option":
      return "Alt";
    case "shift":
      return "Shift";
    case "super":
    case "meta":
    case "command":
    case "cmd":
      return platform === "windows" ? "Win" : "Super";
    default:
      return null;
  }
}

const KEY_LABELS: Record<string, string> = {
  arrowup: "↑",
  up: "↑",
  arrowdown: "↓",
  down: "↓",
  arrowleft: "←",
  left: "←",
  arrowright: "→",
  right: "→",
  comma: ",",
  period: ".",
  slash: "/",
  semicolon: ";",
  quote: "'",
  bracketleft: "[",
  bracketright: "]",
  backslash: "\\",
  backquote: "`",
  minus: "-",
  equal: "=",
  pageup: "Page Up",
  pagedown: "Page Down",
};

function keyLabel(token: string): string {
  const lower = token.toLowerCase();
  if (KEY_LABELS[lower]) return KEY_LABELS[lower];
  const letter = /^key([a-z])$/.exec(lower);
  if (letter) return letter[1].toUpperCase();
  const digit = /^digit([0-9])$/.exec(lower);
  if (digit) return digit[1];
  const numpad = /^num(?:pad)?([0-9])$/.exec(lower);
  if (numpad) return `Num ${numpad[1]}`;
  return token.length === 1 ? token.toUpperCase() : token;
}

/** An accelerator as the platform writes it: "Ctrl+Shift+H", "⌘⇧H"; "" for none. */
export function displayAccelerator(accelerator: string, platform: Platform): string {
  const tokens = accelerator
    .split("+")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (tokens.length === 0) return "";
  const key = keyLabel(tokens[tokens.length - 1]);
  const modifiers = tokens.slice(0, -1).map((t) => {
    const lower = t.toLowerCase();
    return (platform === "mac" ? MAC_MODIFIERS[lower] : otherModifier(lower, platform)) ?? t;
  });
  return platform === "mac" ? [...modifiers, key].join("") : [...modifiers, key].join("+");
}
