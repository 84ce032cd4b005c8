import { describe, expect, it } from "vitest";
import { isDate, isDateTime, localToRfc3339, rfc3339ToLocal } from "./datetime";

describe("dates", () => {
  it("accepts real days only", () => {
    expect(isDate("2024-02-29")).toBe(true);
    expect(isDate("2023-02-29")).toBe(false);
    expect(isDate("2024-13-01")).toBe(false);
    expect(isDate("2024-1-01")).toBe(false);
  });
  it("accepts RFC 3339 with seconds and an offset", () => {
    expect(isDateTime("2025-03-01T14:30:00Z")).toBe(true);
    expect(isDateTime("2025-03-01T14:30:00.123-05:30")).toBe(true);
    expect(isDateTime("2025-03-01T14:30Z")).toBe(false);
    expect(isDateTime("2025-03-01T14:30:00")).toBe(false);
  });
});

describe("datetime-local ↔ RFC 3339", () => {
  it("adds seconds and the local offset", () => {
    expect(localToRfc3339("2025-03-01T14:30", () => 60)).toBe("2025-03-01T14:30:00+01:00");
    expect(localToRfc3339("2025-03-01T14:30:15", () => -330)).toBe("2025-03-01T14:30:15-05:30");
    expect(localToRfc3339("2025-03-01T14:30", () => 0)).toBe("2025-03-01T14:30:00Z");
    expect(localToRfc3339("2025-03-01T14:30:15.250", () => 0)).toBe("2025-03-01T14:30:15Z");
  });
  it("passes the wall-clock time to the offset lookup (DST)", () => {
    const seen: number[][] = [];
    localToRfc3339("2025-07-04T09:05", (...parts) => {
      seen.push(parts);
      return 120;
    });
    expect(seen).toEqual([[2025, 7, 4, 9, 5]]);
  });
  it("rejects what is not a local date-time", () => {
    expect(localToRfc3339("2025-02-30T10:00")).toBeNull();
    expect(localToRfc3339("2025-03-01T24:00")).toBeNull();
    expect(localToRfc3339("tomorrow")).toBeNull();
  });
  it("shows an instant in the local zone", () => {
    expect(rfc3339ToLocal("2025-03-01T23:30:00Z", () => 60)).toBe("2025-03-02T00:30");
    expect(rfc3339ToLocal("2025-03-01T10:00:00+02:00", () => 0)).toBe("2025-03-01T08:00");
    expect(rfc3339ToLocal("nope")).toBe("");
  });
});
