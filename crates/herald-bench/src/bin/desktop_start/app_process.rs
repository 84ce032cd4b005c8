//! The desktop app started in the background for the `background` and `soak` runs: its log
//! lines arrive on a channel (and in a file when asked), and a second launch opens its window.

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

/// `herald-desktop --background` on a data dir, with `RUST_LOG=info`.
pub struct BackgroundApp {
    child: Child,
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
            .env("RUST_LOG", "info")
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
        let status = Command::new(app)
            .env("HERALD_DATA_DIR", data_dir)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("the second launch exited with {status}");
        }
        let (at, line) = self
            .wait_line(timeout, |l| l.contains("ui painted"))
            .context("the window never painted")?;
        Ok((launched, at, line))
    }

    /// The window manager's close (tests/e2e/close-window.py), then waits until the webview's
    /// own process (WebKitWebProcess) is gone. WebKit's network process may stay.
    pub fn close_window(&self, close_script: &Path, timeout: Duration) -> anyhow::Result<()> {
        let closed = Command::new("/usr/bin/python3")
            .arg(close_script)
            .arg(self.pid().to_string())
            .arg("Herald")
            .status()?;
        if !closed.success() {
            bail!("no window to close");
        }
        let deadline = Instant::now() + timeout;
        while self.has_web_process() {
            if Instant::now() >= deadline {
                bail!("the webview's process still runs {timeout:?} after the close");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }

    /// Whether a WebKitWebProcess (its comm is cut to 15 bytes) runs under the app.
    fn has_web_process(&self) -> bool {
        proc_tree::descendants(self.pid()).into_iter().any(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.starts_with("WebKitWebProces"))
        })
    }

    /// The tree's PSS in MiB and its process count.
    pub fn tree_mib(&self) -> (f64, usize) {
        let tree = proc_tree::tree_pss(self.pid());
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
