//! Secrets on the command line move only through files (docs/secrets.md): never arguments,
//! standard output, logs or error messages.
//!
//! - `herald ask … --field 'token:secret:API token' --out PATH`: the secret values are written
//!   to PATH, created new (`O_EXCL`) with mode 0600 before the request is sent (or, for
//!   `herald wait`, before the answer is collected) and removed again when nothing is written
//!   (timeout, error). One secret field: its raw value; several: a JSON object
//!   `{"<field id>": "<value>", …}`.
//! - `herald send --secret-file PATH --title T`: a secret offer; the file's content (UTF-8,
//!   ≤ 64 KiB, not empty) is sealed to the one-time key of the device that opens it. No
//!   `--file` or `--block`. A timed-out or interrupted offer is resumed by the same command
//!   with the same `--idempotency-key` (printed as soon as the offer is sent, and again on a
//!   timeout or interruption); a resume with another file is refused (`idempotency_conflict`).
//! - `herald ask … --field 'kubeconfig:secret-file' --out PATH`: the file answered for a
//!   secret-file field (the request's only secret field) is downloaded, decrypted, verified
//!   and written to PATH (new, 0600).
//! - `herald inbox answer ID --secret FIELD=PATH` (a headless device): the value of a secret
//!   field is read from PATH (`-` for standard input), one trailing newline removed; for a
//!   secret-file field PATH is the file to upload (a path; `-` is refused).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use herald_client::agent::{AgentClient, OfferOutcome, SecretValues, SendOptions};
use herald_client::view::{FieldKind as ViewFieldKind, FieldView};
use herald_protocol::content::{FieldKind, MessageContent};
use herald_protocol::secrets::MAX_SECRET_OFFER_BYTES;
use serde_json::{json, Map, Value};
use zeroize::Zeroizing;

use crate::args::SendArgs;
use crate::out_file::{check_out_path, OutFile};
use crate::{config, content, exit};

/// Checks `--out` against the request's secret and secret-file fields before anything is
/// sent or collected: required when it has any, refused when it has none; a secret-file
/// field must be the only secret field (its file is what `--out` receives); PATH must not
/// exist.
pub fn check_out_for(content: &MessageContent, out: Option<&Path>, what: &str) -> Result<()> {
    let fields = content.effective_fields();
    let texts = fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Secret))
        .count();
    let files: Vec<&str> = fields
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FieldKind::SecretFile | FieldKind::File { secret: true }
            )
        })
        .map(|f| f.id.as_str())
        .collect();
    match (out, texts + files.len()) {
        (None, 0) => Ok(()),
        (Some(_), 0) => {
            bail!("--out is for the values of secret and secret-file fields; {what} has none")
        }
        (None, _) => bail!(
            "{what} has secret fields: pass --out PATH (a new file, mode 0600) to receive them; they are never printed"
        ),
        (Some(_), n) if !files.is_empty() && n > 1 => bail!(
            "secret-file field {:?} must be the only secret field of a request: --out receives its file",
            files[0]
        ),
        (Some(path), _) => check_out_path(path),
    }
}

/// Writes what the answer's secret fields hold to `out`, the 0600 file reserved (`O_EXCL`)
/// before the secrets were collected: the file of a secret-file field (downloaded, decrypted
/// and verified into it; only this connection may download it, within 15 minutes of the
/// answer), the raw value of a single secret field (a string as is, anything else as JSON),
/// or a JSON object for several. On an error the file is removed.
pub async fn write_secrets(
    client: &AgentClient,
    out: OutFile,
    secrets: &SecretValues,
) -> Result<()> {
    match (secrets.files(), secrets.expose().is_empty()) {
        ([], _) => out.finish(&secret_bytes(secrets)?),
        ([file], true) => {
            let writer = std::io::BufWriter::new(out.handle()?);
            let writer = client
                .download_secret_file_to(file, writer)
                .await
                .with_context(|| format!("saving secret file {} to --out", file.field_id))?;
            writer.into_inner().map_err(|e| {
                anyhow::anyhow!("writing --out {}: {}", out.path().display(), e.error())
            })?;
            out.keep()
        }
        _ => bail!("a secret-file field must be the only secret field of a request"),
    }
}

/// What `--out` holds for secret values (no files); see [`write_secrets`].
fn secret_bytes(secrets: &SecretValues) -> Result<Zeroizing<Vec<u8>>> {
    Ok(Zeroizing::new(match secrets.expose().len() {
        1 => match secrets.expose().values().next() {
            Some(Value::String(s)) => s.as_bytes().to_vec(),
            Some(other) => serde_json::to_vec(other)?,
            None => Vec::new(),
        },
        _ => serde_json::to_vec_pretty(secrets.expose())?,
    }))
}

