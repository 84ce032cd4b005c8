//! Unified diffs as a table: one row per line, classed by what the line is.
//!
//! Agents send patches for people to review, so a diff is shown as a diff (added and removed
//! lines coloured, old and new line numbers beside them) rather than as plain code. The
//! parsing is lenient: any text renders, and lines that do not fit the unified format are
//! shown as `diff-meta` rows rather than rejected. Every line is escaped, and the table goes
//! through the same sanitizer as Markdown.

use crate::sanitize::{self, escape_html};

/// Renders a unified diff (`git diff`, `diff -u`) as a sanitized HTML table.
///
/// Shape:
///
/// ```html
/// <table class="diff"><tbody>
/// <tr class="diff-added"><td class="diff-ln"></td><td class="diff-ln">12</td><td class="diff-text">+new line</td></tr>
/// …
/// </tbody></table>
/// ```
///
/// Row classes: `diff-file` (file headers such as `diff --git`, `index`, `---`, `+++`),
/// `diff-hunk` (`@@ -a,b +c,d @@`), `diff-added`, `diff-removed`, `diff-context`, and
/// `diff-meta` (`\ No newline at end of file` and any line that fits nothing else). The two
/// `diff-ln` cells hold the old and new line numbers, empty where a side has no line or the
/// hunk header could not be read. `diff-text` holds the whole line, marker included, escaped;
/// the UI must give it `white-space: pre`. Never panics, for any input.
pub fn diff_to_html(diff: &str) -> String {
    let mut html = String::with_capacity(diff.len() * 2 + 64);
    html.push_str("<table class=\"diff\"><tbody>\n");
    let mut hunk: Option<Hunk> = None;
    for line in diff.lines() {
        let (kind, old, new) = classify(line, &mut hunk);
        push_row(&mut html, kind, old, new, line);
    }
    html.push_str("</tbody></table>\n");
    sanitize::clean(&html)
}

/// The kind of one diff line, which is also its row class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    File,
    Hunk,
    Added,
    Removed,
    Context,
    Meta,
}

impl LineKind {
    fn class(self) -> &'static str {
        match self {
            LineKind::File => "diff-file",
            LineKind::Hunk => "diff-hunk",
            LineKind::Added => "diff-added",
            LineKind::Removed => "diff-removed",
            LineKind::Context => "diff-context",
            LineKind::Meta => "diff-meta",
        }
    }
}

/// Where we are inside a hunk: the next line numbers and how many lines each side has left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hunk {
    old_line: u64,
    new_line: u64,
    old_left: u64,
    new_left: u64,
}

impl Hunk {
    fn is_done(&self) -> bool {
        self.old_left == 0 && self.new_left == 0
    }
}

const FILE_HEADER_PREFIXES: &[&str] = &[
    "diff ",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "dissimilarity index",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "Binary files",
];

/// Classifies `line` and returns its old and new line numbers, updating the hunk state.
///
/// Inside a hunk whose header we could read, the counts decide: a removed line that reads
/// `--- x` is still a removed line. Outside one, file headers are recognised by prefix and
/// anything else by its first character.
fn classify(line: &str, hunk: &mut Option<Hunk>) -> (LineKind, Option<u64>, Option<u64>) {
    if line.starts_with("@@") {
        *hunk = parse_hunk_header(line);
        return (LineKind::Hunk, None, None);
    }
    if let Some(h) = hunk.as_mut().filter(|h| !h.is_done()) {
        let (kind, old, new) = match line.as_bytes().first() {
            Some(b'+') if h.new_left > 0 => (LineKind::Added, None, Some(h.new_line)),
            Some(b'-') if h.old_left > 0 => (LineKind::Removed, Some(h.old_line), None),
            // Some tools strip the single space from empty context lines.
            Some(b' ') | None if h.old_left > 0 && h.new_left > 0 => {
                (LineKind::Context, Some(h.old_line), Some(h.new_line))
            }
            Some(b'\\') => return (LineKind::Meta, None, None),
            _ => {
                // The counts were wrong; stop trusting them.
                *hunk = None;
                return (loose_kind(line), None, None);
            }
        };
        if old.is_some() {
            h.old_line = h.old_line.saturating_add(1);
            h.old_left -= 1;
        }
        if new.is_some() {
            h.new_line = h.new_line.saturating_add(1);
            h.new_left -= 1;
        }
        return (kind, old, new);
    }
    (loose_kind(line), None, None)
}

