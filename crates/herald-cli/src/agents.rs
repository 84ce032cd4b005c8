//! The agent side from a headless device (docs/agents.md, docs/cli.md): agent keys
//! (`herald agent-key create|list|revoke`), connectors approved by their user code
//! (`herald connector approve|deny|list|revoke`), and the notifications agents sent
//! (`herald notifications list|reply|quiet-hours`). Keys are printed once, on stdout only.

use std::process::ExitCode;

use crate::args::{
    AgentKeyArgs, AgentKeyCommand, ConnectorArgs, ConnectorCommand, NotificationsArgs,
    NotificationsCommand, QuietHoursArgs,
};
use crate::exit;
use crate::local_device::ready;
use crate::terminal::line;
use anyhow::Result;

/// `herald agent-key …`.
pub async fn agent_key(args: AgentKeyArgs) -> Result<ExitCode> {
    match args.command {
        AgentKeyCommand::Create { dir, name } => {
            let created = ready(&dir)?.create_agent_key(&name).await?;
            crate::terminal::print_shown_once(
                &created.key,
                "agent key",
                "the key",
                created.id.as_str(),
                &created.name,
                "agent-key revoke",
                &dir.resume_flags(),
            )?;
            crate::note!(
                "Agent key {:?} created ({}). The key above is shown once.",
                created.name,
                created.id
            );
            crate::note!(
                "Agents send it as `Authorization: Bearer <key>` to {}/v1/... and {}/mcp",
                created.relay_url,
                created.relay_url
            );
        }
        AgentKeyCommand::List { dir } => {
            for k in ready(&dir)?.agent_keys().await? {
                crate::out!("{}  {}  {}", k.id, k.created_at, line(&k.name))?;
            }
        }
        AgentKeyCommand::Revoke { dir, id } => {
            crate::hints::revoked(
                ready(&dir)?.revoke_agent_key(&id).await,
                &format!("agent key {id}"),
                &format!("herald agent-key list{}", dir.resume_flags()),
            )?;
            crate::note!("Agent key {id} revoked: it no longer works.");
        }
    }
    Ok(exit::OK.into())
}

/// `herald connector …`.
pub async fn connector(args: ConnectorArgs) -> Result<ExitCode> {
    match args.command {
        ConnectorCommand::Approve { dir, code, name } => {
            check_user_code(&code)?;
            let c = ready(&dir)?
                .approve_connector(&code, name.as_deref())
                .await?;
            crate::note!(
                "Connector {:?} approved ({}); it collects its token on its next poll.",
                line(&c.name),
                c.id
            );
        }
        ConnectorCommand::Deny { dir, code } => {
            check_user_code(&code)?;
            ready(&dir)?.deny_connector(&code).await?;
            crate::note!("Connector denied.");
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
                )?;
            }
        }
        ConnectorCommand::Revoke { dir, id } => {
            crate::hints::revoked(
                ready(&dir)?.revoke_connector(&id).await,
                &format!("connector {id}"),
                &format!("herald connector list{}", dir.resume_flags()),
            )?;
            crate::note!("Connector {id} revoked: its token no longer works.");
        }
    }
    Ok(exit::OK.into())
}

/// `herald notifications …`.
pub async fn notifications(args: NotificationsArgs) -> Result<ExitCode> {
    match args.command {
        NotificationsCommand::List { dir, json } => {
            let core = ready(&dir)?;
            crate::local_device::sync_or_cached(&core).await?;
            let list = core.notifications().await?;
            if json {
                crate::out!("{}", serde_json::to_string_pretty(&list)?)?;
                return Ok(exit::OK.into());
            }
            crate::note!(
                "Notifications are not end-to-end encrypted: the relay saw them in transit."
            );
            let mut any = false;
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
                any = true;
                crate::out!(
                    "{}  {}  {}: {}{}  (not end-to-end encrypted)",
                    n.id,
                    n.received_at,
                    line(&n.source_name),
                    line(&n.title),
                    if flags.is_empty() {
                        String::new()
                    } else {
                        format!("  [{}]", flags.join(", "))
                    }
                )?;
            }
            if !any {
                crate::note!("No notifications.");
            }
        }
        NotificationsCommand::Reply {
            dir,
            id,
            text,
            text_file,
        } => {
            let text = reply_text(text, text_file)?;
            let core = ready(&dir)?;
            let n = core.reply_notification(&id, &text).await?;
            crate::note!(
                "Reply sent to {:?} (not end-to-end encrypted).",
                line(&n.title)
            );
        }
        NotificationsCommand::QuietHours(args) => quiet_hours(args).await?,
    }
    Ok(exit::OK.into())
}

/// A connector's user code as typed (`BCDF-GHJK`, any case, dashes and spaces ignored):
/// 8 letters of [`USER_CODE_ALPHABET`] — consonants only, so `ABCD-EFGH`, 8 letters with
/// vowels, is refused naming the letters that cannot occur.
///
/// [`USER_CODE_ALPHABET`]: herald_protocol::agents::USER_CODE_ALPHABET
fn check_user_code(typed: &str) -> Result<()> {
    use herald_protocol::agents::{normalize_user_code, USER_CODE_ALPHABET, USER_CODE_LEN};
    if normalize_user_code(typed).is_some() {
        return Ok(());
    }
    let letters: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let alphabet = String::from_utf8_lossy(USER_CODE_ALPHABET);
    let foreign: String = letters.chars().filter(|c| !alphabet.contains(*c)).collect();
    let why = if letters.chars().count() != USER_CODE_LEN {
        format!(
            "it has {} letters, not {USER_CODE_LEN}",
            letters.chars().count()
        )
    } else {
        format!("{foreign:?} cannot occur in one")
    };
    anyhow::bail!(
        "{typed:?} is not a connector user code: {why}. A user code is {USER_CODE_LEN} letters from {alphabet} (consonants without look-alikes; no vowels, no digits), shown as XXXX-XXXX: copy it from the connector's screen"
    )
}

/// The reply text from `--text`, `--text-file`, or stdin; one trailing newline is dropped.
fn reply_text(text: Option<String>, file: Option<std::path::PathBuf>) -> Result<String> {
    use anyhow::Context;
    use std::io::Read;
    let mut text = match (text, file) {
        (Some(t), _) => t,
        // `-` is standard input, as for every other file flag.
        (None, Some(path)) => crate::content::read_text(&path)
            .with_context(|| format!("reading the reply from --text-file {}", path.display()))?,
        (None, None) => {
            let mut t = String::new();
            std::io::stdin()
                .read_to_string(&mut t)
                .context("reading the reply from stdin")?;
            t
        }
    };
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(text)
}

/// `herald notifications quiet-hours …`: shows, or changes then shows, the settings.
async fn quiet_hours(args: QuietHoursArgs) -> Result<()> {
    let core = ready(&args.dir)?;
    let mut settings = core.quiet_hours().await?;
    let times = args.start.is_some() || args.end.is_some() || args.timezone.is_some();
    if args.enable || args.disable || times {
        if args.enable || args.disable {
            settings.enabled = args.enable;
        }
        if let Some(start) = args.start {
            settings.start = start;
        }
        if let Some(end) = args.end {
            settings.end = end;
        }
        if let Some(timezone) = args.timezone {
            settings.timezone = timezone;
        }
        settings = core.set_quiet_hours(settings).await?;
    }
    crate::out!(
        "Quiet hours {}: {}–{} {}{}",
        if settings.enabled { "on" } else { "off" },
        settings.start,
        settings.end,
        line(&settings.timezone),
        if settings.active { " (active now)" } else { "" }
    )?;
    Ok(())
}
