//! `herald device unlock | pair | approve | list | revoke | reset`: every device flow from a
//! terminal (docs/devices.md, docs/cli.md). Secrets (the recovery key, a pairing code) are
//! read from the terminal without echo, or from standard input when it is not a terminal —
//! never from arguments, so they stay out of shell history and `ps`.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use herald_protocol::ErrorCode;
use zeroize::Zeroizing;

use crate::args::DeviceCommand;
use crate::exit;
use crate::local_device::{device_name, open, ready};
use crate::terminal::line;

/// Reads one secret line: from the terminal without echo (prompting on stderr), else the
/// first line of standard input.
fn read_secret(prompt: &str) -> Result<Zeroizing<String>> {
    crate::interrupt::prompting(|| read_secret_line(prompt))
}

fn read_secret_line(prompt: &str) -> Result<Zeroizing<String>> {
    if std::io::stdin().is_terminal() {
        return Ok(Zeroizing::new(
            rpassword::prompt_password(prompt).context("cannot read from the terminal")?,
        ));
    }
    let mut text = Zeroizing::new(String::new());
    std::io::stdin()
        .lock()
        .read_line(&mut text)
        .context("cannot read standard input")?;
    if text.trim().is_empty() {
        bail!(
            "nothing on standard input: {}",
            prompt.trim_end_matches([':', ' '])
        );
    }
    Ok(text)
}

