//! `herald send`, `herald ask`, `herald wait`: the agent side, as a connection.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use herald_client::agent::{validate_content, AgentClient, SendOptions, WaitOutcome};
use herald_protocol::content::MAX_ATTACHMENTS;
use herald_protocol::wire::MAX_EXPIRES_IN_SECS;
use herald_protocol::MessageId;
use serde_json::json;

use crate::args::{AgentArgs, AskArgs, CancelArgs, SendArgs, WaitArgs};
use crate::out_file::OutFile;
use crate::quote::shell_word;
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
        idempotency_key: config::idempotency_key(args.idempotency_key.as_deref())?,
        expires_in: None,
        reply_to,
        attachments: args.files.clone(),
    })
}

fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    crate::out!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    )
}

/// `herald send`: prints `{id, revision, status, createdAt}`.
pub async fn send(args: SendArgs) -> Result<ExitCode> {
    if let Some(path) = args.secret_file.clone() {
        return crate::secret::send(args, &path)
            .await
            .map_err(|e| crate::hints::agent(e, None));
    }
    send_message(args)
        .await
        .map_err(|e| crate::hints::agent(e, None))
}

async fn send_message(args: SendArgs) -> Result<ExitCode> {
    let message = content::base(&args.content)?;
    if message.expects_answer() {
        anyhow::bail!("this content asks for an answer (a form, questions or actions): send it with `herald ask`");
    }
    let opts = options(&args.content)?;
    // Everything is checked before the first upload: nothing is left behind on a refusal.
    let images = crate::attach::image_specs(&args.content.blocks)?;
    let draft = crate::attach::draft(&message, &images);
    validate_content(&draft, &opts.attachments, false)?;
    let client = client(&args.agent)?;
    if !images.is_empty() {
        // The sealed size with the images' stand-ins, before they are uploaded (the SDK
        // checks `--file` alone before its own uploads).
        client.preflight(&draft, &opts.attachments, false).await?;
    }
    let mut message = message;
    crate::attach::add_image_blocks(&client, &images, &mut message).await?;
    let record = client.send(&message, opts).await?;
    crate::terminal::after_done(
        print_json(
            &json!({"id": record.id, "revision": record.revision, "status": record.status, "createdAt": record.created_at}),
        ),
        || {
            format!(
                "message {} was sent, but its record could not be printed",
                record.id
            )
        },
    )?;
    Ok(exit::OK.into())
}

/// `herald ask`: sends a request and waits; prints the answer (exit 0), or the closed status
/// (exit 2), or the id to resume with `herald wait` (exit 3).
pub async fn ask(args: AskArgs) -> Result<ExitCode> {
    ask_inner(args)
        .await
        .map_err(|e| crate::hints::agent(e, None))
}

async fn ask_inner(args: AskArgs) -> Result<ExitCode> {
    let mut stdin = content::content_stdin(&args.content);
    stdin.push((
        "--schema -".to_owned(),
        args.schema.as_deref().is_some_and(content::is_stdin),
    ));
    content::one_stdin(&stdin)?;
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
    content::check_actions_fill_form(&message, &args.actions)?;
    crate::secret::check_out_for(&message, args.out.as_deref(), "this request")?;
    crate::answer_files::check_out_dir(
        args.out_dir.as_deref(),
        crate::answer_files::has_file_fields(&message),
        "this request",
    )?;
    let mut opts = options(&args.content)?;
    if let Some(deadline) = &args.deadline {
        let secs = config::parse_duration(
            "--deadline",
            deadline,
            std::time::Duration::from_secs(1),
            std::time::Duration::from_secs(MAX_EXPIRES_IN_SECS),
        )?
        .as_secs();
        opts.expires_in = Some(secs);
    }
    let timeout = args
        .timeout
        .as_deref()
        .map(|t| config::parse_timeout("--timeout", t))
        .transpose()?;
    // Everything is checked before the first upload or send: a refused request leaves
    // nothing behind (same rules as the SDK's `ask` and `herald mcp`).
    let images = crate::attach::image_specs(&args.content.blocks)?;
    let draft = crate::attach::draft(&message, &images);
    validate_content(&draft, &opts.attachments, true)?;
    let client = client(&args.agent)?;
    if !images.is_empty() {
        // The sealed size with the images' stand-ins, before they are uploaded (the SDK
        // checks `--file` alone before its own uploads).
        client.preflight(&draft, &opts.attachments, true).await?;
    }
    // Secrets are handed over once: their file exists (O_EXCL, 0600) before anything is sent,
    // so no other process can take the path while the request waits.
    let out = args.out.as_deref().map(OutFile::create).transpose()?;
    crate::attach::add_image_blocks(&client, &images, &mut message).await?;
    let record = client.ask(&message, opts).await?;
    crate::note!("herald: sent {} — waiting for an answer", record.id);
    finish(
        &client,
        &record.id,
        &args.agent.resume_flags(),
        timeout,
        out,
        args.out_dir.as_deref(),
    )
    .await
}