/// Classification without hunk counts: header prefixes first, then the first character.
fn loose_kind(line: &str) -> LineKind {
    if FILE_HEADER_PREFIXES
        .iter()
        .any(|prefix| line.starts_with(prefix))
    {
        return LineKind::File;
    }
    match line.as_bytes().first() {
        Some(b'+') => LineKind::Added,
        Some(b'-') => LineKind::Removed,
        Some(b' ') => LineKind::Context,
        _ => LineKind::Meta,
    }
}

/// Parses `@@ -old_start[,old_count] +new_start[,new_count] @@ …`.
fn parse_hunk_header(line: &str) -> Option<Hunk> {
    let mut parts = line.strip_prefix("@@")?.split_whitespace();
    let (old_line, old_left) = parse_range(parts.next()?.strip_prefix('-')?)?;
    let (new_line, new_left) = parse_range(parts.next()?.strip_prefix('+')?)?;
    Some(Hunk {
        old_line,
        new_line,
        old_left,
        new_left,
    })
}

fn parse_range(range: &str) -> Option<(u64, u64)> {
    match range.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((range.parse().ok()?, 1)),
    }
}

fn push_row(html: &mut String, kind: LineKind, old: Option<u64>, new: Option<u64>, line: &str) {
    let number = |n: Option<u64>| n.map(|n| n.to_string()).unwrap_or_default();
    html.push_str(&format!(
        "<tr class=\"{}\"><td class=\"diff-ln\">{}</td><td class=\"diff-ln\">{}</td>\
         <td class=\"diff-text\">{}</td></tr>\n",
        kind.class(),
        number(old),
        number(new),
        escape_html(line)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(diff: &str) -> Vec<LineKind> {
        let mut hunk = None;
        diff.lines()
            .map(|line| classify(line, &mut hunk).0)
            .collect()
    }

    #[test]
    fn counts_decide_inside_a_hunk() {
        let diff = "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- old comment\n select 1;\n";
        assert_eq!(
            kinds(diff),
            [
                LineKind::File,
                LineKind::File,
                LineKind::Hunk,
                LineKind::Removed,
                LineKind::Context
            ],
            "a removed line starting with --- is not a file header inside a hunk"
        );
    }

    #[test]
    fn line_numbers_follow_the_hunk_header() {
        let mut hunk = None;
        let lines = ["@@ -10,2 +20,2 @@ fn x", " same", "-old", "+new"];
        let numbers: Vec<_> = lines
            .iter()
            .map(|line| {
                let (_, old, new) = classify(line, &mut hunk);
                (old, new)
            })
            .collect();
        assert_eq!(
            numbers,
            [
                (None, None),
                (Some(10), Some(20)),
                (Some(11), None),
                (None, Some(21))
            ],
            "old and new numbers advance independently"
        );
    }

    #[test]
    fn hunk_headers_parse_with_and_without_counts() {
        assert_eq!(
            parse_hunk_header("@@ -3 +4,0 @@"),
            Some(Hunk {
                old_line: 3,
                new_line: 4,
                old_left: 1,
                new_left: 0
            }),
            "a missing count means one line"
        );
        assert_eq!(
            parse_hunk_header("@@ garbage @@"),
            None,
            "garbage is not a hunk"
        );
        assert_eq!(
            parse_hunk_header("@@ -99999999999999999999999 +1 @@"),
            None,
            "an overflowing number is rejected, not a panic"
        );
    }
}
