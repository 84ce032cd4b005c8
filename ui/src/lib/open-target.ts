// What the shell asks the window to show: the payload of `herald://open` and the answer of
// `take_open_target` (a window created afresh asks once). Hand-written to match the shell's
// `OpenTarget` (tagged by `kind`). A target only navigates: a connector link fills in its code
// and the person still presses Approve; nothing is answered or approved by opening.

/**
 * Why the shell opened a message, when there is something to say: `alreadyAnswered` — a press
 * on its notification came after the request was answered, so nothing was sent again.
 */
export type OpenNotice = "alreadyAnswered";

export type OpenTarget =
  /** A message (a click on its banner), with the note to show above it if any. */
  | { kind: "message"; id: string; notice: OpenNotice | null }
  /** The inbox (a click on a summary banner, the tray). */
  | { kind: "inbox" }
  /** The newest request waiting for an answer; the window shows the inbox. */
  | { kind: "newestPending" }
  /** An agent's notification (a click on its banner). */
  | { kind: "notification"; id: string }
  /** Settings → Agents with this connector code filled in, waiting for Approve. */
  | { kind: "connector"; userCode: string }
  /** Settings → "Approve a new device". */
  | { kind: "approveDevice" };
