// Links inside rendered message content never navigate the web view: http(s) and mailto open
// in the system browser, anything else does nothing.

import { openExternal } from "./backend/tauri";

export function interceptLinks(event: Event): void {
  const target = event.target as Element | null;
  const link = target?.closest?.("a");
  if (!link) return;
  event.preventDefault();
  const href = link.getAttribute("href") ?? "";
  if (/^(https?:|mailto:)/i.test(href)) {
    openExternal(href).catch(() => undefined);
  }
}

export function interceptLinkKeys(event: KeyboardEvent): void {
  if (event.key === "Enter") interceptLinks(event);
}
