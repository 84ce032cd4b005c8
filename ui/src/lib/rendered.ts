import type { MessageView } from "./bindings/MessageView";

/**
 * The open message's view with the body of a fresh fetch (after a `messageRendered` event:
 * the core finished highlighting code it left plain on first paint). Only `bodyHtml` changes,
 * and only for the same message, so everything else — the form's fields, the answer — keeps
 * its identity and the pane does not re-create its inputs. Returns `current` itself when
 * nothing changed.
 */
export function withRenderedBody(current: MessageView, fresh: MessageView): MessageView {
  if (fresh.summary.id !== current.summary.id || fresh.bodyHtml === current.bodyHtml) return current;
  return { ...current, bodyHtml: fresh.bodyHtml };
}
