//! `markdown_to_html_full` and `markdown_to_html_with_budget`: the same document with and
//! without the per-message highlighting budget.

use herald_render::{
    code_to_html, markdown_to_html, markdown_to_html_full, markdown_to_html_with_budget,
    MAX_HIGHLIGHT_BYTES_PER_MESSAGE,
};

const SKIPPED: &str = "highlight-skipped\">";

/// `count` Python blocks, each different, separated by paragraphs.
fn document(count: usize) -> (String, Vec<String>) {
    let blocks: Vec<String> = (0..count)
        .map(|i| format!("def step_{i}(x):\n    return x + {i}  # step {i}\n"))
        .collect();
    let doc = blocks
        .iter()
        .enumerate()
        .map(|(i, code)| format!("Paragraph {i}.\n\n```python\n{code}```\n\n"))
        .collect();
    (doc, blocks)
}

#[test]
fn full_render_highlights_every_block_the_budget_skips() {
    // Far more code than the budget: ~60 blocks of ~45 bytes.
    let (doc, blocks) = document(4 * MAX_HIGHLIGHT_BYTES_PER_MESSAGE / 45);
    let budgeted = markdown_to_html(&doc);
    assert!(
        budgeted.contains(SKIPPED),
        "the default render skips some blocks"
    );

    let full = markdown_to_html_full(&doc);
    assert!(!full.contains("highlight-skipped"), "no block is skipped");
    for code in &blocks {
        // Each block appears exactly as code_to_html highlights it on its own.
        let block = code_to_html(code, Some("python"));
        assert!(full.contains(&block), "block {code:?} is highlighted");
    }
    assert_eq!(full, markdown_to_html_with_budget(&doc, usize::MAX));
}

#[test]
fn explicit_budget_matches_the_default_and_zero_colours_nothing() {
    let (doc, _) = document(80);
    assert_eq!(
        markdown_to_html(&doc),
        markdown_to_html_with_budget(&doc, MAX_HIGHLIGHT_BYTES_PER_MESSAGE)
    );
    let none = markdown_to_html_with_budget(&doc, 0);
    assert!(
        !none.contains("class=\"hl-"),
        "no highlighted spans: {none:.300}"
    );
    assert_eq!(none.matches(SKIPPED).count(), 80);
}

#[test]
fn full_render_keeps_the_per_block_limit() {
    let long_line = format!(
        "x = '{}'\n",
        "a".repeat(herald_render::MAX_HIGHLIGHT_LINE_BYTES)
    );
    let doc = format!("```python\n{long_line}```\n");
    assert!(markdown_to_html_full(&doc).contains(SKIPPED));
}
