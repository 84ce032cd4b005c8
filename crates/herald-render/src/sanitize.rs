//! The allow-list every fragment passes through before it leaves this crate.
//!
//! The Markdown layer already escapes raw HTML, drops links with unsafe schemes and replaces
//! images with placeholders, so in the normal case this pass removes nothing. It runs anyway:
//! a bug in our event rewriting, a new pulldown-cmark feature that emits a tag we did not
//! expect, or a syntect change must not be enough to put a script, an event handler or a
//! remote fetch into the desktop's web view. The policy is an explicit allow-list (not
//! ammonia's defaults, which are written for a different threat model), and the same policy
//! is applied to code and diff output so the UI has exactly one contract for what it may
//! receive.
//!
//! The policy also adds `rel="noopener noreferrer nofollow"` and `class="external"` to every
//! link, and forces task-list checkboxes to be disabled.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use ammonia::{Builder, UrlRelative};

/// URL schemes a link may use. Everything else (javascript:, data:, file:, vbscript:, the
/// app's own tauri:/ipc: origins, relative URLs) loses its `href`.
pub(crate) const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// The `rel` added to every link: no opener, no referrer, no endorsement.
const LINK_REL: &str = "noopener noreferrer nofollow";

/// Elements that may appear in output. Anything else is removed (its text is kept unless
/// the element is listed in [`REMOVED_WITH_CONTENT`]).
const ALLOWED_TAGS: &[&str] = &[
    "a",
    "blockquote",
    "br",
    "code",
    "del",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "input",
    "li",
    "ol",
    "p",
    "pre",
    "span",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
];

/// Elements removed together with everything inside them: their content is code, styling
/// or a foreign document, never text the reader should see.
const REMOVED_WITH_CONTENT: &[&str] = &[
    "embed",
    "frame",
    "frameset",
    "iframe",
    "math",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "plaintext",
    "script",
    "select",
    "style",
    "svg",
    "template",
    "textarea",
    "title",
    "xmp",
];

/// Fixed class names this crate emits; see the crate docs for what each one marks.
const FIXED_CLASSES: &[&str] = &[
    "external",
    "image-blocked",
    "code-block",
    "highlight-skipped",
    "align-left",
    "align-center",
    "align-right",
    "diff",
    "diff-file",
    "diff-hunk",
    "diff-added",
    "diff-removed",
    "diff-context",
    "diff-meta",
    "diff-ln",
    "diff-text",
    "data-table",
];

/// Prefix of syntect's scope classes (`hl-source`, `hl-python`, `hl-comment`, ...).
pub(crate) const HIGHLIGHT_CLASS_PREFIX: &str = "hl-";

/// Runs `html` through the allow-list and returns the serialized result.
pub(crate) fn clean(html: &str) -> String {
    policy().clean(html).to_string()
}

/// Escapes text for use in HTML element content or a double-quoted attribute value.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The normalized form of `dest` if it is an absolute URL with an allowed scheme.
///
/// Parsing follows the WHATWG URL rules browsers use (leading control characters and spaces
/// are stripped, the scheme is lower-cased), so `" JaVaScRiPt:x"` is recognised for what it
/// is. Returning the serialization means the href we emit is exactly the URL we checked.
pub(crate) fn allowed_link(dest: &str) -> Option<String> {
    let url = url::Url::parse(dest).ok()?;
    LINK_SCHEMES
        .contains(&url.scheme())
        .then(|| String::from(url))
}

fn is_allowed_class(class: &str) -> bool {
    FIXED_CLASSES.contains(&class)
        || (class.len() > HIGHLIGHT_CLASS_PREFIX.len() && class.starts_with(HIGHLIGHT_CLASS_PREFIX))
}

/// Keeps only known class names, so nothing can borrow the UI's own classes.
fn filter_attribute<'u>(_element: &str, attribute: &str, value: &'u str) -> Option<Cow<'u, str>> {
    if attribute != "class" {
        return Some(Cow::Borrowed(value));
    }
    let kept: Vec<&str> = value
        .split_ascii_whitespace()
        .filter(|class| is_allowed_class(class))
        .collect();
    match kept.len() {
        0 => None,
        _ => {
            let joined = kept.join(" ");
            if joined == value {
                Some(Cow::Borrowed(value))
            } else {
                Some(Cow::Owned(joined))
            }
        }
    }
}

fn policy() -> &'static Builder<'static> {
    static POLICY: OnceLock<Builder<'static>> = OnceLock::new();
    POLICY.get_or_init(build_policy)
}

