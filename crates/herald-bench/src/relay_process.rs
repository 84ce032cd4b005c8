//! The `herald-relay` binary as a separate process on `127.0.0.1:0`, for the relay-side
//! benches (`ingest`, `fanout`): the relay gets its own process, runtime and allocator, as in
//! production, instead of sharing the bench's.
//!
//! The binary is looked for next to the running bench binary (`target/release/herald-relay`
//! after `cargo build --release -p herald-relay -p herald-bench`) unless a path is given.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

/// How long the relay may take to print its ready line.
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a SIGTERM may take before SIGKILL.
const STOP_TIMEOUT: Duration = Duration::from_secs(20);

/// A running relay process; killed (SIGKILL) on drop if not stopped.
pub struct RelayProcess {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

/// `herald-relay` next to the current executable.
pub fn default_relay_bin() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("locating the bench binary")?;
    let dir = exe.parent().context("the bench binary has no directory")?;
    Ok(dir.join("herald-relay"))
}

/// The URL in a relay log line such as `… herald-relay ready url=http://127.0.0.1:4321`.
pub fn ready_url(line: &str) -> Option<&str> {
    if !line.contains("herald-relay ready") {
        return None;
    }
    let rest = &line[line.find("url=")? + 4..];
    let url = rest.split_whitespace().next()?.trim_matches('"');
    url.starts_with("http://").then_some(url)
}

impl RelayProcess {
    /// Starts `bin --listen 127.0.0.1:0 --data-dir data_dir` and waits for its ready line.
    /// Its log (stderr, `RUST_LOG=info`) is drained by a thread; warnings and errors are
    /// echoed to the bench's stderr.
    pub fn start(bin: &Path, data_dir: &Path) -> anyhow::Result<RelayProcess> {
        Self::start_on(bin, data_dir, "127.0.0.1:0")
    }

    /// As [`RelayProcess::start`], listening on `listen` (`IP:PORT`; a fixed port when a
    /// profile recorded the relay's URL). Fails when the ready line does not come within 30 s
    /// or the relay exits first.
    pub fn start_on(bin: &Path, data_dir: &Path, listen: &str) -> anyhow::Result<RelayProcess> {
        if !bin.exists() {
            bail!(
                "{} not found: run `cargo build --release -p herald-relay` first or pass --relay-bin",
                bin.display()
            );
        }
        let mut child = Command::new(bin)
            .arg("--listen")
            .arg(listen)
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
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = ready_url(&line) {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(url.to_owned());
                    }
                } else if line.contains("WARN") || line.contains("ERROR") {
                    eprintln!("relay: {line}");
                }
            }
        });
        let deadline = Instant::now() + READY_TIMEOUT;
        let url = loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(url) => break url,
                Err(_) if Instant::now() > deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    bail!("the relay did not print its ready line within {READY_TIMEOUT:?}");
                }
                Err(_) => {
                    if let Some(status) = child.try_wait()? {
                        bail!("the relay exited before it was ready: {status}");
                    }
                }
            }
        };
        Ok(RelayProcess {
            child: Some(child),
            url,
        })
    }

    /// The relay's process id (`None` once stopped).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// `ws://127.0.0.1:PORT/ws`.
    pub fn ws_url(&self) -> String {
        format!("{}/ws", self.url.replacen("http://", "ws://", 1))
    }

    /// Resident set size of the relay process in KiB (from /proc), if readable.
    pub fn rss_kib(&self) -> Option<u64> {
        let pid = self.child.as_ref()?.id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
    }

    /// CPU time (user + system) the relay process has used so far, from /proc.
    pub fn cpu_time(&self) -> Option<Duration> {
        let pid = self.child.as_ref()?.id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        // Linux reports these in USER_HZ, which is 100 on every mainstream configuration.
        Some(Duration::from_millis(ticks * 10))
    }

    /// SIGTERM (graceful shutdown), then SIGKILL after a timeout; waits for the exit.
    pub fn stop(mut self) -> anyhow::Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let deadline = Instant::now() + STOP_TIMEOUT;
        while child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                child.kill()?;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait()?;
        Ok(())
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ready_url;

    #[test]
    fn finds_the_url_in_the_ready_line() {
        let line = "2026-11-01T10:00:00.000000Z  INFO herald_relay: herald-relay ready \
                    url=http://127.0.0.1:40123";
        assert_eq!(ready_url(line), Some("http://127.0.0.1:40123"));
        assert_eq!(
            ready_url("… herald-relay ready url=\"http://127.0.0.1:1\" x=1"),
            Some("http://127.0.0.1:1")
        );
        assert_eq!(ready_url("INFO herald_relay: shutting down"), None);
        assert_eq!(ready_url("herald-relay ready url=ftp://x"), None);
    }
}
