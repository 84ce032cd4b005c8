//! No input makes the renderers panic, hang or emit anything active: large documents,
//! pathological nesting and seeded random input. No timing asserts here (timing belongs in
//! benchmarks); a regression to quadratic behaviour shows up as a test run that takes minutes.

mod common;

use common::assert_inert;
use herald_render::{code_to_html, diff_to_html, markdown_to_html};

/// The message size callers allow; the renderers must handle at least this much.
const MESSAGE_CHARS: usize = 50_000;

/// Repeats `unit` until the result has at least `MESSAGE_CHARS` characters.
fn fill(unit: &str) -> String {
    let count = MESSAGE_CHARS.div_ceil(unit.chars().count().max(1));
    unit.repeat(count)
}

fn render_all(input: &str) {
    assert_inert(input, &markdown_to_html(input));
    assert_inert(input, &code_to_html(input, Some("python")));
    assert_inert(input, &diff_to_html(input));
}

#[test]
fn a_50k_char_document_renders() {
    let section = "## Section\n\nSome *emphasis*, a [link](https://example.com/) and `code`.\n\n\
                   - item one\n- [x] item two\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n\
                   ```python\nfor i in range(3):\n    print(i)\n```\n\n> quote\n\n";
    let mut document = fill(section);
    document.push_str("The end.\n");
    assert!(
        document.chars().count() >= MESSAGE_CHARS,
        "the fixture is full size"
    );
    let out = markdown_to_html(&document);
    assert_inert(&document[..200], &out);
    assert!(
        out.contains("<p>The end.</p>"),
        "the whole document was rendered"
    );
    assert_eq!(
        out.matches("<h2>").count(),
        document.matches("## Section").count(),
        "every section rendered"
    );
}

#[test]
fn pathological_markdown_renders() {
    let cases = [
        fill(">"),
        fill("> "),
        fill("- "),
        fill("* "),
        fill("1. "),
        (0..2_000)
            .map(|n| format!("{}- x\n", " ".repeat(n * 2)))
            .collect::<String>(),
        (0..2_000)
            .map(|n| format!("{}- x\n", "> ".repeat(n)))
            .collect::<String>(),
        fill("*"),
        fill("**a "),
        fill("*a **a "),
        fill("_a __a ~~a "),
        fill("["),
        fill("[a]("),
        fill("!["),
        fill("![a]("),
        fill("[]("),
        fill("<"),
        fill("<a "),
        fill("`"),
        fill("``a"),
        fill("&amp;"),
        fill("&#"),
        fill("\\"),
        fill("|"),
        fill("\n"),
        fill("\r"),
        fill("\u{0}"),
        fill("é🦀\u{200b}\u{202e}"),
        fill("```\n"),
        fill("```python\n"),
        fill("<!--"),
        fill("<script>"),
        fill("[x](javascript:alert(1)) "),
        fill("![x](https://evil.example/x.png)"),
        format!("```python\n{}\n```", "x".repeat(MESSAGE_CHARS)),
        format!("```json\n{}\n```", "[".repeat(MESSAGE_CHARS)),
        format!("```javascript\n{}\n```", "/*".repeat(MESSAGE_CHARS / 2)),
    ];
    for case in &cases {
        let out = markdown_to_html(case);
        let head: String = case.chars().take(80).collect();
        assert_inert(&head, &out);
    }
}

#[test]
fn huge_tables_render() {
    let columns = 500;
    let header = format!("|{}\n|{}\n", "h|".repeat(columns), "-|".repeat(columns));
    let wide = format!("{header}{}", "x|".repeat(MESSAGE_CHARS / 2));
    let tall = format!("| a | b |\n|---|---|\n{}", fill("| 1 | 2 |\n"));
    let ragged = format!("| a |\n|---|\n{}", fill("| 1 | 2 | 3 | 4 | 5 |\n"));
    for table in [wide, tall, ragged] {
        let out = markdown_to_html(&table);
        assert_inert(&table[..80], &out);
        assert!(
            out.contains("<table>"),
            "the table is rendered: {}",
            &out[..80]
        );
    }
}

#[test]
fn large_code_and_diffs_render() {
    let code = fill("def f(x):\n    return x * 2  # comment\n");
    let out = code_to_html(&code, Some("python"));
    assert_inert("python code", &out);
    assert!(
        out.contains("return"),
        "large code is rendered, highlighted or not"
    );
    let diff = format!(
        "@@ -1,{0} +1,{0} @@\n{1}",
        MESSAGE_CHARS / 8,
        fill("-old\n+new\n context\n")
    );
    let out = diff_to_html(&diff);
    assert_inert("large diff", &out);
    assert!(out.contains("diff-added"), "a large diff is rendered");
}

/// xorshift64*: a tiny seeded generator so failures reproduce without a dependency.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Fragments that mean something to CommonMark, HTML, URLs or diffs, mixed with plain text.
const FRAGMENTS: &[&str] = &[
    "<",
    ">",
    "[",
    "]",
    "(",
    ")",
    "!",
    "*",
    "_",
    "~~",
    "`",
    "```",
    "```python\n",
    "\n",
    "\n\n",
    "|",
    "|---|",
    "-",
    "+",
    " ",
    "  ",
    "\t",
    "#",
    "> ",
    "1. ",
    "- [ ] ",
    "- [x] ",
    "\\",
    "&",
    "&#106;",
    "&colon;",
    "<!--",
    "-->",
    "<script>",
    "</script>",
    "<img src=x onerror=alert(1)>",
    "<a href=\"",
    "\"",
    "'",
    "javascript:",
    "JaVaScRiPt:",
    "data:",
    "https://",
    "mailto:",
    "http://evil.example/x.png",
    "onload=",
    "style=",
    "<svg>",
    "<iframe>",
    "@@ -1,2 +1,2 @@\n",
    "--- a/x\n",
    "+++ b/x\n",
    "\\ No newline\n",
    "é",
    "🦀",
    "\u{0}",
    "\r",
    "\u{202e}",
    "word",
];

#[test]
fn random_fragment_soup_is_inert() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for _ in 0..400 {
        let length = random.below(300);
        let input: String = (0..length)
            .map(|_| FRAGMENTS[random.below(FRAGMENTS.len())])
            .collect();
        render_all(&input);
    }
}

#[test]
fn random_bytes_are_inert() {
    let mut random = Random(0x0123_4567_89ab_cdef);
    for _ in 0..200 {
        let bytes: Vec<u8> = (0..random.below(2_000))
            .map(|_| random.next() as u8)
            .collect();
        let input = String::from_utf8_lossy(&bytes);
        render_all(&input);
        let ascii: String = bytes.iter().map(|b| char::from(b % 128)).collect();
        render_all(&ascii);
    }
}