fn build_policy() -> Builder<'static> {
    let tag_attributes: HashMap<&str, HashSet<&str>> = [
        ("a", &["href", "title"][..]),
        // `type` and `disabled` are also forced below; listing them keeps them in place
        // (rather than re-appended in hash order), so output is deterministic.
        ("input", &["checked", "disabled", "type"][..]),
        ("ol", &["start"][..]),
        ("pre", &["class"][..]),
        ("span", &["class", "title"][..]),
        ("table", &["class"][..]),
        ("td", &["class"][..]),
        ("th", &["class"][..]),
        ("tr", &["class"][..]),
    ]
    .into_iter()
    .map(|(tag, attrs)| (tag, attrs.iter().copied().collect()))
    .collect();

    let mut builder = Builder::empty();
    builder
        .tags(ALLOWED_TAGS.iter().copied().collect())
        .clean_content_tags(REMOVED_WITH_CONTENT.iter().copied().collect())
        .tag_attributes(tag_attributes)
        .tag_attribute_values(HashMap::new())
        .generic_attributes(HashSet::new())
        .generic_attribute_prefixes(HashSet::new())
        .allowed_classes(HashMap::new())
        .url_schemes(LINK_SCHEMES.iter().copied().collect())
        .url_relative(UrlRelative::Deny)
        .link_rel(Some(LINK_REL))
        .id_prefix(None)
        .strip_comments(true)
        .set_tag_attribute_value("a", "class", "external")
        .set_tag_attribute_value("input", "type", "checkbox")
        .set_tag_attribute_value("input", "disabled", "")
        .attribute_filter(filter_attribute);
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_classes_are_dropped_and_known_ones_kept() {
        let out = clean(r#"<span class="hl-comment evil image-blocked">x</span>"#);
        assert_eq!(
            out, r#"<span class="hl-comment image-blocked">x</span>"#,
            "only hl-* and the fixed class names may survive"
        );
        let out = clean(r#"<span class="ui-modal hl-">x</span>"#);
        assert_eq!(
            out, "<span>x</span>",
            "a class attribute with no allowed name is removed"
        );
    }

    /// The second defence on its own: hostile HTML that never went through the Markdown layer.
    #[test]
    fn the_allow_list_alone_strips_active_content() {
        let hostile = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "<iframe src=https://evil.example></iframe>",
            "<svg onload=alert(1)><script>alert(1)</script></svg>",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<a href=\" &#x6A;avascript:alert(1)\">x</a>",
            "<a href=\"data:text/html,x\">x</a>",
            "<a href=\"/settings\">x</a>",
            "<p style=\"background:url(https://evil.example)\" onclick=\"alert(1)\">x</p>",
            "<form action=https://evil.example><input type=text onfocus=alert(1)></form>",
            "<meta http-equiv=refresh content=\"0;url=https://evil.example\">",
            "<style>@import 'https://evil.example/x.css';</style>",
            "<!-- comment -->",
            "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
        ];
        for input in hostile {
            let out = clean(input).to_ascii_lowercase();
            for banned in [
                "<script",
                "<img",
                "<iframe",
                "<svg",
                "<form",
                "<meta",
                "<style",
                "<!--",
                "onerror",
                "onload",
                "onclick",
                "onfocus",
                "javascript",
                "data:",
                "style=",
                "src=",
                "href=\"/",
                "@import",
            ] {
                assert!(
                    !out.contains(banned),
                    "{banned} survived the sanitizer\ninput: {input}\noutput: {out}"
                );
            }
        }
        let out = clean("<input type=text>");
        assert_eq!(
            out, "<input type=\"checkbox\" disabled=\"\">",
            "an input is forced to a disabled checkbox"
        );
    }

    #[test]
    fn links_get_rel_and_external_class() {
        let out = clean(r#"<a href="https://example.com/">x</a>"#);
        assert!(
            out.contains(r#"rel="noopener noreferrer nofollow""#),
            "rel is added: {out}"
        );
        assert!(
            out.contains(r#"class="external""#),
            "links are marked external: {out}"
        );
    }

    #[test]
    fn allowed_link_checks_the_parsed_scheme() {
        assert_eq!(
            allowed_link("https://example.com").as_deref(),
            Some("https://example.com/"),
            "https is kept and normalized"
        );
        assert!(
            allowed_link("mailto:a@example.com").is_some(),
            "mailto is allowed"
        );
        for bad in [
            "javascript:alert(1)",
            " JaVaScRiPt:alert(1)",
            "\u{1}javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "file:///etc/passwd",
            "tauri://localhost/",
            "/relative",
            "java script:alert(1)",
        ] {
            assert_eq!(
                allowed_link(bad),
                None,
                "{bad:?} must not be accepted as a link"
            );
        }
    }

    #[test]
    fn escape_html_escapes_markup_and_quotes() {
        assert_eq!(
            escape_html(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;",
            "all five HTML-significant characters are escaped"
        );
    }
}
