//! Markdown to HTML: pulldown-cmark's events, rewritten before they are rendered.
//!
//! The rewriting is the first of two defences (the sanitizer is the second, see
//! [`crate::sanitize`]). It is done on events rather than on the HTML string because there the
//! meaning of each piece is still known:
//!
//! - raw HTML (blocks and inline) becomes text, so `<script>` is shown, not run;
//! - links keep their target only for http, https and mailto; otherwise just the link text
//!   remains;
//! - images become a `<span class="image-blocked">` placeholder: a message never makes the
//!   app fetch anything;
//! - fenced code goes through [`crate::code`] for class-based highlighting;
//! - table alignment becomes an `align-*` class instead of pulldown-cmark's `style` attribute;
//! - nesting deeper than [`MAX_NESTING`] is flattened, so hostile input cannot make the HTML
//!   parser or the web view's layout do quadratic work.

use pulldown_cmark::{
    html, Alignment, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd,
};

use crate::code;
use crate::sanitize::{self, allowed_link, escape_html};

/// Deepest nesting of block quotes and lists, and separately of emphasis, strong and
/// strikethrough, that is kept. Deeper levels are flattened into their parent; their text is
/// kept.
pub const MAX_NESTING: usize = 32;

/// Renders Markdown (CommonMark plus GFM tables, strikethrough and task lists) to sanitized
/// HTML for the desktop's web view.
///
/// - Raw HTML in the Markdown is escaped and shown as text; it never becomes markup.
/// - Links keep their `href` only for `http:`, `https:` and `mailto:` URLs, and every kept link
///   gets `class="external"` and `rel="noopener noreferrer nofollow"` (the app opens them in
///   the system browser). Other links render as their text alone.
/// - Images are never loaded: each renders as
///   `<span class="image-blocked" title="…">[image: alt]</span>`.
/// - Fenced code with a known language is highlighted with `hl-*` classes (see
///   [`crate::code_to_html`] for the block shape and limits), up to
///   [`crate::MAX_HIGHLIGHT_BYTES_PER_MESSAGE`] bytes of code per message; later blocks are
///   plain code with the extra class `highlight-skipped`. Blocks are highlighted in parallel;
///   the output does not depend on thread timing.
/// - Aligned table cells get `class="align-left"`, `"align-center"` or `"align-right"`.
/// - Task list items contain `<input type="checkbox" disabled>` (with `checked` when done).
/// - Nesting deeper than [`MAX_NESTING`] is flattened.
///
/// The output contains only the elements `a blockquote br code del em h1–h6 hr input li ol p
/// pre span strong table tbody td th thead tr ul`, no `style`, no event handlers, no `src`.
/// Never panics; the work is roughly linear in the input, but callers should still bound the
/// input size (messages are limited upstream).
pub fn markdown_to_html(markdown: &str) -> String {
    markdown_to_html_with_budget(markdown, code::MAX_HIGHLIGHT_BYTES_PER_MESSAGE)
}

/// [`markdown_to_html`] with every code block highlighted: no per-message budget (the
/// per-block limits [`crate::MAX_HIGHLIGHT_BYTES`] and [`crate::MAX_HIGHLIGHT_LINE_BYTES`]
/// still apply, so a block over them keeps `highlight-skipped`).
///
/// Costs about 4 ms per KiB of highlighted code (see [`crate::MAX_HIGHLIGHT_BYTES_PER_MESSAGE`]),
/// so it is meant for a background thread after the budgeted render was shown: the desktop
/// core renders this way once per message and swaps the result in. Same output guarantees as
/// [`markdown_to_html`]; never panics.
pub fn markdown_to_html_full(markdown: &str) -> String {
    markdown_to_html_with_budget(markdown, usize::MAX)
}

/// [`markdown_to_html`] with an explicit highlighting budget: `budget` bytes of code (counted
/// in document order over blocks with a known language) are coloured, later blocks are plain
/// with `highlight-skipped`. `budget = 0` colours nothing; `usize::MAX` is
/// [`markdown_to_html_full`]. Same output guarantees as [`markdown_to_html`]; never panics.
pub fn markdown_to_html_with_budget(markdown: &str, budget: usize) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut rewriter = Rewriter::default();
    rewriter.rewrite(Parser::new_ext(markdown, options));
    let Rewriter {
        out: mut events,
        code_blocks,
        code_positions,
        ..
    } = rewriter;
    // Code blocks are rendered together, after parsing, so they can be highlighted in
    // parallel and within the message's highlighting budget.
    for (position, block) in code_positions
        .into_iter()
        .zip(code::blocks_html(&code_blocks, budget))
    {
        events[position] = Event::Html(block.into());
    }
    let mut html = String::with_capacity(markdown.len() + markdown.len() / 2);
    html::push_html(&mut html, events.into_iter());
    sanitize::clean(&html)
}

