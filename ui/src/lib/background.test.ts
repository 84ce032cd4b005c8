import { describe, expect, it } from "vitest";
import { isMac, quitHints } from "./background";

const MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Edg/120.0";

describe("how to quit", () => {
  it("names the menu bar and Cmd+Q on a Mac", () => {
    expect(isMac(MAC), "a Mac's webview says Macintosh").toBe(true);
    expect(quitHints(MAC), "the Mac's words").toEqual({ tray: "Herald's icon in the menu bar", keys: "Cmd+Q" });
  });
  it("names the system tray and Ctrl+Q elsewhere", () => {
    for (const ua of [LINUX, WINDOWS, ""]) {
      expect(isMac(ua), `not a Mac: ${ua}`).toBe(false);
      expect(quitHints(ua), `the words for ${ua}`).toEqual({ tray: "Herald's icon in the system tray", keys: "Ctrl+Q" });
    }
  });
});
