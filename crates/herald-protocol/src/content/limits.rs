//! Every published content limit in one place, so docs, SDKs and tests quote the same numbers.
//!
//! Lengths count characters (Unicode scalar values), never bytes.

/// Longest title, in characters (Unicode scalar values).
pub const MAX_TITLE_CHARS: usize = 180;
/// Longest Markdown body, in characters.
pub const MAX_BODY_CHARS: usize = 50_000;
/// Most fields in a form (and most questions, and most schema properties: each becomes a field).
pub const MAX_FIELDS: usize = 30;
/// Most questions in `questions`.
pub const MAX_QUESTIONS: usize = MAX_FIELDS;
/// Most action buttons.
pub const MAX_ACTIONS: usize = 8;
/// Longest id of a field, option value or action.
pub const MAX_ID_CHARS: usize = 64;
/// Longest label of a field, option or action (also a question's text and a table column).
pub const MAX_LABEL_CHARS: usize = 200;
/// Longest `header`, the short name of a field in the card's pager (as Claude Code's
/// AskUserQuestion chip).
pub const MAX_HEADER_CHARS: usize = 12;
/// Longest `help` of a field.
pub const MAX_HELP_CHARS: usize = 2_000;
/// Longest `description` of an option.
pub const MAX_DESCRIPTION_CHARS: usize = 1_000;
/// Longest Markdown `preview` of an option.
pub const MAX_PREVIEW_CHARS: usize = 10_000;
/// Most options of a choice field (or of a question, or of a schema `enum`).
pub const MAX_OPTIONS: usize = 50;
/// Longest free-text "Other" answer.
pub const MAX_OTHER_CHARS: usize = 100;
/// Longest answer of a text, textarea or secret field (and the largest `maxLength`).
pub const MAX_TEXT_ANSWER_CHARS: usize = 10_000;
/// Longest attachment id in a file answer or an image block.
pub const MAX_ATTACHMENT_ID_CHARS: usize = 128;
/// Most blocks.
pub const MAX_BLOCKS: usize = 10;
/// Longest text of a code, diff or json block.
pub const MAX_BLOCK_TEXT_CHARS: usize = 50_000;
/// Longest `title` of a code, diff or json block.
pub const MAX_BLOCK_TITLE_CHARS: usize = 200;
/// Most columns of a table block.
pub const MAX_TABLE_COLUMNS: usize = 12;
/// Most rows of a table block.
pub const MAX_TABLE_ROWS: usize = 100;
/// Longest table cell.
pub const MAX_TABLE_CELL_CHARS: usize = 1_000;
/// Longest `alt` text of an image block.
pub const MAX_ALT_CHARS: usize = 1_000;
/// Languages a code, diff or json block may name; `text` when left out.
pub const BLOCK_LANGUAGES: &[&str] = &["text", "sql", "javascript", "typescript", "python", "json"];
/// Most attachments of a message (or of an answer).
pub const MAX_ATTACHMENTS: usize = 10;
/// Largest attachment, in plaintext bytes: 100 MB (10^8). Encrypted, it stays under the relay's
/// 100 MiB file limit (`herald_protocol::files::MAX_FILE_BYTES`).
pub const MAX_ATTACHMENT_BYTES: u64 = 100_000_000;
/// Longest attachment name, in characters.
pub const MAX_ATTACHMENT_NAME_CHARS: usize = 255;
/// Longest attachment MIME type (`type/subtype`), in characters.
pub const MAX_ATTACHMENT_TYPE_CHARS: usize = 127;
/// Types an image block may show.
pub const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];
/// Largest image an image block is rendered from inline (devices): 10 MB (10^7 bytes). A larger
/// image attachment is still downloadable.
pub const MAX_INLINE_IMAGE_BYTES: u64 = 10_000_000;
