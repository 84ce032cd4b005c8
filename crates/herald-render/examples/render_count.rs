//! Renders the bench's inputs a fixed number of times, for instruction counts that do not
//! depend on the machine's load (docs/benchmarks.md "Rendering"):
//!
//! ```text
//! cargo build --release -p herald-render --example render_count
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/render_count markdown 1   # then 4: (I4 - I1) / 3 per render
//! ```
//!
//! Cases: `markdown` (the 50,000-character document), `plain` (its fences unlabelled),
//! `diff` (5,000 lines). Prints the wall time per render to stderr.

#[path = "../benches/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use herald_render::{diff_to_html, markdown_to_html};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_default();
    let Some(count) = args
        .next()
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&n| n > 0)
    else {
        eprintln!("usage: render_count markdown|plain|diff COUNT");
        return ExitCode::FAILURE;
    };
    let markdown = common::markdown_document();
    let input = match case.as_str() {
        "markdown" | "diff" => markdown.clone(),
        "plain" => common::CODE_SAMPLES
            .iter()
            .fold(markdown.clone(), |doc, (language, _)| {
                doc.replace(&format!("```{language}\n"), "```\n")
            }),
        _ => {
            eprintln!("unknown case {case:?}: markdown, plain or diff");
            return ExitCode::FAILURE;
        }
    };
    let diff = common::diff_document();
    let started = Instant::now();
    for _ in 0..count {
        if case == "diff" {
            black_box(diff_to_html(black_box(&diff)));
        } else {
            black_box(markdown_to_html(black_box(&input)));
        }
    }
    eprintln!("{case}: {:?} per render", started.elapsed() / count);
    ExitCode::SUCCESS
}
