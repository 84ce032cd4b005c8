// What the window shows, told to the shell (`ui_viewing`) whenever it changes: the message or
// agent notification open in the reading pane, and whether the window has the focus (focused
// and visible). The shell skips a banner only for that very item while the window is focused
// (docs/desktop-notifications.md); everything else still gets one.

import { uiViewing } from "./backend/tauri";

/** Sends one report to the shell. */
export type SendViewing = (messageId: string | null, focused: boolean) => Promise<void>;

/** Something that fires events: the window (replaced in tests). */
export type Events = {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
};

/** The document it asks about focus and visibility (replaced in tests). */
export type Page = Events & {
  hasFocus(): boolean;
  readonly visibilityState: DocumentVisibilityState;
};

export class ViewingReporter {
  private messageId: string | null = null;
  private last: string | null = null;

  constructor(
    private readonly send: SendViewing,
    private readonly doc: Page,
    private readonly win: Events,
  ) {}

  /** The reading pane now shows `id` (null: nothing, or another screen). */
  open(id: string | null): void {
    this.messageId = id;
    this.report();
  }

  /** Whether the window has the focus and its page is visible. */
  focused(): boolean {
    return this.doc.hasFocus() && this.doc.visibilityState === "visible";
  }

  /** Sends the current state, unless the shell has it already. */
  report(): void {
    const focused = this.focused();
    const key = JSON.stringify([this.messageId, focused]);
    if (key === this.last) return;
    this.last = key;
    this.send(this.messageId, focused).catch(() => {
      // Not told: the next change tries again.
      this.last = null;
    });
  }

  /** Reports on focus, blur and visibility changes; returns the function that stops it. */
  watch(): () => void {
    const changed = () => this.report();
    this.win.addEventListener("focus", changed);
    this.win.addEventListener("blur", changed);
    this.doc.addEventListener("visibilitychange", changed);
    this.report();
    return () => {
      this.win.removeEventListener("focus", changed);
      this.win.removeEventListener("blur", changed);
      this.doc.removeEventListener("visibilitychange", changed);
    };
  }
}

let shared: ViewingReporter | null = null;

/** The app's one reporter, over this document and window. */
export function viewing(): ViewingReporter {
  shared ??= new ViewingReporter(uiViewing, document, window);
  return shared;
}
