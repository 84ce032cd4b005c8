import { describe, expect, it } from "vitest";
import { humanSize, imageAlt, isFileGone, isSecretGone, sniffImage, typeLabel } from "./files";

const bytes = (...b: (number | string)[]) =>
  new Uint8Array(b.flatMap((x) => (typeof x === "string" ? [...x].map((c) => c.charCodeAt(0)) : [x])));

describe("humanSize", () => {
  it("uses the largest fitting unit", () => {
    expect(humanSize(0)).toBe("0 B");
    expect(humanSize(999)).toBe("999 B");
    expect(humanSize(1500)).toBe("1.5 kB");
    expect(humanSize(999_999), "rounds up into the next unit").toBe("1 MB");
    expect(humanSize(2_097_152)).toBe("2.1 MB");
    expect(humanSize(100_000_000), "the file limit, as the protocol counts it").toBe("100 MB");
    expect(humanSize(-1), "nonsense shows nothing").toBe("");
  });
});

describe("typeLabel", () => {
  it("names known types, else the extension", () => {
    expect(typeLabel("image/png", "x.png")).toBe("PNG image");
    expect(typeLabel("application/octet-stream", "kubeconfig.yaml")).toBe("YAML file");
    expect(typeLabel("application/x-thing", "noext")).toBe("application/x-thing");
  });
});

describe("sniffImage", () => {
  it("reads the real type from the magic numbers", () => {
    expect(sniffImage(bytes(0x89, "PNG\r\n", 0x1a, "\n", 0))).toBe("image/png");
    expect(sniffImage(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(sniffImage(bytes("GIF89a", 1))).toBe("image/gif");
    expect(sniffImage(bytes("RIFF", 0, 0, 0, 0, "WEBPVP8 "))).toBe("image/webp");
  });

  it("refuses anything else, whatever it claims to be", () => {
    expect(sniffImage(bytes("<svg xmlns=")), "SVG can carry script").toBeNull();
    expect(sniffImage(bytes("<html>")), "HTML").toBeNull();
    expect(sniffImage(bytes(0x89, "PN")), "a truncated PNG header").toBeNull();
    expect(sniffImage(new Uint8Array()), "nothing").toBeNull();
  });
});

describe("isFileGone", () => {
  it("treats expired and deleted files as gone", () => {
    expect(isFileGone("file_expired")).toBe(true);
    expect(isFileGone("network")).toBe(false);
  });
});

describe("isSecretGone", () => {
  it("treats a collected, expired or elsewhere-opened secret as gone", () => {
    expect(isSecretGone("secret_collected")).toBe(true);
    expect(isSecretGone("secret_expired")).toBe(true);
    expect(isSecretGone("offer_key_exists")).toBe(true);
    expect(isSecretGone("network")).toBe(false);
  });
});

describe("imageAlt", () => {
  it("reads the alt text from the block's plain text", () => {
    expect(imageAlt("[image: Architecture diagram]")).toBe("Architecture diagram");
    expect(imageAlt("something else"), "falls back").toBe("Image");
  });
});
