//! `POST /mcp` `tools/call herald_status` throughput: the relay against an MCP server built with
//! the official Python SDK doing the same work, driven by the same client loop in the same
//! run (issue 6 target: the relay ≥ 5× the peer). docs/benchmarks.md, "MCP".
//!
//! What it does:
//! 1. starts the release `herald-relay` binary (next to this binary) on 127.0.0.1:0 with a
//!    fresh data dir and a daily agent budget large enough for the run;
//! 2. creates an account with real keys (herald-testkit), an agent key, quiet hours
//!    (Europe/Paris), and sends one notification through `/mcp` `send_notification`, so
//!    `herald_status` has a device, a quiet-hours row and an active account to read;
//! 3. copies `relay.db` (`VACUUM INTO`) for the peer and starts
//!    `crates/herald-bench/peers/mcp_status_server.py` under uvicorn (stateless, JSON
//!    responses); what the peer does and does not do is written at the top of that file;
//! 4. checks that both answer the same `structuredContent`, then for each concurrency drives
//!    each server with `N` tasks sending JSON-RPC `tools/call herald_status` (session-less
//!    2025-06-18 headers, keep-alive HTTP/1.1) for a warm-up and a fixed time, and reports
//!    requests/s and latency p50/p99, then the ratio.
//!
//! The agent key stays in memory: it is never printed or put on a command line. Every
//! process started here is stopped on exit.
//!
//! Build and run:
//! `cargo build --release -p herald-relay -p herald-bench && bash crates/herald-bench/peers/setup-venv.sh && target/release/mcp`

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser;
use herald_bench::{Report, Summary};
use herald_protocol::agents::AgentKeyCreated;
use serde_json::{json, Value};

#[derive(Debug, Parser)]
#[command(
    name = "mcp",
    about = "POST /mcp herald_status: relay vs the official Python SDK"
)]
struct Args {
    /// Concurrent client tasks, one run per value (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "16,64")]
    concurrency: Vec<usize>,
    /// Seconds measured per server and concurrency.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Seconds of warm-up before each measurement (not counted).
    #[arg(long, default_value_t = 2)]
    warmup: u64,
    /// The herald-relay binary; default: next to this binary.
    #[arg(long)]
    relay_bin: Option<PathBuf>,
    /// Python with the pinned SDK; default: target/mcp-sdk-venv/bin/python
    /// (crates/herald-bench/peers/setup-venv.sh makes it).
    #[arg(long)]
    python: Option<PathBuf>,
    /// uvicorn worker processes of the peer (default: the machine's cores, as the relay's
    /// runtime uses every core).
    #[arg(long)]
    py_workers: Option<usize>,
    /// Measure only the relay.
    #[arg(long)]
    relay_only: bool,
}

/// The daily agent request budget given to the relay (and the peer): large enough that no
/// run reaches it.
const BUDGET: u32 = 4_000_000_000;

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the client runtime")?;
    runtime.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let exe_dir = std::env::current_exe()?
        .parent()
        .context("this binary has a directory")?
        .to_path_buf();
    let relay_bin = args
        .relay_bin
        .clone()
        .unwrap_or_else(|| exe_dir.join("herald-relay"));
    let workspace = workspace_root(&exe_dir);
    let python = args
        .python
        .clone()
        .unwrap_or_else(|| workspace.join("target/mcp-sdk-venv/bin/python"));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let py_workers = args.py_workers.unwrap_or(cores);

    let work = tempfile::tempdir().context("temp dir")?;
    let relay = Server::relay(&relay_bin, work.path())?;
    let key = set_up_account(&relay.url).await?;

    let peer = if args.relay_only {
        None
    } else {
        let db_copy = work.path().join("peer.db");
        copy_database(&work.path().join("relay/relay.db"), &db_copy)?;
        let script = workspace.join("crates/herald-bench/peers/mcp_status_server.py");
        Some(Server::python(
            &python,
            &script,
            &db_copy,
            py_workers,
            work.path(),
        )?)
    };

    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1024)
        .build()?;
    let relay_status = first_status(&client, &relay.url, &key).await?;
    println!("# relay herald_status: {relay_status}");
    if let Some(peer) = &peer {
        peer.wait_ready(&client, &key).await?;
        let peer_status = first_status(&client, &peer.url, &key).await?;
        println!("# peer  herald_status: {peer_status}");
        if peer_status != relay_status {
            bail!("the peer answers {peer_status}, the relay {relay_status}: not the same work");
        }
    }

    for &concurrency in &args.concurrency {
        let warmup = Duration::from_secs(args.warmup);
        let window = Duration::from_secs(args.seconds);
        let ours = drive(&client, &relay.url, &key, concurrency, warmup, window).await?;
        ours.report("relay", concurrency, None);
        if let Some(peer) = &peer {
            let theirs = drive(&client, &peer.url, &key, concurrency, warmup, window).await?;
            theirs.report(&format!("python-sdk-{py_workers}w"), concurrency, None);
            let ratio = ours.rate() / theirs.rate();
            println!(
                "# concurrency {concurrency}: relay {:.0} req/s, python SDK ({py_workers} workers) {:.0} req/s, ratio {ratio:.2}x (target >= 5x)",
                ours.rate(),
                theirs.rate()
            );
            ours.report("ratio", concurrency, Some(ratio));
        }
    }
    drop(peer);
    drop(relay);
    Ok(())
}