/// Runs a `herald device` subcommand other than `init`.
pub async fn run(command: DeviceCommand) -> Result<ExitCode> {
    match command {
        DeviceCommand::Init { .. } => bail!("`herald device init` is handled by device::device"),
        DeviceCommand::Unlock { dir, relay, name } => {
            let relay = crate::config::device_relay(relay, "unlock")?;
            let name = device_name(name);
            let core = open(&dir, Some(name.clone()))?;
            let key = read_secret("Recovery key: ")?;
            let unlocked = core.unlock_with_recovery_key(&relay, &key, &name).await?;
            drop(key);
            let synced = core.sync_once().await?;
            crate::out!("Account:      {}", unlocked.account_id)?;
            crate::out!("Safety code:  {}", unlocked.safety_code)?;
            crate::note!(
                "Unlocked: this machine is a device of the account ({synced} messages synced)."
            );
            crate::note!("Check that the safety code matches the one on your other devices.");
        }
        DeviceCommand::Pair { dir, relay, name } => {
            let relay = crate::config::device_relay(relay, "pair")?;
            let name = device_name(name);
            let core = open(&dir, Some(name.clone()))?;
            let started = core.start_pairing(&relay, &name).await?;
            crate::out!("Pairing code: {}", started.code)?;
            crate::note!(
                "On an unlocked device, choose \"Approve a new device\" (or run `herald device approve`) and type this code. Waiting until {}…",
                started.expires_at
            );
            let unlocked = core.wait_pairing(&started.pairing_id).await?;
            let synced = core.sync_once().await?;
            crate::out!("Account:      {}", unlocked.account_id)?;
            crate::out!("Safety code:  {}", unlocked.safety_code)?;
            crate::note!(
                "Approved: this machine is a device of the account ({synced} messages synced)."
            );
        }
        DeviceCommand::Approve {
            dir,
            pairing_id,
            json,
            confirm_timeout,
        } => {
            let confirm_timeout = crate::config::parse_duration(
                "--confirm-timeout",
                &confirm_timeout,
                std::time::Duration::from_secs(1),
                // A pairing request lives 10 minutes in all.
                std::time::Duration::from_secs(herald_protocol::devices::PAIRING_TTL_SECS as u64),
            )?;
            let core = ready(&dir)?;
            let requests = core.pairing_requests().await?;
            if json {
                crate::out!("{}", serde_json::to_string_pretty(&requests)?)?;
                return Ok(exit::OK.into());
            }
            let request = match pairing_id {
                Some(id) => requests
                    .into_iter()
                    .find(|r| r.id == id)
                    .with_context(|| format!("no pending pairing request {id} (expired or answered?)"))?,
                None => match requests.len() {
                    0 => bail!("no new device is waiting: run `herald device pair` (or choose \"This is a new device\") on it first"),
                    1 => requests.into_iter().next().context("one request")?,
                    _ => {
                        for r in &requests {
                            crate::note!("{}  {}  {}  expires {}", r.id, line(&r.name), line(&r.platform), r.expires_at);
                        }
                        bail!("several new devices are waiting: pass the PAIRING_ID of yours");
                    }
                },
            };
            crate::note!(
                "Approving {:?} ({}, {}), requested {}.",
                line(&request.name),
                line(&request.platform),
                request.id,
                request.created_at
            );
            let code = read_secret("Code shown on the new device: ")?;
            crate::note!("Waiting for the new device to confirm…");
            let approved =
                tokio::time::timeout(confirm_timeout, core.approve_pairing(&request.id, &code))
                    .await;
            drop(code);
            let device = match approved {
                Ok(result) => result?,
                Err(_) => {
                    // Burn the request: its code must not be tried again.
                    let burned = core.fail_pairing(&request.id).await;
                    let state = if burned.is_ok() {
                        "the request is cancelled"
                    } else {
                        "the request could not be cancelled and expires on its own"
                    };
                    bail!(
                        "the new device did not confirm within {} (is `herald device pair` still running there?); {state}: start again on the new device",
                        crate::config::format_duration(confirm_timeout)
                    );
                }
            };
            crate::terminal::after_done(
                crate::out!("Approved: {} ({})", line(&device.name), device.id),
                || {
                    format!(
                        "device {} was approved, but this could not be shown",
                        device.id
                    )
                },
            )?;
        }
        DeviceCommand::List { dir, json } => {
            let devices = ready(&dir)?.devices().await?;
            if json {
                crate::out!("{}", serde_json::to_string_pretty(&devices)?)?;
            } else {
                for d in devices {
                    let state = match (&d.revoked_at, d.current) {
                        (Some(at), _) => format!("revoked {at}"),
                        (None, true) => "this device".into(),
                        (None, false) => {
                            format!("last seen {}", d.last_seen_at.as_deref().unwrap_or("-"))
                        }
                    };
                    crate::out!(
                        "{}  {:<8}  added {}  {}  {}",
                        d.id,
                        line(&d.platform),
                        d.created_at,
                        state,
                        line(&d.name)
                    )?;
                }
            }
        }
        DeviceCommand::Revoke { dir, id } => {
            if id.starts_with("con_") {
                bail!("{id} is a connection, not a device: revoke it with `herald connection revoke {id}`");
            }
            let core = ready(&dir)?;
            let known = core.devices().await?.into_iter().find(|d| d.id == id);
            match known {
                None => bail!("no device {id} in this account (see `herald device list`)"),
                Some(d) if d.revoked_at.is_some() => bail!(
                    "device {id} is already revoked ({})",
                    d.revoked_at.as_deref().unwrap_or_default()
                ),
                Some(_) => {}
            }
            match core.revoke_device(&id).await {
                // Another device rotated the account key meanwhile: learn it and try once more.
                Err(e) if e.code() == ErrorCode::KeysChanged.as_str() => {
                    core.revoke_device(&id).await?
                }
                other => other?,
            }
            crate::note!("Device {id} revoked: its session no longer works, and the account key was rotated.");
        }
        DeviceCommand::Reset { dir, yes } => {
            if !yes {
                bail!("reset deletes every message, file and connection and signs every other device out; run again with --yes to confirm");
            }
            let result = ready(&dir)?.reset_account().await?;
            let printed = (|| {
                crate::out!("Account:      {}", result.account_id)?;
                crate::out!("Safety code:  {}", result.safety_code)?;
                crate::out!("")?;
                crate::out!("Recovery key: {}", result.recovery_key)?;
                crate::out!("Write the new recovery key down: it is shown only this once. Other devices must unlock again.")
            })();
            crate::terminal::after_done(printed, || {
                format!(
                    "account {} was reset, but its new recovery key could not be shown (it is shown only once). For another one: herald device reset --yes{}",
                    result.account_id,
                    dir.resume_flags()
                )
            })?;
        }
    }
    Ok(exit::OK.into())
}
