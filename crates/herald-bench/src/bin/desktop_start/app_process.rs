//! The desktop app started in the background for the `background` and `soak` runs: its log
//! lines arrive on a channel (and in a file when asked), and a second launch opens its window:
//! that launch becomes the window process (docs/desktop-lifecycle.md, "Window process"), which
//! ends when the window is closed.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use herald_bench::proc_tree;

use super::stop;

/// `herald-desktop --background` on a data dir, with `RUST_LOG=info` (or
/// `HERALD_BENCH_RUST_LOG`, e.g. `info,herald_desktop=debug` for each window call's time).
pub struct BackgroundApp {
    child: Child,
    /// The window process of the last [`BackgroundApp::open_window`], until it is closed.
    window: std::sync::Mutex<Option<Child>>,
    lines: mpsc::Receiver<(Instant, String)>,
    reader: Option<JoinHandle<()>>,
}

impl BackgroundApp {
    /// Starts the app with no window. The first close's notice is marked as shown already, so
    /// every close destroys the window at once.
    pub fn start(app: &Path, data_dir: &Path, log: Option<&Path>) -> anyhow::Result<Self> {
        std::fs::write(data_dir.join("close-hint-shown"), b"")?;
        let mut child = Command::new(app)
            .arg("--background")
            .env(
                "RUST_LOG",
                std::env::var("HERALD_BENCH_RUST_LOG").unwrap_or_else(|_| "info".into()),
            )
            .env("NO_COLOR", "1")
            .env("HERALD_DATA_DIR", data_dir)
            .env_remove("HERALD_DEMO")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .with_context(|| format!("starting {}", app.display()))?;
        let stderr = child.stderr.take().context("app stderr")?;
        let mut log = match log {
            Some(path) => Some(std::fs::File::create(path)?),
            None => None,
        };
        let (tx, lines) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(f) = log.as_mut() {
                    let _ = writeln!(f, "{line}");
                }
                let _ = tx.send((Instant::now(), line));
            }
        });
        Ok(Self {
            child,
            window: std::sync::Mutex::new(None),
            lines,
            reader: Some(reader),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the first log line that `matches`; earlier lines are dropped.
    pub fn wait_line(
        &self,
        timeout: Duration,
        matches: impl Fn(&str) -> bool,
    ) -> anyhow::Result<(Instant, String)> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (at, line) = self
                .lines
                .recv_timeout(left)
                .map_err(|_| anyhow!("no such log line within {timeout:?}"))?;
            if matches(&line) {
                return Ok((at, line));
            }
        }
    }

    /// Opens the window the way a person's second launch does, and waits for its first paint.
    /// Returns when the launch started and the paint line.
    pub fn open_window(
        &self,
        app: &Path,
        data_dir: &Path,
        timeout: Duration,
    ) -> anyhow::Result<(Instant, Instant, String)> {
        let launched = Instant::now();
        // In the app's process group, so stopping the app stops its window too.
        let window = Command::new(app)
            .env("HERALD_DATA_DIR", data_dir)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(self.pid() as i32)
            .spawn()?;
        *self.window.lock().unwrap_or_else(|p| p.into_inner()) = Some(window);
        let (at, line) = self
            .wait_line(timeout, |l| l.contains("ui painted"))
            .context("the window never painted")?;
        Ok((launched, at, line))
    }

    /// The window manager's close (tests/e2e/close-window.py) sent to the window process, then
    /// waits until that process (and with it every WebKit process) has ended.
    pub fn close_window(&self, close_script: &Path, timeout: Duration) -> anyhow::Result<()> {
        let mut guard = self.window.lock().unwrap_or_else(|p| p.into_inner());
        let window = guard.as_mut().context("no window was opened")?;
        let closed = Command::new("/usr/bin/python3")
            .arg(close_script)
            .arg(window.id().to_string())
            .arg("Herald")
            .status()?;
        if !closed.success() {
            bail!("no window to close");
        }
        let deadline = Instant::now() + timeout;
        while window.try_wait()?.is_none() {
            if Instant::now() >= deadline {
                bail!("the window process still runs {timeout:?} after the close");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        *guard = None;
        Ok(())
    }

    /// The tree's PSS in MiB and its process count.
    /// With a window open, its process tree counts too.
    pub fn tree_mib(&self) -> (f64, usize) {
        let mut tree = proc_tree::tree_pss(self.pid());
        if let Some(window) = &*self.window.lock().unwrap_or_else(|p| p.into_inner()) {
            tree.extend(proc_tree::tree_pss(window.id()));
        }
        let kib: u64 = tree.iter().map(|p| p.pss_kib).sum();
        (kib as f64 / 1024.0, tree.len())
    }

    /// Stops the app (SIGTERM to its group, SIGKILL after 5 s) and its log reader.
    pub fn stop(mut self) {
        stop(&mut self.child);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}