/// `target/release/` → the workspace root (two levels up), else the current directory.
fn workspace_root(exe_dir: &Path) -> PathBuf {
    exe_dir
        .ancestors()
        .find(|p| p.join("crates/herald-bench/peers").is_dir())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// A server process, stopped (SIGTERM, then SIGKILL) when dropped.
struct Server {
    url: String,
    child: Child,
}

impl Server {
    fn relay(bin: &Path, work: &Path) -> anyhow::Result<Server> {
        let log_path = work.join("relay.log");
        let log = std::fs::File::create(&log_path)?;
        let child = Command::new(bin)
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(work.join("relay"))
            .args(["--agent-requests-per-day", &BUDGET.to_string()])
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", bin.display()))?;
        let mut server = Server {
            url: String::new(),
            child,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let text = std::fs::read_to_string(&log_path).unwrap_or_default();
            if let Some(url) = text
                .split_whitespace()
                .find_map(|w| w.strip_prefix("url=http://127.0.0.1:"))
            {
                server.url = format!("http://127.0.0.1:{url}");
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                bail!("the relay exited ({status}): {text}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bail!("the relay did not print its URL within 30 s")
    }

    fn python(
        python: &Path,
        script: &Path,
        db: &Path,
        workers: usize,
        work: &Path,
    ) -> anyhow::Result<Server> {
        if !python.exists() {
            bail!(
                "{} is missing: run crates/herald-bench/peers/setup-venv.sh (or pass --python, or --relay-only)",
                python.display()
            );
        }
        // A free port: bind, read it, release it for uvicorn.
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let log = std::fs::File::create(work.join("peer.log"))?;
        let child = Command::new(python)
            .arg(script)
            .args([
                "--port",
                &port.to_string(),
                "--workers",
                &workers.to_string(),
            ])
            .env("HERALD_BENCH_DB", db)
            .env("HERALD_BENCH_REQUESTS_PER_DAY", BUDGET.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", python.display()))?;
        Ok(Server {
            url: format!("http://127.0.0.1:{port}"),
            child,
        })
    }

    /// Waits (≤ 60 s) until every worker can answer: a streak of good answers in a row.
    async fn wait_ready(&self, client: &reqwest::Client, key: &str) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut streak = 0;
        while Instant::now() < deadline {
            match call_status(client, &self.url, key, 0).await {
                Ok(_) => streak += 1,
                Err(_) => {
                    streak = 0;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
            if streak >= 50 {
                return Ok(());
            }
        }
        bail!("the Python peer did not answer within 60 s (see its log)")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM first, so uvicorn's manager stops its workers.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Creates the account, agent key, quiet hours and one notification; returns the agent key.
async fn set_up_account(url: &str) -> anyhow::Result<String> {
    let account = herald_testkit::real::create_account(url).await;
    let client = reqwest::Client::new();
    let created: AgentKeyCreated = client
        .post(format!("{url}/agent-keys"))
        .bearer_auth(&account.device_token)
        .json(&json!({"name": "mcp bench"}))
        .send()
        .await?
        .error_for_status()
        .context("POST /agent-keys")?
        .json()
        .await?;
    client
        .put(format!("{url}/quiet-hours"))
        .bearer_auth(&account.device_token)
        .json(
            &json!({"enabled": true, "start": "22:00", "end": "07:00", "timezone": "Europe/Paris"}),
        )
        .send()
        .await?
        .error_for_status()
        .context("PUT /quiet-hours")?;
    let sent: Value = client
        .post(format!("{url}/mcp"))
        .bearer_auth(&created.key)
        .header("MCP-Protocol-Version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "send_notification",
            "arguments": {"title": "Bench", "body": "herald_status has an active account to read"}
        }}))
        .send()
        .await?
        .error_for_status()
        .context("send_notification")?
        .json()
        .await?;
    if sent["result"]["isError"] == json!(true) || sent.get("error").is_some() {
        bail!("send_notification failed: {sent}");
    }
    Ok(created.key)
}

/// `VACUUM INTO`: a consistent, self-contained copy of the relay's database for the peer.
fn copy_database(from: &Path, to: &Path) -> anyhow::Result<()> {
    let conn =
        rusqlite::Connection::open_with_flags(from, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .context("opening relay.db")?;
    let target = to.to_str().context("a UTF-8 temp path")?;
    conn.execute("VACUUM INTO ?1", [target])
        .context("copying relay.db")?;
    Ok(())
}

async fn first_status(client: &reqwest::Client, url: &str, key: &str) -> anyhow::Result<Value> {
    call_status(client, url, key, 1).await
}

/// One `tools/call herald_status`; returns `structuredContent` after checking the answer is a
/// successful tool result.
async fn call_status(
    client: &reqwest::Client,
    url: &str,
    key: &str,
    id: u64,
) -> anyhow::Result<Value> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"herald_status","arguments":{{}}}}}}"#
    );
    let response = client
        .post(format!("{url}/mcp"))
        .bearer_auth(key)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .body(body)
        .send()
        .await?;
    let status = response.status();
    let bytes = response.bytes().await?;
    if !status.is_success() {
        bail!("HTTP {status}");
    }
    let mut answer: Value = serde_json::from_slice(&bytes)?;
    let result = answer["result"].take();
    if result["isError"] == json!(true) || !result["structuredContent"]["online"].is_boolean() {
        bail!("not a herald_status result");
    }
    Ok(result["structuredContent"].clone())
}

