//! Table and JSON blocks. A table block is data, not Markdown: every cell is escaped text in a
//! `<table class="data-table">`, with a header row from the columns. A JSON block is
//! pretty-printed (two-space indent, keys in the sender's order) and highlighted as JSON, so
//! nested data reads at a glance; text that is not JSON is shown as it is.

use crate::sanitize::{self, escape_html};

/// Renders columns and rows as `<table class="data-table"><thead>…</thead><tbody>…</tbody>
/// </table>`, every cell escaped. Rows shorter than the header get empty cells, longer rows
/// are cut to the header's width (content validation refuses both; rendering never fails).
pub fn table_to_html(columns: &[String], rows: &[Vec<String>]) -> String {
    let mut html = String::from("<table class=\"data-table\"><thead><tr>");
    for c in columns {
        html.push_str("<th>");
        html.push_str(&escape_html(c));
        html.push_str("</th>");
    }
    html.push_str("</tr></thead><tbody>");
    for row in rows {
        html.push_str("<tr>");
        for i in 0..columns.len() {
            html.push_str("<td>");
            html.push_str(&escape_html(row.get(i).map(String::as_str).unwrap_or("")));
            html.push_str("</td>");
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table>");
    sanitize::clean(&html)
}

/// Pretty-prints JSON text and highlights it (see [`crate::code_to_html`]); text that does not
/// parse is shown unchanged, as plain code.
pub fn json_to_html(text: &str) -> String {
    // serde_json checks it is JSON; jsonxf re-indents it without reordering keys.
    if serde_json::from_str::<serde_json::Value>(text).is_err() {
        return crate::code_to_html(text, None);
    }
    let pretty = jsonxf::pretty_print(text).unwrap_or_else(|_| text.to_owned());
    crate::code_to_html(pretty.trim_end(), Some("json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_escaped_and_padded() {
        let html = table_to_html(
            &["Name".into(), "<b>Note</b>".into()],
            &[
                vec!["a".into()],
                vec!["<script>x</script>".into(), "ok".into(), "extra".into()],
            ],
        );
        assert!(
            html.starts_with("<table class=\"data-table\">"),
            "table class kept: {html}"
        );
        assert!(!html.contains("<script"), "cells are text: {html}");
        assert!(
            html.contains("&lt;b&gt;Note&lt;/b&gt;"),
            "headers are text: {html}"
        );
        assert_eq!(
            html.matches("<td>").count(),
            4,
            "two cells per row, padded and cut: {html}"
        );
    }

    #[test]
    fn json_is_pretty_printed() {
        let html = json_to_html(r#"{"a":[1,2]}"#);
        assert!(html.contains('\n'), "indented over several lines: {html}");
        let html = json_to_html(r#"{"zeta":1,"alpha":2}"#);
        assert!(
            html.find("zeta") < html.find("alpha"),
            "keys keep the sender's order: {html}"
        );
        assert!(
            json_to_html("not json {").contains("not json {"),
            "non-JSON shown as is"
        );
    }
}
