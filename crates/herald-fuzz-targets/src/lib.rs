//! The bodies of Herald's fuzz targets (docs/fuzzing.md).
//!
//! Each target takes arbitrary bytes, feeds them to the product code the way untrusted input
//! reaches it, and asserts properties of the result, panicking when one fails (libFuzzer
//! records a panic as a crash). Two callers share these functions: the cargo-fuzz project in
//! `fuzz/` (one `fuzz_target!` per entry of [`TARGETS`], run with nightly flags), and this
//! crate's `tests/corpus.rs`, which replays every committed input in `fuzz/corpus/<target>/`
//! on every `cargo test`, without cargo-fuzz.
//!
//! | target | input | product code |
//! |---|---|---|
//! | [`content`] | content JSON, optionally `NUL` + answer JSON | `MessageContent` validation, answers |
//! | [`schema_form`] | JSON Schema, optionally `NUL` + answer values | `schema` forms, answers |
//! | [`envelope`] | mode byte + envelope JSON or tamper program | envelope parsing, `herald_crypto::open` |
//! | [`jsonrpc`] | optional header lines + `NUL` + body | `POST /mcp` framing and planning |
//!
//! A JSON document never contains a raw `NUL` byte, so `NUL` separates the parts of an input.

mod content;
mod envelope;
mod fixture;
mod json;
mod jsonrpc;
mod schema_form;

pub use content::content;
pub use envelope::envelope;
pub use fixture::{resign, EnvelopeFixture, Fixture};
pub use jsonrpc::jsonrpc;
pub use schema_form::schema_form;

/// A target: takes any bytes, panics when a property fails.
pub type Target = fn(&[u8]);

/// Every target by name; the name is its `fuzz/fuzz_targets/<name>.rs` and its corpus folder
/// `fuzz/corpus/<name>/`.
pub const TARGETS: &[(&str, Target)] = &[
    ("content", content),
    ("schema_form", schema_form),
    ("envelope", envelope),
    ("jsonrpc", jsonrpc),
];

/// Splits `data` at its first `NUL` byte: `(before, Some(after))`, or `(data, None)`.
pub(crate) fn split_nul(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    }
}