/// What to do when the `End` matching a `Start` arrives.
enum Close {
    /// The start tag was passed on; pass the end tag on too.
    Forward(ContainerKind),
    /// The start tag was dropped; drop the end tag.
    Drop,
    /// A flattened list item: separate it from the next with a line break.
    DropItem,
    /// The start tag was replaced by raw markup; close it with this.
    Markup(&'static str),
    /// The start tag was replaced by a paragraph (raw HTML blocks).
    Paragraph,
}

/// Which nesting budget a forwarded tag counts against.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ContainerKind {
    Block,
    Inline,
    /// A list that was dropped for depth; its items are dropped too.
    DroppedList,
    Other,
}

#[derive(Default)]
struct Rewriter<'a> {
    out: Vec<Event<'a>>,
    closes: Vec<Close>,
    block_depth: usize,
    inline_depth: usize,
    alignments: Vec<Alignment>,
    in_table_head: bool,
    cell_index: usize,
    /// Fenced and indented code blocks, in document order, rendered after parsing.
    code_blocks: Vec<code::CodeBlock>,
    /// For each of `code_blocks`, the index in `out` of its placeholder event.
    code_positions: Vec<usize>,
}

impl<'a> Rewriter<'a> {
    fn rewrite(&mut self, parser: Parser<'a>) {
        let mut events = parser;
        while let Some(event) = events.next() {
            match event {
                Event::Start(tag) => self.start(tag, &mut events),
                Event::End(end) => self.end(end),
                Event::Html(raw) | Event::InlineHtml(raw) => self.out.push(Event::Text(raw)),
                other => self.out.push(other),
            }
        }
    }

    fn start(&mut self, tag: Tag<'a>, events: &mut Parser<'a>) {
        match tag {
            Tag::Image { dest_url, .. } => self.image(&dest_url, events),
            Tag::CodeBlock(kind) => self.code_block(kind, events),
            Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            } => self.link(link_type, dest_url, title, id),
            Tag::HtmlBlock => {
                self.out.push(Event::Start(Tag::Paragraph));
                self.closes.push(Close::Paragraph);
            }
            Tag::BlockQuote(_) | Tag::List(_) => self.block_container(tag),
            Tag::Item => {
                if let Some(Close::Forward(ContainerKind::DroppedList)) = self.closes.last() {
                    self.closes.push(Close::DropItem);
                } else {
                    self.forward(Tag::Item, ContainerKind::Other);
                }
            }
            Tag::Emphasis | Tag::Strong | Tag::Strikethrough => {
                if self.inline_depth >= MAX_NESTING {
                    self.closes.push(Close::Drop);
                } else {
                    self.inline_depth += 1;
                    self.forward(tag, ContainerKind::Inline);
                }
            }
            Tag::Heading { level, .. } => self.forward(
                Tag::Heading {
                    level,
                    id: None,
                    classes: Vec::new(),
                    attrs: Vec::new(),
                },
                ContainerKind::Other,
            ),
            Tag::Table(alignments) => {
                self.alignments = alignments;
                self.forward(Tag::Table(Vec::new()), ContainerKind::Other);
            }
            Tag::TableHead => {
                self.in_table_head = true;
                self.cell_index = 0;
                self.forward(Tag::TableHead, ContainerKind::Other);
            }
            Tag::TableRow => {
                self.cell_index = 0;
                self.forward(Tag::TableRow, ContainerKind::Other);
            }
            Tag::TableCell => self.table_cell(),
            other => self.forward(other, ContainerKind::Other),
        }
    }

    fn end(&mut self, end: TagEnd) {
        if end == TagEnd::TableHead {
            self.in_table_head = false;
        }
        match self.closes.pop() {
            Some(Close::Forward(kind)) => {
                match kind {
                    ContainerKind::Block => self.block_depth = self.block_depth.saturating_sub(1),
                    ContainerKind::Inline => {
                        self.inline_depth = self.inline_depth.saturating_sub(1)
                    }
                    ContainerKind::DroppedList => return,
                    ContainerKind::Other => {}
                }
                self.out.push(Event::End(end));
            }
            Some(Close::Markup(markup)) => self.out.push(Event::Html(CowStr::Borrowed(markup))),
            Some(Close::Paragraph) => self.out.push(Event::End(TagEnd::Paragraph)),
            Some(Close::DropItem) => self.out.push(Event::SoftBreak),
            Some(Close::Drop) | None => {}
        }
    }

    fn forward(&mut self, tag: Tag<'a>, kind: ContainerKind) {
        self.out.push(Event::Start(tag));
        self.closes.push(Close::Forward(kind));
    }

    fn block_container(&mut self, tag: Tag<'a>) {
        if self.block_depth < MAX_NESTING {
            self.block_depth += 1;
            self.forward(tag, ContainerKind::Block);
        } else if matches!(tag, Tag::List(_)) {
            // Not forwarded; remembered so its items are flattened as well.
            self.closes.push(Close::Forward(ContainerKind::DroppedList));
        } else {
            self.closes.push(Close::Drop);
        }
    }

    fn link(&mut self, link_type: LinkType, dest: CowStr<'a>, title: CowStr<'a>, id: CowStr<'a>) {
        let href = match link_type {
            LinkType::Email => allowed_link(&format!("mailto:{dest}")),
            _ => allowed_link(&dest),
        };
        match href {
            Some(href) => self.forward(
                Tag::Link {
                    // Email links already carry their mailto: now.
                    link_type: LinkType::Inline,
                    dest_url: href.into(),
                    title,
                    id,
                },
                ContainerKind::Other,
            ),
            None => self.closes.push(Close::Drop),
        }
    }

    fn table_cell(&mut self) {
        let element = if self.in_table_head { "th" } else { "td" };
        let class = match self.alignments.get(self.cell_index) {
            Some(Alignment::Left) => " class=\"align-left\"",
            Some(Alignment::Center) => " class=\"align-center\"",
            Some(Alignment::Right) => " class=\"align-right\"",
            Some(Alignment::None) | None => "",
        };
        self.cell_index += 1;
        self.out
            .push(Event::Html(format!("<{element}{class}>").into()));
        self.closes.push(Close::Markup(if self.in_table_head {
            "</th>"
        } else {
            "</td>"
        }));
    }

    /// Consumes the image's alt-text events and emits the placeholder in their place.
    fn image(&mut self, dest: &str, events: &mut Parser<'a>) {
        let alt = collect_text_until_end(events);
        let title = match allowed_link(dest) {
            Some(url) if url.starts_with("http") => format!("Remote image not loaded: {url}"),
            _ => "Image not loaded".to_owned(),
        };
        let label = match alt.trim() {
            "" => "[image]".to_owned(),
            alt => format!("[image: {alt}]"),
        };
        self.out.push(Event::Html(
            format!(
                "<span class=\"image-blocked\" title=\"{}\">{}</span>",
                escape_html(&title),
                escape_html(&label)
            )
            .into(),
        ));
    }

    /// Consumes the code block's text and emits the rendered block in its place.
    fn code_block(&mut self, kind: CodeBlockKind<'a>, events: &mut Parser<'a>) {
        let language = match &kind {
            CodeBlockKind::Fenced(info) => info
                .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                .next()
                .filter(|language| !language.is_empty()),
            CodeBlockKind::Indented => None,
        };
        let code = collect_text_until_end(events);
        self.code_positions.push(self.out.len());
        self.code_blocks.push(code::CodeBlock {
            code,
            language: language.map(str::to_owned),
        });
        // Replaced by the rendered block in `markdown_to_html`.
        self.out.push(Event::Html(CowStr::Borrowed("")));
    }
}

