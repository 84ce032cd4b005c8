//! Builds message content from command-line flags.

use std::io::Read;

use anyhow::{bail, Context, Result};
use herald_protocol::content::{Action, ChoiceOption, Field, FieldKind, MessageContent};

use crate::args::ContentArgs;

/// Title and body (from `--body`, `--body-file PATH` or `--body-file -` for stdin).
pub fn base(args: &ContentArgs) -> Result<MessageContent> {
    let body = match (&args.body, &args.body_file) {
        (Some(b), _) => b.clone(),
        (None, Some(p)) if p.as_os_str() == "-" => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading the body from stdin")?;
            s
        }
        (None, Some(p)) => {
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?
        }
        (None, None) => String::new(),
    };
    Ok(MessageContent {
        title: args.title.clone(),
        body,
        ..Default::default()
    })
}

/// `ID:LABEL` → an action whose answer is `{}`.
pub fn action(spec: &str) -> Result<Action> {
    let Some((id, label)) = spec.split_once(':') else {
        bail!("--action {spec:?}: expected ID:LABEL, e.g. approve:Approve");
    };
    Ok(Action {
        id: id.trim().to_owned(),
        label: label.trim().to_owned(),
        values: Default::default(),
    })
}

/// `ID[!]:TYPE[:LABEL[:OPT1,OPT2]]` → a field.
pub fn field(spec: &str) -> Result<Field> {
    let mut parts = spec.splitn(4, ':');
    let raw_id = parts.next().unwrap_or_default().trim();
    let Some(kind) = parts.next() else {
        bail!("--field {spec:?}: expected ID:TYPE[:LABEL[:OPTIONS]]");
    };
    let (id, required) = match raw_id.strip_suffix('!') {
        Some(id) => (id, true),
        None => (raw_id, false),
    };
    let label = parts
        .next()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .unwrap_or(id)
        .to_owned();
    let options: Vec<ChoiceOption> = parts
        .next()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(|o| ChoiceOption {
            value: o.to_owned(),
            label: o.to_owned(),
            description: None,
            preview: None,
        })
        .collect();
    let kind = match kind.trim() {
        "text" => FieldKind::Text,
        "textarea" => FieldKind::Textarea,
        "choice" => FieldKind::Choice {
            options,
            other: false,
        },
        "multiselect" => FieldKind::Multiselect {
            options,
            other: false,
        },
        other => {
            bail!("--field {spec:?}: unknown type {other:?} (text, textarea, choice, multiselect)")
        }
    };
    Ok(Field {
        id: id.to_owned(),
        label,
        kind,
        required,
        help: None,
        default: None,
        nullable: false,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_specs() {
        let f = field("env!:choice:Environment:prod, staging").unwrap();
        assert_eq!(f.id, "env", "id without the required mark");
        assert!(f.required, "! marks required");
        assert!(
            matches!(&f.kind, FieldKind::Choice { options, .. } if options.len() == 2),
            "two options"
        );
        assert_eq!(
            field("why:text").unwrap().label,
            "why",
            "label defaults to the id"
        );
        assert!(field("x").is_err(), "type is required");
        assert!(field("x:date").is_err(), "unknown type");
        assert_eq!(
            action("approve:Approve").unwrap().label,
            "Approve",
            "action label"
        );
        assert!(action("approve").is_err(), "action needs a label");
    }
}
