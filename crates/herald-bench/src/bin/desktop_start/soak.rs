//! `desktop_start soak`: Herald left in the background while messages keep arriving and the
//! window is opened and closed again and again (docs/benchmarks.md, "Desktop in the
//! background", the soak row).
//!
//! On a copy of a `prepare`d profile (the profile itself stays as it was): a new agent
//! connection is made, the app starts with `--background`, and a test notification server
//! (tests/e2e/notification-server.py) on the session bus records every banner. Then, over
//! `--duration-secs`, `--n` messages (`Soak 00000`…) are sent at an even pace while the window
//! is opened (a second launch) and closed (the window manager's close) `--cycles` times, spread
//! evenly over the same span. At the end:
//! - memory: the tree's PSS after the first close against after the last (the growth the
//!   target bounds), and the never-opened figure for reference;
//! - notified once: every Soak message is in exactly one banner — its own (the body is its
//!   title) or a summary's count ("5 new messages") — and no title is announced twice;
//! - nothing lost: the cache, opened again after the app stopped, holds every Soak message
//!   once.
//!
//! A check that fails makes the run exit non-zero after the report is printed.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, ensure, Context};
use herald_bench::{device, Report, Summary};
use herald_client::agent::{AgentClient, SendOptions};
use herald_protocol::content::MessageContent;

use super::app_process::BackgroundApp;
use super::{read_port, start_relay};

/// The prefix of every soak message's title; the number after it has five digits.
const TITLE_PREFIX: &str = "Soak ";

/// What `soak` is given.
pub struct SoakArgs<'a> {
    pub app: &'a Path,
    /// A profile made by `prepare`; copied, never changed.
    pub profile: &'a Path,
    pub relay_bin: &'a Path,
    pub close_script: &'a Path,
    /// tests/e2e/notification-server.py.
    pub notification_server: &'a Path,
    /// Where the profile's copy and the banner record go (emptied first).
    pub work_dir: &'a Path,
    pub n: usize,
    pub duration: Duration,
    pub cycles: usize,
    pub idle: Duration,
    pub timeout: Duration,
    pub log: Option<&'a Path>,
}

pub fn soak(a: &SoakArgs) -> anyhow::Result<()> {
    if a.work_dir.exists() {
        std::fs::remove_dir_all(a.work_dir)?;
    }
    std::fs::create_dir_all(a.work_dir)?;
    let profile = a.work_dir.join("profile");
    let copied = Command::new("cp")
        .arg("-a")
        .arg(a.profile)
        .arg(&profile)
        .status()?;
    ensure!(copied.success(), "copying {}", a.profile.display());
    let _relay = start_relay(a.relay_bin, &profile, read_port(&profile)?)?;
    let data_dir = profile.join("app");

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let (agent, cached_before) = rt.block_on(connect(&data_dir))?;

    let banners = a.work_dir.join("notifications.jsonl");
    let mut server = NotificationServer::start(a.notification_server, &banners, a.timeout)?;
    let app = BackgroundApp::start(a.app, &data_dir, a.log)?;
    let result = run(a, &app, &rt, agent, &data_dir, &banners);
    app.stop();
    server.stop();
    let run = result?;

    let cached = rt.block_on(soak_titles(&data_dir))?;
    report(a, &run, cached_before, &cached)
}

/// Opens the copied profile's device, counts what it holds, and makes the soak's connection.
async fn connect(data_dir: &Path) -> anyhow::Result<(AgentClient, usize)> {
    let core = device::open_core(data_dir, "bench-first")?;
    let before = core.inbox().await.map_err(|e| anyhow!("inbox: {e}"))?.len();
    let agent = device::connect_agent(&core, "soak-agent").await?;
    Ok((agent, before))
}

/// The soak messages' titles the device's cache holds, with how often each is there.
async fn soak_titles(data_dir: &Path) -> anyhow::Result<HashMap<String, usize>> {
    let core = device::open_core(data_dir, "bench-first")?;
    let mut titles = HashMap::new();
    for row in core.inbox().await.map_err(|e| anyhow!("inbox: {e}"))? {
        if row.title.starts_with(TITLE_PREFIX) {
            *titles.entry(row.title).or_insert(0) += 1;
        }
    }
    Ok(titles)
}

/// What the soak measured while the app ran.
struct Run {
    never_opened_mib: f64,
    /// The tree's PSS a second after each close, in MiB.
    after_close_mib: Vec<f64>,
    /// After the last message was notified and `--idle-secs` passed.
    final_mib: f64,
    banners: Banners,
    sent: usize,
    elapsed: Duration,
}

