//! `herald`: the agent's command line (send, ask, wait) and a headless device (device init,
//! connection create, inbox). See docs/cli.md for every command and the exit codes.

mod answer_files;
mod args;
mod attach;
mod config;
mod content;
mod device;
mod devices;
mod exit;
mod out_file;
mod reveal;
mod secret;
mod send;
mod show;
mod terminal;

use clap::Parser;

use crate::args::{Cli, Command};

fn main() -> std::process::ExitCode {
    // Usage errors exit 1 ("bad input"), not clap's 2, which means "closed" here.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::ERROR.into()
            } else {
                exit::OK.into()
            };
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HERALD_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("herald: cannot start: {e}");
            return exit::ERROR.into();
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Send(a) => send::send(a).await,
            Command::Ask(a) => send::ask(a).await,
            Command::Wait(a) => send::wait(a).await,
            Command::Cancel(a) => send::cancel(a).await,
            Command::Device(a) => device::device(a).await,
            Command::Whoami(a) => device::whoami(a).await,
            Command::Connection(a) => device::connection(a).await,
            Command::Inbox(a) => device::inbox(a).await,
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("herald: {e:#}");
            exit::ERROR.into()
        }
    }
}
