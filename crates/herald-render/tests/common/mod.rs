//! Checks shared by the integration tests: a small reader for the HTML this crate emits and
//! the one assertion every hostile or random input must pass.
//!
//! Raw HTML in Markdown is shown as escaped text by design, so a blunt "output contains no
//! `onerror`" would fail on harmless text like `&lt;img onerror=…&gt;`. The checks therefore
//! look at the real tags of the output: text cannot contain `<` (the serializer escapes it),
//! so every `<` starts a tag.

#![allow(dead_code)] // each test binary uses a different part

/// Elements the sanitizer may let through; mirrors the crate's allow-list on purpose, so a
/// widened allow-list has to be noticed here too.
pub const ALLOWED_ELEMENTS: &[&str] = &[
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

/// Attributes that may appear on any allowed element.
pub const ALLOWED_ATTRIBUTES: &[&str] = &[
    "href", "title", "class", "rel", "start", "checked", "disabled", "type",
];

/// Substrings that must never appear in output at all: with text escaped, each one could only
/// be the start of a real element or comment.
pub const FORBIDDEN_MARKUP: &[&str] = &[
    "<script",
    "<img",
    "<iframe",
    "<svg",
    "<math",
    "<form",
    "<meta",
    "<style",
    "<link",
    "<base",
    "<object",
    "<embed",
    "<video",
    "<audio",
    "<source",
    "<button",
    "<textarea",
    "<select",
    "<details",
    "<template",
    "<noscript",
    "<!--",
    "<!doctype",
    "<?",
];

/// One start or end tag of the output.
#[derive(Debug)]
pub struct Element {
    pub name: String,
    pub attributes: Vec<(String, String)>,
}

/// Reads every tag of `html`, in order.
pub fn elements(html: &str) -> Vec<Element> {
    let bytes = html.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        i += 1;
        if bytes.get(i) == Some(&b'/') {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !b">/".contains(&bytes[i]) {
            i += 1;
        }
        let name = html[start..i].to_ascii_lowercase();
        let mut attributes = Vec::new();
        loop {
            while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] == b'>' {
                i += 1;
                break;
            }
            let name_start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !b"=>/".contains(&bytes[i])
            {
                i += 1;
            }
            let attribute = html[name_start..i].to_ascii_lowercase();
            let mut value = String::new();
            if bytes.get(i) == Some(&b'=') {
                i += 1;
                if bytes.get(i) == Some(&b'"') {
                    i += 1;
                    let value_start = i;
                    while i < bytes.len() && bytes[i] != b'"' {
                        i += 1;
                    }
                    value = decode(&html[value_start..i.min(bytes.len())]);
                    i += 1;
                } else {
                    let value_start = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                        i += 1;
                    }
                    value = decode(&html[value_start..i]);
                }
            }
            attributes.push((attribute, value));
        }
        found.push(Element { name, attributes });
    }
    found
}

/// Decodes the entities the serializer uses in attribute values.
fn decode(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// Asserts that `html` (rendered from `input`) can neither run code nor load anything.
pub fn assert_inert(input: &str, html: &str) {
    let lower = html.to_ascii_lowercase();
    for markup in FORBIDDEN_MARKUP {
        assert!(
            !lower.contains(markup),
            "{markup} must not appear in output\ninput: {input:?}\noutput: {html}"
        );
    }
    for element in elements(html) {
        assert!(
            ALLOWED_ELEMENTS.contains(&element.name.as_str()),
            "element <{}> is not allowed\ninput: {input:?}\noutput: {html}",
            element.name
        );
        if element.name == "input" {
            let has = |name: &str, value: &str| {
                element
                    .attributes
                    .iter()
                    .any(|(n, v)| n == name && v == value)
            };
            assert!(
                has("type", "checkbox") && has("disabled", ""),
                "an input may only be a disabled checkbox\ninput: {input:?}\noutput: {html}"
            );
        }
        for (name, value) in &element.attributes {
            assert!(
                ALLOWED_ATTRIBUTES.contains(&name.as_str()) && !name.starts_with("on"),
                "attribute {name} is not allowed on <{}>\ninput: {input:?}\noutput: {html}",
                element.name
            );
            let squashed: String = value
                .chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .collect::<String>()
                .to_ascii_lowercase();
            if name == "href" {
                assert!(
                    ["http://", "https://", "mailto:"]
                        .iter()
                        .any(|scheme| squashed.starts_with(scheme)),
                    "href {value:?} has a scheme that is not allowed\ninput: {input:?}\noutput: {html}"
                );
            }
            // A title is shown as a tooltip, never interpreted, so it may quote anything.
            if name != "title" {
                for scheme in ["javascript:", "vbscript:", "data:"] {
                    assert!(
                        !squashed.contains(scheme),
                        "attribute {name}={value:?} carries {scheme}\ninput: {input:?}\noutput: {html}"
                    );
                }
            }
        }
    }
}
