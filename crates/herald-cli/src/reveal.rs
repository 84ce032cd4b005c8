//! `herald inbox reveal MSG --out PATH` (docs/secrets.md): the headless device opens a secret
//! offer and writes the secret to a new 0600 file. PATH is created before the offer is opened
//! (a secret is handed over once and must have somewhere to go); the command posts the
//! one-time key, waits for the sender to seal the secret to it (socket nudges, then a
//! collect), and writes it. Nothing secret reaches standard output, standard error or logs.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Result};
use herald_client::view::{CoreEvent, MessageKind};
use herald_client::{Core, SecretReveal};
use herald_protocol::secrets::SECRET_TTL_SECS;
use herald_protocol::ErrorCode;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use crate::args::DataDirArgs;
use crate::out_file::OutFile;
use crate::{config, exit};

/// How often the collect is retried even without a nudge (a socket that dropped quietly).
const RETRY_EVERY: Duration = Duration::from_secs(5);

/// Opens offer `id`, waits up to `timeout` (default: the one-time key's 15 minutes) for the
/// sender's secret and writes it to `out`. Prints `{id, status}`: `revealed` (exit 0),
/// `waiting` with `timedOut` (exit 3; run it again to keep waiting), `expired` (exit 2).
pub async fn reveal(
    dir: &DataDirArgs,
    id: &str,
    out: &Path,
    timeout: Option<&str>,
) -> Result<ExitCode> {
    let timeout = match timeout {
        Some(t) => config::parse_timeout("--timeout", t)?,
        None => Duration::from_secs(SECRET_TTL_SECS as u64),
    };
    let core = crate::local_device::ready(dir)?;
    core.sync_once().await?;
    if core.message(id).await?.kind != MessageKind::Secret {
        bail!("{id} is not a secret offer");
    }
    let file = OutFile::create(out)?;
    let resume = format!(
        "herald inbox reveal {}{} --out {}",
        crate::quote::shell_word(id),
        dir.resume_flags(),
        crate::quote::shell_word(&out.display().to_string())
    );
    // Interrupted (SIGINT, SIGTERM), the file is removed and the offer stays open.
    crate::interrupt::set_hint(resume.clone());
    let mut events = core.subscribe();
    core.start_sync()?;
    core.open_secret_offer(id).await?;
    crate::note!("herald: opened {id} — waiting for the sender to send the secret");
    let waited = tokio::time::timeout(timeout, collect(&core, id, &mut events)).await;
    core.stop_sync();
    let revealed = match waited {
        Ok(Ok(revealed)) => revealed,
        Ok(Err(e)) if is_code(&e, ErrorCode::SecretExpired) => {
            print_json(&json!({"id": id, "status": "expired"}))?;
            crate::note!("herald: the offer expired before the secret arrived");
            return Ok(exit::CLOSED.into());
        }
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            print_json(&json!({"id": id, "status": "waiting", "timedOut": true}))?;
            crate::note!(
                "herald: stopped waiting; the offer stays open on this device. Resume with: {resume}"
            );
            return Ok(exit::TIMED_OUT.into());
        }
    };
    let path = file.path().display().to_string();
    file.finish(revealed.text.as_bytes())?;
    drop(revealed);
    crate::note!("herald: wrote the secret of {id} to {path} (mode 0600)");
    print_json(&json!({"id": id, "status": "revealed"}))?;
    Ok(exit::OK.into())
}

/// Pretty-printed, like every other JSON `herald` prints.
fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    crate::out!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    )
}

fn is_code(e: &anyhow::Error, code: ErrorCode) -> bool {
    e.downcast_ref::<herald_client::Error>()
        .is_some_and(|e| e.code() == code.as_str())
}

/// Tries to collect now, then again on every change to the message (and every
/// [`RETRY_EVERY`]) until the secret is there.
async fn collect(
    core: &Core,
    id: &str,
    events: &mut tokio::sync::broadcast::Receiver<CoreEvent>,
) -> Result<SecretReveal> {
    let start = tokio::time::Instant::now() + RETRY_EVERY;
    let mut tick = tokio::time::interval_at(start, RETRY_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        if let Some(revealed) = core.reveal_secret_offer(id).await? {
            return Ok(revealed);
        }
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(CoreEvent::MessageUpserted { message, .. }) if message.id == id => break,
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => break,
                    Err(RecvError::Closed) => bail!("the device core stopped"),
                },
                _ = tick.tick() => break,
            }
        }
    }
}
