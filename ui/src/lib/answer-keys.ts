// A and R answer the open request from the keyboard, but not in the first moments after the
// window takes the focus or is made to show something by the shell (a link, the tray, the
// global shortcut, a banner). Otherwise a window raised while the person types elsewhere — by
// `herald://pending` from any local program, say — would take their next "a" as an approval.
// An approval never comes from a key meant for another app.

/** How long answer keys stay quiet after the window gains focus or is told what to show. */
export const ANSWER_KEYS_QUIET_MS = 1000;

let quietUntil = 0;

/** Keeps A and R from answering for the next {@link ANSWER_KEYS_QUIET_MS}. */
export function quietAnswerKeys(now: number = Date.now()): void {
  quietUntil = Math.max(quietUntil, now + ANSWER_KEYS_QUIET_MS);
}

/** Whether A and R may answer now. */
export function answerKeysArmed(now: number = Date.now()): boolean {
  return now >= quietUntil;
}

/** Quiets answer keys whenever `target` (the window) gains the focus; returns the unsubscriber. */
export function quietOnFocus(target: Pick<Window, "addEventListener" | "removeEventListener"> = window): () => void {
  const onFocus = () => quietAnswerKeys();
  target.addEventListener("focus", onFocus);
  return () => target.removeEventListener("focus", onFocus);
}

/** For tests: forgets any quiet period. */
export function resetAnswerKeys(): void {
  quietUntil = 0;
}
