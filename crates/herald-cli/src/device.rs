//! The CLI as a headless device: `herald device init`, `whoami`, `connection`, `inbox`. Uses
//! the same device core as the desktop app (herald-client), so validation and sealing are the
//! same. Keys live in the data dir, sealed under a 0600 local key file.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use herald_client::view::{AnswerInput, MessageKind};
use herald_protocol::ErrorCode;

use crate::args::{
    ConnectionArgs, ConnectionCommand, DataDirArgs, DeviceArgs, DeviceCommand, InboxArgs,
    InboxCommand,
};
use crate::local_device::{open, ready, sync_or_cached};
use crate::setup_dir::SetupDir;
use crate::terminal::line;
use crate::{config, exit};

/// `herald device …`.
pub async fn device(args: DeviceArgs) -> Result<ExitCode> {
    // The data dir of a setup command, checked first and put back as it was on failure.
    let setup = match &args.command {
        DeviceCommand::Init { dir, .. } => Some(SetupDir::before(dir, "init")?),
        DeviceCommand::Unlock { dir, .. } => Some(SetupDir::before(dir, "unlock")?),
        DeviceCommand::Pair { dir, .. } => Some(SetupDir::before(dir, "pair")?),
        _ => None,
    };
    let result = setup_command(args).await;
    if result.is_err() {
        if let Some(setup) = setup {
            setup.restore();
        }
    }
    result
}

async fn setup_command(args: DeviceArgs) -> Result<ExitCode> {
    match args.command {
        DeviceCommand::Init { dir, relay, name } => {
            let relay = config::device_relay(relay, "init")?;
            let core = open(&dir, name)?;
            let result = core.create_account(&relay).await?;
            let printed = (|| {
                crate::out!("Account:      {}", result.account_id)?;
                crate::out!("Safety code:  {}", result.safety_code)?;
                crate::out!("")?;
                crate::out!("Recovery key: {}", result.recovery_key)?;
                crate::out!(
                    "Write the recovery key down and keep it safe: it is shown only this once."
                )
            })();
            crate::terminal::after_done(printed, || {
                format!(
                    "account {} was created with this device signed in, but its recovery key could not be shown (it is shown only once). For a new one, while the account is still empty: herald device reset --yes{}",
                    result.account_id,
                    dir.resume_flags()
                )
            })?;
            Ok(exit::OK.into())
        }
        other => crate::devices::run(other).await,
    }
}

/// `herald whoami`: what this device knows about itself, then whether the relay still
/// accepts it (`GET /keys/devices`): a revoked device, or one whose account was reset
/// elsewhere, is reported signed out (exit 1, with how to sign in again).
pub async fn whoami(dir: DataDirArgs) -> Result<ExitCode> {
    let core = ready(&dir)?;
    let s = core.setup_state();
    crate::out!("Account:      {}", s.account_id.unwrap_or_default())?;
    crate::out!(
        "Device:       {} ({})",
        line(&s.device_name.unwrap_or_default()),
        s.device_id.unwrap_or_default()
    )?;
    crate::out!("Relay:        {}", s.relay_url.unwrap_or_default())?;
    crate::out!("Safety code:  {}", s.safety_code.unwrap_or_default())?;
    match core.devices().await {
        Ok(_) => {
            crate::out!("Status:       signed in")?;
            Ok(exit::OK.into())
        }
        Err(e) if e.code() == ErrorCode::Unauthorized.as_str() => {
            crate::out!("Status:       signed out")?;
            bail!(crate::hints::SIGNED_OUT)
        }
        Err(e) => Err(e).context("cannot check this device with the relay"),
    }
}

/// `herald connection …`.
pub async fn connection(args: ConnectionArgs) -> Result<ExitCode> {
    match args.command {
        ConnectionCommand::Create { dir, name, scopes } => {
            let scopes = (!scopes.is_empty()).then_some(scopes.as_slice());
            let created = ready(&dir)?.create_connection(&name, scopes).await?;
            crate::terminal::print_shown_once(
                &created.token,
                "connection",
                "its token",
                created.id.as_str(),
                &created.name,
                "connection revoke",
                &dir.resume_flags(),
            )?;
            crate::note!(
                "Connection {:?} created ({}, may: {}). The token above is shown once.",
                created.name,
                created.id,
                created.scopes.join(",")
            );
            crate::note!(
                "Give it to the agent as HERALD_TOKEN (or a 0600 file), with HERALD_URL={}",
                created.relay_url
            );
        }
        ConnectionCommand::Revoke { dir, id } => {
            crate::hints::revoked(
                ready(&dir)?.revoke_connection(&id).await,
                &format!("connection {id}"),
                &format!("herald connection list{}", dir.resume_flags()),
            )?;
            crate::note!("Connection {id} revoked: its token no longer works.");
        }
        ConnectionCommand::List { dir } => {
            for c in ready(&dir)?.list_connections().await? {
                let scopes = c.scopes.join(",");
                crate::out!("{}  {}  {}  {}", c.id, c.created_at, scopes, line(&c.name))?;
            }
        }
    }
    Ok(exit::OK.into())
}

