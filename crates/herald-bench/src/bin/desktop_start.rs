//! `desktop_start`: cold starts of the release desktop app on a profile with N cached messages
//! — time from process spawn to the first inbox paint — and its idle memory (PSS summed over
//! the app and every descendant: WebKit's web and network processes…), against a minimal Tauri
//! app measured the same way (docs/benchmarks.md, "Desktop").
//!
//! `prepare`: a `herald-relay` child on a fixed loopback port, an account created by a device
//! core in `<profile>/app` exactly as the desktop creates it, N sealed messages sent by an agent
//! connection, one full sync into the device's cache, then everything stops.
//! `measure`: (relay restarted on the same port when `--profile` is given) the app is spawned
//! `--runs` times with `HERALD_DATA_DIR=<profile>/app`; each start is timed until its
//! `ui painted` log line (src-tauri/src/paint.rs), then after `--idle-secs` the PSS of its
//! process tree is summed, and the app is stopped (SIGTERM to its process group, then SIGKILL).
//! Needs a display: run it under Xvfb (crates/herald-bench/desktop/run.sh does).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

#[path = "desktop_start/app_process.rs"]
mod app_process;
#[path = "desktop_start/background.rs"]
mod background;
#[path = "desktop_start/soak.rs"]
mod soak;

use anyhow::{anyhow, bail, Context};
use clap::{Parser, Subcommand};
use herald_bench::proc_tree::{self, ProcPss};
use herald_bench::relay_process::RelayProcess;
use herald_bench::{device, Report, Summary};

#[derive(Debug, Parser)]
#[command(about = "Desktop cold start to first inbox paint, and idle memory")]
struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Creates a profile with N synced, cached messages.
    Prepare {
        /// Profile directory (created; must not hold a profile yet).
        #[arg(long)]
        profile: PathBuf,
        /// The herald-relay binary.
        #[arg(long)]
        relay_bin: PathBuf,
        /// Messages to send and cache.
        #[arg(long, default_value_t = 10_000)]
        n: usize,
        /// Markdown body size in bytes.
        #[arg(long, default_value_t = 2048)]
        body_bytes: usize,
        /// Sends in flight while filling the relay.
        #[arg(long, default_value_t = 16)]
        fill_concurrency: usize,
    },
    /// Starts the app `--runs` times and reports paint time and idle PSS.
    Measure {
        /// The app binary (herald-desktop, or the minimal Tauri peer).
        #[arg(long)]
        app: PathBuf,
        /// Name in the report ("herald-desktop", "minimal-tauri").
        #[arg(long)]
        label: String,
        /// A profile made by `prepare` (its relay is started); none for the peer.
        #[arg(long)]
        profile: Option<PathBuf>,
        /// The herald-relay binary (with `--profile`).
        #[arg(long)]
        relay_bin: Option<PathBuf>,
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Starts before the timed ones, not reported (page cache, WebKit's caches).
        #[arg(long, default_value_t = 1)]
        warmup: usize,
        /// Seconds after the paint before PSS is read.
        #[arg(long, default_value_t = 10)]
        idle_secs: u64,
        /// Seconds to wait for the paint line.
        #[arg(long, default_value_t = 60)]
        timeout_secs: u64,
        /// Directory for each run's app log (default: none kept).
        #[arg(long)]
        log_dir: Option<PathBuf>,
    },
    /// Herald left running with the window closed: idle PSS and CPU, reopen time, PSS after
    /// each close (background.rs).
    Background {
        /// The herald-desktop binary.
        #[arg(long)]
        app: PathBuf,
        /// A profile made by `prepare` (its relay is started).
        #[arg(long)]
        profile: PathBuf,
        #[arg(long)]
        relay_bin: PathBuf,
        /// tests/e2e/close-window.py (the window manager's close under Xvfb).
        #[arg(long)]
        close_script: PathBuf,
        /// Window opens and closes.
        #[arg(long, default_value_t = 10)]
        cycles: usize,
        /// Seconds of idling before each PSS reading.
        #[arg(long, default_value_t = 10)]
        idle_secs: u64,
        /// Seconds over which idle CPU is measured.
        #[arg(long, default_value_t = 60)]
        cpu_secs: u64,
        #[arg(long, default_value_t = 60)]
        timeout_secs: u64,
        /// The app's log file (default: none kept).
        #[arg(long)]
        log: Option<PathBuf>,
    },
    /// Messages arriving in the background for a long span while the window is opened and
    /// closed again and again: PSS growth, every message notified once, nothing lost
    /// (soak.rs). Needs a session bus with no notification server on it.
    Soak {
        /// The herald-desktop binary.
        #[arg(long)]
        app: PathBuf,
        /// A profile made by `prepare` (copied into `--work-dir`; left unchanged).
        #[arg(long)]
        profile: PathBuf,
        #[arg(long)]
        relay_bin: PathBuf,
        /// tests/e2e/close-window.py.
        #[arg(long)]
        close_script: PathBuf,
        /// tests/e2e/notification-server.py.
        #[arg(long)]
        notification_server: PathBuf,
        /// Scratch directory (emptied first): the profile's copy and the banner record.
        #[arg(long)]
        work_dir: PathBuf,
        /// Messages sent over the soak.
        #[arg(long, default_value_t = 10_000)]
        n: usize,
        /// The soak's length in seconds.
        #[arg(long, default_value_t = 1800)]
        duration_secs: u64,
        /// Window opens and closes, spread evenly over the soak.
        #[arg(long, default_value_t = 100)]
        cycles: usize,
        /// Seconds of idling before the first and the last PSS reading.
        #[arg(long, default_value_t = 10)]
        idle_secs: u64,
        /// Seconds to wait for a paint, a close, or the last banner.
        #[arg(long, default_value_t = 120)]
        timeout_secs: u64,
        /// The app's log file (default: none kept).
        #[arg(long)]
        log: Option<PathBuf>,
    },
}

