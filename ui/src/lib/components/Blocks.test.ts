// @vitest-environment jsdom
// Blocks frame the backend's sanitized HTML; the HTML itself must reach the page as rendered.
import { render, screen } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import Blocks from "./Blocks.svelte";
import MessagePane from "./MessagePane.svelte";
import { DIFF_BLOCK, messageView } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

function expectDiffRows(block: HTMLElement) {
  const rows = [...block.querySelectorAll("table.diff tr")];
  expect(rows.map((r) => r.className), "block-0 holds the fixture's diff rows, in order").toEqual([
    "diff-hunk",
    "diff-removed",
    "diff-added",
    "diff-context",
  ]);
  expect(block.querySelector("tr.diff-removed .diff-text")?.textContent, "the removed line's text is shown").toBe(
    "-replicas = 2",
  );
  expect(block.querySelector("tr.diff-added .diff-text")?.textContent, "the added line's text is shown").toBe(
    "+replicas = 3",
  );
}

describe("Blocks", () => {
  it("renders each block's HTML under its caption", () => {
    render(Blocks, { blocks: [DIFF_BLOCK] });

    const block = screen.getByTestId("block-0");
    expect(block.dataset.kind, "block-0 is marked as a diff").toBe("diff");
    expect(block.textContent, "the block shows its title as caption").toContain("src/config.rs");
    expect(block.querySelector("table.diff"), "the diff HTML is inserted as markup, not as text").not.toBeNull();
    expect(block.textContent, "the HTML is not shown escaped").not.toContain("<tr");
    expectDiffRows(block);
    expect(screen.queryByTestId("block-copy-0"), "a diff block offers Copy").not.toBeNull();
  });

  it("shows a message's blocks in the reading pane", () => {
    render(MessagePane, { view: messageView({ blocks: [DIFF_BLOCK] }), onChanged: vi.fn(), onOpen: vi.fn() });

    expectDiffRows(screen.getByTestId("block-0"));
  });
});
