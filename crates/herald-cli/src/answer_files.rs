//! File fields on the command line (docs/files.md, "File answers"; docs/cli.md):
//!
//! - `herald ask … --field 'report:file:Report' --out-dir DIR` and `herald wait ID --out-dir
//!   DIR`: answered files are saved in DIR (an existing directory), each under a sanitized
//!   form of its name (never a path from the person's device), mode 0600, never replacing a
//!   file; the printed answer lists them under `files` with their `path`.
//! - `herald inbox answer ID --file FIELD=PATH` (a headless device): PATH is encrypted and
//!   uploaded as the answer of file field FIELD.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use herald_client::agent::{AgentClient, AnswerOutput};
use herald_protocol::content::{FieldKind, MessageContent};

/// Whether the form has a `file` field (secret-file fields go to `--out`, docs/secrets.md).
pub fn has_file_fields(content: &MessageContent) -> bool {
    content
        .effective_fields()
        .iter()
        .any(|f| matches!(f.kind, FieldKind::File { secret: false }))
}

/// Checks `--out-dir` against the request before anything is sent or collected: required
/// with file fields, refused without, and an existing directory.
pub fn check_out_dir(out_dir: Option<&Path>, has_files: bool, what: &str) -> Result<()> {
    match (out_dir, has_files) {
        (Some(dir), true) if !dir.is_dir() => {
            bail!("--out-dir {}: not an existing directory", dir.display())
        }
        (None, true) => bail!(
            "{what} has file fields: pass --out-dir DIR (an existing directory) to receive the files"
        ),
        (Some(_), false) => bail!("--out-dir is for the files of file fields; {what} has none"),
        _ => Ok(()),
    }
}

/// Saves the answer's files in `out_dir` (recording each path in the answer) and reports
/// them on standard error. `flags`: the relay and token flags to repeat in the hint.
pub async fn save(
    client: &AgentClient,
    flags: &str,
    answer: &mut AnswerOutput,
    out_dir: Option<&Path>,
) -> Result<()> {
    if answer.files.is_empty() {
        return Ok(());
    }
    let Some(dir) = out_dir else {
        crate::note!(
            "herald: the answer has files; fetch them with: herald wait {}{flags} --out-dir DIR",
            answer.id
        );
        return Ok(());
    };
    client.save_answer_files(answer, dir).await?;
    for file in &answer.files {
        if let Some(path) = &file.path {
            crate::note!(
                "herald: saved {} ({} bytes) to {} (mode 0600)",
                file.field_id,
                file.size,
                path.display()
            );
        }
    }
    Ok(())
}

/// `--file FIELD=PATH` values of `herald inbox answer`: field id → path. A field given twice,
/// or a spec without `=`, is refused. Whether FIELD is a file field, and the file itself
/// (present, ≤ 100 MB), is checked by the device core before anything is uploaded.
pub fn parse_specs(specs: &[String]) -> Result<BTreeMap<String, PathBuf>> {
    let mut files = BTreeMap::new();
    for spec in specs {
        let Some((id, path)) = spec.split_once('=') else {
            bail!("--file expects FIELD=PATH");
        };
        if id.is_empty() || path.is_empty() {
            bail!("--file expects FIELD=PATH");
        }
        if files.insert(id.to_owned(), PathBuf::from(path)).is_some() {
            bail!("--file {id}=…: field {id:?} is given twice");
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_specs_parse_and_refuse_duplicates() {
        let files = parse_specs(&["report=./a=b.pdf".into(), "logs=/tmp/x".into()]).unwrap();
        assert_eq!(files["report"], PathBuf::from("./a=b.pdf"));
        assert_eq!(files["logs"], PathBuf::from("/tmp/x"));
        assert!(parse_specs(&["report=a".into(), "report=b".into()]).is_err());
        assert!(parse_specs(&["report".into()]).is_err());
        assert!(parse_specs(&["=a".into()]).is_err());
    }
}