/// `inbox answer --json VALUE`: inline JSON when VALUE starts with `{` (after spaces), else
/// the path of a file holding it (`-`: standard input), so an answer of any size (≤ 4 MiB)
/// fits. Read strictly (a key given twice is refused) and required to be an object.
fn answer_json(value: &str) -> Result<String> {
    let (text, name) = if value.trim_start().starts_with('{') {
        (value.to_owned(), "--json".to_owned())
    } else {
        let path = std::path::Path::new(value);
        if value != "-" && !path.exists() {
            bail!(
                "--json {value:?}: no such file; inline JSON starts with `{{` (an object of field id → value, e.g. '{{\"env\":\"prod\"}}'), anything else names a file (`-` for standard input)"
            );
        }
        (
            crate::content::read_text(path)?,
            format!("--json {}", path.display()),
        )
    };
    match herald_protocol::json::parse_str(&text) {
        Ok(serde_json::Value::Object(_)) => Ok(text),
        Ok(_) => {
            bail!("{name}: expected a JSON object of field id → value, e.g. {{\"env\":\"prod\"}}")
        }
        Err(e) => bail!("{name}: {e}"),
    }
}

/// `herald inbox …`.
pub async fn inbox(args: InboxArgs) -> Result<ExitCode> {
    match args.command {
        InboxCommand::List { dir, json } => {
            let core = ready(&dir)?;
            sync_or_cached(&core).await?;
            let list = core.inbox().await?;
            if json {
                crate::out!("{}", serde_json::to_string_pretty(&list)?)?;
            } else if list.is_empty() {
                crate::out!("The inbox is empty.")?;
            } else {
                let mut offers = false;
                for m in list {
                    // A secret offer shows as such: it is revealed, not answered.
                    let status = if m.kind == MessageKind::Secret {
                        offers = true;
                        "secret".to_owned()
                    } else {
                        format!("{:?}", m.status).to_lowercase()
                    };
                    crate::out!(
                        "{}  {:<9}  {}  {}  {}",
                        m.id,
                        status,
                        m.created_at,
                        line(&m.sender_name),
                        line(&m.title)
                    )?;
                }
                if offers {
                    crate::note!("Secret offers are revealed once, into a new file: herald inbox reveal MSG --out PATH");
                }
            }
        }
        InboxCommand::Show { dir, id, json } => {
            let core = ready(&dir)?;
            let synced = sync_or_cached(&core).await?;
            let view = match core.message(&id).await {
                Err(e) if !synced && e.code() == herald_protocol::ErrorCode::NotFound.as_str() => {
                    bail!("{id} is not in this device's cache, and the relay is unreachable, so it cannot be fetched: check the id (`herald inbox list` shows what is cached), or try again once the relay answers")
                }
                other => other?,
            };
            core.mark_read(&id).await?;
            if json {
                crate::out!("{}", serde_json::to_string_pretty(&view)?)?;
            } else {
                crate::show::print_message(&view)?;
            }
        }
        InboxCommand::SaveAttachment {
            dir,
            id,
            attachment,
            out,
        } => {
            let core = ready(&dir)?;
            core.sync_once().await?;
            core.save_attachment(&id, &attachment, &out).await?;
            crate::note!("Saved {attachment} to {}", out.display());
        }
        InboxCommand::Reveal {
            dir,
            id,
            out,
            timeout,
        } => return crate::reveal::reveal(&dir, &id, &out, timeout.as_deref()).await,
        InboxCommand::Answer {
            dir,
            id,
            action,
            json,
            secrets,
            files,
        } => {
            if action.is_none() && json.is_none() && secrets.is_empty() && files.is_empty() {
                bail!(
                    "pass --action ID, --json '{{...}}' (or --json FILE), --secret FIELD=FILE or --file FIELD=PATH"
                );
            }
            if let (Some(action), Some(_)) = (&action, &json) {
                bail!(
                    "--action {action} takes no --json: a tapped action answers with the action's own values, fixed by the sender when the request was made, so it cannot carry values of yours (such as a reason). To answer with your own values, answer the form with --json alone (if the sender asked the decision as a field, put it there too)"
                );
            }
            let mut stdin = vec![("--json -".to_owned(), json.as_deref() == Some("-"))];
            for spec in &secrets {
                let reads = spec.split_once('=').is_some_and(|(_, p)| p == "-");
                stdin.push((format!("--secret {spec}"), reads));
            }
            crate::content::one_stdin(&stdin)?;
            let json = json.as_deref().map(answer_json).transpose()?;
            let files = crate::answer_files::parse_specs(&files)?;
            let core = ready(&dir)?;
            core.sync_once().await?;
            let current = core.message(&id).await?;
            if current.kind == MessageKind::Secret {
                bail!("{id} is a secret offer, not a request: reveal it with `herald inbox reveal {id} --out PATH`");
            }
            if !current.summary.expects_answer {
                bail!("{id} is not a request: it asks nothing to answer");
            }
            if current.requires_review && current.summary.unread {
                bail!("the sender asks you to read this request in full first: run `herald inbox show {id}`, then answer");
            }
            // A secret-file field's --secret names the file to upload.
            let (secrets, files) =
                crate::secret::route_secret_files(secrets, files, &current.fields)?;
            let secret_fields: Vec<String> = current
                .fields
                .iter()
                .filter(|f| f.kind == herald_client::view::FieldKind::Secret)
                .map(|f| f.id.clone())
                .collect();
            // Secret values come from files (--secret), never from arguments.
            let values_json = if action.is_none()
                && (!secrets.is_empty() || !secret_fields.is_empty())
            {
                Some(
                    crate::secret::merge_secret_values(json.as_deref(), &secrets, &secret_fields)?
                        .to_string(),
                )
            } else {
                json
            };
            let view = core
                .answer(
                    &id,
                    AnswerInput {
                        action_id: action,
                        values_json,
                        files,
                    },
                )
                .await?;
            crate::terminal::after_done(
                crate::out!("Answered: {}", line(&view.summary.title)),
                || format!("{id} was answered (the answer is sent), but this could not be shown"),
            )?;
        }
    }
    Ok(exit::OK.into())
}
