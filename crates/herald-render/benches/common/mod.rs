//! The bench's inputs, generated deterministically: shared by `benches/render.rs` and
//! `examples/render_count.rs` (the fixed-count driver for callgrind instruction counts).

#![allow(dead_code)] // each user takes what it needs

use std::fmt::Write as _;

/// Characters of the Markdown document.
pub const MARKDOWN_CHARS: usize = 50_000;
/// Lines of the diff.
pub const DIFF_LINES: usize = 5_000;

/// Fenced code samples, one per language, cycled through the document. Each is a realistic
/// snippet (keywords, strings, comments, numbers) so syntect's grammars do real work.
pub const CODE_SAMPLES: &[(&str, &str)] = &[
    (
        "rust",
        "/// Sums the sizes of the blocks.\npub fn total(blocks: &[Block]) -> usize {\n    \
         blocks.iter().map(|b| b.len()).sum::<usize>() + 42\n}\n\nimpl Display for Block {\n    \
         fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {\n        \
         write!(f, \"block {} ({} bytes)\", self.id, self.len())\n    }\n}\n",
    ),
    (
        "python",
        "import json\n\n# Load the report and keep the failures.\ndef failures(path: str) -> list[dict]:\n    \
         with open(path, encoding=\"utf-8\") as f:\n        report = json.load(f)\n    \
         return [t for t in report[\"tests\"] if t[\"outcome\"] != \"passed\"]\n\n\
         class Runner:\n    def __init__(self, retries=3):\n        self.retries = retries  # attempts\n",
    ),
    (
        "typescript",
        "export async function fetchInbox(relay: string, token: string): Promise<Message[]> {\n  \
         const res = await fetch(`${relay}/messages?limit=100`, {\n    \
         headers: { Authorization: `Bearer ${token}` },\n  });\n  \
         if (!res.ok) throw new Error(`relay answered ${res.status}`);\n  \
         return (await res.json()).messages as Message[];\n}\n",
    ),
    (
        "sql",
        "-- Messages still waiting for an answer, newest first.\nSELECT m.id, m.title, m.created_at\n  \
         FROM messages AS m\n  LEFT JOIN answers AS a ON a.message_id = m.id\n \
         WHERE a.id IS NULL AND m.expires_at > 1700000000\n ORDER BY m.created_at DESC\n \
         LIMIT 50;\n",
    ),
    (
        "json",
        "{\n  \"build\": 214,\n  \"status\": \"failed\",\n  \"duration_ms\": 93412,\n  \
         \"steps\": [\n    {\"name\": \"test\", \"ok\": false, \"retries\": 2},\n    \
         {\"name\": \"lint\", \"ok\": true, \"retries\": 0}\n  ],\n  \"artifact\": null\n}\n",
    ),
    (
        "bash",
        "#!/usr/bin/env bash\nset -euo pipefail\nfor f in \"$@\"; do\n  \
         if [ -f \"$f\" ]; then\n    echo \"checking $f\"  # one file at a time\n    \
         sha256sum \"$f\" >>\"${OUT:-sums.txt}\"\n  fi\ndone\n",
    ),
    (
        "go",
        "package relay\n\n// Retry calls f until it succeeds or ctx is done.\nfunc Retry(ctx context.Context, f func() error) error {\n\t\
         for i := 0; ; i++ {\n\t\tif err := f(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t\t\
         select {\n\t\tcase <-ctx.Done():\n\t\t\treturn ctx.Err()\n\t\tcase <-time.After(time.Duration(i) * time.Second):\n\t\t}\n\t}\n}\n",
    ),
    (
        "javascript",
        "const counts = new Map();\nfor (const line of text.split(\"\\n\")) {\n  \
         const key = line.trim().toLowerCase(); // normalise\n  \
         counts.set(key, (counts.get(key) ?? 0) + 1);\n}\nconsole.log([...counts].sort((a, b) => b[1] - a[1]).slice(0, 10));\n",
    ),
];

/// Prose between the code blocks: headings, emphasis, links, lists, a quote, inline code.
pub fn prose(section: usize) -> String {
    format!(
        "## Step {section}: what changed\n\n\
         The agent ran the **nightly build** and found that `test_{section}` failed after \
         *three* retries. See [the run](https://ci.example.com/runs/{section}) and the \
         ~~old~~ new logs below.\n\n\
         - checked the cache (hit rate {section}%)\n\
         - re-ran the failing step with `--verbose`\n\
         - [x] attached the report\n\
         - [ ] waiting for your decision\n\n\
         > Approve the fix for section {section}? It touches `src/relay/{section}.rs` only.\n\n"
    )
}

/// A Markdown document of exactly [`MARKDOWN_CHARS`] characters: prose and fenced code blocks
/// in turn, every language of [`CODE_SAMPLES`] several times.
pub fn markdown_document() -> String {
    let mut doc = String::from("# Nightly report\n\n");
    let mut section = 0;
    while doc.chars().count() < MARKDOWN_CHARS {
        doc.push_str(&prose(section));
        let (language, code) = CODE_SAMPLES[section % CODE_SAMPLES.len()];
        let _ = write!(doc, "```{language}\n{code}```\n\n");
        section += 1;
    }
    // Cut at a character boundary, after the last complete line.
    let cut = doc
        .char_indices()
        .nth(MARKDOWN_CHARS)
        .map_or(doc.len(), |(i, _)| i);
    doc.truncate(cut);
    doc
}

/// A unified diff of [`DIFF_LINES`] lines: file headers, hunk headers and a mix of context,
/// removed and added lines whose counts match the hunk headers.
pub fn diff_document() -> String {
    let mut lines: Vec<String> = Vec::with_capacity(DIFF_LINES);
    let mut file = 0;
    while lines.len() < DIFF_LINES {
        lines.push(format!("diff --git a/src/mod{file}.rs b/src/mod{file}.rs"));
        lines.push(format!(
            "index {:07x}..{:07x} 100644",
            file * 7919,
            file * 104_729
        ));
        lines.push(format!("--- a/src/mod{file}.rs"));
        lines.push(format!("+++ b/src/mod{file}.rs"));
        for hunk in 0..10 {
            let start = hunk * 40 + 1;
            // 3 context, 4 removed, 5 added, 3 context: old 10 lines, new 11.
            lines.push(format!("@@ -{start},10 +{start},11 @@ fn step_{hunk}() {{"));
            for i in 0..3 {
                lines.push(format!("     let value_{i} = compute({i}, \"ctx\");"));
            }
            for i in 0..4 {
                lines.push(format!("-    old_call_{i}(&mut state, {i}); // <removed>"));
            }
            for i in 0..5 {
                lines.push(format!(
                    "+    new_call_{i}(&mut state, {i}).await?; // & added"
                ));
            }
            for i in 0..3 {
                lines.push(format!("     assert!(value_{i} > 0);"));
            }
        }
        file += 1;
    }
    lines.truncate(DIFF_LINES);
    lines.join("\n") + "\n"
}
