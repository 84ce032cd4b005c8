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

/// Standard output could not be written: a full disk (`> /dev/full`), a closed pipe
/// (`| head`), a revoked terminal. The command stops there and exits 1 with this message —
/// none for a closed pipe ([`StdoutError::is_broken_pipe`]) — and what it printed before,
/// and what it did, stay as they are; a step that cannot be undone is named anyway
/// ([`after_done`]).
#[derive(Debug)]
pub struct StdoutError(pub std::io::Error);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot write to standard output ({}): the output of this command is incomplete",
            self.0
        )
    }
}

impl std::error::Error for StdoutError {}

impl StdoutError {
    /// A closed pipe (`herald inbox list | head -1`): the reader wanted no more; `herald`
    /// stops quietly (exit 1, no message).
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == std::io::ErrorKind::BrokenPipe
    }
}

/// `printed`, the result of printing what follows a step that cannot be undone (a created
/// connection's one-time token, a sent message's record, a new recovery key): when standard
/// output failed — a full disk or a closed pipe alike — the error says `done` (what happened
/// and what to do now) instead, so it reaches standard error even where a plain closed pipe
/// stays quiet.
pub fn after_done(
    printed: anyhow::Result<()>,
    done: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    printed.map_err(|e| match e.downcast_ref::<StdoutError>() {
        Some(out) => anyhow::anyhow!(
            "{}; standard output could not be written ({})",
            done(),
            out.0
        ),
        None => e,
    })
}

/// Prints a credential that is shown only once (a connection's token, an agent key) on
/// standard output. When that fails, the error says that `what` `id` (`name`) was created,
/// that `secret_noun` could not be shown, and the exact command that revokes it
/// (`herald REVOKE ID FLAGS`; `flags` repeat `--data-dir` when it was given).
pub fn print_shown_once(
    secret: &str,
    what: &str,
    secret_noun: &str,
    id: &str,
    name: &str,
    revoke: &str,
    flags: &str,
) -> anyhow::Result<()> {
    after_done(crate::out!("{secret}"), || {
        format!(
            "{what} {id} ({name:?}) was created, but {secret_noun} could not be shown (it is shown only once). Revoke it with: herald {revoke} {id}{flags} — then create a new one"
        )
    })
}

/// Like `println!`, but evaluates to `Result<(), anyhow::Error>`: a write that fails (a full
/// disk, a closed pipe) is a [`StdoutError`] for `?`, never a panic.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
            .map_err(|e| anyhow::Error::new($crate::terminal::StdoutError(e)))
    }};
}

/// Like `eprintln!`, but a write to standard error that fails (`2>/dev/full`, a closed
/// pipe) is ignored: what goes to standard error is a note for the person, never a reason to
/// panic or to stop a command halfway.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// Single-line form of [`inert`] (titles, names, ids): also every zero-width, format or
/// other invisible character the title rule refuses (`herald_protocol::text`) is shown as its
/// escape, so a record cached before the rule, or sent by an older client, still cannot hide
/// or forge text in a list.
pub fn line(text: &str) -> String {
    let shown = inert(text, false);
    if herald_protocol::text::has_hidden_characters(&shown) {
        herald_protocol::text::inert_label(&shown)
    } else {
        shown
    }
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
            line("pay\u{200b}pal"),
            "pay\\u{200b}pal",
            "zero-width characters are shown"
        );
        assert_eq!(
            line("👨\u{200d}💻 laptop"),
            "👨\u{200d}💻 laptop",
            "joiners stay"
        );
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
