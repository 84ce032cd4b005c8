//! `herald inbox show`: a message as text, everything the desktop shows (blocks, form with
//! labels, help and options, actions, answer), with agent text made inert for the terminal.

use herald_client::view::{BlockKind, FieldView, MessageView};

use crate::out;
use crate::terminal::{inert, line};

/// Prints a message for a terminal.
pub fn print_message(view: &MessageView) {
    let s = &view.summary;
    out!(
        "{}\nFrom: {}   {}   {}",
        line(&s.title),
        line(&s.sender_name),
        s.created_at,
        format!("{:?}", s.status).to_lowercase()
    );
    if let Some(e) = &s.error {
        out!("\n⚠ {}", line(e));
    }
    if view.requires_review {
        out!("\n⚑ The sender asks you to read all of this before answering.");
    }
    out!("\n{}", inert(&view.body_markdown, true));
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
        out!("\n── block {} · {kind}{title}{lang} ──", i + 1);
        out!("{}", inert(&b.text, true));
    }
    if !view.attachments.is_empty() {
        out!("\nAttachments (save with `herald inbox save-attachment ID ATTACHMENT --out PATH`):");
        for a in &view.attachments {
            out!(
                "  {}  {}  ({}, {} bytes)",
                a.id,
                line(&a.name),
                line(&a.mime_type),
                a.size
            );
        }
    }
    if !view.fields.is_empty() {
        out!("\nForm (answer with `herald inbox answer ID --json '{{\"field\": value}}'`):");
        for f in &view.fields {
            print_field(f);
        }
    }
    if !view.actions.is_empty() {
        out!("\nActions (answer with `herald inbox answer ID --action ACTION`):");
        for a in &view.actions {
            out!("  [{}] {}", line(&a.id), line(&a.label));
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
        );
        for f in &a.attachments {
            out!(
                "  file {}  {}  ({}, {} bytes)",
                f.id,
                line(&f.name),
                line(&f.mime_type),
                f.size
            );
        }
    }
}

fn print_field(f: &FieldView) {
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
        "  {}{}{}: {} ({:?}{bounds})",
        header,
        line(&f.id),
        if f.required { "*" } else { "" },
        line(&f.label),
        f.kind
    );
    if let Some(help) = &f.help {
        out!("      {}", line(help));
    }
    for o in &f.options {
        let desc = o
            .description
            .as_deref()
            .map(|d| format!(" — {}", line(d)))
            .unwrap_or_default();
        if o.value == o.label {
            out!("      • {}{desc}", line(&o.value));
        } else {
            out!("      • {} = {}{desc}", line(&o.value), line(&o.label));
        }
    }
    if f.other {
        out!("      • or any other text (≤ 100 characters)");
    }
}
