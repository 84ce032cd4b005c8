//! The code blocks of one Markdown message: highlighted in parallel, in document order, within
//! the per-message budget (`MAX_HIGHLIGHT_BYTES_PER_MESSAGE`), the rest plain and marked.

mod common;

use common::assert_inert;
use herald_render::{code_to_html, markdown_to_html, MAX_HIGHLIGHT_BYTES_PER_MESSAGE};

/// A Python snippet that differs per index, so blocks cannot be confused with each other.
fn snippet(index: usize) -> String {
    format!("def step_{index}(x):\n    return x + {index}  # step {index}\n")
}

/// A document of `count` Python blocks separated by paragraphs, and the blocks themselves.
fn document(count: usize) -> (String, Vec<String>) {
    let blocks: Vec<String> = (0..count).map(snippet).collect();
    let doc = blocks
        .iter()
        .enumerate()
        .map(|(index, code)| format!("Paragraph {index}.\n\n```python\n{code}```\n\n"))
        .collect();
    (doc, blocks)
}

/// Byte offsets of each `needle` in `haystack`, searching after the previous one.
fn positions_in_order(haystack: &str, needles: &[String]) -> Vec<Option<usize>> {
    let mut from = 0;
    needles
        .iter()
        .map(|needle| {
            let at = haystack[from..].find(needle.as_str())? + from;
            from = at + needle.len();
            Some(at)
        })
        .collect()
}

#[test]
fn blocks_within_the_budget_are_highlighted_in_document_order() {
    // As many blocks as fit the budget: enough code to take the parallel path (1 KiB).
    let mut total = 0;
    let count = (0..)
        .take_while(|&index| {
            total += snippet(index).len();
            total <= MAX_HIGHLIGHT_BYTES_PER_MESSAGE
        })
        .count();
    let (doc, blocks) = document(count);
    let total: usize = blocks.iter().map(String::len).sum();
    assert!(
        total <= MAX_HIGHLIGHT_BYTES_PER_MESSAGE && total > MAX_HIGHLIGHT_BYTES_PER_MESSAGE / 2,
        "the test document fits the budget and fills over half of it ({total} bytes)"
    );
    let html = markdown_to_html(&doc);
    assert_inert(&doc, &html);
    // Each block renders exactly as the same block alone, at its own place.
    let alone: Vec<String> = blocks
        .iter()
        .map(|code| code_to_html(code, Some("python")))
        .collect();
    assert!(
        alone[0].contains("hl-"),
        "python is highlighted: {}",
        alone[0]
    );
    let found = positions_in_order(&html, &alone);
    assert!(
        found.iter().all(Option::is_some),
        "every block appears highlighted, in order: {found:?}"
    );
    assert!(!html.contains("highlight-skipped"), "nothing is skipped");
}

#[test]
fn rendering_is_deterministic_across_runs() {
    let (doc, _) = document(200);
    let first = markdown_to_html(&doc);
    for _ in 0..3 {
        assert_eq!(
            markdown_to_html(&doc),
            first,
            "parallel highlighting gives the same HTML every time"
        );
    }
}

#[test]
fn code_past_the_budget_is_plain_and_marked() {
    let block = snippet(7);
    let count = MAX_HIGHLIGHT_BYTES_PER_MESSAGE / block.len() + 5;
    let (doc, blocks) = document(count);
    let html = markdown_to_html(&doc);
    assert_inert(&doc, &html);

    let mut used = 0;
    let highlighted = blocks
        .iter()
        .take_while(|code| {
            used += code.len();
            used <= MAX_HIGHLIGHT_BYTES_PER_MESSAGE
        })
        .count();
    assert!(highlighted > 0 && highlighted < count);
    assert_eq!(
        html.matches("<pre class=\"code-block hl-code\">").count(),
        highlighted,
        "blocks within the budget are highlighted"
    );
    assert_eq!(
        html.matches("<pre class=\"code-block hl-code highlight-skipped\">")
            .count(),
        count - highlighted,
        "every later block is plain and marked"
    );
    // The skipped blocks keep their exact text (escaped, no spans).
    let last = blocks.last().expect("blocks");
    let plain = last.replace('<', "&lt;").replace('>', "&gt;");
    assert!(
        html.contains(&format!(
            "<pre class=\"code-block hl-code highlight-skipped\"><code>{plain}</code></pre>"
        )),
        "the last block is plain escaped code"
    );
}

#[test]
fn unlabelled_and_unknown_blocks_do_not_use_the_budget() {
    let filler = "x = 1\n".repeat(MAX_HIGHLIGHT_BYTES_PER_MESSAGE / 6 + 10);
    let doc =
        format!("```\n{filler}```\n\n```no-such-language\n{filler}```\n\n```python\nx = 1\n```\n");
    let html = markdown_to_html(&doc);
    assert_eq!(
        html.matches("highlight-skipped").count(),
        0,
        "plain blocks are not 'skipped' and cost no budget: {}",
        &html[html.len().saturating_sub(300)..]
    );
    assert!(
        html.contains("hl-source"),
        "the python block after them is still highlighted"
    );
}

#[test]
fn oversized_standalone_code_is_marked_skipped() {
    let big = "x = 1\n".repeat(herald_render::MAX_HIGHLIGHT_BYTES / 6 + 1);
    let out = code_to_html(&big, Some("python"));
    assert!(
        out.starts_with("<pre class=\"code-block hl-code highlight-skipped\"><code>x = 1\n"),
        "a block over the size limit is plain and marked: {}",
        &out[..80]
    );
    let small = code_to_html("x = 1\n", Some("python"));
    assert!(
        !small.contains("highlight-skipped"),
        "small code is highlighted: {small}"
    );
}
