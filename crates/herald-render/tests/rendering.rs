//! Ordinary content renders as expected: Markdown structure, highlighted code, diffs and the
//! highlight stylesheet.

mod common;

use common::assert_inert;
use herald_render::{code_to_html, diff_to_html, highlight_css, markdown_to_html};

fn render(markdown: &str) -> String {
    let html = markdown_to_html(markdown);
    assert_inert(markdown, &html);
    html
}

#[test]
fn headings_and_emphasis() {
    let out = render("# One\n\n## Two\n\n### Three\n\n*em* **strong** ~~gone~~ `code`");
    for expected in [
        "<h1>One</h1>",
        "<h2>Two</h2>",
        "<h3>Three</h3>",
        "<em>em</em>",
        "<strong>strong</strong>",
        "<del>gone</del>",
        "<code>code</code>",
    ] {
        assert!(
            out.contains(expected),
            "{expected} should be rendered: {out}"
        );
    }
}

#[test]
fn lists_quotes_and_rules() {
    let out = render("- a\n- b\n\n3. c\n4. d\n\n> quoted\n\n---\n\nline  \nbreak");
    assert!(
        out.contains("<ul>\n<li>a</li>\n<li>b</li>\n</ul>"),
        "bullet list: {out}"
    );
    assert!(
        out.contains("<ol start=\"3\">"),
        "ordered list keeps its start: {out}"
    );
    assert!(
        out.contains("<blockquote>\n<p>quoted</p>\n</blockquote>"),
        "block quote: {out}"
    );
    assert!(out.contains("<hr>"), "thematic break: {out}");
    assert!(out.contains("line<br>"), "hard line break: {out}");
}

#[test]
fn task_lists_render_disabled_checkboxes() {
    let out = render("- [x] done\n- [ ] todo");
    assert!(
        out.contains("<input disabled=\"\" type=\"checkbox\" checked=\"\">"),
        "a done task is a checked, disabled checkbox: {out}"
    );
    assert!(
        out.contains("<input disabled=\"\" type=\"checkbox\">"),
        "an open task is an unchecked, disabled checkbox: {out}"
    );
}

#[test]
fn tables_with_alignment_classes() {
    let out = render("| l | c | r | n |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |");
    for expected in [
        "<th class=\"align-left\">l</th>",
        "<th class=\"align-center\">c</th>",
        "<th class=\"align-right\">r</th>",
        "<th>n</th>",
        "<td class=\"align-left\">1</td>",
        "<td class=\"align-right\">3</td>",
        "<td>4</td>",
    ] {
        assert!(
            out.contains(expected),
            "{expected} should be rendered: {out}"
        );
    }
    assert!(
        !out.contains("style"),
        "alignment uses classes, not style attributes: {out}"
    );
}

#[test]
fn links_keep_href_and_are_marked_external() {
    let out =
        render("[docs](https://example.com/a?b=1&c=2 \"The docs\") and <mailto:me@example.com>");
    assert!(
        out.contains(
            "<a href=\"https://example.com/a?b=1&amp;c=2\" title=\"The docs\" class=\"external\" \
             rel=\"noopener noreferrer nofollow\">docs</a>"
        ),
        "an https link keeps href and title and gains class and rel: {out}"
    );
    assert!(
        out.contains("href=\"mailto:me@example.com\""),
        "mailto links are kept: {out}"
    );
    assert!(
        !out.contains("target="),
        "no target: the app opens links itself: {out}"
    );
}

#[test]
fn autolinks_and_reference_links() {
    let out = render("<http://example.org> and [ref][1]\n\n[1]: https://example.net/x");
    assert!(
        out.contains("href=\"http://example.org/\""),
        "autolink: {out}"
    );
    assert!(
        out.contains("href=\"https://example.net/x\""),
        "reference link: {out}"
    );
}

#[test]
fn python_fence_is_highlighted_with_classes() {
    let out = render("```python\ndef f(x):\n    return x  # note\n```");
    assert!(
        out.contains("<pre class=\"code-block hl-code\"><code>"),
        "the block has its wrapper classes: {out}"
    );
    assert!(
        out.contains("class=\"hl-source hl-python\""),
        "the python scope class: {out}"
    );
    assert!(
        out.contains("hl-comment"),
        "comments get a scope class: {out}"
    );
    assert!(
        !out.contains("style="),
        "highlighting uses no inline styles: {out}"
    );
}

