//! docs/authorization.md holds the matrix as a table, generated from the rows: the test
//! fails when they differ, and `HERALD_BLESS=1` rewrites the table.

use std::path::PathBuf;

use super::cells::Cred;
use super::rows::Row;

pub const BEGIN: &str =
    "<!-- BEGIN auth-matrix: generated from crates/herald-relay/tests/integration/auth_matrix; \
HERALD_BLESS=1 cargo test -p herald-relay --test integration auth_matrix rewrites it -->";
pub const END: &str = "<!-- END auth-matrix -->";

pub fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/authorization.md")
}

/// The table: one line per row, one column per credential.
pub fn render(rows: &[Row]) -> String {
    let mut out = String::from("| route | case |");
    for c in Cred::ALL {
        out.push_str(&format!(" {} |", c.heading()));
    }
    out.push_str("\n|---|---|");
    for _ in Cred::ALL {
        out.push_str("---|");
    }
    out.push('\n');
    for row in rows {
        let method = if row.method == "*" {
            "other methods"
        } else {
            row.method
        };
        out.push_str(&format!("| `{method} {}` | {} |", row.path, row.case));
        for c in Cred::ALL {
            out.push_str(&format!(" {} |", row.expect.of(c)));
        }
        out.push('\n');
    }
    out
}

/// The generated part of `doc` (between the markers), if the markers are there.
pub fn generated(doc: &str) -> Option<&str> {
    let start = doc.find(BEGIN)? + BEGIN.len();
    let end = doc[start..].find(END)? + start;
    Some(doc[start..end].trim_matches('\n'))
}

/// `doc` with the generated part replaced by `table`.
pub fn replace(doc: &str, table: &str) -> Option<String> {
    let start = doc.find(BEGIN)? + BEGIN.len();
    let end = doc[start..].find(END)? + start;
    Some(format!(
        "{}\n{}\n{}",
        &doc[..start],
        table.trim_end(),
        &doc[end..]
    ))
}
