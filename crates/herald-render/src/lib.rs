//! Turns message content into sanitized HTML for the desktop's web view.
//!
//! Messages come from agents and people the reader may not trust, and the web view is the
//! app: a script that ran there could read the inbox. So everything rendered here is pure
//! (no I/O), and every output is produced in two independent steps:
//!
//! 1. The Markdown events are rewritten before rendering: raw HTML becomes text, links with
//!    unsafe schemes lose their target, images become placeholders ([`markdown_to_html`]).
//! 2. The resulting HTML is run through an ammonia allow-list anyway (`sanitize.rs`). Either
//!    step alone should suffice; we sanitize twice so that one bug is not enough.
//!
//! Nothing rendered loads anything: no `<img>`, no `src`, no `style` attribute, no remote
//! origin. The app runs under a strict CSP (no inline script or style, no remote origins),
//! which is why syntax highlighting is expressed as CSS classes with a separately generated
//! stylesheet ([`highlight_css`]) rather than syntect's usual inline styles.
//!
//! # Classes the UI styles
//!
//! | class | on | marks |
//! |---|---|---|
//! | `external` | `a` | every link (all links leave the app) |
//! | `image-blocked` | `span` | placeholder for an image that was not loaded |
//! | `code-block` | `pre` | a code block (Markdown fence or [`code_to_html`]) |
//! | `hl-code` | `pre` | theme foreground/background, from [`highlight_css`] |
//! | `highlight-skipped` | `pre` | code in a known language left plain by a size limit or the per-message budget ([`MAX_HIGHLIGHT_BYTES_PER_MESSAGE`]) |
//! | `hl-*` | `span` | syntax scopes, from [`highlight_css`] |
//! | `align-left`, `align-center`, `align-right` | `th`, `td` | table column alignment |
//! | `diff` | `table` | a diff from [`diff_to_html`] |
//! | `diff-file`, `diff-hunk`, `diff-added`, `diff-removed`, `diff-context`, `diff-meta` | `tr` | diff line kinds |
//! | `diff-ln`, `diff-text` | `td` | line number cells and the line itself (`white-space: pre`) |
//!
//! The functions cannot fail: any `&str` gives HTML, so there is no error type. Size limits
//! belong to the callers (message limits); the functions stay roughly linear and bound
//! nesting and highlighting so that odd input costs time proportional to its size, not more.

mod code;
mod diff;
mod markdown;
mod sanitize;
mod table;

pub use code::{
    code_to_html, highlight_css, DARK_THEME, LIGHT_THEME, MAX_HIGHLIGHT_BYTES,
    MAX_HIGHLIGHT_BYTES_PER_MESSAGE, MAX_HIGHLIGHT_LINE_BYTES,
};
pub use diff::diff_to_html;
pub use markdown::{
    markdown_to_html, markdown_to_html_full, markdown_to_html_with_budget, MAX_NESTING,
};
pub use table::{json_to_html, table_to_html};
