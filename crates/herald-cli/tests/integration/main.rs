//! The CLI's integration tests, linked as one binary (one link instead of one per file, which
//! on two cores took minutes of CI). Every test runs the real `herald` binary as a child
//! process against a real relay on 127.0.0.1:0 (herald-testkit's `ThreadedRelay`, on its own
//! runtime thread), with real SQLite, websockets and crypto. Run one file's tests with
//! `cargo test -p herald-cli --test integration agents::`.
//!
//! Nothing here may rely on being alone in its process: tests set environment variables only
//! on the `herald` commands they spawn (never `std::env::set_var`), and signals go to those
//! children by pid (`interrupts`), never to the test process or its group.

mod common;

mod agents;
mod checked_inputs;
mod cli;
mod content;
mod device_hints;
mod devices;
mod file_answers;
mod files;
mod inbox_hints;
mod input_edges;
mod interrupts;
mod mcp_stdio;
mod numbers;
mod offline;
mod sealed_size;
mod secret_out;
mod secrets;
mod small_edges;
