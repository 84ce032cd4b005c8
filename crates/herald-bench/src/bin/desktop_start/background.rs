//! `desktop_start background`: Herald left running with its window closed
//! (docs/desktop-lifecycle.md, docs/benchmarks.md "Desktop in the background").
//!
//! On a `prepare`d profile: the app is started with `--background` (no window) and after
//! `--idle-secs` the PSS of its process tree is read ("never opened"), then its CPU time over
//! `--cpu-secs` of idling. Then `--cycles` times: a second launch opens the window (timed from
//! that launch to the window's `ui painted` line: the reopen time), and after a short pause
//! the window manager's close (tests/e2e/close-window.py) destroys it; after `--idle-secs` the
//! tree's PSS is read again ("after N opens and closes").

use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, Context};
use herald_bench::proc_tree;
use herald_bench::{Report, Summary};

use super::app_process::BackgroundApp;
use super::field;

/// What `background` is given.
pub struct BackgroundArgs<'a> {
    pub app: &'a Path,
    pub data_dir: &'a Path,
    pub close_script: &'a Path,
    pub cycles: usize,
    pub idle: Duration,
    pub cpu: Duration,
    pub timeout: Duration,
    pub log: Option<&'a Path>,
}

pub fn background(a: &BackgroundArgs) -> anyhow::Result<()> {
    let app = BackgroundApp::start(a.app, a.data_dir, a.log)?;
    let result = cycles(a, &app);
    app.stop();
    result
}

fn cycles(a: &BackgroundArgs, app: &BackgroundApp) -> anyhow::Result<()> {
    let pid = app.pid();
    app.wait_line(a.timeout, |l| l.contains("cache checked"))
        .context("the background app never checked its cache")?;
    std::thread::sleep(a.idle);
    let never_opened = app.tree_mib();
    let cpu_before = tree_cpu(pid)?;
    std::thread::sleep(a.cpu);
    let cpu_after = tree_cpu(pid)?;
    let cpu_percent = (cpu_after - cpu_before).as_secs_f64() / a.cpu.as_secs_f64() * 100.0;
    eprintln!(
        "# background, never opened: {:.1} MiB over {} processes; CPU {cpu_percent:.3} % of one core over {:?}",
        never_opened.0,
        never_opened.1,
        a.cpu
    );

    let mut reopen = Vec::with_capacity(a.cycles);
    let mut after_close = Vec::with_capacity(a.cycles);
    for i in 0..a.cycles {
        let (launched, at, line) = app
            .open_window(a.app, a.data_dir, a.timeout)
            .with_context(|| format!("cycle {i}"))?;
        let since_window = field(&line, "since_window_ms=").and_then(|v| v.parse::<f64>().ok());
        reopen.push((at - launched).as_secs_f64() * 1e3);
        std::thread::sleep(Duration::from_secs(2));
        let open = app.tree_mib();
        app.close_window(a.close_script, a.timeout)
            .with_context(|| format!("cycle {i}"))?;
        std::thread::sleep(a.idle);
        let after = app.tree_mib();
        eprintln!(
            "# cycle {i}: reopen {:.0} ms (window {since_window:?} ms), open {:.1} MiB / {} processes, closed {:.1} MiB / {} processes",
            reopen[i], open.0, open.1, after.0, after.1
        );
        after_close.push(after.0);
    }
    Report {
        bench: "desktop_background",
        case: "background idle PSS, never opened".into(),
        unit: "MiB",
        summary: Summary::of(&[never_opened.0]).ok_or_else(|| anyhow!("no sample"))?,
        extra: serde_json::json!({ "processes": never_opened.1, "target_mib": 100 }),
    }
    .print();
    Report {
        bench: "desktop_background",
        case: "background idle CPU".into(),
        unit: "% of one core",
        summary: Summary::of(&[cpu_percent]).ok_or_else(|| anyhow!("no sample"))?,
        extra: serde_json::json!({ "secs": a.cpu.as_secs(), "target_percent": 0.5 }),
    }
    .print();
    if a.cycles > 0 {
        Report {
            bench: "desktop_background",
            case: "reopen to first paint".into(),
            unit: "ms",
            summary: Summary::of(&reopen).ok_or_else(|| anyhow!("no samples"))?,
            extra: serde_json::json!({ "target_ms": 400 }),
        }
        .print();
        Report {
            bench: "desktop_background",
            case: "background idle PSS after the window closed".into(),
            unit: "MiB",
            summary: Summary::of(&after_close).ok_or_else(|| anyhow!("no samples"))?,
            extra: serde_json::json!({
                "cycles": a.cycles,
                "first_mib": after_close.first(),
                "last_mib": after_close.last(),
                "target_mib": 100,
            }),
        }
        .print();
    }
    Ok(())
}

/// User + system CPU time of the tree (`/proc/<pid>/stat` fields 14 and 15, in clock ticks of
/// 1/100 s, as Linux reports them on x86_64 and aarch64).
fn tree_cpu(pid: u32) -> anyhow::Result<Duration> {
    let mut ticks = 0u64;
    for p in proc_tree::descendants(pid) {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // The command name may hold spaces: the fields start after its closing parenthesis.
        let rest = stat
            .rsplit_once(')')
            .map(|(_, r)| r)
            .ok_or_else(|| anyhow!("odd /proc/{p}/stat"))?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        for i in [11, 12] {
            ticks += fields
                .get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Ok(Duration::from_millis(ticks * 10))
}
