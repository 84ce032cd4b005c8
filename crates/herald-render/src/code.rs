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

use std::sync::OnceLock;

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
/// [`MAX_HIGHLIGHT_LINE_BYTES`] are not highlighted.
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
pub(crate) fn block_html(code: &str, language: Option<&str>) -> String {
    let body = language
        .and_then(find_syntax)
        .and_then(|syntax| highlight(code, syntax))
        .unwrap_or_else(|| escape_html(code));
    format!("<pre class=\"code-block hl-code\"><code>{body}</code></pre>\n")
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
