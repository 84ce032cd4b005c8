//! Code blocks: syntax highlighting with syntect, emitted as CSS classes.
//!
//! Why classes and not syntect's usual inline `style="color: ..."`: the desktop's web view
//! runs under a strict Content Security Policy, and the sanitizer removes every `style`
//! attribute anyway (a style attribute can load remote URLs and restyle the app's own UI).
//! So highlighting is expressed as `hl-*` classes and [`highlight_css`] turns a built-in theme
//! into a static stylesheet the UI ships as an asset.
//!
//! Highlighting is best effort. An unknown language, a block over
//! [`MAX_HIGHLIGHT_BYTES`], a line over [`MAX_HIGHLIGHT_LINE_BYTES`] or any error from syntect
//! gives plain escaped code instead: a message must always render, however odd its code.
//!
//! Speed: syntect colours roughly 0.3–1 MB of code per second and core (its regex engine is
//! the cost; see docs/benchmarks.md "Rendering"). So the code blocks of one Markdown message
//! are highlighted in parallel ([`blocks_html`]), and only the first
//! [`MAX_HIGHLIGHT_BYTES_PER_MESSAGE`] bytes of code of a message are coloured; later blocks
//! are shown as plain code marked `highlight-skipped`.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::thread;

use syntect::highlighting::ThemeSet;
use syntect::html::{css_for_theme_with_class_style, ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use crate::sanitize::{self, escape_html, HIGHLIGHT_CLASS_PREFIX};

/// Code longer than this many bytes is shown without highlighting. Syntect's cost grows with
/// input size and regex backtracking; past this size colour is not worth the wait.
pub const MAX_HIGHLIGHT_BYTES: usize = 64 * 1024;

/// A block with any line longer than this many bytes is shown without highlighting. Very
/// long lines (minified code, embedded data) are where regex-based highlighters get slow.
pub const MAX_HIGHLIGHT_LINE_BYTES: usize = 4 * 1024;

/// Bytes of fenced code per Markdown message that are highlighted, counted in document
/// order over the blocks with a known language. The block that would go past this budget and
/// every later one are rendered as plain escaped code in a
/// `<pre class="code-block hl-code highlight-skipped">`.
///
/// Why a budget: a highlighted byte costs about 40 times a plain one (syntect's regexes, then
/// sanitizing the `span` markup it produces, which is ~25 times the code's size): about 4 ms
/// per KiB of code on the benchmark machine against 0.1 ms per KiB for the rest of a message.
/// A message is rendered when it is opened, so that cost is a pause the reader sees; 2 KiB
/// (about 60 lines) keeps a 50,000-character message under 15 ms (docs/benchmarks.md
/// "Rendering"). It covers the snippets of ordinary messages and the first blocks of a long
/// report; what lies past it stays exact, readable code, only uncoloured, and is marked so the
/// UI can say so. The output depends only on the input (a byte count, not a clock).
pub const MAX_HIGHLIGHT_BYTES_PER_MESSAGE: usize = 2 * 1024;

/// Below this many bytes of code to highlight, a message's blocks are highlighted on the
/// calling thread: starting threads would cost more than it saves.
const PARALLEL_MIN_BYTES: usize = 1024;

/// Most threads used to highlight the blocks of one message (the caller's thread included).
const MAX_THREADS: usize = 4;

/// Theme used by [`highlight_css`] for the light UI.
pub const LIGHT_THEME: &str = "InspiredGitHub";

/// Theme used by [`highlight_css`] for the dark UI.
pub const DARK_THEME: &str = "base16-ocean.dark";

const CLASS_STYLE: ClassStyle = ClassStyle::SpacedPrefixed {
    prefix: HIGHLIGHT_CLASS_PREFIX,
};

/// Language names that are deliberately not highlighted.
const PLAIN_LANGUAGES: &[&str] = &["", "text", "plain", "plaintext", "txt"];

/// Renders a code block that is not part of Markdown as sanitized HTML.
///
/// `language` is a name or file extension such as `"python"`, `"py"`, `"sql"`, `"javascript"`,
/// `"typescript"`, `"json"` (case-insensitive). `None`, `"text"` or a language syntect does not
/// know gives plain escaped code. TypeScript has no grammar among syntect's built-in syntaxes
/// and is highlighted with the JavaScript grammar, which covers everything but type syntax.
///
/// Output shape, always:
///
/// ```html
/// <pre class="code-block hl-code"><code>…</code></pre>
/// ```
///
/// where `…` is either escaped text or text wrapped in `<span class="hl-…">` elements.
/// Never panics; blocks over [`MAX_HIGHLIGHT_BYTES`] or with a line over
/// [`MAX_HIGHLIGHT_LINE_BYTES`] are not highlighted, and their `pre` gets the extra class
/// `highlight-skipped`. (The per-message budget applies to Markdown only.)
pub fn code_to_html(code: &str, language: Option<&str>) -> String {
    sanitize::clean(&block_html(code, language))
}

/// Returns the stylesheet for the `hl-*` classes, generated from a syntect built-in theme:
/// [`DARK_THEME`] when `dark`, otherwise [`LIGHT_THEME`].
///
/// The `.hl-code` rule carries the theme's foreground and background; the other rules colour
/// scopes (`.hl-comment`, `.hl-string`, ...). Meant to be generated once and shipped as a
/// static asset (the CSP forbids inline styles). Returns an empty string only if the
/// built-in theme were missing, which the crate's tests rule out.
pub fn highlight_css(dark: bool) -> String {
    let name = if dark { DARK_THEME } else { LIGHT_THEME };
    theme_set()
        .themes
        .get(name)
        .and_then(|theme| css_for_theme_with_class_style(theme, CLASS_STYLE).ok())
        .unwrap_or_default()
}

/// The unsanitized HTML for one code block; the caller runs it through the sanitizer.
fn block_html(code: &str, language: Option<&str>) -> String {
    render_block(code, language.and_then(find_syntax))
}

/// One fenced code block of a Markdown message, waiting to be rendered by [`blocks_html`].
pub(crate) struct CodeBlock {
    /// The code, exactly as shown.
    pub(crate) code: String,
    /// The fence's language label, if any.
    pub(crate) language: Option<String>,
}

/// The unsanitized HTML of each block, in the order given: the blocks of one message.
///
/// Blocks with a known language are highlighted while their running total of bytes stays
/// within `budget` (normally [`MAX_HIGHLIGHT_BYTES_PER_MESSAGE`]; `usize::MAX` for no
/// budget); the rest are plain (`highlight-skipped`). The
/// highlighting runs on up to [`MAX_THREADS`] threads (the caller's included), largest block
/// first; each block's HTML depends only on the block, so the result is the same whatever the
/// threads do.
pub(crate) fn blocks_html(blocks: &[CodeBlock], budget: usize) -> Vec<String> {
    let mut remaining = budget;
    let mut over_budget = false;
    let syntaxes: Vec<Option<&'static SyntaxReference>> = blocks
        .iter()
        .map(|block| {
            let syntax = block.language.as_deref().and_then(find_syntax)?;
            if over_budget || block.code.len() > remaining {
                over_budget = true;
                return None;
            }
            remaining -= block.code.len();
            Some(syntax)
        })
        .collect();
    let render = |index: usize| {
        let block = &blocks[index];
        match syntaxes[index] {
            Some(syntax) => render_block(&block.code, Some(syntax)),
            None if block.language.as_deref().and_then(find_syntax).is_some() => {
                plain_block(&block.code, " highlight-skipped")
            }
            None => plain_block(&block.code, ""),
        }
    };

    let highlighted = budget - remaining;
    let jobs = syntaxes.iter().filter(|syntax| syntax.is_some()).count();
    let threads = thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(MAX_THREADS)
        .min(jobs);
    if threads <= 1 || highlighted < PARALLEL_MIN_BYTES {
        return (0..blocks.len()).map(render).collect();
    }

    // Largest first, so that no thread is left with one big block at the end.
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by_key(|&index| std::cmp::Reverse(blocks[index].code.len()));
    let next = AtomicUsize::new(0);
    let slots: Vec<OnceLock<String>> = blocks.iter().map(|_| OnceLock::new()).collect();
    let work = || {
        while let Some(&index) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let _ = slots[index].set(render(index));
        }
    };
    thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().unwrap_or_default())
        .collect()
}