fn run(
    a: &SoakArgs,
    app: &BackgroundApp,
    rt: &tokio::runtime::Runtime,
    agent: AgentClient,
    data_dir: &Path,
    banners: &Path,
) -> anyhow::Result<Run> {
    app.wait_line(a.timeout, |l| l.contains("cache checked"))
        .context("the background app never checked its cache")?;
    std::thread::sleep(a.idle);
    let never_opened_mib = app.tree_mib().0;

    let started = Instant::now();
    let abort = Arc::new(AtomicBool::new(false));
    let sender = {
        let (n, duration, abort) = (a.n, a.duration, abort.clone());
        let handle = rt.handle().clone();
        std::thread::spawn(move || {
            handle.block_on(send_paced(&agent, n, duration, started, &abort))
        })
    };

    let mut after_close_mib = Vec::with_capacity(a.cycles);
    let cycles = (|| -> anyhow::Result<()> {
        for i in 0..a.cycles {
            // Cycle i starts at an even share of the span, offset by half a share.
            let at = started + a.duration.mul_f64((i as f64 + 0.5) / a.cycles as f64);
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            app.open_window(a.app, data_dir, a.timeout)
                .with_context(|| format!("cycle {i}"))?;
            std::thread::sleep(Duration::from_secs(2));
            app.close_window(a.close_script, a.timeout)
                .with_context(|| format!("cycle {i}"))?;
            std::thread::sleep(Duration::from_secs(1));
            let (mib, processes) = app.tree_mib();
            eprintln!(
                "# cycle {i} at {:.0} s: closed {mib:.1} MiB / {processes} processes",
                started.elapsed().as_secs_f64()
            );
            after_close_mib.push(mib);
        }
        Ok(())
    })();
    if cycles.is_err() {
        abort.store(true, Ordering::Relaxed);
    }
    let sent = sender
        .join()
        .map_err(|_| anyhow!("the sender thread panicked"))?;
    cycles?;
    let sent = sent?;
    let elapsed = started.elapsed();

    // Every message reaches a banner within the timeout of the last send, or the check fails.
    let deadline = Instant::now() + a.timeout;
    let mut seen = Banners::read(banners)?;
    while seen.covered() < sent && Instant::now() < deadline {
        std::thread::sleep(Duration::from_secs(1));
        seen = Banners::read(banners)?;
    }
    std::thread::sleep(a.idle);
    let final_mib = app.tree_mib().0;
    Ok(Run {
        never_opened_mib,
        after_close_mib,
        final_mib,
        banners: Banners::read(banners)?,
        sent,
        elapsed,
    })
}

/// Sends `n` messages evenly over `duration` from `started`; returns how many were sent.
async fn send_paced(
    agent: &AgentClient,
    n: usize,
    duration: Duration,
    started: Instant,
    abort: &AtomicBool,
) -> anyhow::Result<usize> {
    for i in 0..n {
        if abort.load(Ordering::Relaxed) {
            return Ok(i);
        }
        let at = started + duration.mul_f64(i as f64 / n as f64);
        tokio::time::sleep_until(at.into()).await;
        let content = MessageContent {
            title: format!("{TITLE_PREFIX}{i:05}"),
            body: device::markdown_body(512, i as u64),
            ..Default::default()
        };
        agent
            .send(&content, SendOptions::default())
            .await
            .map_err(|e| anyhow!("send {i}: {e}"))?;
    }
    Ok(n)
}

/// The banners the notification server recorded, sorted by what they announce.
#[derive(Default)]
struct Banners {
    /// Soak message title → how many single banners announced it.
    singles: HashMap<String, usize>,
    /// The counts of the summary banners ("12 new messages").
    summaries: Vec<usize>,
    /// Any other banner's summary line.
    other: Vec<String>,
}

impl Banners {
    fn read(path: &Path) -> anyhow::Result<Self> {
        let mut banners = Banners::default();
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let record: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("{}: {line}", path.display()))?;
            let (Some(summary), Some(body)) = (record["summary"].as_str(), record["body"].as_str())
            else {
                continue; // a CloseNotification
            };
            let first = body.lines().next().unwrap_or_default();
            if first.starts_with(TITLE_PREFIX) {
                *banners.singles.entry(first.to_owned()).or_insert(0) += 1;
            } else if let Some(count) = summary
                .split_once(" new ")
                .and_then(|(count, _)| count.parse::<usize>().ok())
            {
                banners.summaries.push(count);
            } else {
                banners.other.push(summary.to_owned());
            }
        }
        Ok(banners)
    }

    /// Messages announced: one per single banner, a summary's count for each summary.
    fn covered(&self) -> usize {
        self.singles.values().sum::<usize>() + self.summaries.iter().sum::<usize>()
    }

    fn announced_twice(&self) -> usize {
        self.singles.values().filter(|&&c| c > 1).count()
    }
}

