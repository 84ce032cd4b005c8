// How much of the inbox list is in the DOM. A large inbox (10,000 cached messages) is not
// rendered at once: the first page of rows paints, and more are added as the list scrolls
// (an observed sentinel row) or as the keyboard cursor / selection moves down. See
// docs/benchmarks.md ("Desktop") for what this does to the first inbox paint.

/** Rows added per step; the first paint shows this many. */
export const PAGE_ROWS = 100;

/**
 * How many of `total` rows to render: at least `limit` (grown by scrolling), and far enough
 * past every focused row (the open message, the keyboard cursor; -1 when none) that the next
 * row a key press moves to is already in the DOM. Never more than `total`, never negative.
 */
export function rowsToRender(total: number, limit: number, focused: readonly number[] = []): number {
  let needed = Math.max(0, limit);
  for (const index of focused) {
    if (index >= 0) needed = Math.max(needed, index + 1 + PAGE_ROWS / 2);
  }
  return Math.min(Math.max(0, total), needed);
}
