// What the shell asks the window to show: the payload of `herald://open` and the answer of
// `take_open_target` (a window created afresh asks once). Generated from the shell's
// `OpenTarget` and `OpenNotice` (src-tauri/src/targets.rs; tagged by `kind`). A target only
// navigates: a connector link fills in its code and the person still presses Approve; nothing
// is answered or approved by opening.

export type { OpenNotice } from "./bindings/OpenNotice";
export type { OpenTarget } from "./bindings/OpenTarget";