fn report(
    a: &SoakArgs,
    run: &Run,
    cached_before: usize,
    cached: &HashMap<String, usize>,
) -> anyhow::Result<()> {
    let first_closed = *run
        .after_close_mib
        .first()
        .ok_or_else(|| anyhow!("no window cycles ran"))?;
    let growth = run.final_mib - first_closed;
    let max_closed = run.after_close_mib.iter().cloned().fold(f64::MIN, f64::max);
    let b = &run.banners;
    let lost: Vec<usize> = (0..run.sent)
        .filter(|i| !cached.contains_key(&format!("{TITLE_PREFIX}{i:05}")))
        .collect();
    let doubled = cached.values().filter(|&&c| c > 1).count();
    eprintln!(
        "# soak: {} messages over {:.0} s, {} window cycles; PSS never opened {:.1} MiB, after the first close {first_closed:.1} MiB, highest after a close {max_closed:.1} MiB, at the end {:.1} MiB (growth {growth:+.1} MiB)",
        run.sent,
        run.elapsed.as_secs_f64(),
        run.after_close_mib.len(),
        run.never_opened_mib,
        run.final_mib,
    );
    eprintln!(
        "# soak: banners: {} single, {} summaries covering {}, {} titles announced twice, {} other; cache: {} soak messages ({} lost, {} twice), {cached_before} from the profile",
        b.singles.len(),
        b.summaries.len(),
        b.summaries.iter().sum::<usize>(),
        b.announced_twice(),
        b.other.len(),
        cached.len(),
        lost.len(),
        doubled,
    );
    Report {
        bench: "desktop_soak",
        case: "background PSS growth over the soak".into(),
        unit: "MiB",
        summary: Summary::of(&[growth]).ok_or_else(|| anyhow!("no sample"))?,
        extra: serde_json::json!({
            "n": run.sent,
            "secs": run.elapsed.as_secs(),
            "cycles": run.after_close_mib.len(),
            "never_opened_mib": run.never_opened_mib,
            "first_closed_mib": first_closed,
            "max_closed_mib": max_closed,
            "final_mib": run.final_mib,
            "target_mib": 20,
        }),
    }
    .print();
    Report {
        bench: "desktop_soak",
        case: "messages notified".into(),
        unit: "messages",
        summary: Summary::of(&[b.covered() as f64]).ok_or_else(|| anyhow!("no sample"))?,
        extra: serde_json::json!({
            "sent": run.sent,
            "single_banners": b.singles.len(),
            "summary_banners": b.summaries.len(),
            "announced_twice": b.announced_twice(),
            "other_banners": b.other,
            "cached": cached.len(),
            "lost": lost.len(),
            "cached_twice": doubled,
        }),
    }
    .print();
    if run.sent != a.n {
        bail!("only {} of {} messages were sent", run.sent, a.n);
    }
    if b.covered() != run.sent || b.announced_twice() > 0 {
        bail!(
            "{} messages sent, {} announced by banners, {} titles announced twice",
            run.sent,
            b.covered(),
            b.announced_twice()
        );
    }
    if !lost.is_empty() || doubled > 0 {
        bail!(
            "the cache lost {} soak messages (first: {:?}) and holds {doubled} twice",
            lost.len(),
            lost.first()
        );
    }
    Ok(())
}

/// tests/e2e/notification-server.py on the session bus, recording every banner.
struct NotificationServer(Child);

impl NotificationServer {
    fn start(script: &Path, record: &Path, timeout: Duration) -> anyhow::Result<Self> {
        let child = Command::new("/usr/bin/python3")
            .arg(script)
            .arg(record)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", script.display()))?;
        let server = Self(child);
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            let owned = Command::new("gdbus")
                .args([
                    "call",
                    "--session",
                    "--dest",
                    "org.freedesktop.DBus",
                    "--object-path",
                    "/org/freedesktop/DBus",
                    "--method",
                    "org.freedesktop.DBus.NameHasOwner",
                    "org.freedesktop.Notifications",
                ])
                .output()?;
            if String::from_utf8_lossy(&owned.stdout).contains("true") {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        bail!("the notification server never owned org.freedesktop.Notifications")
    }

    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
