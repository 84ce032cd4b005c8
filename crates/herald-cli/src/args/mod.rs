//! Command-line arguments: every clap type of the CLI, and nothing that runs a command (the
//! modules that run them import from here, never the other way). Secrets (tokens) are never
//! arguments: they come from HERALD_TOKEN or a 0600 file.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

mod agents;

pub use agents::{
    AgentKeyArgs, AgentKeyCommand, ConnectorArgs, ConnectorCommand, NotificationsArgs,
    NotificationsCommand, QuietHoursArgs,
};

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
    /// Serve MCP on stdin/stdout for an agent on this machine (tools: ask, send, wait),
    /// end-to-end encrypted as this connection.
    Mcp(McpArgs),
    /// Agent keys for the HTTP and MCP agent endpoints (headless device).
    AgentKey(AgentKeyArgs),
    /// Approve, deny, list or revoke connectors (MCP clients signing in by user code).
    Connector(ConnectorArgs),
    /// Notifications agents sent (not end-to-end encrypted).
    Notifications(NotificationsArgs),
}

/// Where the agent's credential and relay come from.
#[derive(Args, Clone)]
pub struct AgentArgs {
    /// Relay base URL (default: the desktop app's embedded relay).
    #[arg(long, env = "HERALD_URL")]
    pub relay: Option<String>,
    /// File holding the connection token (mode 0600). Default: HERALD_TOKEN, then
    /// ~/.config/herald/token.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
}

/// Whether `flag` (`--relay`) was given as an argument (`--relay URL` or `--relay=URL`)
/// rather than filled in from its environment variable.
fn on_command_line(flag: &str) -> bool {
    std::env::args_os().skip(1).any(|a| {
        a.to_str()
            .is_some_and(|a| a == flag || a.strip_prefix(flag).is_some_and(|r| r.starts_with('=')))
    })
}

impl AgentArgs {
    /// ` --relay URL --token-file PATH` (each only when given on the command line,
    /// shell-quoted; empty when neither was), for a resume hint that must reach the same
    /// relay with the same token. The token itself is never repeated; HERALD_URL is not
    /// either (the resume runs in the same environment).
    pub fn resume_flags(&self) -> String {
        let mut flags = String::new();
        if let Some(relay) = self.relay.as_ref().filter(|_| on_command_line("--relay")) {
            flags.push_str(&format!(" --relay {}", crate::quote::shell_word(relay)));
        }
        if let Some(path) = &self.token_file {
            flags.push_str(&format!(
                " --token-file {}",
                crate::quote::shell_word(&path.display().to_string())
            ));
        }
        flags
    }
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
    /// holds the text), table (the file holds `{"columns": [...], "rows": [[...]]}`), or
    /// `image:PATH[:ALT]` (a .png/.jpg/.gif/.webp, attached encrypted; shown after the other
    /// blocks). LANGUAGE (code only): text, sql, javascript, typescript, python, json.
    /// Repeatable (≤ 10).
    #[arg(long = "block", value_name = "KIND:FILE[:LANGUAGE]")]
    pub blocks: Vec<String>,
    /// Ask the person to open the full message before answering.
    #[arg(long)]
    pub requires_review: bool,
    /// Attach a file (encrypted before upload, ≤ 100 MB). Repeatable (≤ 10).
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<PathBuf>,
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
    /// Offer this file's content as a secret (UTF-8, ≤ 64 KiB, not empty): sealed to a
    /// one-time key of the device that opens the offer, handed over once (docs/secrets.md).
    /// Not with `--file` or `--block`. After a timeout, the same command with the printed
    /// `--idempotency-key` resumes.
    #[arg(long, value_name = "PATH")]
    pub secret_file: Option<PathBuf>,
    /// With --secret-file: stop waiting after this long (e.g. `10m`).
    #[arg(long, requires = "secret_file")]
    pub timeout: Option<String>,
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
    /// integer, boolean, date, date-time, choice, multiselect, secret (needs --out), file
    /// (needs --out-dir), secret-file (a file only this connection can read; needs --out and
    /// must be the only secret field) (append `+other` to a choice type to allow a free-text
    /// Other); OPTIONS comma-separated for choices. Append `!` to ID for required (e.g.
    /// `env!:choice:Environment:prod,staging`). Repeatable (≤ 30).
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
    /// Where the values of secret fields go: a new file (must not exist), created with mode
    /// 0600 before the request is sent and removed again if nothing is written. One secret
    /// field: its raw value; several: a JSON object. Required with secret fields.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Where answered files of `file` fields go: an existing directory; each is saved under a
    /// sanitized form of its name, mode 0600, never replacing a file. Required with file
    /// fields.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
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
    /// Where the values of secret fields go (as `herald ask --out`).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Where answered files of `file` fields go (as `herald ask --out-dir`).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// `herald mcp`: the relay and token as for `herald ask`.
#[derive(Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub agent: AgentArgs,
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
    /// The headless device's data dir (default: ~/.local/share/herald-cli).
    #[arg(long, env = "HERALD_HOME")]
    pub data_dir: Option<PathBuf>,
}

