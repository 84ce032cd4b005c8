import type { PagePhases } from "./bindings/PagePhases";

/**
 * When the page reached each step of its first start, in milliseconds since the webview began
 * to load it (`performance.now()`). Sent once with `ui_painted` and logged by the shell
 * (src-tauri/src/paint.rs, `PagePhases`), so a slow start or reopen says where its time went.
 */
const phases: PagePhases = {
  html: null,
  script: null,
  mounted: null,
  setup: null,
  sync: null,
  page: null,
  notifications: null,
  inbox: null,
  painted: null,
};

/** Records `step` now; the first record of a step is kept. `html` comes from navigation timing. */
export function markPhase(step: Exclude<keyof PagePhases, "html">): void {
  if (phases[step] === null) phases[step] = performance.now();
}

/** The steps so far, with `html` from the navigation timing entry when the webview has one. */
export function pagePhases(): PagePhases {
  const entries = typeof performance.getEntriesByType === "function" ? performance.getEntriesByType("navigation") : [];
  const navigation = entries[0] as PerformanceNavigationTiming | undefined;
  return { ...phases, html: navigation && navigation.responseEnd > 0 ? navigation.responseEnd : null };
}
