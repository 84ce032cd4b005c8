//! `blocks`: structured content shown above the form (code, diffs, JSON, tables, images).

use serde::{Deserialize, Serialize};

use super::answer::is_attachment_id;
use super::attachments::{find, Attachment};
use super::check::Check;
use super::limits::*;

/// One block, tagged by `type`: `code`, `diff`, `json`, `table` or `image`. Any block may set
/// `requiresReview: true` (the full view opens before answering).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Block {
    /// Source code.
    Code(TextBlock),
    /// A unified diff.
    Diff(TextBlock),
    /// A JSON document; `text` must parse as JSON.
    Json(TextBlock),
    /// A table of strings.
    Table(TableBlock),
    /// An image attached to the same message.
    Image(ImageBlock),
}

/// `{type: code | diff | json, text, language?, title?, requiresReview?}`.
///
/// `text` ≤ [`MAX_BLOCK_TEXT_CHARS`]; `language` one of [`BLOCK_LANGUAGES`] (`text` when left
/// out); `title` 1–[`MAX_BLOCK_TITLE_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextBlock {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_review: bool,
}

impl TextBlock {
    /// The language to highlight as: `language`, or `text`.
    pub fn language(&self) -> &str {
        self.language.as_deref().unwrap_or("text")
    }
}

/// `{type: "table", columns, rows, requiresReview?}`: 1–[`MAX_TABLE_COLUMNS`] column names
/// (1–[`MAX_LABEL_CHARS`] each), up to [`MAX_TABLE_ROWS`] rows of exactly one string cell per
/// column (each ≤ [`MAX_TABLE_CELL_CHARS`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableBlock {
    pub columns: Vec<String>,
    #[serde(default)]
    pub rows: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_review: bool,
}

/// `{type: "image", attachmentId, alt, requiresReview?}`: `attachmentId` names an attachment of
/// the same message whose type is one of [`IMAGE_TYPES`] (PNG, JPEG, GIF, WebP); `alt`
/// 1–[`MAX_ALT_CHARS`] characters.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageBlock {
    pub attachment_id: String,
    pub alt: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_review: bool,
}

impl Block {
    /// The wire `type` text.
    pub fn type_name(&self) -> &'static str {
        match self {
            Block::Code(_) => "code",
            Block::Diff(_) => "diff",
            Block::Json(_) => "json",
            Block::Table(_) => "table",
            Block::Image(_) => "image",
        }
    }

    /// Whether this block asks for the full view before answering.
    pub fn requires_review(&self) -> bool {
        match self {
            Block::Code(b) | Block::Diff(b) | Block::Json(b) => b.requires_review,
            Block::Table(b) => b.requires_review,
            Block::Image(b) => b.requires_review,
        }
    }
}

/// Checks `blocks`: count and each block's limits; an image block must name an image
/// attachment of the same message.
pub(crate) fn check_blocks(c: &mut Check, blocks: &[Block], attachments: &[Attachment]) {
    if blocks.len() > MAX_BLOCKS {
        c.fail("blocks", format!("at most {MAX_BLOCKS} blocks"));
    }
    for (i, block) in blocks.iter().enumerate() {
        let at = |key: &str| format!("blocks[{i}].{key}");
        match block {
            Block::Code(b) | Block::Diff(b) | Block::Json(b) => {
                c.text(&at("text"), &b.text, 0, MAX_BLOCK_TEXT_CHARS);
                if let Block::Json(_) = block {
                    if serde_json::from_str::<serde_json::Value>(&b.text).is_err() {
                        c.fail(at("text"), "must be valid JSON");
                    }
                }
                if let Some(lang) = &b.language {
                    if !BLOCK_LANGUAGES.contains(&lang.as_str()) {
                        c.fail(
                            at("language"),
                            format!("must be one of {}", BLOCK_LANGUAGES.join(", ")),
                        );
                    }
                }
                c.opt_label(&at("title"), b.title.as_deref(), MAX_BLOCK_TITLE_CHARS);
            }
            Block::Table(t) => {
                if t.columns.is_empty() || t.columns.len() > MAX_TABLE_COLUMNS {
                    c.fail(
                        at("columns"),
                        format!("must have 1–{MAX_TABLE_COLUMNS} columns"),
                    );
                }
                for (j, col) in t.columns.iter().enumerate() {
                    c.label(&at(&format!("columns[{j}]")), col, MAX_LABEL_CHARS);
                }
                if t.rows.len() > MAX_TABLE_ROWS {
                    c.fail(at("rows"), format!("at most {MAX_TABLE_ROWS} rows"));
                }
                for (r, row) in t.rows.iter().enumerate() {
                    if row.len() != t.columns.len() {
                        c.fail(
                            at(&format!("rows[{r}]")),
                            format!("must have {} cells, one per column", t.columns.len()),
                        );
                    }
                    for (k, cell) in row.iter().enumerate() {
                        c.text(
                            &at(&format!("rows[{r}][{k}]")),
                            cell,
                            0,
                            MAX_TABLE_CELL_CHARS,
                        );
                    }
                }
            }
            Block::Image(img) => {
                if !is_attachment_id(&img.attachment_id) {
                    c.fail(
                        at("attachmentId"),
                        format!("must be 1–{MAX_ATTACHMENT_ID_CHARS} visible characters"),
                    );
                } else {
                    match find(attachments, &img.attachment_id) {
                        None => c.fail(
                            at("attachmentId"),
                            "must name an attachment of this message",
                        ),
                        Some(a) if !a.is_image() => c.fail(
                            at("attachmentId"),
                            "must name a PNG, JPEG, GIF or WebP attachment",
                        ),
                        Some(_) => {}
                    }
                }
                c.text(&at("alt"), &img.alt, 1, MAX_ALT_CHARS);
            }
        }
    }
}