/// Collects the text inside the current element up to its matching end, consuming it.
fn collect_text_until_end(events: &mut Parser<'_>) -> String {
    let mut text = String::new();
    let mut depth = 1usize;
    for event in events.by_ref() {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Event::Text(t)
            | Event::Code(t)
            | Event::Html(t)
            | Event::InlineHtml(t)
            | Event::InlineMath(t)
            | Event::DisplayMath(t) => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            _ => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_block_nesting_is_flattened_but_text_kept() {
        let input = format!("{}deep", "> ".repeat(MAX_NESTING * 3));
        let out = markdown_to_html(&input);
        assert_eq!(
            out.matches("<blockquote>").count(),
            MAX_NESTING,
            "block quotes past the limit are flattened"
        );
        assert!(
            out.contains("deep"),
            "the text of flattened levels is kept: {out}"
        );
    }

    #[test]
    fn deep_lists_flatten_their_items_too() {
        let input: String = (0..MAX_NESTING + 5)
            .map(|level| format!("{}- item{level}\n", "  ".repeat(level)))
            .collect();
        let out = markdown_to_html(&input);
        assert_eq!(
            out.matches("<ul>").count(),
            MAX_NESTING,
            "lists past the limit are flattened"
        );
        assert_eq!(
            out.matches("<li>").count(),
            MAX_NESTING,
            "items of flattened lists are not list items"
        );
        let last = format!("item{}", MAX_NESTING + 4);
        assert!(
            out.contains(&last),
            "flattened items keep their text: {out}"
        );
    }

    #[test]
    fn email_autolinks_become_mailto_once() {
        let out = markdown_to_html("<someone@example.com>");
        assert!(
            out.contains("href=\"mailto:someone@example.com\""),
            "the email autolink keeps a single mailto: {out}"
        );
    }
}
