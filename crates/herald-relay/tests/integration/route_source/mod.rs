//! The routes the relay serves, read from its source: every `.route("<path>", <method
//! router>)` call under `crates/herald-relay/src`. The matrix must have a row for each, so a
//! route added to the router without one fails the test.
//!
//! The method router is read at its top level: `get(…)`, `post(…)`, `put(…)`, `delete(…)`,
//! `patch(…)` name a method; `.fallback(…)` on a route (every other method) is `*`. Anything
//! else — an unknown method router, `.nest`, `.route_service`, or utoipa-axum's `.routes` —
//! stops the test with a message: teach this reader the new form, and add rows.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `(method, path)` of every route, e.g. `("GET", "/messages/{id}")`.
pub fn served() -> BTreeSet<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut out = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("reading the relay's source");
        let code = without_comment_lines(&text);
        for route in routes_in(&code).unwrap_or_else(|e| panic!("{}: {e}", file.display())) {
            out.insert(route);
        }
    }
    assert!(
        !out.is_empty(),
        "no .route( calls found under {}",
        src.display()
    );
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("listing the relay's source") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text with every line that is only a comment blanked (doc comments may quote code).
fn without_comment_lines(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.trim_start().starts_with("//") {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Forms of registering a route this reader does not understand.
const UNSUPPORTED: [&str; 4] = [".nest(", ".nest_service(", ".route_service(", ".routes("];

/// The routes of one file's code.
pub fn routes_in(code: &str) -> Result<Vec<(String, String)>, String> {
    if let Some(form) = UNSUPPORTED.iter().find(|f| code.contains(*f)) {
        return Err(format!(
            "routes registered with `{form}`: extend tests/route_source/mod.rs to read them"
        ));
    }
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(".route(") {
        rest = &rest[at + ".route(".len()..];
        let after = rest.trim_start();
        let Some(literal) = after.strip_prefix('"') else {
            return Err("a .route( whose path is not a string literal".into());
        };
        let end = literal.find('"').ok_or("an unterminated path literal")?;
        let path = &literal[..end];
        let args = &literal[end + 1..];
        let body = call_body(args).ok_or_else(|| format!("unbalanced .route(\"{path}\", …"))?;
        let body = body
            .trim_start()
            .strip_prefix(',')
            .ok_or_else(|| format!(".route(\"{path}\") without a method router"))?;
        for method in methods(body)? {
            out.push((method, path.to_owned()));
        }
    }
    Ok(out)
}

/// `args` up to the `)` closing the call it is inside (string literals skipped).
fn call_body(args: &str) -> Option<&str> {
    let mut depth = 1usize;
    let mut in_string = false;
    for (i, ch) in args.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => {
                depth -= 1;
                if depth == 0 {
                    return Some(&args[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The methods a method-router expression such as `post(a::b).get(c)` serves.
fn methods(expr: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut ident = String::new();
    for ch in expr.chars() {
        match ch {
            '(' => {
                if depth == 0 {
                    let method = match ident.as_str() {
                        "get" | "post" | "put" | "delete" | "patch" | "head" | "options" => {
                            ident.to_uppercase()
                        }
                        "fallback" => "*".to_owned(),
                        other => {
                            return Err(format!(
                                "unknown method router `{other}(` in `{}`",
                                expr.trim()
                            ))
                        }
                    };
                    out.push(method);
                }
                depth += 1;
                ident.clear();
            }
            ')' => {
                depth = depth.saturating_sub(1);
                ident.clear();
            }
            c if c.is_alphanumeric() || c == '_' => ident.push(c),
            _ => ident.clear(),
        }
    }
    if out.is_empty() {
        return Err(format!("no method in `{}`", expr.trim()));
    }
    Ok(out)
}

#[test]
fn the_reader_reads_method_chains() {
    let code = r#"
        Router::new()
            .route("/a/{id}", post(x::create).get(x::list))
            .route(
                "/b",
                axum::routing::delete(y::revoke),
            )
            .route("/mcp", post(http::post).fallback(http::not_allowed))
    "#;
    let routes = routes_in(code).expect("readable");
    let want = [
        ("POST", "/a/{id}"),
        ("GET", "/a/{id}"),
        ("DELETE", "/b"),
        ("POST", "/mcp"),
        ("*", "/mcp"),
    ]
    .map(|(m, p)| (m.to_owned(), p.to_owned()));
    assert_eq!(routes, want.to_vec());
    assert!(routes_in(r#".route("/x", on(MethodFilter::GET, h))"#).is_err());
    assert!(routes_in(".nest(\"/v2\", other)").is_err());
}
