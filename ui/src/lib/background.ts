// Herald keeps running in the background when its window is closed (a tray icon; Quit from
// its menu). The words that tell the person how to quit depend on the platform: the menu bar
// and Cmd+Q on a Mac, the system tray and Ctrl+Q elsewhere.

export interface QuitHints {
  /** Where the icon with the Quit menu is. */
  tray: string;
  /** The keys that quit from the window. */
  keys: string;
}

export function isMac(userAgent: string): boolean {
  return /Macintosh|Mac OS X/.test(userAgent);
}

export function quitHints(userAgent: string): QuitHints {
  return isMac(userAgent)
    ? { tray: "Herald's icon in the menu bar", keys: "Cmd+Q" }
    : { tray: "Herald's icon in the system tray", keys: "Ctrl+Q" };
}
