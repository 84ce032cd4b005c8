//! Rendering speed of the entry points the desktop core calls for every message it shows
//! (`herald-client/src/present.rs`): [`markdown_to_html`] for a message body and
//! [`diff_to_html`] for a diff block. Both include the ammonia pass.
//!
//! Targets (issue 6, docs/benchmarks.md "Rendering"): a 50,000-character Markdown document
//! with fenced code in several languages ≤ 15 ms; a 5,000-line unified diff ≤ 100 ms.
//! Inputs are generated deterministically here (no randomness, no files), so every run
//! renders exactly the same bytes.
//!
//! `markdown_to_html` highlights only the first `MAX_HIGHLIGHT_BYTES_PER_MESSAGE` bytes of
//! code of a message; `code_blocks_of_the_document_highlighted` shows the cost of all of it.
//!
//! Run: `cargo bench -p herald-render --bench render`. Instruction counts (stable under
//! load): `examples/render_count.rs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use herald_render::{code_to_html, diff_to_html, markdown_to_html};

mod common;

use common::{diff_document, markdown_document, CODE_SAMPLES, DIFF_LINES};

fn render(c: &mut Criterion) {
    let markdown = markdown_document();
    let fences = markdown.matches("```").count() / 2;
    assert!(
        fences >= 60,
        "the document exercises highlighting ({fences} blocks)"
    );
    let diff = diff_document();
    assert_eq!(diff.lines().count(), DIFF_LINES);

    let mut group = c.benchmark_group("render");
    group.sample_size(50);
    group.measurement_time(Duration::from_secs(10));

    group.throughput(Throughput::Bytes(markdown.len() as u64));
    group.bench_function("markdown_50k_chars_code_blocks", |b| {
        b.iter(|| markdown_to_html(black_box(&markdown)))
    });

    // Where the time goes: the same document with its fences unlabelled (parsing, rewriting
    // and sanitizing only), and its code blocks highlighted alone.
    let plain = CODE_SAMPLES
        .iter()
        .fold(markdown.clone(), |doc, (language, _)| {
            doc.replace(&format!("```{language}\n"), "```\n")
        });
    group.throughput(Throughput::Bytes(plain.len() as u64));
    group.bench_function("markdown_50k_chars_no_highlighting", |b| {
        b.iter(|| markdown_to_html(black_box(&plain)))
    });
    let blocks: Vec<(&str, &str)> = (0..fences)
        .map(|i| CODE_SAMPLES[i % CODE_SAMPLES.len()])
        .collect();
    group.throughput(Throughput::Bytes(
        blocks.iter().map(|(_, code)| code.len() as u64).sum(),
    ));
    group.bench_function("code_blocks_of_the_document_highlighted", |b| {
        b.iter(|| {
            for (language, code) in &blocks {
                black_box(code_to_html(black_box(code), Some(language)));
            }
        })
    });

    group.throughput(Throughput::Bytes(diff.len() as u64));
    group.bench_function("diff_5000_lines", |b| {
        b.iter(|| diff_to_html(black_box(&diff)))
    });
    group.finish();
}

criterion_group!(benches, render);
criterion_main!(benches);
