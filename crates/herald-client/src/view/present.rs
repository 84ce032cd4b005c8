//! Builds the UI's view types from cache rows: opens the sealed blobs with the local key and
//! renders the Markdown body to sanitized HTML (herald-render).

use herald_crypto::LocalKey;
use herald_protocol::content::{
    AnswerContent, Attachment, Block, Field, FieldKind as WireFieldKind, TextBlock,
    MAX_INLINE_IMAGE_BYTES,
};
use herald_protocol::wire::MessageStatus as WireStatus;

use crate::cache::CachedMessage;
use crate::session::OpenedMessage;
use crate::view::*;
use crate::{Error, Result};

/// Title shown for a message that could not be opened.
pub const UNREADABLE_TITLE: &str = "Unreadable message";

fn status(s: WireStatus) -> MessageStatus {
    match s {
        WireStatus::Delivered => MessageStatus::Delivered,
        WireStatus::Pending => MessageStatus::Pending,
        WireStatus::Answered => MessageStatus::Answered,
        WireStatus::Expired => MessageStatus::Expired,
        WireStatus::Cancelled => MessageStatus::Cancelled,
    }
}

fn open_blob(
    key: &LocalKey,
    id: &str,
    blob: &Option<Vec<u8>>,
) -> Option<zeroize::Zeroizing<Vec<u8>>> {
    herald_crypto::open_local(key, id.as_bytes(), blob.as_ref()?).ok()
}

/// The view of the relay's kind (unknown kinds show as messages).
fn kind(relay_kind: &str) -> MessageKind {
    if relay_kind == herald_protocol::secrets::SECRET_OFFER_KIND {
        MessageKind::Secret
    } else {
        MessageKind::Message
    }
}

/// The inbox row of a cached message.
pub fn summary(key: &LocalKey, m: &CachedMessage) -> MessageSummary {
    let r = &m.record;
    let title = open_blob(key, &r.id, &r.sealed_title)
        .and_then(|b| String::from_utf8(b.to_vec()).ok())
        .unwrap_or_else(|| UNREADABLE_TITLE.to_owned());
    let error = match (&r.error, &r.sealed_title) {
        (Some(e), _) => Some(e.clone()),
        (None, None) => Some("This message could not be read.".to_owned()),
        _ => None,
    };
    MessageSummary {
        id: r.id.clone(),
        revision: r.revision.0,
        title,
        sender_name: r.sender_name.clone(),
        sender_id: r.sender_id.clone(),
        created_at: r.created_at.clone(),
        expires_at: r.expires_at.clone(),
        status: status(r.status),
        expects_answer: r.expects_answer,
        unread: m.unread,
        error,
        thread_id: r.thread_id.clone(),
        thread_sequence: r.thread_sequence,
        reply_to: r.reply_to.clone(),
        kind: kind(&r.kind),
    }
}

/// The decrypted content of a cached message.
pub(crate) fn opened(key: &LocalKey, m: &CachedMessage) -> Result<OpenedMessage> {
    let r = &m.record;
    if let Some(e) = &r.error {
        return Err(Error::InvalidInput(e.clone()));
    }
    let bytes = open_blob(key, &r.id, &r.sealed_content)
        .ok_or_else(|| Error::Storage("this message's cached content cannot be opened".into()))?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Storage(format!("cached content: {e}")))
}

/// The decrypted answer of a cached message, if it has one that opens.
pub(crate) fn answer_content(key: &LocalKey, m: &CachedMessage) -> Option<AnswerContent> {
    open_blob(key, &m.record.id, &m.record.sealed_answer)
        .and_then(|b| serde_json::from_slice::<AnswerContent>(&b).ok())
}

/// The reading-pane view of a cached message. The body's HTML comes from `render_body`,
/// called at most once with the decrypted Markdown body (not at all when the content cannot
/// be opened); the core passes its cached renderer (core/rendered.rs).
pub(crate) fn message_view(
    key: &LocalKey,
    m: &CachedMessage,
    render_body: impl FnOnce(&str) -> String,
) -> Result<MessageView> {
    let summary = summary(key, m);
    let Ok(opened) = opened(key, m) else {
        return Ok(MessageView {
            kind: summary.kind,
            summary,
            body_html: String::new(),
            body_markdown: String::new(),
            actions: vec![],
            fields: vec![],
            form_source: FormSource::None,
            blocks: vec![],
            requires_review: false,
            answer: None,
            attachments: vec![],
            answer_queued: false,
        });
    };
    let content = opened.content;
    let answer = open_blob(key, &m.record.id, &m.record.sealed_answer)
        .and_then(|b| serde_json::from_slice::<AnswerContent>(&b).ok())
        .map(|a| AnswerView {
            action_id: a.action_id,
            values_json: serde_json::to_string_pretty(&a.values).unwrap_or_default(),
            answered_at: m.record.answered_at.clone().unwrap_or_default(),
            attachments: a.attachments.iter().map(attachment_view).collect(),
        });
    Ok(MessageView {
        kind: summary.kind,
        summary,
        body_html: render_body(&content.body),
        body_markdown: content.body.clone(),
        actions: content
            .actions
            .iter()
            .map(|a| ActionView {
                id: a.id.clone(),
                label: a.label.clone(),
            })
            .collect(),
        fields: content.effective_fields().iter().map(field_view).collect(),
        form_source: if !content.fields.is_empty() {
            FormSource::Fields
        } else if !content.questions.is_empty() {
            FormSource::Questions
        } else if content.schema.is_some() {
            FormSource::Schema
        } else {
            FormSource::None
        },
        blocks: content.blocks.iter().map(block_view).collect(),
        requires_review: content.requires_review(),
        answer,
        attachments: content.attachments.iter().map(attachment_view).collect(),
        // Filled by `Core::message`, which can ask the cache's outbox.
        answer_queued: false,
    })
}