/// A block highlighted with `syntax`, or plain when there is none or highlighting gave up.
fn render_block(code: &str, syntax: Option<&SyntaxReference>) -> String {
    match syntax {
        Some(syntax) => match highlight(code, syntax) {
            Some(body) => wrap_block(&body, ""),
            None => plain_block(code, " highlight-skipped"),
        },
        None => plain_block(code, ""),
    }
}

fn plain_block(code: &str, extra_class: &str) -> String {
    wrap_block(&escape_html(code), extra_class)
}

fn wrap_block(body: &str, extra_class: &str) -> String {
    format!("<pre class=\"code-block hl-code{extra_class}\"><code>{body}</code></pre>\n")
}

fn syntax_set() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn theme_set() -> &'static ThemeSet {
    static THEMES: OnceLock<ThemeSet> = OnceLock::new();
    THEMES.get_or_init(ThemeSet::load_defaults)
}

fn find_syntax(language: &str) -> Option<&'static SyntaxReference> {
    let language = language.trim().to_ascii_lowercase();
    if PLAIN_LANGUAGES.contains(&language.as_str()) {
        return None;
    }
    let token = match language.as_str() {
        "typescript" | "ts" | "tsx" | "mts" | "cts" | "jsx" | "mjs" | "cjs" | "node" => "js",
        "shell" | "sh" | "zsh" | "console" => "bash",
        other => other,
    };
    let syntax = syntax_set().find_syntax_by_token(token)?;
    (syntax.name != "Plain Text").then_some(syntax)
}

fn highlight(code: &str, syntax: &SyntaxReference) -> Option<String> {
    if code.len() > MAX_HIGHLIGHT_BYTES {
        return None;
    }
    let mut generator =
        ClassedHTMLGenerator::new_with_class_style(syntax, syntax_set(), CLASS_STYLE);
    for line in LinesWithEndings::from(code) {
        if line.len() > MAX_HIGHLIGHT_LINE_BYTES {
            return None;
        }
        generator
            .parse_html_for_line_which_includes_newline(line)
            .ok()?;
    }
    Some(generator.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_languages_resolve() {
        for language in [
            "sql",
            "javascript",
            "typescript",
            "python",
            "json",
            "PY",
            "ts",
        ] {
            assert!(
                find_syntax(language).is_some(),
                "{language} should have a built-in syntax"
            );
        }
        for language in ["text", "TXT", "", "no-such-language"] {
            assert!(
                find_syntax(language).is_none(),
                "{language:?} should render as plain code"
            );
        }
    }

    #[test]
    fn oversized_code_is_not_highlighted() {
        let python = find_syntax("python").expect("python is a built-in syntax");
        let long_line = format!("x = '{}'\n", "a".repeat(MAX_HIGHLIGHT_LINE_BYTES));
        assert_eq!(
            highlight(&long_line, python),
            None,
            "a line over the limit turns highlighting off"
        );
        let big = "x = 1\n".repeat(MAX_HIGHLIGHT_BYTES / 6 + 1);
        assert_eq!(
            highlight(&big, python),
            None,
            "a block over the limit is plain"
        );
    }
}
