import { describe, expect, it } from "vitest";
import { closedReason, relativeTime } from "./format";

describe("relativeTime", () => {
  const now = new Date("2026-03-10T12:00:00Z");
  it("says just now under a minute", () => {
    expect(relativeTime("2026-03-10T11:59:30Z", now)).toBe("just now");
  });
  it("counts minutes and hours", () => {
    expect(relativeTime("2026-03-10T11:55:00Z", now)).toBe("5 min ago");
    expect(relativeTime("2026-03-10T09:00:00Z", now)).toBe("3 h ago");
  });
  it("says yesterday and days", () => {
    expect(relativeTime("2026-03-09T10:00:00Z", now)).toBe("yesterday");
    expect(relativeTime("2026-03-06T12:00:00Z", now)).toBe("4 days ago");
  });
  it("returns empty text for garbage", () => {
    expect(relativeTime("not a date", now)).toBe("");
  });
});

describe("closedReason", () => {
  it("explains expired and cancelled, nothing otherwise", () => {
    expect(closedReason("expired")).toMatch(/expired/);
    expect(closedReason("cancelled")).toMatch(/cancelled/);
    expect(closedReason("pending")).toBeNull();
  });
});
