//! Shared pieces of the bench binaries in `src/bin/`: sample summaries and the report format.
//!
//! Every binary prints one JSON line per measurement (see [`Report`]) followed by a human
//! line, so docs/benchmarks.md can quote medians and spread and scripts can collect them.
//! Run them in release mode: `cargo run --release -p herald-bench --bin <name> -- --help`.

pub mod device;
pub mod proc_tree;
pub mod relay_fixtures;
pub mod relay_process;
pub mod stats;

pub use stats::{Report, Summary};
