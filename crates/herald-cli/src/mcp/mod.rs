//! `herald mcp`: an MCP server over stdio for agents on this machine (docs/cli.md,
//! "herald mcp"). It acts as one connection, with the same relay and token as `herald ask`
//! (`--relay`/HERALD_URL, HERALD_TOKEN or a 0600 token file), so everything it sends is
//! end-to-end encrypted and every answer is verified here.
//!
//! Standard output carries MCP frames only (newline-delimited JSON-RPC, written by rmcp, plus
//! the `"id": null` errors `frames` gives a line that is not JSON or is an array);
//! logs go to standard error (HERALD_LOG, default `warn`). The token never appears in tool
//! arguments, results or logs; secret and file fields are never asked or collected.
//!
//! Layout: `input` (argument shapes and schemas), `tools` (the calls), `output` (result
//! shapes), `errors` (refusals as tool results), `server` (the rmcp handler), `frames` (the
//! stdin screen in front of rmcp).

mod errors;
mod frames;
mod input;
mod output;
mod server;
mod tools;

#[cfg(test)]
mod tests;

use std::process::ExitCode;

use anyhow::{Context, Result};
use herald_client::agent::AgentClient;
use rmcp::ServiceExt;

use crate::args::McpArgs;
use crate::{config, exit};

/// Serves MCP on stdin/stdout until the client closes stdin. Fails before serving when no
/// relay or token is configured (exit 1, the reason on stderr).
pub async fn serve(args: McpArgs) -> Result<ExitCode> {
    let client = AgentClient::new(
        &config::relay_url(&args.agent)?,
        config::token(&args.agent)?,
    )?;
    let handler = server::HeraldMcp::new(tools::Tools::new(client));
    let (transport, writer) = frames::pipes(tokio::io::stdin(), tokio::io::stdout());
    let running = handler
        .serve(transport)
        .await
        .context("MCP handshake failed")?;
    tracing::info!("herald mcp: serving on stdio");
    let reason = running.waiting().await.context("MCP server stopped")?;
    tracing::info!(?reason, "herald mcp: stdin closed");
    writer
        .await
        .context("MCP output task")?
        .context("writing to stdout")?;
    Ok(exit::OK.into())
}
