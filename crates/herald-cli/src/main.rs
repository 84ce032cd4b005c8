//! `herald`: the agent's command line (send, ask, wait) and a headless device (device init,
//! connection create, inbox). See docs/cli.md for every command and the exit codes.

mod agents;
mod answer_files;
mod args;
mod attach;
mod config;
mod content;
mod device;
mod devices;
mod exit;
mod hints;
mod interrupt;
mod local_device;
mod mcp;
mod out_file;
mod quote;
mod reveal;
mod secret;
mod send;
mod setup_dir;
mod show;
mod terminal;

use clap::Parser;

use crate::args::{Cli, Command};

fn main() -> std::process::ExitCode {
    // Usage errors exit 1 ("bad input"), not clap's 2, which means "closed" here.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let printed = e.print();
            return match printed {
                _ if e.use_stderr() => exit::ERROR.into(),
                // `--help` or `--version` into a full disk or a closed pipe.
                Err(io) => {
                    let failed = terminal::StdoutError(io);
                    if !failed.is_broken_pipe() {
                        crate::note!("herald: {failed}");
                    }
                    exit::ERROR.into()
                }
                Ok(()) => exit::OK.into(),
            };
        }
    };
    // rmcp logs whole requests and results (message content) at debug and info: warnings only.
    // Without HERALD_LOG, the device core's warnings stay quiet too: what it cannot do
    // (a record that did not open, a sync retry) is retried on its own or shown in the
    // command's output, not as log lines on the terminal.
    let mut filter = tracing_subscriber::EnvFilter::try_from_env("HERALD_LOG")
        .unwrap_or_else(|_| "warn,herald_client=error".into());
    if let Ok(cap) = "rmcp=warn".parse() {
        filter = filter.add_directive(cap);
    }
    // Under the guard that keeps dependencies' content-carrying levels off (herald-log).
    herald_log::init(filter);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            crate::note!("herald: cannot start: {e}");
            return exit::ERROR.into();
        }
    };
    // Signal handlers first, so that a signal at any point of the command is seen.
    let signals = match runtime.block_on(async { interrupt::Signals::install() }) {
        Ok(signals) => signals,
        Err(e) => {
            crate::note!("herald: cannot start: listening for SIGINT/SIGTERM/SIGHUP/SIGQUIT: {e}");
            return exit::ERROR.into();
        }
    };
    let task = runtime.spawn(async move {
        match cli.command {
            Command::Send(a) => send::send(a).await,
            Command::Ask(a) => send::ask(a).await,
            Command::Wait(a) => send::wait(a).await,
            Command::Cancel(a) => send::cancel(a).await,
            Command::Device(a) => hints::device(device::device(a).await),
            Command::Whoami(a) => hints::device(device::whoami(a).await),
            Command::Connection(a) => hints::device(device::connection(a).await),
            Command::Inbox(a) => hints::device(device::inbox(a).await),
            Command::Mcp(a) => mcp::serve(a).await,
            Command::AgentKey(a) => hints::device(agents::agent_key(a).await),
            Command::Connector(a) => hints::device(agents::connector(a).await),
            Command::Notifications(a) => hints::device(agents::notifications(a).await),
        }
    });
    let result = match runtime.block_on(interrupt::run(signals, task)) {
        interrupt::Outcome::Finished(result) => result,
        interrupt::Outcome::Interrupted { signal, dropped } => {
            if dropped {
                // What the command spawned goes too (its futures dropped, their guards run);
                // blocking steps (a decryptor, an encryptor) hold no path, see the drop and
                // stop at once. A read of standard input (`herald mcp`) cannot be cancelled:
                // wait a moment, not for ever.
                runtime.shutdown_timeout(std::time::Duration::from_secs(1));
            } else {
                // Stuck in a blocking call (a prompt): do not wait for it.
                runtime.shutdown_background();
            }
            return interrupt::report(signal, dropped).into();
        }
    };
    match result {
        Ok(code) => code,
        // A closed pipe (`| head`) is the reader's choice: exit 1 without a word. What was
        // done and cannot be shown again says so anyway (`terminal::after_done`).
        Err(e)
            if e.downcast_ref::<terminal::StdoutError>()
                .is_some_and(terminal::StdoutError::is_broken_pipe) =>
        {
            exit::ERROR.into()
        }
        Err(e) => {
            crate::note!("herald: {e:#}");
            exit::ERROR.into()
        }
    }
}
