//! Set-up shared by the device-core benches (`latency`, `cold_sync`, `files`, and
//! `desktop_start`'s profile): a real relay on 127.0.0.1:0 (in this process on its own
//! runtime, or the `herald-relay` binary as a child, [`RelayProcess`]), accounts created the
//! way the desktop creates them ([`Core::create_account`]), a second device unlocked with the
//! recovery key, an agent connection ([`AgentClient`]) and relays filled with messages.
//!
//! The relay never shares the client's runtime: in-process it runs on a dedicated
//! multi-thread runtime, so the numbers are not a single scheduler's artefact.

use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::anyhow;
use herald_client::agent::{AgentClient, SendOptions};
use herald_client::{Core, CoreConfig};
use herald_crypto::ConnectionToken;
use herald_protocol::content::MessageContent;

use crate::relay_process::RelayProcess;

/// A relay serving on 127.0.0.1 for the duration of a bench.
pub enum BenchRelay {
    /// `herald_relay::spawn` on its own runtime in this process.
    InProcess {
        runtime: tokio::runtime::Runtime,
        relay: Option<herald_relay::RunningRelay>,
        url: String,
    },
    /// The `herald-relay` binary as a child process (its memory is not this process's).
    Child(RelayProcess),
}

impl BenchRelay {
    /// Starts a relay with its database in `data_dir`: the binary at `relay_bin` when given
    /// ([`RelayProcess::start`]), otherwise in this process on a runtime of `threads` workers.
    /// Must be called outside any tokio runtime (it owns one).
    pub fn start(
        data_dir: &Path,
        relay_bin: Option<&Path>,
        threads: usize,
    ) -> anyhow::Result<BenchRelay> {
        std::fs::create_dir_all(data_dir)?;
        if let Some(bin) = relay_bin {
            return Ok(BenchRelay::Child(RelayProcess::start(bin, data_dir)?));
        }
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

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        match self {
            BenchRelay::InProcess { url, .. } => url,
            BenchRelay::Child(process) => &process.url,
        }
    }

    /// The relay child's process id; `None` when the relay runs in this process.
    pub fn child_pid(&self) -> Option<u32> {
        match self {
            BenchRelay::InProcess { .. } => None,
            BenchRelay::Child(process) => process.pid(),
        }
    }

    /// Stops the relay: graceful in-process, SIGTERM then SIGKILL for the child
    /// ([`RelayProcess::stop`]).
    pub fn stop(self) {
        match self {
            BenchRelay::InProcess {
                runtime, mut relay, ..
            } => {
                if let Some(relay) = relay.take() {
                    runtime.block_on(relay.shutdown());
                }
            }
            BenchRelay::Child(process) => {
                if let Err(e) = process.stop() {
                    eprintln!("# stopping the relay: {e}");
                }
            }
        }
    }
}

/// The options every device-core bench takes for its relay and scratch space (flattened into
/// its clap `Args`).
#[derive(Debug, clap::Args)]
pub struct RelayArgs {
    /// Run this herald-relay binary as a child instead of the relay in this process.
    #[arg(long)]
    pub relay_bin: Option<PathBuf>,
    /// Directory for the relay database and the device data (default: the temp dir).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

impl RelayArgs {
    /// How the relay runs, for reports: `"child process"` or `"in-process, own runtime"`.
    pub fn relay_kind(&self) -> &'static str {
        if self.relay_bin.is_some() {
            "child process"
        } else {
            "in-process, own runtime"
        }
    }

    /// Makes a scratch directory `<prefix>…` (under `--dir`, removed afterwards) and runs
    /// `work(url, relay_child_pid, scratch_dir)` against a fresh relay whose database is in
    /// its `relay/` ([`with_relay`]).
    pub fn run<T, F, Fut>(&self, prefix: &str, work: F) -> anyhow::Result<T>
    where
        F: FnOnce(String, Option<u32>, PathBuf) -> Fut,
        Fut: Future<Output = anyhow::Result<T>>,
    {
        let dir = scratch(self.dir.as_ref(), prefix)?;
        let path = dir.path().to_path_buf();
        with_relay(
            &path.join("relay"),
            self.relay_bin.as_deref(),
            |url, pid| work(url, pid, path.clone()),
        )
    }
}

/// Runs `work` on a 2-worker client runtime against a fresh relay whose database is in
/// `relay_dir` (see [`BenchRelay::start`]: the `relay_bin` child, or in this process on its
/// own 2-worker runtime), then stops the relay. `work` gets the relay's URL and, for a child,
/// its process id (for CPU accounting). The set-up every device-core bench shares.
pub fn with_relay<T, F, Fut>(
    relay_dir: &Path,
    relay_bin: Option<&Path>,
    work: F,
) -> anyhow::Result<T>
where
    F: FnOnce(String, Option<u32>) -> Fut,
    Fut: Future<Output = anyhow::Result<T>>,
{
    let relay = BenchRelay::start(relay_dir, relay_bin, 2)?;
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = client.block_on(work(relay.url().to_owned(), relay.child_pid()));
    drop(client);
    relay.stop();
    result
}

/// Sends `n` messages (title `Nightly build <i>`, a [`markdown_body`] of `body_bytes`) through
/// one agent connection with `concurrency` sends in flight: how the benches fill a relay.
pub async fn fill(
    agent: &Arc<AgentClient>,
    n: usize,
    body_bytes: usize,
    concurrency: usize,
) -> anyhow::Result<()> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let agent = agent.clone();
        let next = next.clone();
        tasks.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return Ok::<(), anyhow::Error>(());
                }
                let content = MessageContent {
                    title: format!("Nightly build {i}"),
                    body: markdown_body(body_bytes, i as u64),
                    ..Default::default()
                };
                agent
                    .send(&content, SendOptions::default())
                    .await
                    .map_err(|e| anyhow!("send {i}: {e}"))?;
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done??;
    }
    Ok(())
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
    let agent = connect_agent(&core, "bench-agent").await?;
    Ok(Account {
        core,
        recovery_key: onboard.recovery_key,
        agent,
    })
}

/// Makes a connection named `name` from `core`'s device and an agent client holding its
/// token (kept in memory only). Errors: the relay's refusal or a malformed token, as text.
pub async fn connect_agent(core: &Core, name: &str) -> anyhow::Result<AgentClient> {
    let connection = core
        .create_connection(name, None)
        .await
        .map_err(|e| anyhow!("create connection: {e}"))?;
    let token =
        ConnectionToken::parse(&connection.token).map_err(|e| anyhow!("token parse: {e}"))?;
    AgentClient::new(&connection.relay_url, token).map_err(|e| anyhow!("agent client: {e}"))
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
