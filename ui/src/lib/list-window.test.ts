import { describe, expect, it } from "vitest";
import { PAGE_ROWS, rowsToRender } from "./list-window";

describe("rowsToRender", () => {
  it("shows the first page of a large list and all of a small one", () => {
    expect(rowsToRender(10_000, PAGE_ROWS)).toBe(PAGE_ROWS);
    expect(rowsToRender(7, PAGE_ROWS)).toBe(7);
    expect(rowsToRender(0, PAGE_ROWS)).toBe(0);
  });

  it("grows with the scroll limit up to the total", () => {
    expect(rowsToRender(10_000, 3 * PAGE_ROWS)).toBe(3 * PAGE_ROWS);
    expect(rowsToRender(250, 3 * PAGE_ROWS)).toBe(250);
  });

  it("keeps half a page past the open or cursor row", () => {
    expect(rowsToRender(10_000, PAGE_ROWS, [PAGE_ROWS - 1])).toBe(PAGE_ROWS + PAGE_ROWS / 2);
    expect(rowsToRender(10_000, PAGE_ROWS, [-1, 4_000])).toBe(4_001 + PAGE_ROWS / 2);
    expect(rowsToRender(4_010, PAGE_ROWS, [4_000])).toBe(4_010);
  });

  it("ignores missing rows and bad limits", () => {
    expect(rowsToRender(10_000, -5, [-1, -1])).toBe(0);
    expect(rowsToRender(-1, PAGE_ROWS)).toBe(0);
  });
});
