//! `cold_sync`: N messages (2 KB Markdown bodies) synced to a newly unlocked device —
//! verified, decrypted, validated, re-sealed under the local key and cached — and the cache
//! file's size (docs/benchmarks.md, "Device core and files").
//!
//! Per N: a fresh relay and account; the agent fills the relay with N sealed messages through
//! `POST /messages` (`AgentClient::send`, `--fill-concurrency` in flight; not timed as sync).
//! Then, per repetition, a new device is enrolled with the recovery key (empty cache) and
//! `Core::sync_once` is timed while a subscriber serializes every UI event, as the desktop
//! shell does. Afterwards every message must be in the cache and readable.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail};
use clap::Parser;
use herald_bench::device;
use herald_bench::{Report, Summary};

#[derive(Debug, Parser)]
#[command(about = "Cold sync of N messages to a newly unlocked device")]
struct Args {
    /// Message counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1_000usize, 10_000, 100_000])]
    n: Vec<usize>,
    /// Timed cold syncs per N (each on a newly enrolled device).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Timed cold syncs for N ≥ 100,000 (they take long).
    #[arg(long, default_value_t = 1)]
    reps_large: usize,
    /// Markdown body size in bytes.
    #[arg(long, default_value_t = 2048)]
    body_bytes: usize,
    /// Sends in flight while filling the relay.
    #[arg(long, default_value_t = 16)]
    fill_concurrency: usize,
    #[command(flatten)]
    relay: device::RelayArgs,
}

fn main() -> anyhow::Result<()> {
    let args = &Args::parse();
    for &n in &args.n {
        args.relay.run(
            "herald-bench-cold-sync-",
            |url, relay_pid, dir| async move { one_n(args, n, &url, relay_pid, &dir).await },
        )?;
    }
    Ok(())
}

struct Rep {
    unlock: Duration,
    sync: Duration,
    /// CPU seconds this process (the device core; plus the relay when in-process) and the
    /// relay child used during the sync.
    cpu_self: f64,
    cpu_relay: Option<f64>,
    cache_bytes: u64,
    cache_db_bytes_closed: u64,
}

async fn one_n(
    args: &Args,
    n: usize,
    url: &str,
    relay_pid: Option<u32>,
    dir: &Path,
) -> anyhow::Result<()> {
    let account = device::create_account(url, &dir.join("first")).await?;
    let agent = Arc::new(account.agent);
    let started = Instant::now();
    device::fill(&agent, n, args.body_bytes, args.fill_concurrency).await?;
    let fill_time = started.elapsed();
    let relay_db = device::sqlite_bytes(&dir.join("relay"), "relay.db");
    eprintln!(
        "# filled {n} messages in {:.1} s ({:.0} msg/s); relay.db {relay_db} bytes",
        fill_time.as_secs_f64(),
        n as f64 / fill_time.as_secs_f64()
    );

    let reps = if n >= 100_000 {
        args.reps_large
    } else {
        args.reps
    };
    let mut results = Vec::with_capacity(reps);
    for rep in 0..reps {
        let device_dir = dir.join(format!("device-{rep}"));
        let r = cold_sync(url, relay_pid, &device_dir, &account.recovery_key, n).await?;
        eprintln!(
            "# N={n} rep {rep}: unlock {:.0} ms, sync {:.3} s (CPU: self {:.2} s, relay {:?} s), cache {} bytes",
            r.unlock.as_secs_f64() * 1e3,
            r.sync.as_secs_f64(),
            r.cpu_self,
            r.cpu_relay,
            r.cache_bytes
        );
        results.push(r);
        std::fs::remove_dir_all(&device_dir)?;
    }
    let syncs: Vec<Duration> = results.iter().map(|r| r.sync).collect();
    let unlocks: Vec<Duration> = results.iter().map(|r| r.unlock).collect();
    let summary = Summary::of_durations(&syncs).ok_or_else(|| anyhow!("no samples"))?;
    let last = results.last().ok_or_else(|| anyhow!("no samples"))?;
    Report {
        bench: "cold_sync",
        case: format!("n={n}"),
        unit: "ms",
        summary: summary.clone(),
        extra: serde_json::json!({
            "target_ms_for_10000": 2000,
            "messages_per_s_p50": n as f64 / (summary.p50 / 1e3),
            "unlock_ms": Summary::of_durations(&unlocks),
            "cpu_s_self": results.iter().map(|r| r.cpu_self).collect::<Vec<_>>(),
            "cpu_s_relay_child": results.iter().map(|r| r.cpu_relay).collect::<Vec<_>>(),
            "cache_bytes_after_sync": last.cache_bytes,
            "cache_db_bytes_after_close": last.cache_db_bytes_closed,
            "cache_bytes_per_message": last.cache_db_bytes_closed as f64 / n as f64,
            "relay_db_bytes": relay_db,
            "body_bytes": args.body_bytes,
            "fill_s": fill_time.as_secs_f64(),
            "fill_concurrency": args.fill_concurrency,
            "relay": args.relay.relay_kind(),
        }),
    }
    .print();
    Ok(())
}

/// Enrols a new device with the recovery key and times its first full sync.
async fn cold_sync(
    url: &str,
    relay_pid: Option<u32>,
    dir: &Path,
    recovery_key: &str,
    n: usize,
) -> anyhow::Result<Rep> {
    let t = Instant::now();
    let core = device::unlock_new_device(url, dir, recovery_key, "bench-new").await?;
    let unlock = t.elapsed();
    // The shell's side: every event serialized as `emit` would.
    let mut events = core.subscribe();
    let drain = tokio::spawn(async move {
        let mut seen = 0usize;
        loop {
            match events.recv().await {
                Ok(e) => {
                    std::hint::black_box(serde_json::to_string(&e).unwrap_or_default());
                    seen += 1;
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(k)) => seen += k as usize,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return seen,
            }
        }
    });
    let cpu = |pid: Option<u32>| pid.map(device::cpu_seconds).transpose();
    let (self_before, relay_before) = (device::cpu_seconds(std::process::id())?, cpu(relay_pid)?);
    let t = Instant::now();
    let stored = core.sync_once().await.map_err(|e| anyhow!("sync: {e}"))?;
    let sync = t.elapsed();
    let cpu_self = device::cpu_seconds(std::process::id())? - self_before;
    let cpu_relay = cpu(relay_pid)?.zip(relay_before).map(|(a, b)| a - b);
    let cache_bytes = device::sqlite_bytes(dir, herald_client::cache::CACHE_FILE);
    if stored != n {
        bail!("synced {stored} records, expected {n}");
    }
    let inbox = core.inbox().await.map_err(|e| anyhow!("inbox: {e}"))?;
    let readable = inbox.iter().filter(|m| m.error.is_none()).count();
    if inbox.len() != n || readable != n {
        bail!("{} cached, {readable} readable, expected {n}", inbox.len());
    }
    drop(core);
    let _ = tokio::time::timeout(Duration::from_secs(10), drain).await;
    let cache_db_bytes_closed = device::sqlite_bytes(dir, herald_client::cache::CACHE_FILE);
    Ok(Rep {
        unlock,
        sync,
        cpu_self,
        cpu_relay,
        cache_bytes,
        cache_db_bytes_closed,
    })
}