/// Reads a secret file (`-`: standard input) of at most `max` bytes of UTF-8. Errors name the
/// file, never its content.
fn read_secret(path: &Path, max: usize) -> Result<Zeroizing<String>> {
    let name = path.display();
    let reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).with_context(|| format!("reading {name}"))?)
    };
    let mut bytes = Zeroizing::new(Vec::new());
    reader
        .take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {name}"))?;
    if bytes.len() > max {
        bail!("{name} is larger than {} KiB", max / 1024);
    }
    let text =
        std::str::from_utf8(&bytes).map_err(|_| anyhow::anyhow!("{name} is not UTF-8 text"))?;
    Ok(Zeroizing::new(text.to_owned()))
}

/// `--secret FIELD=PATH` values for `herald inbox answer`, merged into the answer's JSON
/// values. A value for a secret field given in `--json` is refused (it would be an argument).
pub fn merge_secret_values(
    json: Option<&str>,
    secret_specs: &[String],
    secret_fields: &[String],
) -> Result<Zeroizing<String>> {
    let mut values: Map<String, Value> = match json {
        // Strict: a key given twice is refused, not silently the last one.
        Some(text) => herald_protocol::json::from_str(text)
            .map_err(|e| anyhow::anyhow!("--json must be a JSON object: {e}"))?,
        None => Map::new(),
    };
    if let Some(id) = secret_fields
        .iter()
        .find(|id| values.contains_key(id.as_str()))
    {
        bail!(
            "{id:?} is a secret field: give its value with --secret {id}=FILE, never in arguments"
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    for spec in secret_specs {
        let Some((id, path)) = spec.split_once('=') else {
            bail!("--secret expects FIELD=FILE (FILE `-` for standard input)");
        };
        if !secret_fields.iter().any(|f| f == id) {
            bail!("--secret {id}=…: the request has no secret field {id:?}");
        }
        if !seen.insert(id) {
            bail!("--secret {id}=…: field {id:?} is given twice");
        }
        let mut text = read_secret(Path::new(path), 64 * 1024)?;
        let trimmed = text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
            .map(str::len);
        if let Some(len) = trimmed {
            text.truncate(len);
        }
        values.insert(id.to_owned(), Value::String(text.to_string()));
    }
    let out = Zeroizing::new(serde_json::to_string(&values)?);
    crate::secret::wipe(&mut values);
    Ok(out)
}

/// `--secret FIELD=PATH` of `herald inbox answer`, split by field kind: specs for secret
/// fields stay specs (their values are read from the files); a secret-file field's PATH is
/// the file to upload (a path: `-` is refused, standard input is for secret text), added to
/// `files` (the `--file` map). A field given twice, or in both, is refused.
pub fn route_secret_files(
    specs: Vec<String>,
    mut files: BTreeMap<String, PathBuf>,
    fields: &[FieldView],
) -> Result<(Vec<String>, BTreeMap<String, PathBuf>)> {
    let mut texts = Vec::with_capacity(specs.len());
    let mut routed = std::collections::BTreeSet::new();
    for spec in specs {
        let file_field = spec.split_once('=').filter(|(id, _)| {
            fields
                .iter()
                .any(|f| &f.id == id && f.kind == ViewFieldKind::SecretFile)
        });
        match file_field {
            Some((id, "-")) => bail!(
                "--secret {id}=-: {id:?} is a secret-file field: give the path of the file to send (standard input is for secret text fields)"
            ),
            Some((id, path)) => {
                if !routed.insert(id.to_owned()) {
                    bail!("--secret {id}=…: field {id:?} is given twice");
                }
                if files.insert(id.to_owned(), PathBuf::from(path)).is_some() {
                    bail!("field {id:?} is given twice (--secret and --file)");
                }
            }
            None => texts.push(spec),
        }
    }
    Ok((texts, files))
}

fn wipe(values: &mut Map<String, Value>) {
    use zeroize::Zeroize;
    for (_, v) in values.iter_mut() {
        if let Value::String(s) = v {
            s.zeroize();
        }
    }
}

/// How to resume the offer: the same command with its idempotency key. The command line is
/// not repeated: it holds the offer's title and body, message content that must not reach
/// logs (stderr is often one).
fn resume_command(key: &str, given: bool) -> String {
    if given {
        format!("the same command again (it already has --idempotency-key {key})")
    } else {
        format!("the same command with --idempotency-key {key} added")
    }
}

/// `herald send --secret-file PATH`: sends a secret offer, waits for a device to open it,
/// seals and posts the file's content, and waits for the device to collect it. Prints
/// `{id, status}` (`delivered`, `sent`, `notOpened`, `expired`); exit 0 when delivered, 3
/// when the wait timed out, 2 when the offer expired.
pub async fn send(args: SendArgs, path: &Path) -> Result<ExitCode> {
    if !args.content.files.is_empty() {
        bail!("a secret offer carries no files: --file cannot be combined with --secret-file (send the file in its own message)");
    }
    if !args.content.blocks.is_empty() {
        bail!("a secret offer has a title and a body only: --block cannot be combined with --secret-file");
    }
    let given_key = config::idempotency_key(args.content.idempotency_key.as_deref())?;
    let mut stdin = content::content_stdin(&args.content);
    stdin.push(("--secret-file -".to_owned(), content::is_stdin(path)));
    content::one_stdin(&stdin)?;
    let secret = read_secret(path, MAX_SECRET_OFFER_BYTES)?;
    if secret.is_empty() {
        bail!(
            "{} is empty: a secret offer needs the secret in the file",
            path.display()
        );
    }
    let message = content::base(&args.content)?;
    if message.expects_answer() || !message.blocks.is_empty() {
        bail!("a secret offer has a title and a body only");
    }
    let reply_to = match &args.content.reply_to {
        Some(id) => Some(
            herald_protocol::MessageId::parse(id)
                .with_context(|| format!("--reply-to {id:?} is not a message id (msg_…)"))?,
        ),
        None => None,
    };
    let timeout = args
        .timeout
        .as_deref()
        .map(|t| config::parse_timeout("--timeout", t))
        .transpose()?;
    let client = AgentClient::new(
        &config::relay_url(&args.agent)?,
        config::token(&args.agent)?,
    )?;
    // Known here so a timed-out offer can be resumed: the same command with the same key
    // gets the same offer back and keeps delivering it.
    let key = given_key.unwrap_or_else(|| herald_crypto::new_bearer("idk_"));
    let options = SendOptions {
        idempotency_key: Some(key.clone()),
        reply_to,
        ..SendOptions::default()
    };
    let given_key = args.content.idempotency_key.is_some();
    let record = client
        .send_secret_offer(&message, secret.as_bytes(), options)
        .await
        .map_err(|e| {
            let e = anyhow::Error::new(e);
            if given_key && crate::hints::is(&e, herald_protocol::ErrorCode::IdempotencyConflict)
            {
                anyhow::anyhow!(
                    "--idempotency-key {key} was used for a different offer: the secret file ({}), --title, the body or --reply-to differ from the first offer under this key. A resumed offer repeats the first command unchanged (same file, same flags); or send this one as a new offer (without --idempotency-key)",
                    path.display()
                )
            } else {
                e
            }
        })?;
    // Known from here on: an interrupted or timed-out offer is resumed, not duplicated.
    let resume = resume_command(&key, given_key);
    crate::note!(
        "herald: offered {} (idempotency key {key}) — waiting for a device to open it. If this stops, resume with: {resume}",
        record.id
    );
    crate::interrupt::set_hint(resume);
    let outcome = client
        .deliver_secret(&record.id, secret.as_bytes(), timeout)
        .await?;
    let (status, code) = match outcome {
        OfferOutcome::Delivered(_) => ("delivered", exit::OK),
        OfferOutcome::Sent(_) => ("sent", exit::TIMED_OUT),
        OfferOutcome::NotOpened => ("notOpened", exit::TIMED_OUT),
        OfferOutcome::Expired(_) => ("expired", exit::CLOSED),
    };
    let printed = if code == exit::TIMED_OUT {
        crate::note!(
            "herald: stopped waiting; the offer is still open. Resume by running the same command again with --idempotency-key {key}"
        );
        json!({"id": record.id, "status": status, "timedOut": true, "idempotencyKey": key})
    } else {
        json!({"id": record.id, "status": status})
    };
    crate::terminal::after_done(
        crate::out!("{}", serde_json::to_string_pretty(&printed)?),
        || {
            format!(
                "secret offer {} is {status}, but this could not be printed",
                record.id
            )
        },
    )?;
    Ok(code.into())
}