fn main() -> anyhow::Result<()> {
    match Args::parse().cmd {
        Cmd::Soak {
            app,
            profile,
            relay_bin,
            close_script,
            notification_server,
            work_dir,
            n,
            duration_secs,
            cycles,
            idle_secs,
            timeout_secs,
            log,
        } => soak::soak(&soak::SoakArgs {
            app: &app,
            profile: &profile,
            relay_bin: &relay_bin,
            close_script: &close_script,
            notification_server: &notification_server,
            work_dir: &work_dir,
            n,
            duration: Duration::from_secs(duration_secs),
            cycles,
            idle: Duration::from_secs(idle_secs),
            timeout: Duration::from_secs(timeout_secs),
            log: log.as_deref(),
        }),
        Cmd::Background {
            app,
            profile,
            relay_bin,
            close_script,
            cycles,
            idle_secs,
            cpu_secs,
            timeout_secs,
            log,
        } => {
            let _relay = start_relay(&relay_bin, &profile, read_port(&profile)?)?;
            background::background(&background::BackgroundArgs {
                app: &app,
                data_dir: &profile.join("app"),
                close_script: &close_script,
                cycles,
                idle: Duration::from_secs(idle_secs),
                cpu: Duration::from_secs(cpu_secs),
                timeout: Duration::from_secs(timeout_secs),
                log: log.as_deref(),
            })
        }
        Cmd::Prepare {
            profile,
            relay_bin,
            n,
            body_bytes,
            fill_concurrency,
        } => prepare(&profile, &relay_bin, n, body_bytes, fill_concurrency),
        Cmd::Measure {
            app,
            label,
            profile,
            relay_bin,
            runs,
            warmup,
            idle_secs,
            timeout_secs,
            log_dir,
        } => {
            let _relay = match (&profile, &relay_bin) {
                (Some(p), Some(bin)) => Some(start_relay(bin, p, read_port(p)?)?),
                (Some(_), None) => bail!("--profile needs --relay-bin"),
                _ => None,
            };
            let data_dir = profile.as_ref().map(|p| p.join("app"));
            measure(&MeasureArgs {
                app: &app,
                label: &label,
                data_dir: data_dir.as_deref(),
                runs,
                warmup,
                idle: Duration::from_secs(idle_secs),
                timeout: Duration::from_secs(timeout_secs),
                log_dir: log_dir.as_deref(),
            })
        }
    }
}

/// The relay child on the profile's fixed port (the device state records the relay's URL).
fn start_relay(bin: &Path, profile: &Path, port: u16) -> anyhow::Result<RelayProcess> {
    RelayProcess::start_on(bin, &profile.join("relay"), &format!("127.0.0.1:{port}"))
}

fn read_port(profile: &Path) -> anyhow::Result<u16> {
    let text = std::fs::read_to_string(profile.join("relay-port"))
        .context("the profile has no relay-port (run `prepare` first)")?;
    Ok(text.trim().parse()?)
}

fn prepare(
    profile: &Path,
    relay_bin: &Path,
    n: usize,
    body_bytes: usize,
    concurrency: usize,
) -> anyhow::Result<()> {
    if profile.join("app").exists() {
        bail!("{} already holds a profile", profile.display());
    }
    std::fs::create_dir_all(profile)?;
    // A free loopback port, kept for every later start of the relay.
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    std::fs::write(profile.join("relay-port"), format!("{port}\n"))?;
    let _relay = start_relay(relay_bin, profile, port)?;
    let url = format!("http://127.0.0.1:{port}");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let account = device::create_account(&url, &profile.join("app")).await?;
        let agent = Arc::new(account.agent);
        let t = Instant::now();
        device::fill(&agent, n, body_bytes, concurrency).await?;
        eprintln!("# sent {n} messages in {:.1} s", t.elapsed().as_secs_f64());
        let t = Instant::now();
        let stored = account
            .core
            .sync_once()
            .await
            .map_err(|e| anyhow!("sync: {e}"))?;
        let cached = account
            .core
            .inbox()
            .await
            .map_err(|e| anyhow!("inbox: {e}"))?;
        eprintln!(
            "# synced {stored} records in {:.1} s; {} messages cached",
            t.elapsed().as_secs_f64(),
            cached.len()
        );
        if cached.len() != n {
            bail!("{} messages cached, expected {n}", cached.len());
        }
        Ok(())
    })
}

