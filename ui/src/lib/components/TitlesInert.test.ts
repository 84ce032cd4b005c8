// @vitest-environment jsdom
// Titles, subtitles and names are the sender's text: they reach the page through Svelte's
// text interpolation (never {@html}), so markup in them stays characters and nothing runs. A
// message title that broke the title rule arrives from the core already escaped
// (`\u{202e}`, herald_protocol::text::inert_label) and is shown as those characters.
import { render, screen } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import MessagePane from "./MessagePane.svelte";
import NotificationPane from "./NotificationPane.svelte";
import { agentNotification, messageView, summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const MARKUP = `<img src=x onerror="window.__pwned=1"><b>bold</b>`;

describe("titles are rendered inert", () => {
  it("shows a message title with markup as text, creating no element", () => {
    render(MessagePane, {
      view: messageView({ summary: summary({ title: MARKUP, senderName: `<i>bot</i>` }) }),
      onChanged: vi.fn(),
      onOpen: vi.fn(),
    });
    const title = screen.getByTestId("message-title");
    expect(title.textContent, "the title is its characters").toBe(MARKUP);
    expect(title.querySelector("img, b"), "no element made from the title").toBeNull();
    expect(document.querySelector("img[src='x']"), "nothing from the title anywhere").toBeNull();
    expect(document.body.innerHTML, "the sender name is escaped too").toContain("&lt;i&gt;bot&lt;/i&gt;");
  });

  it("shows an escaped (inert) title exactly as the core made it", () => {
    const inert = "Approve \\u{202e}fdp.exe";
    render(MessagePane, {
      view: messageView({ summary: summary({ title: inert, error: "title: must be one line of visible text" }) }),
      onChanged: vi.fn(),
      onOpen: vi.fn(),
    });
    const title = screen.getByTestId("message-title").textContent ?? "";
    expect(title).toBe(inert);
    expect(title.includes("\u202e"), "no live bidi override").toBe(false);
  });

  it("shows a notification title and subtitle with markup as text", () => {
    render(NotificationPane, {
      notification: agentNotification({ title: MARKUP, subtitle: MARKUP }),
      onChanged: vi.fn(),
    });
    expect(screen.getByTestId("notification-title").textContent).toBe(MARKUP);
    expect(screen.getByTestId("notification-subtitle").textContent).toBe(MARKUP);
    expect(document.querySelector("img[src='x']"), "no element made from either").toBeNull();
  });
});
