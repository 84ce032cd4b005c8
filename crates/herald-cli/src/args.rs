//! Command-line arguments. Secrets (tokens) are never arguments: they come from HERALD_TOKEN
//! or a 0600 file.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "herald",
    version,
    about = "Send requests to your Herald inbox and wait for answers"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Send a message that asks nothing (prints the record as JSON).
    Send(SendArgs),
    /// Send a request and wait for the answer (prints the answer as JSON).
    Ask(AskArgs),
    /// Resume waiting for a request's answer.
    Wait(WaitArgs),
    /// Cancel a pending request this connection sent.
    Cancel(CancelArgs),
    /// This machine as a headless device of the account.
    Device(DeviceArgs),
    /// Show this device's account, relay and safety code.
    Whoami(DataDirArgs),
    /// Manage connections (agent credentials) from a headless device.
    Connection(ConnectionArgs),
    /// Read and answer the inbox from a terminal (headless device).
    Inbox(InboxArgs),
}

/// Where the agent's credential and relay come from.
#[derive(Args, Clone)]
pub struct AgentArgs {
    /// Relay base URL [env: HERALD_URL; default: the desktop app's embedded relay].
    #[arg(long, env = "HERALD_URL")]
    pub relay: Option<String>,
    /// File holding the connection token (mode 0600). Default: HERALD_TOKEN, then
    /// ~/.config/herald/token.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
}

#[derive(Args, Clone)]
pub struct ContentArgs {
    /// Title (1–180 characters). Required unless `--json` gives one.
    #[arg(long)]
    pub title: Option<String>,
    /// The whole content as JSON (`-` for stdin): title, body, fields, questions, schema,
    /// actions, blocks, requiresReview. Other flags add to it or override it.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// A block above the form: `KIND:FILE[:LANGUAGE]`, KIND one of code, diff, json (the file
    /// holds the text) or table (the file holds `{"columns": [...], "rows": [[...]]}`).
    /// LANGUAGE (code only): text, sql, javascript, typescript, python, json. Repeatable (≤ 10).
    #[arg(long = "block", value_name = "KIND:FILE[:LANGUAGE]")]
    pub blocks: Vec<String>,
    /// Ask the person to open the full message before answering.
    #[arg(long)]
    pub requires_review: bool,
    /// Markdown body (≤ 50,000 characters).
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Read the Markdown body from a file (`-` for stdin).
    #[arg(long)]
    pub body_file: Option<PathBuf>,
    /// Continue the conversation of this message.
    #[arg(long)]
    pub reply_to: Option<String>,
    /// Idempotency-Key (default: generated). Reuse it to retry safely after a crash.
    #[arg(long)]
    pub idempotency_key: Option<String>,
}

#[derive(Args)]
pub struct SendArgs {
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub content: ContentArgs,
}

#[derive(Args)]
pub struct AskArgs {
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub content: ContentArgs,
    /// A one-tap answer: `ID:LABEL`, e.g. `approve:Approve`. Repeatable (1–8).
    #[arg(long = "action", value_name = "ID:LABEL")]
    pub actions: Vec<String>,
    /// A form field: `ID:TYPE[:LABEL[:OPTIONS]]`, TYPE one of text, textarea, number,
    /// integer, boolean, date, date-time, choice, multiselect (append `+other` to a choice
    /// type to allow a free-text Other); OPTIONS comma-separated for choices. Append `!` to
    /// ID for required (e.g. `env!:choice:Environment:prod,staging`). Repeatable (≤ 30).
    #[arg(long = "field", value_name = "SPEC")]
    pub fields: Vec<String>,
    /// A multiple-choice question: `HEADER|QUESTION|OPTION,OPTION[|multi]`. Each becomes a
    /// required choice with Other; the answer's `questionAnswers` maps question → choice.
    /// Repeatable; not combined with `--field` or `--schema`.
    #[arg(long = "question", value_name = "SPEC")]
    pub questions: Vec<String>,
    /// A flat JSON Schema object as the form (see docs/content.md).
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    /// The request expires after this long (relay clock): e.g. `90s`, `10m`, `2h` (≤ 24h).
    #[arg(long)]
    pub deadline: Option<String>,
    /// Stop waiting after this long (the request stays answerable; `herald wait` resumes).
    #[arg(long)]
    pub timeout: Option<String>,
}

#[derive(Args)]
pub struct WaitArgs {
    #[command(flatten)]
    pub agent: AgentArgs,
    /// The request's id (`msg_…`).
    pub id: String,
    /// Stop waiting after this long.
    #[arg(long)]
    pub timeout: Option<String>,
}

#[derive(Args)]
pub struct CancelArgs {
    #[command(flatten)]
    pub agent: AgentArgs,
    /// The request's id (`msg_…`).
    pub id: String,
}

#[derive(Args, Clone)]
pub struct DataDirArgs {
    /// The headless device's data dir [env: HERALD_HOME; default: ~/.local/share/herald-cli].
    #[arg(long, env = "HERALD_HOME")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Args)]
pub struct DeviceArgs {
    #[command(subcommand)]
    pub command: DeviceCommand,
}

#[derive(Subcommand)]
pub enum DeviceCommand {
    /// Create a new account with this machine as its first device. Prints the recovery key
    /// and the safety code.
    Init {
        #[command(flatten)]
        dir: DataDirArgs,
        /// Relay base URL [env: HERALD_URL].
        #[arg(long, env = "HERALD_URL")]
        relay: String,
        /// Device name (default: the host name).
        #[arg(long)]
        name: Option<String>,
    },
}

#[derive(Args)]
pub struct ConnectionArgs {
    #[command(subcommand)]
    pub command: ConnectionCommand,
}

#[derive(Subcommand)]
pub enum ConnectionCommand {
    /// Create a connection; prints its token once on stdout.
    Create {
        #[command(flatten)]
        dir: DataDirArgs,
        #[arg(long)]
        name: String,
    },
    /// List connections.
    List {
        #[command(flatten)]
        dir: DataDirArgs,
    },
    /// Revoke a connection: the relay refuses its token at once.
    Revoke {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The connection id (`con_…`, see `herald connection list`).
        id: String,
    },
}

#[derive(Args)]
pub struct InboxArgs {
    #[command(subcommand)]
    pub command: InboxCommand,
}

#[derive(Subcommand)]
pub enum InboxCommand {
    /// Sync and list the inbox, newest first.
    List {
        #[command(flatten)]
        dir: DataDirArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Sync and show one message.
    Show {
        #[command(flatten)]
        dir: DataDirArgs,
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Answer a request with an action or a JSON object of field values.
    Answer {
        #[command(flatten)]
        dir: DataDirArgs,
        id: String,
        /// The action to tap, e.g. `approve`.
        #[arg(long, conflicts_with = "json")]
        action: Option<String>,
        /// Field values as a JSON object, e.g. `{"env":"prod"}`.
        #[arg(long)]
        json: Option<String>,
    },
}