/// The outcome of one measured run.
struct Run {
    ok: u64,
    errors: u64,
    window: Duration,
    latencies: Vec<Duration>,
}

impl Run {
    fn rate(&self) -> f64 {
        self.ok as f64 / self.window.as_secs_f64()
    }

    fn report(&self, server: &str, concurrency: usize, ratio: Option<f64>) {
        let case = format!("{server} concurrency={concurrency}");
        match ratio {
            Some(ratio) => println!(
                "{}",
                json!({"bench": "mcp", "case": case, "unit": "x", "ratio": ratio, "target": ">= 5"})
            ),
            None => {
                if let Some(summary) = Summary::of_durations(&self.latencies) {
                    Report {
                        bench: "mcp",
                        case,
                        unit: "ms",
                        summary,
                        extra: json!({
                            "requests_per_s": self.rate(),
                            "ok": self.ok,
                            "errors": self.errors,
                            "seconds": self.window.as_secs_f64(),
                        }),
                    }
                    .print();
                }
                println!(
                    "# {server} concurrency={concurrency}: {:.0} req/s ({} ok, {} errors)",
                    self.rate(),
                    self.ok,
                    self.errors
                );
            }
        }
    }
}

/// `concurrency` tasks call `herald_status` back to back: `warmup` unmeasured, then `window`
/// measured. Only calls that start and end inside the window count.
async fn drive(
    client: &reqwest::Client,
    url: &str,
    key: &str,
    concurrency: usize,
    warmup: Duration,
    window: Duration,
) -> anyhow::Result<Run> {
    let start = Instant::now() + warmup;
    let end = start + window;
    let ids = Arc::new(AtomicU64::new(10));
    let mut tasks = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        let (client, url, key, ids) = (client.clone(), url.to_owned(), key.to_owned(), ids.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let (mut ok, mut errors) = (0u64, 0u64);
            loop {
                let begun = Instant::now();
                if begun >= end {
                    break;
                }
                let id = ids.fetch_add(1, Ordering::Relaxed);
                let outcome = call_status(&client, &url, &key, id).await;
                let done = Instant::now();
                if begun >= start && done <= end {
                    match outcome {
                        Ok(_) => {
                            ok += 1;
                            latencies.push(done - begun);
                        }
                        Err(_) => errors += 1,
                    }
                }
            }
            (ok, errors, latencies)
        }));
    }
    let mut run = Run {
        ok: 0,
        errors: 0,
        window,
        latencies: Vec::new(),
    };
    for task in tasks {
        let (ok, errors, latencies) = task.await?;
        run.ok += ok;
        run.errors += errors;
        run.latencies.extend(latencies);
    }
    Ok(run)
}
