import { describe, expect, it } from "vitest";
import { isCloseChord, isQuitChord, isSubmitChord, isTypingTarget, moveCursor, shortcutFor, type KeyPress } from "./shortcuts";

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  typing: false,
  onControl: false,
  inList: false,
  ...extra,
});

describe("shortcuts", () => {
  it("maps keys to commands", () => {
    expect(shortcutFor(press("j"))).toBe("next");
    expect(shortcutFor(press("k"))).toBe("prev");
    expect(shortcutFor(press("ArrowDown"))).toBe("next");
    expect(shortcutFor(press("ArrowUp", { inList: true, onControl: true }))).toBe("prev");
    expect(shortcutFor(press("Enter"))).toBe("open");
    expect(shortcutFor(press("a"))).toBe("approve");
    expect(shortcutFor(press("r"))).toBe("reject");
    expect(shortcutFor(press("x"))).toBeNull();
  });
  it("ignores keys while typing or with modifiers", () => {
    expect(shortcutFor(press("a", { typing: true }))).toBeNull();
    expect(shortcutFor(press("j", { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(press("r", { metaKey: true }))).toBeNull();
  });
  it("leaves Enter and arrows to the control that has focus", () => {
    expect(shortcutFor(press("Enter", { onControl: true }))).toBeNull();
    expect(shortcutFor(press("ArrowDown", { onControl: true }))).toBeNull();
  });
  it("submits a form with Ctrl+Enter or Cmd+Enter only", () => {
    expect(isSubmitChord(press("Enter", { ctrlKey: true })), "Ctrl+Enter submits").toBe(true);
    expect(isSubmitChord(press("Enter", { metaKey: true })), "Cmd+Enter submits").toBe(true);
    expect(isSubmitChord(press("Enter")), "a plain Enter is a new line in a text area").toBe(false);
    expect(isSubmitChord(press("Enter", { ctrlKey: true, altKey: true })), "Alt makes it another chord").toBe(false);
    expect(isSubmitChord(press("a", { ctrlKey: true })), "only Enter").toBe(false);
  });
  it("quits with Ctrl+Q, or Cmd+Q on a Mac", () => {
    const q = (extra: Partial<KeyPress & { shiftKey: boolean }>) => ({ ...press("q"), shiftKey: false, ...extra });
    expect(isQuitChord(q({ ctrlKey: true }), false), "Ctrl+Q quits on Linux and Windows").toBe(true);
    expect(isQuitChord(q({ key: "Q", ctrlKey: true }), false), "with Caps Lock on too").toBe(true);
    expect(isQuitChord(q({ metaKey: true }), true), "Cmd+Q quits on a Mac").toBe(true);
    expect(isQuitChord(q({ ctrlKey: true }), true), "Ctrl+Q is not the Mac's quit").toBe(false);
    expect(isQuitChord(q({ metaKey: true }), false), "Super+Q belongs to the Linux desktop").toBe(false);
    expect(isQuitChord(q({}), false), "a plain q is typing").toBe(false);
    expect(isQuitChord(q({ ctrlKey: true, shiftKey: true }), false), "Ctrl+Shift+Q is another chord").toBe(false);
    expect(isQuitChord(q({ ctrlKey: true, altKey: true }), false), "so is Ctrl+Alt+Q").toBe(false);
  });
  it("closes the window with Ctrl+W, or Cmd+W on a Mac", () => {
    const w = (extra: Partial<KeyPress> & { shiftKey?: boolean }) => ({ ...press("w", extra), shiftKey: false, ...extra });
    expect(isCloseChord(w({ ctrlKey: true }), false)).toBe(true);
    expect(isCloseChord(w({ metaKey: true }), true)).toBe(true);
    expect(isCloseChord(w({ ctrlKey: true }), true), "Ctrl+W is not the Mac's close").toBe(false);
    expect(isCloseChord(w({}), false), "a plain w is typing").toBe(false);
    expect(isCloseChord(w({ ctrlKey: true, shiftKey: true }), false)).toBe(false);
  });
  it("knows typing targets", () => {
    const el = (tagName: string, type?: string, isContentEditable = false) => ({
      tagName,
      isContentEditable,
      getAttribute: (n: string) => (n === "type" ? (type ?? null) : null),
    });
    expect(isTypingTarget(el("INPUT"))).toBe(true);
    expect(isTypingTarget(el("INPUT", "number"))).toBe(true);
    expect(isTypingTarget(el("INPUT", "radio"))).toBe(false);
    expect(isTypingTarget(el("TEXTAREA"))).toBe(true);
    expect(isTypingTarget(el("DIV", undefined, true))).toBe(true);
    expect(isTypingTarget(el("BUTTON"))).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
  it("moves the cursor within the list", () => {
    const ids = ["a", "b", "c"];
    expect(moveCursor(ids, null, 1)).toBe("a");
    expect(moveCursor(ids, null, -1)).toBe("c");
    expect(moveCursor(ids, "a", 1)).toBe("b");
    expect(moveCursor(ids, "c", 1)).toBe("c");
    expect(moveCursor(ids, "a", -1)).toBe("a");
    expect(moveCursor(ids, "gone", 1)).toBe("a");
    expect(moveCursor([], "a", 1)).toBeNull();
  });
});
