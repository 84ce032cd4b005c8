//! `herald inbox show`: a message as text, everything the desktop shows (blocks, form with
//! labels, help and options, actions, answer), with agent text made inert for the terminal.

use herald_client::view::{BlockKind, FieldKind, FieldView, MessageKind, MessageView};

use crate::out;
use crate::terminal::{inert, line};

/// Prints a message for a terminal.
/// Errors: standard output cannot be written ([`crate::terminal::StdoutError`]).
pub fn print_message(view: &MessageView) -> anyhow::Result<()> {
    let s = &view.summary;
    out!(
        "{}\nFrom: {}   {}   {}",
        line(&s.title),
        line(&s.sender_name),
        s.created_at,
        format!("{:?}", s.status).to_lowercase()
    )?;
    if let Some(e) = &s.error {
        out!("\n⚠ {}", line(e))?;
    }
    if view.requires_review {
        out!("\n⚑ The sender asks you to read all of this before answering.")?;
    }
    if view.kind == MessageKind::Secret {
        out!(
            "\n🔒 A secret offer: the sender hands the secret over once, to this device, into a new file. Reveal it with `herald inbox reveal {} --out PATH`.",
            s.id
        )?;
    }
    out!("\n{}", inert(&view.body_markdown, true))?;
    for (i, b) in view.blocks.iter().enumerate() {
        let kind = match b.kind {
            BlockKind::Code => "code",
            BlockKind::Diff => "diff",
            BlockKind::Json => "json",
            BlockKind::Table => "table",
            BlockKind::Image => "image",
        };
        let title = b
            .title
            .as_deref()
            .map(|t| format!(" {}", line(t)))
            .unwrap_or_default();
        let lang = match (&b.kind, b.language.as_deref()) {
            (BlockKind::Code, Some(l)) if l != "text" => format!(" ({l})"),
            _ => String::new(),
        };
        out!("\n── block {} · {kind}{title}{lang} ──", i + 1)?;
        out!("{}", inert(&b.text, true))?;
    }
    if !view.attachments.is_empty() {
        out!(
            "\nAttachments (save with `herald inbox save-attachment {} ATTACHMENT --out PATH`):",
            s.id
        )?;
        for a in &view.attachments {
            out!(
                "  {}  {}  ({}, {} bytes)",
                a.id,
                line(&a.name),
                line(&a.mime_type),
                a.size
            )?;
        }
    }
    if !view.fields.is_empty() {
        out!(
            "\nForm (answer with `herald inbox answer {} {}`):",
            s.id,
            answer_flags(&view.fields)
        )?;
        for f in &view.fields {
            print_field(f)?;
        }
    }
    if !view.actions.is_empty() {
        out!(
            "\nActions (answer with `herald inbox answer {} --action ACTION`):",
            s.id
        )?;
        for a in &view.actions {
            out!("  [{}] {}", line(&a.id), line(&a.label))?;
        }
    }
    if let Some(a) = &view.answer {
        out!(
            "\nAnswered {}: {}{}",
            a.answered_at,
            a.action_id
                .as_deref()
                .map(|x| format!("action {} ", line(x)))
                .unwrap_or_default(),
            a.values_json
        )?;
        for f in &a.attachments {
            out!(
                "  file {}  {}  ({}, {} bytes)",
                f.id,
                line(&f.name),
                line(&f.mime_type),
                f.size
            )?;
        }
    }
    Ok(())
}

/// The `herald inbox answer` flags a form needs: `--json` for ordinary fields, `--secret
/// FIELD=PATH` for secret and secret-file fields (never in arguments), `--file FIELD=PATH`
/// for file fields.
fn answer_flags(fields: &[FieldView]) -> String {
    let mut flags = Vec::new();
    if fields.iter().any(|f| {
        !matches!(
            f.kind,
            FieldKind::Secret | FieldKind::SecretFile | FieldKind::File
        )
    }) {
        flags.push("--json '{\"field\": value}'".to_owned());
    }
    for f in fields {
        match f.kind {
            FieldKind::Secret => flags.push(format!("--secret {}=PATH", line(&f.id))),
            FieldKind::SecretFile | FieldKind::File => {
                let flag = if f.kind == FieldKind::File {
                    "--file"
                } else {
                    "--secret"
                };
                flags.push(format!("{flag} {}=PATH", line(&f.id)))
            }
            _ => {}
        }
    }
    flags.join(" ")
}

/// A field type as `herald ask --field` spells it.
pub fn kind_name(kind: &FieldKind) -> &'static str {
    match kind {
        FieldKind::Text => "text",
        FieldKind::Textarea => "textarea",
        FieldKind::Choice => "choice",
        FieldKind::Multiselect => "multiselect",
        FieldKind::Number => "number",
        FieldKind::Integer => "integer",
        FieldKind::Boolean => "boolean",
        FieldKind::Date => "date",
        FieldKind::DateTime => "date-time",
        FieldKind::Secret => "secret",
        FieldKind::File => "file",
        FieldKind::SecretFile => "secret-file",
    }
}

/// How to give a field's value from the terminal, for kinds `--json` cannot carry.
fn field_hint(f: &FieldView) -> Option<String> {
    let id = line(&f.id);
    match f.kind {
        FieldKind::Secret => Some(format!(
            "a secret: --secret {id}=PATH reads it from a file (- for standard input), never from arguments"
        )),
        FieldKind::SecretFile => Some(format!(
            "a secret file: --secret {id}=PATH sends that file, readable only by the sender"
        )),
        FieldKind::File => Some(format!("a file: --file {id}=PATH sends it (≤ 100 MB)")),
        _ => None,
    }
}

fn print_field(f: &FieldView) -> anyhow::Result<()> {
    let header = f
        .header
        .as_deref()
        .map(|h| format!("[{}] ", line(h)))
        .unwrap_or_default();
    let mut bounds = Vec::new();
    if let Some(min) = f.minimum {
        bounds.push(format!("≥ {min}"));
    }
    if let Some(max) = f.maximum {
        bounds.push(format!("≤ {max}"));
    }
    let bounds = if bounds.is_empty() {
        String::new()
    } else {
        format!(", {}", bounds.join(" "))
    };
    out!(
        "  {}{}{}: {} ({}{bounds})",
        header,
        line(&f.id),
        if f.required { "*" } else { "" },
        line(&f.label),
        kind_name(&f.kind)
    )?;
    if let Some(help) = &f.help {
        out!("      {}", line(help))?;
    }
    if let Some(hint) = field_hint(f) {
        out!("      ↳ {hint}")?;
    }
    for o in &f.options {
        let desc = o
            .description
            .as_deref()
            .map(|d| format!(" — {}", line(d)))
            .unwrap_or_default();
        if o.value == o.label {
            out!("      • {}{desc}", line(&o.value))?;
        } else {
            out!("      • {} = {}{desc}", line(&o.value), line(&o.label))?;
        }
    }
    if f.other {
        out!("      • or any other text (≤ 100 characters)")?;
    }
    Ok(())
}
