// Attachments: sizes and types for people, and which bytes may be shown as an image. Pure, so
// it is tested without a window.

import type { UiErrorCode } from "./bindings/UiErrorCode";

const UNITS = ["kB", "MB", "GB"];

/**
 * `512 B`, `1.5 kB`, `12 MB`: decimal units, as the 100 MB file limit is counted (100,000,000
 * bytes); one decimal below 10.
 */
export function humanSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1000) return `${bytes} B`;
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.5 && unit < UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const shown = value < 10 ? value.toFixed(1).replace(/\.0$/, "") : String(Math.round(value));
  return `${shown} ${UNITS[unit]}`;
}

const TYPE_LABELS: Record<string, string> = {
  "image/png": "PNG image",
  "image/jpeg": "JPEG image",
  "image/gif": "GIF image",
  "image/webp": "WebP image",
  "application/pdf": "PDF",
  "application/json": "JSON",
  "application/zip": "ZIP archive",
  "text/plain": "Text",
  "text/csv": "CSV",
  "text/markdown": "Markdown",
};

/** A short type name: known MIME types by name, else the file's extension, else the MIME type. */
export function typeLabel(mimeType: string, name: string): string {
  const known = TYPE_LABELS[mimeType.toLowerCase()];
  if (known) return known;
  const dot = name.lastIndexOf(".");
  if (dot > 0 && dot < name.length - 1 && name.length - dot <= 6) return `${name.slice(dot + 1).toUpperCase()} file`;
  return mimeType || "File";
}

/** The image types an image block may show. */
export type ImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/**
 * The image type the bytes really are, from their magic numbers, or null. The declared type is
 * not trusted: only PNG, JPEG, GIF and WebP bytes become an image.
 */
export function sniffImage(bytes: Uint8Array): ImageType | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, "PNG\r\n\x1a\n")) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 6 && (ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a"))) return "image/gif";
  if (bytes.length >= 12 && ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) return "image/webp";
  return null;
}

// The relay's stable code for a file it no longer has (expired, or deleted by a reset).
const GONE = new Set<UiErrorCode>(["file_expired"]);

/** Whether a failed download means the file is gone, as opposed to a passing failure. */
export function isFileGone(code: UiErrorCode): boolean {
  return GONE.has(code);
}

// The relay's codes for a secret that is not there any more (handed over once, or timed out),
// or whose offer another device of the account opened first.
const SECRET_GONE = new Set<UiErrorCode>(["secret_collected", "secret_expired", "offer_key_exists"]);

/** Whether a failed reveal means the secret cannot be had any more. */
export function isSecretGone(code: UiErrorCode): boolean {
  return SECRET_GONE.has(code);
}

/** An image block's alt text: its plain-text form is `[image: alt]`. */
export function imageAlt(text: string, fallback = "Image"): string {
  const m = /^\[image: (.*)\]$/s.exec(text);
  return m && m[1].trim() ? m[1] : fallback;
}
