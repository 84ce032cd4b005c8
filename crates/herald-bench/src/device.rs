//! Set-up shared by the device-core benches (`latency`, `cold_sync`, `files`): a real relay
//! on 127.0.0.1:0 (in this process on its own runtime, or the `herald-relay` binary as a
//! child), accounts created the way the desktop creates them ([`Core::create_account`]), a
//! second device unlocked with the recovery key, and an agent connection ([`AgentClient`]).
//!
//! The relay never shares the client's runtime: in-process it runs on a dedicated
//! multi-thread runtime, so the numbers are not a single scheduler's artefact.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use herald_client::agent::AgentClient;
use herald_client::{Core, CoreConfig};
use herald_crypto::ConnectionToken;

/// A relay serving on 127.0.0.1 for the duration of a bench.
pub enum BenchRelay {
    /// `herald_relay::spawn` on its own runtime in this process.
    InProcess {
        runtime: tokio::runtime::Runtime,
        relay: Option<herald_relay::RunningRelay>,
        url: String,
    },
    /// The `herald-relay` binary as a child process (its memory is not this process's).
    Child { child: Child, url: String },
}

impl BenchRelay {
    /// Starts a relay with its database in `data_dir`: the binary at `relay_bin` when given,
    /// otherwise in this process on a runtime of `threads` workers. Must be called outside
    /// any tokio runtime (it owns one).
    pub fn start(
        data_dir: &Path,
        relay_bin: Option<&Path>,
        threads: usize,
    ) -> anyhow::Result<BenchRelay> {
        std::fs::create_dir_all(data_dir)?;
        match relay_bin {
            Some(bin) => start_child(bin, data_dir),
            None => {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(threads.max(1))
                    .thread_name("relay")
                    .enable_all()
                    .build()?;
                let relay = runtime.block_on(async {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                    herald_relay::spawn(
                        herald_relay::RelayConfig {
                            data_dir: data_dir.to_path_buf(),
                            public_url: None,
                            ..Default::default()
                        },
                        listener,
                    )
                    .await
                    .map_err(|e| anyhow!("relay start: {e}"))
                })?;
                let url = relay.url();
                Ok(BenchRelay::InProcess {
                    runtime,
                    relay: Some(relay),
                    url,
                })
            }
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        match self {
            BenchRelay::InProcess { url, .. } | BenchRelay::Child { url, .. } => url,
        }
    }

    /// The relay's process id: the child's, or this process's when in-process.
    pub fn pid(&self) -> u32 {
        match self {
            BenchRelay::InProcess { .. } => std::process::id(),
            BenchRelay::Child { child, .. } => child.id(),
        }
    }

    /// Stops the relay (graceful in-process; a kill of the child, which it owns).
    pub fn stop(mut self) {
        match &mut self {
            BenchRelay::InProcess { runtime, relay, .. } => {
                if let Some(relay) = relay.take() {
                    runtime.block_on(relay.shutdown());
                }
            }
            BenchRelay::Child { child, .. } => {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

impl Drop for BenchRelay {
    fn drop(&mut self) {
        if let BenchRelay::Child { child, .. } = self {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs the binary on 127.0.0.1:0 and reads its URL from the "herald-relay ready" log line.
fn start_child(bin: &Path, data_dir: &Path) -> anyhow::Result<BenchRelay> {
    let mut child = Command::new(bin)
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--data-dir")
        .arg(data_dir)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", bin.display()))?;
    let stderr = child.stderr.take().context("relay stderr")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if !sent {
                if let Some(url) = line.split_whitespace().find_map(|w| w.strip_prefix("url=")) {
                    let _ = tx.send(url.trim_matches('"').to_owned());
                    sent = true;
                }
            }
            // Keep draining so the child never blocks on a full pipe.
        }
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(url) => Ok(BenchRelay::Child { child, url }),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            bail!("{} did not report its URL within 30 s", bin.display())
        }
    }
}

/// Opens a device core in `dir` with the 0600 key file (no keychain), as the CLI does.
pub fn open_core(dir: &Path, name: &str) -> anyhow::Result<Core> {
    Core::open(CoreConfig {
        data_dir: dir.to_path_buf(),
        device_name: name.into(),
        platform: "linux".into(),
        use_keychain: false,
    })
    .map_err(|e| anyhow!("core open: {e}"))
}

/// A first device with a new account, the recovery key it was shown, and an agent holding a
/// connection token that device created.
pub struct Account {
    pub core: Core,
    /// The recovery key as shown once at account creation (kept in memory only).
    pub recovery_key: String,
    pub agent: AgentClient,
}

/// Creates an account on `relay_url` from a new device in `dir`, and one agent connection.
pub async fn create_account(relay_url: &str, dir: &Path) -> anyhow::Result<Account> {
    let core = open_core(dir, "bench-first")?;
    let onboard = core
        .create_account(relay_url)
        .await
        .map_err(|e| anyhow!("create account: {e}"))?;
    let connection = core
        .create_connection("bench-agent")
        .await
        .map_err(|e| anyhow!("create connection: {e}"))?;
    let token =
        ConnectionToken::parse(&connection.token).map_err(|e| anyhow!("token parse: {e}"))?;
    let agent =
        AgentClient::new(&connection.relay_url, token).map_err(|e| anyhow!("agent client: {e}"))?;
    Ok(Account {
        core,
        recovery_key: onboard.recovery_key,
        agent,
    })
}

/// Enrols a new device in `dir` with the recovery key (an empty cache), as "This is a new
/// device" does.
pub async fn unlock_new_device(
    relay_url: &str,
    dir: &Path,
    recovery_key: &str,
    name: &str,
) -> anyhow::Result<Core> {
    let core = open_core(dir, name)?;
    core.unlock_with_recovery_key(relay_url, recovery_key, name)
        .await
        .map_err(|e| anyhow!("unlock with recovery key: {e}"))?;
    Ok(core)
}

/// A Markdown body of exactly `bytes` ASCII bytes (headings, a list, a code block, prose),
/// varied by `seed` so no two bodies are equal.
pub fn markdown_body(bytes: usize, seed: u64) -> String {
    let mut s = format!(
        "## Build report {seed}\n\n- **status**: green\n- commit `{seed:016x}`\n\n```rust\nfn main() {{ println!(\"{seed}\"); }}\n```\n\n"
    );
    let prose = "The deploy finished on all hosts; latency stayed flat and no alerts fired. ";
    while s.len() < bytes {
        s.push_str(prose);
    }
    s.truncate(bytes);
    s
}

/// A `/proc/self/status` value in kB (`VmRSS:`, `VmHWM:`).
pub fn status_kb(key: &str) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow!("{key} missing in /proc/self/status"))
}

/// CPU time (user + system) a process has used so far, in seconds, from `/proc/<pid>/stat`
/// (clock ticks of 1/100 s, Linux's USER_HZ on x86-64 and arm64).
pub fn cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may hold spaces) start at the last ')'.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| anyhow!("malformed /proc/{pid}/stat"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    let ticks = |i: usize| -> anyhow::Result<u64> {
        Ok(fields
            .get(i)
            .ok_or_else(|| anyhow!("short /proc/{pid}/stat"))?
            .parse()?)
    };
    Ok((ticks(11)? + ticks(12)?) as f64 / 100.0)
}

/// Resets this process's peak resident set (VmHWM) to its current size.
pub fn reset_peak_rss() -> anyhow::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/self/clear_refs")?
        .write_all(b"5")?;
    Ok(())
}

/// Sum of the sizes of `<dir>/<name>`, `-wal` and `-shm`, in bytes (a SQLite database).
pub fn sqlite_bytes(dir: &Path, name: &str) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|suffix| std::fs::metadata(dir.join(format!("{name}{suffix}"))).ok())
        .map(|m| m.len())
        .sum()
}

/// A scratch directory under `base` (or the system temp dir), removed on drop.
pub fn scratch(base: Option<&PathBuf>, prefix: &str) -> anyhow::Result<tempfile::TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix);
    Ok(match base {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            b.tempdir_in(dir)?
        }
        None => b.tempdir()?,
    })
}
