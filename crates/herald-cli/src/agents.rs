//! The agent side from a headless device (docs/agents.md, docs/cli.md): agent keys
//! (`herald agent-key create|list|revoke`), connectors approved by their user code
//! (`herald connector approve|deny|list|revoke`), and the notifications agents sent
//! (`herald notifications list`). Keys are printed once, on stdout only.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::args::DataDirArgs;
use crate::device::ready;
use crate::exit;
use crate::terminal::line;

#[derive(Args)]
pub struct AgentKeyArgs {
    #[command(subcommand)]
    pub command: AgentKeyCommand,
}

#[derive(Subcommand)]
pub enum AgentKeyCommand {
    /// Create an agent key (`hrk_…`) for the HTTP and MCP endpoints; prints it once on
    /// stdout.
    Create {
        #[command(flatten)]
        dir: DataDirArgs,
        /// 1–100 characters, e.g. `build-bot`.
        #[arg(long)]
        name: String,
    },
    /// List agent keys (not revoked).
    List {
        #[command(flatten)]
        dir: DataDirArgs,
    },
    /// Revoke an agent key: the relay refuses it at once.
    Revoke {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The key's id (`agk_…`, see `herald agent-key list`).
        id: String,
    },
}

#[derive(Args)]
pub struct ConnectorArgs {
    #[command(subcommand)]
    pub command: ConnectorCommand,
}

#[derive(Subcommand)]
pub enum ConnectorCommand {
    /// Approve the connector (an MCP client) that shows this code, e.g. `BCDF-GHJK`.
    Approve {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The user code it shows (case, spaces and dashes are ignored).
        code: String,
        /// The name to list it under (default: the name it gave).
        #[arg(long)]
        name: Option<String>,
    },
    /// Deny the connector that shows this code.
    Deny {
        #[command(flatten)]
        dir: DataDirArgs,
        code: String,
    },
    /// List connectors (not revoked).
    List {
        #[command(flatten)]
        dir: DataDirArgs,
    },
    /// Revoke a connector: the relay refuses its token at once.
    Revoke {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The connector's id (`ctr_…`, see `herald connector list`).
        id: String,
    },
}

#[derive(Args)]
pub struct NotificationsArgs {
    #[command(subcommand)]
    pub command: NotificationsCommand,
}

#[derive(Subcommand)]
pub enum NotificationsCommand {
    /// Sync, then list the notifications agents sent, newest first.
    List {
        #[command(flatten)]
        dir: DataDirArgs,
        /// Print JSON (the desktop's NotificationView list).
        #[arg(long)]
        json: bool,
    },
}

/// `herald agent-key …`.
pub async fn agent_key(args: AgentKeyArgs) -> Result<ExitCode> {
    match args.command {
        AgentKeyCommand::Create { dir, name } => {
            let created = ready(&dir)?.create_agent_key(&name).await?;
            crate::out!("{}", created.key);
            eprintln!(
                "Agent key {:?} created ({}). The key above is shown once.",
                created.name, created.id
            );
            eprintln!(
                "Agents send it as `Authorization: Bearer <key>` to {}/v1/... and {}/mcp",
                created.relay_url, created.relay_url
            );
        }
        AgentKeyCommand::List { dir } => {
            for k in ready(&dir)?.agent_keys().await? {
                crate::out!("{}  {}  {}", k.id, k.created_at, line(&k.name));
            }
        }
        AgentKeyCommand::Revoke { dir, id } => {
            ready(&dir)?.revoke_agent_key(&id).await?;
            eprintln!("Agent key {id} revoked: it no longer works.");
        }
    }
    Ok(exit::OK.into())
}

/// `herald connector …`.
pub async fn connector(args: ConnectorArgs) -> Result<ExitCode> {
    match args.command {
        ConnectorCommand::Approve { dir, code, name } => {
            let c = ready(&dir)?
                .approve_connector(&code, name.as_deref())
                .await?;
            eprintln!(
                "Connector {:?} approved ({}); it collects its token on its next poll.",
                line(&c.name),
                c.id
            );
        }
        ConnectorCommand::Deny { dir, code } => {
            ready(&dir)?.deny_connector(&code).await?;
            eprintln!("Connector denied.");
        }
        ConnectorCommand::List { dir } => {
            for c in ready(&dir)?.connectors().await? {
                let state = if c.token_issued {
                    "connected"
                } else {
                    "approved"
                };
                crate::out!(
                    "{}  {}  {}  {}  ({})",
                    c.id,
                    c.created_at,
                    state,
                    line(&c.name),
                    line(&c.client_id)
                );
            }
        }
        ConnectorCommand::Revoke { dir, id } => {
            ready(&dir)?.revoke_connector(&id).await?;
            eprintln!("Connector {id} revoked: its token no longer works.");
        }
    }
    Ok(exit::OK.into())
}

/// `herald notifications …`.
pub async fn notifications(args: NotificationsArgs) -> Result<ExitCode> {
    match args.command {
        NotificationsCommand::List { dir, json } => {
            let core = ready(&dir)?;
            core.sync_once().await?;
            let list = core.notifications().await?;
            if json {
                crate::out!("{}", serde_json::to_string_pretty(&list)?);
                return Ok(exit::OK.into());
            }
            eprintln!("Notifications are not end-to-end encrypted: the relay saw them in transit.");
            for n in list {
                let mut flags = Vec::new();
                if n.suppressed {
                    flags.push("suppressed");
                }
                if n.expect_reply && n.replied_at.is_none() {
                    flags.push("awaits reply");
                }
                if n.replied_at.is_some() {
                    flags.push("replied");
                }
                crate::out!(
                    "{}  {}  {}: {}{}",
                    n.id,
                    n.received_at,
                    line(&n.source_name),
                    line(&n.title),
                    if flags.is_empty() {
                        String::new()
                    } else {
                        format!("  [{}]", flags.join(", "))
                    }
                );
            }
        }
    }
    Ok(exit::OK.into())
}
