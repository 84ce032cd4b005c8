//! The command line of the agent side from a headless device: `herald agent-key`,
//! `herald connector`, `herald notifications` (run by agents.rs).

use clap::{Args, Subcommand};

use super::DataDirArgs;

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
    /// Send the one typed reply (1–4,000 characters) to a notification that expects one.
    /// The text comes from --text, --text-file, or else stdin.
    Reply {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The notification's id (see `herald notifications list`).
        id: String,
        /// The reply text.
        #[arg(long, conflicts_with = "text_file")]
        text: Option<String>,
        /// Read the reply text from this file (UTF-8).
        #[arg(long)]
        text_file: Option<std::path::PathBuf>,
    },
    /// Show the account's quiet hours, or change them: --enable, --disable, and the times
    /// (--start, --end, --timezone) whether they are on or off.
    QuietHours(QuietHoursArgs),
}

/// `herald notifications quiet-hours`: no flag shows them; `--enable` or `--disable` turns them
/// on or off, and any of `--start`, `--end`, `--timezone` change the times (with or without
/// `--enable`/`--disable`; while they are off, they stay off). What is not given keeps its
/// value.
#[derive(Args)]
pub struct QuietHoursArgs {
    #[command(flatten)]
    pub dir: DataDirArgs,
    /// Turn quiet hours on.
    #[arg(long, conflicts_with = "disable")]
    pub enable: bool,
    /// Turn quiet hours off (the times are kept).
    #[arg(long)]
    pub disable: bool,
    /// Start, `HH:MM` (24-hour, local time of the time zone).
    #[arg(long)]
    pub start: Option<String>,
    /// End, `HH:MM`; before the start means over midnight.
    #[arg(long)]
    pub end: Option<String>,
    /// IANA time zone, e.g. `Europe/Paris`.
    #[arg(long)]
    pub timezone: Option<String>,
}