/// The UI's view of an attachment (everything but the key and hash).
fn attachment_view(a: &Attachment) -> AttachmentView {
    AttachmentView {
        id: a.id.clone(),
        name: a.name.clone(),
        mime_type: a.mime_type.clone(),
        size: a.size,
        inline_image: a.is_image() && a.size <= MAX_INLINE_IMAGE_BYTES,
    }
}

/// Renders one block with herald-render.
fn block_view(b: &Block) -> BlockView {
    let text_block = |kind, t: &TextBlock, html: String| BlockView {
        kind,
        title: t.title.clone(),
        language: Some(t.language().to_owned()),
        html,
        text: t.text.clone(),
        requires_review: t.requires_review,
        attachment_id: None,
    };
    match b {
        Block::Code(t) => text_block(
            BlockKind::Code,
            t,
            herald_render::code_to_html(&t.text, Some(t.language())),
        ),
        Block::Diff(t) => text_block(BlockKind::Diff, t, herald_render::diff_to_html(&t.text)),
        Block::Json(t) => text_block(BlockKind::Json, t, herald_render::json_to_html(&t.text)),
        Block::Table(t) => BlockView {
            kind: BlockKind::Table,
            title: None,
            language: None,
            html: herald_render::table_to_html(&t.columns, &t.rows),
            text: std::iter::once(&t.columns)
                .chain(&t.rows)
                .map(|row| row.join("\t"))
                .collect::<Vec<_>>()
                .join("\n"),
            requires_review: t.requires_review,
            attachment_id: None,
        },
        Block::Image(i) => BlockView {
            kind: BlockKind::Image,
            title: None,
            language: None,
            // A fallback only: the UI loads the attachment's bytes and shows those.
            html: herald_render::markdown_to_html(&format!(
                "![{}](attachment)",
                i.alt.replace(['[', ']'], "")
            )),
            text: format!("[image: {}]", i.alt),
            requires_review: i.requires_review,
            attachment_id: Some(i.attachment_id.clone()),
        },
    }
}

/// The UI's view of one field of the effective form (fields, questions or schema).
fn field_view(f: &Field) -> FieldView {
    let kind = match &f.kind {
        WireFieldKind::Text => FieldKind::Text,
        WireFieldKind::Textarea => FieldKind::Textarea,
        WireFieldKind::Choice { .. } => FieldKind::Choice,
        WireFieldKind::Multiselect { .. } => FieldKind::Multiselect,
        WireFieldKind::Number => FieldKind::Number,
        WireFieldKind::Integer => FieldKind::Integer,
        WireFieldKind::Boolean => FieldKind::Boolean,
        WireFieldKind::Date => FieldKind::Date,
        WireFieldKind::DateTime => FieldKind::DateTime,
        WireFieldKind::Secret => FieldKind::Secret,
        WireFieldKind::File { secret: false } => FieldKind::File,
        WireFieldKind::File { secret: true } | WireFieldKind::SecretFile => FieldKind::SecretFile,
    };
    let (options, other) = f.kind.options().unwrap_or_default();
    FieldView {
        id: f.id.clone(),
        label: f.label.clone(),
        kind,
        required: f.required,
        help: f.help.clone(),
        options: options
            .iter()
            .map(|o| OptionView {
                value: o.value.clone(),
                label: o.label.clone(),
                description: o.description.clone(),
                preview_html: o.preview.as_deref().map(herald_render::markdown_to_html),
            })
            .collect(),
        default_json: f.default.as_ref().map(|d| d.to_string()),
        header: f.header.clone(),
        other,
        minimum: f.bounds.minimum.as_ref().and_then(|n| n.as_f64()),
        maximum: f.bounds.maximum.as_ref().and_then(|n| n.as_f64()),
        min_length: f.bounds.min_length,
        max_length: f.bounds.max_length,
    }
}