#[test]
fn unknown_or_missing_language_is_plain_escaped_code() {
    for input in [
        "```klingon\n<b>x</b>\n```",
        "```\n<b>x</b>\n```",
        "    <b>x</b>",
    ] {
        let out = render(input);
        assert!(
            out.contains("<pre class=\"code-block hl-code\"><code>&lt;b&gt;x&lt;/b&gt;")
                && !out.contains("<span"),
            "plain code is escaped, without spans\ninput: {input:?}\noutput: {out}"
        );
    }
}

#[test]
fn code_to_html_highlights_the_documented_languages() {
    let samples = [
        ("sql", "SELECT id FROM messages WHERE x = 'y';"),
        ("javascript", "const x = () => 'y'; // c"),
        (
            "typescript",
            "function f(a: number): string { return `${a}`; }",
        ),
        ("python", "import os\nprint(os.name)"),
        ("json", "{\"a\": [1, true, null]}"),
    ];
    for (language, code) in samples {
        let out = code_to_html(code, Some(language));
        assert_inert(code, &out);
        assert!(
            out.contains("<span class=\"hl-"),
            "{language} should be highlighted with hl- classes: {out}"
        );
    }
}

#[test]
fn code_to_html_text_and_none_are_not_highlighted() {
    for language in [None, Some("text")] {
        let out = code_to_html("a < b && c", language);
        assert_eq!(
            out, "<pre class=\"code-block hl-code\"><code>a &lt; b &amp;&amp; c</code></pre>\n",
            "{language:?} gives plain escaped code"
        );
    }
}

#[test]
fn highlight_css_covers_the_classes_and_loads_nothing() {
    let light = highlight_css(false);
    let dark = highlight_css(true);
    for (name, css) in [("light", &light), ("dark", &dark)] {
        assert!(
            css.contains(".hl-code {"),
            "{name} css styles the block: {css}"
        );
        assert!(css.contains(".hl-comment"), "{name} css styles comments");
        assert!(
            !css.contains("url(") && !css.contains("@import"),
            "{name} css must not fetch anything"
        );
    }
    assert_ne!(light, dark, "light and dark stylesheets differ");
}

#[test]
fn diff_rows_are_classed_and_numbered() {
    let diff = "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n\
                @@ -1,3 +1,3 @@ def f():\n keep\n-old\n+new\n same\n\\ No newline at end of file\n";
    let out = diff_to_html(diff);
    assert_inert(diff, &out);
    let row = |class: &str, old: &str, new: &str, text: &str| {
        format!(
            "<tr class=\"{class}\"><td class=\"diff-ln\">{old}</td><td class=\"diff-ln\">{new}</td>\
             <td class=\"diff-text\">{text}</td></tr>"
        )
    };
    for expected in [
        row("diff-file", "", "", "diff --git a/x.py b/x.py"),
        row("diff-file", "", "", "index 1..2 100644"),
        row("diff-file", "", "", "--- a/x.py"),
        row("diff-file", "", "", "+++ b/x.py"),
        row("diff-hunk", "", "", "@@ -1,3 +1,3 @@ def f():"),
        row("diff-context", "1", "1", " keep"),
        row("diff-removed", "2", "", "-old"),
        row("diff-added", "", "2", "+new"),
        row("diff-context", "3", "3", " same"),
        row("diff-meta", "", "", "\\ No newline at end of file"),
    ] {
        assert!(
            out.contains(&expected),
            "row {expected} should be rendered: {out}"
        );
    }
    assert!(
        out.starts_with("<table class=\"diff\"><tbody>"),
        "the table is classed: {out}"
    );
}

#[test]
fn diff_without_headers_is_classed_by_first_character() {
    let out = diff_to_html("+a\n-b\n c\nplain");
    for expected in ["diff-added", "diff-removed", "diff-context", "diff-meta"] {
        assert!(out.contains(expected), "{expected} for a loose diff: {out}");
    }
}

#[test]
fn empty_inputs_render_empty_shapes() {
    assert_eq!(markdown_to_html(""), "", "empty Markdown is empty HTML");
    assert_eq!(
        diff_to_html(""),
        "<table class=\"diff\"><tbody>\n</tbody></table>\n",
        "an empty diff is an empty table"
    );
    assert_eq!(
        code_to_html("", Some("python")),
        "<pre class=\"code-block hl-code\"><code></code></pre>\n",
        "empty code is an empty block"
    );
}
