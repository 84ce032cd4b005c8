//! Exit codes (docs/cli.md): scripts branch on these. After SIGINT, SIGTERM, SIGHUP or SIGQUIT: 130, 143, 129
//! or 131
//! ([`crate::interrupt`]).

/// Success; for `ask`/`wait`: the request was answered (the answer is on stdout).
pub const OK: u8 = 0;
/// An error: bad input, refused by the relay, network, verification failure.
pub const ERROR: u8 = 1;
/// `ask`/`wait`: the request expired or was cancelled without an answer.
pub const CLOSED: u8 = 2;
/// `ask`/`wait`: the client's own `--timeout` passed; the request is still answerable and
/// `herald wait <id>` resumes.
pub const TIMED_OUT: u8 = 3;
