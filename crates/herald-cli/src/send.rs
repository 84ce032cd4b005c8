//! `herald send`, `herald ask`, `herald wait`: the agent side, as a connection.

use std::process::ExitCode;

use anyhow::{Context, Result};
use herald_client::agent::{AgentClient, SendOptions, WaitOutcome};
use herald_protocol::content::MAX_ATTACHMENTS;
use herald_protocol::wire::MAX_EXPIRES_IN_SECS;
use herald_protocol::MessageId;
use serde_json::json;

use crate::args::{AgentArgs, AskArgs, CancelArgs, SendArgs, WaitArgs};
use crate::{config, content, exit};

fn client(args: &AgentArgs) -> Result<AgentClient> {
    Ok(AgentClient::new(
        &config::relay_url(args)?,
        config::token(args)?,
    )?)
}

fn options(args: &crate::args::ContentArgs) -> Result<SendOptions> {
    let reply_to = match &args.reply_to {
        Some(id) => Some(
            MessageId::parse(id)
                .with_context(|| format!("--reply-to {id:?} is not a message id (msg_…)"))?,
        ),
        None => None,
    };
    if args.files.len() > MAX_ATTACHMENTS {
        anyhow::bail!("at most {MAX_ATTACHMENTS} --file per message");
    }
    Ok(SendOptions {
        idempotency_key: args.idempotency_key.clone(),
        expires_in: None,
        reply_to,
        attachments: args.files.clone(),
    })
}

fn print_json(value: &serde_json::Value) {
    crate::out!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

/// `herald send`: prints `{id, revision, status, createdAt}`.
pub async fn send(args: SendArgs) -> Result<ExitCode> {
    if let Some(path) = args.secret_file.clone() {
        return crate::secret::send(args, &path).await;
    }
    let message = content::base(&args.content)?;
    if message.expects_answer() {
        anyhow::bail!("this content asks for an answer (a form, questions or actions): send it with `herald ask`");
    }
    let opts = options(&args.content)?;
    let client = client(&args.agent)?;
    let mut message = message;
    crate::attach::add_image_blocks(&client, &args.content.blocks, &mut message).await?;
    let record = client.send(&message, opts).await?;
    print_json(
        &json!({"id": record.id, "revision": record.revision, "status": record.status, "createdAt": record.created_at}),
    );
    Ok(exit::OK.into())
}

/// `herald ask`: sends a request and waits; prints the answer (exit 0), or the closed status
/// (exit 2), or the id to resume with `herald wait` (exit 3).
pub async fn ask(args: AskArgs) -> Result<ExitCode> {
    let mut message = content::base(&args.content)?;
    // Flags add to what --json gave.
    for spec in &args.actions {
        message.actions.push(content::action(spec)?);
    }
    for spec in &args.fields {
        message.fields.push(content::field(spec)?);
    }
    for spec in &args.questions {
        message.questions.push(content::question(spec)?);
    }
    if let Some(path) = &args.schema {
        message.schema = Some(content::schema(path)?);
    }
    if !message.expects_answer() {
        anyhow::bail!(
            "a request needs at least one --action, --field, --question or --schema (use `herald send` for a message)"
        );
    }
    crate::secret::check_out_for(&message, args.out.as_deref(), "this request")?;
    crate::answer_files::check_out_dir(
        args.out_dir.as_deref(),
        crate::answer_files::has_file_fields(&message),
        "this request",
    )?;
    let mut opts = options(&args.content)?;
    if let Some(deadline) = &args.deadline {
        let secs = config::parse_duration(deadline)?.as_secs();
        if secs == 0 || secs > MAX_EXPIRES_IN_SECS {
            anyhow::bail!("--deadline must be between 1s and 24h");
        }
        opts.expires_in = Some(secs);
    }
    let timeout = args
        .timeout
        .as_deref()
        .map(config::parse_duration)
        .transpose()?;
    let client = client(&args.agent)?;
    crate::attach::add_image_blocks(&client, &args.content.blocks, &mut message).await?;
    let record = client.send(&message, opts).await?;
    eprintln!("herald: sent {} — waiting for an answer", record.id);
    finish(
        &client,
        &record.id,
        timeout,
        args.out.as_deref(),
        args.out_dir.as_deref(),
    )
    .await
}

/// `herald wait ID`: resumes waiting for a request's answer.
pub async fn wait(args: WaitArgs) -> Result<ExitCode> {
    let id = MessageId::parse(&args.id)
        .with_context(|| format!("{:?} is not a message id (msg_…)", args.id))?;
    let timeout = args
        .timeout
        .as_deref()
        .map(config::parse_duration)
        .transpose()?;
    let client = client(&args.agent)?;
    // Secrets are handed over once: know where they go before collecting them.
    let content = client.request_content(&id).await?;
    crate::secret::check_out_for(&content, args.out.as_deref(), id.as_str())?;
    let has_files = !client.file_field_ids(&id).await?.is_empty();
    crate::answer_files::check_out_dir(args.out_dir.as_deref(), has_files, id.as_str())?;
    finish(
        &client,
        &id,
        timeout,
        args.out.as_deref(),
        args.out_dir.as_deref(),
    )
    .await
}

/// `herald cancel ID`: prints `{id, status}`.
pub async fn cancel(args: CancelArgs) -> Result<ExitCode> {
    let id = MessageId::parse(&args.id)
        .with_context(|| format!("{:?} is not a message id (msg_…)", args.id))?;
    let record = client(&args.agent)?.cancel(&id).await?;
    print_json(&json!({"id": record.id, "status": record.status}));
    Ok(exit::OK.into())
}

async fn finish(
    client: &AgentClient,
    id: &MessageId,
    timeout: Option<std::time::Duration>,
    out: Option<&std::path::Path>,
    out_dir: Option<&std::path::Path>,
) -> Result<ExitCode> {
    match client.wait(id, timeout).await? {
        WaitOutcome::Answered(mut answer) => {
            if let Some(secrets) = &answer.secrets {
                let out = out.context("the answer has secret values but no --out was given")?;
                crate::secret::write_secrets(client, out, secrets).await?;
                eprintln!(
                    "herald: wrote the secret value(s) of {} to {} (mode 0600)",
                    secrets.ids().collect::<Vec<_>>().join(", "),
                    out.display()
                );
            }
            // Files go to --out-dir; the printed answer lists them with their paths.
            crate::answer_files::save(client, &mut answer, out_dir).await?;
            // Secret fields print as {"secret": true}; their values are only in --out.
            print_json(&serde_json::to_value(&answer)?);
            Ok(exit::OK.into())
        }
        WaitOutcome::Closed(status) => {
            print_json(&json!({"id": id, "status": status}));
            Ok(exit::CLOSED.into())
        }
        WaitOutcome::TimedOut => {
            print_json(&json!({"id": id, "status": "pending", "timedOut": true}));
            eprintln!(
                "herald: stopped waiting; the request is still open. Resume with: herald wait {id}"
            );
            Ok(exit::TIMED_OUT.into())
        }
    }
}