struct MeasureArgs<'a> {
    app: &'a Path,
    label: &'a str,
    data_dir: Option<&'a Path>,
    runs: usize,
    warmup: usize,
    idle: Duration,
    timeout: Duration,
    log_dir: Option<&'a Path>,
}

struct Run {
    paint: Duration,
    rows: Option<u64>,
    since_main_ms: Option<f64>,
    tree: Vec<ProcPss>,
}

fn measure(a: &MeasureArgs) -> anyhow::Result<()> {
    let mut runs = Vec::with_capacity(a.runs);
    for i in 0..a.warmup + a.runs {
        let r = one_run(a, i)?;
        if i < a.warmup {
            eprintln!(
                "# {} warm-up start {i}: paint {:.0} ms (not reported)",
                a.label,
                r.paint.as_secs_f64() * 1e3
            );
            continue;
        }
        let total: u64 = r.tree.iter().map(|p| p.pss_kib).sum();
        eprintln!(
            "# {} run {i}: paint {:.0} ms (since main {:?} ms, rows {:?}), idle PSS {:.1} MiB over {} processes",
            a.label,
            r.paint.as_secs_f64() * 1e3,
            r.since_main_ms,
            r.rows,
            total as f64 / 1024.0,
            r.tree.len()
        );
        runs.push(r);
    }
    let paints: Vec<Duration> = runs.iter().map(|r| r.paint).collect();
    let pss: Vec<f64> = runs
        .iter()
        .map(|r| r.tree.iter().map(|p| p.pss_kib).sum::<u64>() as f64 / 1024.0)
        .collect();
    let last = runs.last().ok_or_else(|| anyhow!("no runs"))?;
    Report {
        bench: "desktop_start",
        case: format!("{} first paint", a.label),
        unit: "ms",
        summary: Summary::of_durations(&paints).ok_or_else(|| anyhow!("no samples"))?,
        extra: serde_json::json!({
            "target_ms": 800,
            "rows": last.rows,
            "since_main_ms": runs.iter().map(|r| r.since_main_ms).collect::<Vec<_>>(),
        }),
    }
    .print();
    Report {
        bench: "desktop_start",
        case: format!("{} idle PSS", a.label),
        unit: "MiB",
        summary: Summary::of(&pss).ok_or_else(|| anyhow!("no samples"))?,
        extra: serde_json::json!({
            "idle_secs": a.idle.as_secs(),
            "last_run_processes": last.tree,
        }),
    }
    .print();
    Ok(())
}

fn one_run(a: &MeasureArgs, i: usize) -> anyhow::Result<Run> {
    let mut cmd = Command::new(a.app);
    cmd.env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .env_remove("HERALD_DEMO")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own process group, so the whole tree is stopped together.
        .process_group(0);
    if let Some(dir) = a.data_dir {
        cmd.env("HERALD_DATA_DIR", dir);
    }
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting {}", a.app.display()))?;
    let pid = child.id();
    let stderr = child.stderr.take().context("app stderr")?;
    let mut log = match a.log_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            Some(std::fs::File::create(
                dir.join(format!("{}-{i}.log", a.label)),
            )?)
        }
        None => None,
    };
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("ui painted") {
                if let Some(tx) = tx.take() {
                    let _ = tx.send((Instant::now(), line.clone()));
                }
            }
            if let Some(f) = log.as_mut() {
                let _ = writeln!(f, "{line}");
            }
        }
    });
    let result = match rx.recv_timeout(a.timeout) {
        Ok((at, line)) => {
            std::thread::sleep(a.idle);
            let tree = proc_tree::tree_pss(pid);
            Ok(Run {
                paint: at - started,
                rows: field(&line, "rows=").and_then(|v| v.parse().ok()),
                since_main_ms: field(&line, "since_main_ms=").and_then(|v| v.parse().ok()),
                tree,
            })
        }
        Err(_) => Err(anyhow!(
            "{} run {i}: no `ui painted` line within {:?}",
            a.label,
            a.timeout
        )),
    };
    stop(&mut child);
    let _ = reader.join();
    result
}

/// The value after `key` in a log line, up to the next space.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(key)? + key.len();
    line[start..].split_whitespace().next()
}

/// SIGTERM to the child's process group, then SIGKILL if it has not exited within 5 s.
fn stop(child: &mut Child) {
    let group = format!("-{}", child.id());
    let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
    let _ = child.wait();
}
