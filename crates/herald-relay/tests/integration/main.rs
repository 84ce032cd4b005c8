//! The relay's integration tests, linked as one binary (one link instead of one per file, which
//! on two cores took minutes of CI). Every test runs against a real relay: in-process on
//! 127.0.0.1:0 (herald-testkit) or the `herald-relay` binary as a child process. Run one file's
//! tests with `cargo test -p herald-relay --test integration accounts::`.

mod agent_common;
mod common;
mod device_common;
mod route_source;
mod start_refusal;

mod accounts;
mod agents;
mod answers;
mod auth_matrix;
mod binary;
mod conn_limits;
mod data_dir_modes;
mod device_limit;
mod devices;
mod faults_kill;
mod feed;
mod files;
mod flag_ranges;
mod head_limits;
mod hidden_text;
mod json_bodies;
mod mcp;
mod mcp_events;
mod messages;
mod oauth;
mod openapi;
mod public_url;
mod scopes;
mod secret_files;
mod secrets;
mod storage;
mod ws_limits;
mod ws_stuck;
