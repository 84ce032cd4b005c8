//! SIGINT, SIGTERM, SIGHUP and SIGQUIT (docs/cli.md, "Interruption"): the command runs as a
//! task that main races against the four signals. On a signal the task is aborted, which drops its future
//! and with it every guard it holds — the pre-created `--out` file (`out_file.rs`),
//! temporary downloads and uploads (herald-client's files) — exactly as an error would; then
//! the resume hint the command registered with [`set_hint`] is printed (on standard error,
//! which after a hang-up may go nowhere) and `herald` exits 130 (SIGINT), 143 (SIGTERM),
//! 129 (SIGHUP: the terminal closed, `tmux kill-session`) or 131 (SIGQUIT, Ctrl-\\).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Exit code after SIGINT (128 + 2, the shells' convention).
pub const EXIT_SIGINT: u8 = 130;
/// Exit code after SIGTERM (128 + 15).
pub const EXIT_SIGTERM: u8 = 143;
/// Exit code after SIGHUP (128 + 1).
pub const EXIT_SIGHUP: u8 = 129;
/// Exit code after SIGQUIT (128 + 3).
pub const EXIT_SIGQUIT: u8 = 131;

/// How long an aborted command may take to reach its next await point and drop (a command
/// inside another blocking call is left behind after this; one in a prompt at once).
const DROP_GRACE: Duration = Duration::from_secs(5);

/// The command to resume with, if the command is interrupted now.
static HINT: Mutex<Option<String>> = Mutex::new(None);

/// Set while the command blocks in a terminal prompt ([`prompting`]).
static PROMPTING: AtomicBool = AtomicBool::new(false);

/// Runs `read`, a blocking read of a prompt's answer during which the command holds no
/// temporary file: a signal meanwhile ends `herald` at once instead of after the grace
/// period (the read cannot be cancelled).
pub fn prompting<T>(read: impl FnOnce() -> T) -> T {
    PROMPTING.store(true, Ordering::SeqCst);
    let value = read();
    PROMPTING.store(false, Ordering::SeqCst);
    value
}

/// Registers the command that resumes this one (`herald wait ID --out PATH`, …), printed if a
/// signal interrupts it from now on. A later call replaces it.
pub fn set_hint(command: impl Into<String>) {
    if let Ok(mut hint) = HINT.lock() {
        *hint = Some(command.into());
    }
}

fn take_hint() -> Option<String> {
    HINT.lock().ok().and_then(|mut h| h.take())
}

/// A signal that stops a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGHUP (the terminal was closed).
    HangUp,
    /// SIGQUIT (Ctrl-\\); no core dump.
    Quit,
}

impl Signal {
    fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::HangUp => "SIGHUP",
            Signal::Quit => "SIGQUIT",
        }
    }

    /// 130, 143, 129 or 131.
    pub fn exit_code(self) -> u8 {
        match self {
            Signal::Interrupt => EXIT_SIGINT,
            Signal::Terminate => EXIT_SIGTERM,
            Signal::HangUp => EXIT_SIGHUP,
            Signal::Quit => EXIT_SIGQUIT,
        }
    }
}

/// Listens for SIGINT, SIGTERM, SIGHUP and SIGQUIT from the moment it is made (the default handlers, which
/// would end the process without cleaning up, are replaced).
pub struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    /// `None` when SIGHUP was ignored when `herald` started (`nohup herald …`): it stays so.
    #[cfg(unix)]
    hang_up: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    quit: tokio::signal::unix::Signal,
}

impl Signals {
    /// Installs the handlers; needs a running Tokio runtime with IO enabled.
    pub fn install() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
                hang_up: if ignored(libc::SIGHUP) {
                    None
                } else {
                    Some(signal(SignalKind::hangup())?)
                },
                quit: signal(SignalKind::quit())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    async fn recv(&mut self) -> Signal {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.interrupt.recv() => Signal::Interrupt,
                _ = self.terminate.recv() => Signal::Terminate,
                _ = hang_up(&mut self.hang_up) => Signal::HangUp,
                _ = self.quit.recv() => Signal::Quit,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Signal::Interrupt
        }
    }
}

/// Whether `signal`'s disposition is "ignore" (as `nohup` leaves SIGHUP).
#[cfg(unix)]
#[allow(unsafe_code)] // sigaction(2) has no safe wrapper in std or tokio
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: with a null new action, sigaction(2) only writes the current one into `old`,
    // a zeroed plain C struct owned here.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

/// The next SIGHUP, or never when it is not listened for.
#[cfg(unix)]
async fn hang_up(signal: &mut Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// What a command returns.
pub type CommandResult = anyhow::Result<std::process::ExitCode>;

/// How a command ended.
pub enum Outcome {
    /// It finished (its own result).
    Finished(CommandResult),
    /// A signal stopped it; `dropped` says whether its future was dropped (its guards ran)
    /// within the grace period.
    Interrupted { signal: Signal, dropped: bool },
}

/// Awaits `task`, or on a signal aborts it and waits (up to [`DROP_GRACE`]) until its
/// future is dropped. A panic in the task is resumed here.
pub async fn run(
    mut signals: Signals,
    mut task: tokio::task::JoinHandle<CommandResult>,
) -> Outcome {
    let signal = tokio::select! {
        joined = &mut task => return Outcome::Finished(unwrap_join(joined)),
        signal = signals.recv() => signal,
    };
    task.abort();
    let deadline = tokio::time::Instant::now() + DROP_GRACE;
    let dropped = loop {
        // Blocked in a prompt (now or once it gets there): it cannot be dropped; go.
        if PROMPTING.load(Ordering::SeqCst) {
            break false;
        }
        match tokio::time::timeout(Duration::from_millis(20), &mut task).await {
            // It finished just before the abort took effect: its work is done.
            Ok(Ok(value)) => return Outcome::Finished(value),
            Ok(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Ok(Err(_)) => break true,
            Err(_) if tokio::time::Instant::now() >= deadline => break false,
            Err(_) => {}
        }
    };
    Outcome::Interrupted { signal, dropped }
}

fn unwrap_join(joined: Result<CommandResult, tokio::task::JoinError>) -> CommandResult {
    match joined {
        Ok(value) => value,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Only `run` aborts the task, and not on this path.
        Err(e) => Err(anyhow::anyhow!("the command stopped: {e}")),
    }
}

/// Tells what happened on standard error, with the resume hint if the command left one, and
/// returns the exit code. `dropped`: the command's future was dropped (its temporary files
/// are gone).
pub fn report(signal: Signal, dropped: bool) -> u8 {
    let cleaned = if dropped {
        "; temporary files were removed"
    } else {
        ""
    };
    match take_hint() {
        Some(hint) => crate::note!(
            "herald: interrupted by {}{cleaned}. Resume with: {hint}",
            signal.name()
        ),
        None => crate::note!("herald: interrupted by {}{cleaned}", signal.name()),
    }
    signal.exit_code()
}
