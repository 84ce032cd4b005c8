import { describe, expect, it } from "vitest";
import { DEFAULT_SHORTCUT, displayAccelerator, platformOf, recordChord, type ChordPress } from "./accelerator";

const MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Edg/120.0";

const press = (code: string, key: string, mods: Partial<ChordPress> = {}): ChordPress => ({
  code,
  key,
  ctrlKey: false,
  altKey: false,
  shiftKey: false,
  metaKey: false,
  ...mods,
});

describe("the platform", () => {
  it("is told from the webview's user agent", () => {
    expect(platformOf(MAC)).toBe("mac");
    expect(platformOf(WINDOWS)).toBe("windows");
    expect(platformOf(LINUX)).toBe("linux");
    expect(platformOf(""), "unknown counts as Linux").toBe("linux");
  });
});

describe("recording a chord", () => {
  it("writes Ctrl (Cmd on a Mac) as CommandOrControl, modifiers first, the key by its place", () => {
    expect(recordChord(press("KeyH", "H", { ctrlKey: true, shiftKey: true }), "linux")).toEqual({ kind: "chord", accelerator: DEFAULT_SHORTCUT });
    expect(recordChord(press("KeyH", "h", { metaKey: true, shiftKey: true }), "mac")).toEqual({ kind: "chord", accelerator: DEFAULT_SHORTCUT });
    expect(recordChord(press("KeyZ", "y", { ctrlKey: true }), "linux"), "the physical key, whatever the layout").toEqual({
      kind: "chord",
      accelerator: "CommandOrControl+Z",
    });
  });

  it("keeps Ctrl on a Mac and the Super key elsewhere apart from CommandOrControl", () => {
    expect(recordChord(press("Digit1", "1", { ctrlKey: true, altKey: true }), "mac")).toEqual({ kind: "chord", accelerator: "Control+Alt+1" });
    expect(recordChord(press("F5", "F5", { metaKey: true }), "linux")).toEqual({ kind: "chord", accelerator: "Super+F5" });
    expect(recordChord(press("Space", " ", { altKey: true, shiftKey: true }), "windows")).toEqual({ kind: "chord", accelerator: "Alt+Shift+Space" });
  });

  it("waits while only modifiers are down", () => {
    expect(recordChord(press("ControlLeft", "Control", { ctrlKey: true }), "linux")).toEqual({ kind: "waiting" });
    expect(recordChord(press("ShiftRight", "Shift", { shiftKey: true, ctrlKey: true }), "linux")).toEqual({ kind: "waiting" });
    expect(recordChord(press("MetaLeft", "Meta", { metaKey: true }), "mac")).toEqual({ kind: "waiting" });
  });

  it("needs Ctrl, Alt or Cmd: a key alone, or with Shift only, would be taken from every app", () => {
    expect(recordChord(press("KeyH", "h"), "linux")).toEqual({ kind: "needsModifier" });
    expect(recordChord(press("KeyH", "H", { shiftKey: true }), "mac")).toEqual({ kind: "needsModifier" });
  });

  it("refuses keys a shortcut cannot use", () => {
    expect(recordChord(press("CapsLock", "CapsLock", { ctrlKey: true }), "linux")).toEqual({ kind: "unsupported" });
    expect(recordChord(press("", "Unidentified", { ctrlKey: true }), "linux")).toEqual({ kind: "unsupported" });
  });
});

describe("showing a shortcut", () => {
  it("the way Linux and Windows write it", () => {
    expect(displayAccelerator(DEFAULT_SHORTCUT, "linux")).toBe("Ctrl+Shift+H");
    expect(displayAccelerator("Super+Alt+ArrowUp", "linux")).toBe("Super+Alt+↑");
    expect(displayAccelerator("Super+KeyK", "windows")).toBe("Win+K");
    expect(displayAccelerator("CmdOrCtrl+Comma", "windows")).toBe("Ctrl+,");
  });

  it("with the Mac's symbols", () => {
    expect(displayAccelerator(DEFAULT_SHORTCUT, "mac")).toBe("⌘⇧H");
    expect(displayAccelerator("Control+Alt+Digit1", "mac")).toBe("⌃⌥1");
    expect(displayAccelerator("CommandOrControl+Space", "mac")).toBe("⌘Space");
  });

  it("as nothing when off", () => {
    expect(displayAccelerator("", "linux")).toBe("");
  });

  it("round-trips what was recorded", () => {
    const got = recordChord(press("KeyJ", "j", { ctrlKey: true, altKey: true }), "linux");
    expect(got.kind === "chord" && displayAccelerator(got.accelerator, "linux")).toBe("Ctrl+Alt+J");
  });
});
