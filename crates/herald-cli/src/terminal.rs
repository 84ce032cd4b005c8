//! Text from agents reaches the terminal only through [`inert`]: message titles, bodies,
//! labels and names are the sender's, and a control character in them could move the cursor,
//! recolour the screen, set the window title or forge a line of `herald inbox list`.

/// `text` with every control character shown as a visible escape (`\e`, `\r`, `\u{7}`…).
/// Newlines and tabs are kept when `multiline` (message bodies), escaped otherwise.
pub fn inert(text: &str, multiline: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' if multiline => out.push(c),
            '\x1b' => out.push_str("\\e"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            // Bidi overrides can reorder what the person reads.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                out.push_str(&c.escape_unicode().to_string())
            }
            c => out.push(c),
        }
    }
    out
}

/// Like `println!`, but a closed pipe (`herald inbox list | head`) ends the program quietly
/// instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            panic!("cannot write to stdout: {e}");
        }
    }};
}

/// Single-line form of [`inert`].
pub fn line(text: &str) -> String {
    inert(text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_made_visible() {
        assert_eq!(
            line("a\x1b[31mred"),
            "a\\e[31mred",
            "escape sequences are inert"
        );
        assert_eq!(line("one\ntwo"), "one\\ntwo", "no forged lines in a list");
        assert_eq!(
            inert("one\ntwo\x07", true),
            "one\ntwo\\u{7}",
            "bodies keep newlines only"
        );
        assert_eq!(
            line("\u{202e}txt"),
            "\\u{202e}txt",
            "bidi overrides are shown"
        );
        assert_eq!(
            line("plain — ünïcode"),
            "plain — ünïcode",
            "ordinary text untouched"
        );
    }
}