/// `herald wait ID`: resumes waiting for a request's answer.
pub async fn wait(args: WaitArgs) -> Result<ExitCode> {
    let id = args.id.clone();
    wait_inner(args)
        .await
        .map_err(|e| crate::hints::agent(e, Some(&id)))
}

async fn wait_inner(args: WaitArgs) -> Result<ExitCode> {
    let id = MessageId::parse(&args.id)
        .with_context(|| format!("{:?} is not a message id (msg_…)", args.id))?;
    let timeout = args
        .timeout
        .as_deref()
        .map(|t| config::parse_timeout("--timeout", t))
        .transpose()?;
    let client = client(&args.agent)?;
    let content = client.request_content(&id).await?;
    if !content.expects_answer() {
        // A secret offer is resumed by sending it again under the same Idempotency-Key.
        if client.offer_state(&id).await.is_ok() {
            bail!(
                "{id} is a secret offer, not a request: to keep delivering it, run the same `herald send --secret-file PATH …` again with the --idempotency-key it printed"
            );
        }
        bail!("{id} is a message, not a request: there is nothing to wait for");
    }
    // Secrets are handed over once: know where they go, and reserve the file, before
    // collecting them.
    crate::secret::check_out_for(&content, args.out.as_deref(), id.as_str())?;
    let has_files = crate::answer_files::has_file_fields(&content);
    crate::answer_files::check_out_dir(args.out_dir.as_deref(), has_files, id.as_str())?;
    let out = args.out.as_deref().map(OutFile::create).transpose()?;
    finish(
        &client,
        &id,
        &args.agent.resume_flags(),
        timeout,
        out,
        args.out_dir.as_deref(),
    )
    .await
}

/// `herald cancel ID`: prints `{id, status}`.
pub async fn cancel(args: CancelArgs) -> Result<ExitCode> {
    let id = MessageId::parse(&args.id)
        .with_context(|| format!("{:?} is not a message id (msg_…)", args.id))?;
    let record = client(&args.agent)?
        .cancel(&id)
        .await
        .map_err(|e| crate::hints::agent(e.into(), Some(id.as_str())))?;
    crate::terminal::after_done(
        print_json(&json!({"id": record.id, "status": record.status})),
        || {
            format!(
                "request {} was cancelled (or had closed), but this could not be printed",
                record.id
            )
        },
    )?;
    Ok(exit::OK.into())
}

async fn finish(
    client: &AgentClient,
    id: &MessageId,
    flags: &str,
    timeout: Option<std::time::Duration>,
    out: Option<OutFile>,
    out_dir: Option<&std::path::Path>,
) -> Result<ExitCode> {
    // The resume hint names the same relay and token file (`flags`), --out and --out-dir (an
    // unwritten --out is removed).
    let mut resume = format!("herald wait {id}{flags}");
    if let Some(out) = &out {
        resume.push_str(&format!(
            " --out {}",
            shell_word(&out.path().display().to_string())
        ));
    }
    if let Some(dir) = out_dir {
        resume.push_str(&format!(
            " --out-dir {}",
            shell_word(&dir.display().to_string())
        ));
    }
    // Interrupted from here on (SIGINT, SIGTERM), the request stays open: same hint.
    crate::interrupt::set_hint(resume.clone());
    match client.wait(id, timeout).await? {
        WaitOutcome::Answered(mut answer) => {
            match (&answer.secrets, out) {
                (Some(secrets), Some(out)) => {
                    let path = out.path().display().to_string();
                    crate::secret::write_secrets(client, out, secrets).await?;
                    crate::note!(
                        "herald: wrote the secret value(s) of {} to {path} (mode 0600)",
                        secrets.ids().collect::<Vec<_>>().join(", "),
                    );
                }
                (Some(_), None) => bail!("the answer has secret values but no --out was given"),
                (None, Some(out)) => crate::note!(
                    "herald: the answer holds no secret value; {} was not written",
                    out.path().display()
                ),
                (None, None) => {}
            }
            // Files go to --out-dir; the printed answer lists them with their paths.
            crate::answer_files::save(client, flags, &mut answer, out_dir).await?;
            // Secret fields print as {"secret": true}; their values are only in --out.
            crate::terminal::after_done(print_json(&serde_json::to_value(&answer)?), || {
                format!("request {id} was answered, but the answer could not be printed (its secret values, if any, were handed over once, to --out)")
            })?;
            Ok(exit::OK.into())
        }
        WaitOutcome::Closed(status) => {
            crate::terminal::after_done(print_json(&json!({"id": id, "status": status})), || {
                format!(
                    "request {id} closed unanswered ({}), but this could not be printed",
                    json!(status)
                )
            })?;
            Ok(exit::CLOSED.into())
        }
        WaitOutcome::TimedOut => {
            crate::terminal::after_done(
                print_json(&json!({"id": id, "status": "pending", "timedOut": true})),
                || {
                    format!("request {id} is still open, but this could not be printed. Resume with: {resume}")
                },
            )?;
            crate::note!(
                "herald: stopped waiting; the request is still open. Resume with: {resume}"
            );
            Ok(exit::TIMED_OUT.into())
        }
    }
}