impl DataDirArgs {
    /// ` --data-dir DIR` (shell-quoted) when given on the command line (not from
    /// HERALD_HOME), else empty: for a resume hint that must open the same device.
    pub fn resume_flags(&self) -> String {
        match self
            .data_dir
            .as_ref()
            .filter(|_| on_command_line("--data-dir"))
        {
            Some(dir) => format!(
                " --data-dir {}",
                crate::quote::shell_word(&dir.display().to_string())
            ),
            None => String::new(),
        }
    }
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
        /// Relay base URL (required, here or in the variable below).
        #[arg(long, env = "HERALD_URL")]
        relay: Option<String>,
        /// Device name (default: this machine's host name; `headless` when it has none).
        #[arg(long)]
        name: Option<String>,
    },
    /// Unlock this machine as a new device of an existing account with the recovery key,
    /// read from the terminal (not echoed) or standard input, never from an argument.
    Unlock {
        #[command(flatten)]
        dir: DataDirArgs,
        /// Relay base URL (required, here or in the variable below).
        #[arg(long, env = "HERALD_URL")]
        relay: Option<String>,
        /// Device name (default: this machine's host name; `headless` when it has none).
        #[arg(long)]
        name: Option<String>,
    },
    /// Ask an unlocked device to approve this machine: prints an 8-digit code to type there,
    /// then waits (up to 10 minutes).
    Pair {
        #[command(flatten)]
        dir: DataDirArgs,
        /// Relay base URL (required, here or in the variable below).
        #[arg(long, env = "HERALD_URL")]
        relay: Option<String>,
        /// Device name (default: this machine's host name; `headless` when it has none).
        #[arg(long)]
        name: Option<String>,
    },
    /// Approve a new device: lists pending requests, reads the code the new device shows from
    /// the terminal or standard input (one attempt per request), then waits for the new
    /// device to confirm.
    Approve {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The request (`pai_…`); may be left out when exactly one is pending.
        pairing_id: Option<String>,
        /// Only list the pending requests, as JSON (`[{id, name, platform, createdAt,
        /// expiresAt}]`), and exit; no code is read.
        #[arg(long, conflicts_with = "pairing_id")]
        json: bool,
        /// Give up when the new device has not confirmed within this long after the code was
        /// typed (e.g. `90s`, `2m`); the request is then marked failed so its code cannot be
        /// tried again.
        #[arg(long, value_name = "DURATION", default_value = "2m")]
        confirm_timeout: String,
    },
    /// List the account's devices.
    List {
        #[command(flatten)]
        dir: DataDirArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke another device: its session is refused at once and the account key rotates.
    Revoke {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The device id (`dev_…`, see `herald device list`).
        id: String,
    },
    /// Reset the account: new keys and recovery key; every message, file, connection and
    /// other device is removed. Prints the new recovery key once.
    Reset {
        #[command(flatten)]
        dir: DataDirArgs,
        /// Confirm: this deletes all activity and signs every other device out.
        #[arg(long)]
        yes: bool,
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
        /// What its token may do; repeat for several (default: all three). `messages:send`
        /// sends and cancels, `messages:read` reads its messages and their answers,
        /// `events:read` opens live updates (`/ws`).
        #[arg(long = "scope", value_name = "SCOPE",
              value_parser = ["messages:send", "messages:read", "events:read"])]
        scopes: Vec<String>,
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
    /// Save an attachment of a message (decrypted and verified) to a new file (mode 0600).
    SaveAttachment {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The message id (`msg_…`).
        id: String,
        /// The attachment id (`fil_…`, see `herald inbox show`).
        attachment: String,
        /// Where to save it; must not exist.
        #[arg(long)]
        out: PathBuf,
    },
    /// Open a secret offer and write the secret to a new file (mode 0600, must not exist):
    /// posts this device's one-time key, waits for the sender to seal the secret to it, and
    /// writes it. Prints `{id, status}`, never the secret.
    Reveal {
        #[command(flatten)]
        dir: DataDirArgs,
        /// The offer's message id (`msg_…`).
        id: String,
        /// Where the secret goes; created before the offer is opened.
        #[arg(long, value_name = "PATH")]
        out: PathBuf,
        /// Stop waiting after this long (default 15m, the one-time key's lifetime); running
        /// it again on this device resumes.
        #[arg(long)]
        timeout: Option<String>,
    },
    /// Answer a request with an action or a JSON object of field values.
    Answer {
        #[command(flatten)]
        dir: DataDirArgs,
        id: String,
        /// The action to tap, e.g. `approve`. It answers with the action's own values (set
        /// by the sender), so it takes no --json, --secret or --file.
        #[arg(long)]
        action: Option<String>,
        /// Field values as a JSON object: inline when the value starts with `{` (e.g.
        /// `{"env":"prod"}`), else the path of a file holding it (`-` for standard input),
        /// up to 4 MiB. A key given twice is refused.
        #[arg(long, value_name = "JSON|FILE|-")]
        json: Option<String>,
        /// The value of a secret field, read from a file (`-` for standard input), never an
        /// argument: `FIELD=PATH`; for a secret-file field, PATH is the file to send (a path,
        /// not `-`). Repeatable, once per field.
        #[arg(long = "secret", value_name = "FIELD=PATH", conflicts_with = "action")]
        secrets: Vec<String>,
        /// A file answering a file field, encrypted and uploaded (≤ 100 MB): `FIELD=PATH`.
        /// Repeatable.
        #[arg(long = "file", value_name = "FIELD=PATH", conflicts_with = "action")]
        files: Vec<String>,
    },
}
