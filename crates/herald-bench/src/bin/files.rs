//! `files`: a 100 MB file through a real relay — encrypt + upload (the agent's
//! `AgentClient::send` with the file attached: age encryption, `POST /files`, `PUT
//! /files/:id`, the sealed message) and download + decrypt (the device core's
//! `Core::save_attachment`: streamed from the relay through the decryptor, size and SHA-256
//! checked, saved 0600). Reports MB/s (10^6 bytes of plaintext per second) each way and the
//! growth of this process's peak resident set (VmHWM after `/proc/self/clear_refs`) over each
//! direction (docs/benchmarks.md, "Device core and files").
//!
//! With `--relay-bin` the relay is a child process and the memory figures are the client's
//! alone (agent + device core); without it the relay runs in this process and is counted too.
//! The child's own peak (its VmHWM, reset through `/proc/<pid>/clear_refs` before each
//! direction) is reported beside them as `relay_child_peak_rss_mib` and its growth over the
//! direction as `relay_child_peak_growth_mib`.

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use clap::Parser;
use herald_bench::device;
use herald_bench::{Report, Summary};
use herald_client::agent::SendOptions;
use herald_protocol::content::MessageContent;

#[derive(Debug, Parser)]
#[command(about = "100 MB file: encrypt + upload and download + decrypt through a real relay")]
struct Args {
    /// File size in bytes (default: the largest attachment, 100 MB).
    #[arg(long, default_value_t = herald_protocol::content::MAX_ATTACHMENT_BYTES)]
    bytes: u64,
    /// Round trips measured.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    #[command(flatten)]
    relay: device::RelayArgs,
}

fn main() -> anyhow::Result<()> {
    let args = &Args::parse();
    let reps = args
        .relay
        .run("herald-bench-files-", |url, relay_pid, dir| async move {
            run(args, &url, relay_pid, &dir).await
        })?;
    let mb = args.bytes as f64 / 1e6;
    let relay_kind = if args.relay.relay_bin.is_some() {
        "child process (memory = client only)"
    } else {
        "in-process, own runtime (memory includes the relay)"
    };
    for (case, pick) in [("encrypt+upload", 0usize), ("download+decrypt", 1usize)] {
        let rates: Vec<f64> = reps
            .iter()
            .map(|r| mb / r.time[pick].as_secs_f64())
            .collect();
        let growth: Vec<f64> = reps
            .iter()
            .map(|r| r.growth_kb[pick] as f64 / 1024.0)
            .collect();
        Report {
            bench: "files",
            case: format!("{case} bytes={}", args.bytes),
            unit: "MB/s",
            summary: Summary::of(&rates).context("no samples")?,
            extra: serde_json::json!({
                "target": {"mb_per_s": 200, "peak_growth_mib": 64},
                "peak_rss_growth_mib": Summary::of(&growth),
                "seconds": reps.iter().map(|r| r.time[pick].as_secs_f64()).collect::<Vec<_>>(),
                "cpu_s_self": reps.iter().map(|r| r.cpu_self[pick]).collect::<Vec<_>>(),
                "cpu_s_relay_child": reps.iter().map(|r| r.cpu_relay[pick]).collect::<Vec<_>>(),
                "relay_child_peak_rss_mib": reps
                    .iter()
                    .map(|r| r.relay_peak_kb[pick].map(|(peak, _)| peak as f64 / 1024.0))
                    .collect::<Vec<_>>(),
                "relay_child_peak_growth_mib": reps
                    .iter()
                    .map(|r| r.relay_peak_kb[pick].map(|(_, growth)| growth as f64 / 1024.0))
                    .collect::<Vec<_>>(),
                "relay": relay_kind,
            }),
        }
        .print();
    }
    Ok(())
}

struct Rep {
    time: [Duration; 2],
    growth_kb: [u64; 2],
    /// CPU seconds of this process (client; plus the relay when in-process) and of the relay
    /// child, per direction.
    cpu_self: [f64; 2],
    cpu_relay: [Option<f64>; 2],
    /// The relay child's peak resident set (VmHWM) over each direction and its growth over
    /// the resident set before it, in kB (`None` without a child).
    relay_peak_kb: [Option<(u64, u64)>; 2],
}

async fn run(
    args: &Args,
    url: &str,
    relay_pid: Option<u32>,
    dir: &Path,
) -> anyhow::Result<Vec<Rep>> {
    let account = device::create_account(url, &dir.join("device")).await?;
    let (core, agent) = (account.core, account.agent);
    let source = dir.join("big.bin");
    write_file(&source, args.bytes)?;
    let original = sha256_of(&source)?;

    // Warm every path once with a small file, so first-use allocations are not counted.
    let small = dir.join("small.bin");
    write_file(&small, 300_000)?;
    round_trip(&core, &agent, relay_pid, &small, &dir.join("small.out")).await?;
    std::fs::remove_file(dir.join("small.out"))?;

    crypto_only(&source, dir, args.bytes)?;

    let mut reps = Vec::with_capacity(args.reps);
    for rep in 0..args.reps {
        let dest = dir.join(format!("big.out.{rep}"));
        let r = round_trip(&core, &agent, relay_pid, &source, &dest).await?;
        if sha256_of(&dest)? != original {
            bail!("the saved file is not the original");
        }
        std::fs::remove_file(&dest)?;
        eprintln!(
            "# rep {rep}: up {:.2} s (+{} kB peak; CPU self {:.2} s, relay {:?}; relay child peak, +growth kB {:?}), down {:.2} s (+{} kB peak; CPU self {:.2} s, relay {:?}; relay child {:?})",
            r.time[0].as_secs_f64(),
            r.growth_kb[0],
            r.cpu_self[0],
            r.cpu_relay[0],
            r.relay_peak_kb[0],
            r.time[1].as_secs_f64(),
            r.growth_kb[1],
            r.cpu_self[1],
            r.cpu_relay[1],
            r.relay_peak_kb[1],
        );
        reps.push(r);
    }
    Ok(reps)
}

async fn round_trip(
    core: &herald_client::Core,
    agent: &herald_client::agent::AgentClient,
    relay_pid: Option<u32>,
    source: &Path,
    dest: &Path,
) -> anyhow::Result<Rep> {
    let content = MessageContent {
        title: "Build artefact".into(),
        ..Default::default()
    };
    device::reset_peak_rss()?;
    let before = device::status_kb("VmRSS:")?;
    let relay_before = RelayPeak::start(relay_pid)?;
    let cpu = Cpu::start(relay_pid)?;
    let t = Instant::now();
    let record = agent
        .send(
            &content,
            SendOptions {
                attachments: vec![source.to_path_buf()],
                ..Default::default()
            },
        )
        .await
        .map_err(|e| anyhow!("send with file: {e}"))?;
    let up = t.elapsed();
    let up_growth = device::status_kb("VmHWM:")?.saturating_sub(before);
    let (up_self, up_relay) = cpu.stop()?;
    let up_relay_peak = relay_before.stop()?;

    core.sync_once().await.map_err(|e| anyhow!("sync: {e}"))?;
    let id = record.id.to_string();
    let view = core.message(&id).await.map_err(|e| anyhow!("view: {e}"))?;
    let attachment = view.attachments.first().context("no attachment")?;

    device::reset_peak_rss()?;
    let before = device::status_kb("VmRSS:")?;
    let relay_before = RelayPeak::start(relay_pid)?;
    let cpu = Cpu::start(relay_pid)?;
    let t = Instant::now();
    core.save_attachment(&id, &attachment.id, dest)
        .await
        .map_err(|e| anyhow!("save attachment: {e}"))?;
    let down = t.elapsed();
    let down_growth = device::status_kb("VmHWM:")?.saturating_sub(before);
    let (down_self, down_relay) = cpu.stop()?;
    let down_relay_peak = relay_before.stop()?;
    Ok(Rep {
        time: [up, down],
        growth_kb: [up_growth, down_growth],
        cpu_self: [up_self, down_self],
        cpu_relay: [up_relay, down_relay],
        relay_peak_kb: [up_relay_peak, down_relay_peak],
    })
}

/// The relay child's peak resident set over a stretch: its VmHWM is reset at `start`
/// (`/proc/<pid>/clear_refs`, as for this process) and read at `stop`.
struct RelayPeak {
    pid: Option<u32>,
    rss_before_kb: u64,
}

impl RelayPeak {
    fn start(pid: Option<u32>) -> anyhow::Result<RelayPeak> {
        let Some(pid) = pid else {
            return Ok(RelayPeak {
                pid: None,
                rss_before_kb: 0,
            });
        };
        std::fs::OpenOptions::new()
            .write(true)
            .open(format!("/proc/{pid}/clear_refs"))
            .and_then(|mut f| f.write_all(b"5"))
            .with_context(|| format!("resetting the relay child's peak RSS (pid {pid})"))?;
        Ok(RelayPeak {
            pid: Some(pid),
            rss_before_kb: proc_status_kb(pid, "VmRSS:")?,
        })
    }

    /// (peak, peak − resident before) in kB; `None` without a child.
    fn stop(self) -> anyhow::Result<Option<(u64, u64)>> {
        let Some(pid) = self.pid else { return Ok(None) };
        let peak = proc_status_kb(pid, "VmHWM:")?;
        Ok(Some((peak, peak.saturating_sub(self.rss_before_kb))))
    }
}

/// A `kB` field of `/proc/<pid>/status`.
fn proc_status_kb(pid: u32, key: &str) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow!("{key} missing in /proc/{pid}/status"))
}

/// CPU seconds used by this process and the relay child since `start`.
struct Cpu {
    relay_pid: Option<u32>,
    self_start: f64,
    relay_start: Option<f64>,
}

impl Cpu {
    fn start(relay_pid: Option<u32>) -> anyhow::Result<Cpu> {
        Ok(Cpu {
            relay_pid,
            self_start: device::cpu_seconds(std::process::id())?,
            relay_start: relay_pid.map(device::cpu_seconds).transpose()?,
        })
    }

    fn stop(self) -> anyhow::Result<(f64, Option<f64>)> {
        let own = device::cpu_seconds(std::process::id())? - self.self_start;
        let relay = self
            .relay_pid
            .map(device::cpu_seconds)
            .transpose()?
            .zip(self.relay_start)
            .map(|(a, b)| a - b);
        Ok((own, relay))
    }
}

/// The crypto alone, on one thread, with the buffers the client uses (256 KiB): encrypt
/// file → file as the upload does before sending, then decrypt file → nothing. Printed as a
/// comment line: what bounds the end-to-end figures.
fn crypto_only(source: &Path, dir: &Path, bytes: u64) -> anyhow::Result<()> {
    use herald_crypto::files::{decrypt_file, encrypt_file};
    const BUF: usize = 256 * 1024;
    let encrypted = dir.join("crypto-only.age");
    let t = Instant::now();
    let mut out = std::io::BufWriter::with_capacity(BUF, std::fs::File::create(&encrypted)?);
    let info = encrypt_file(
        std::io::BufReader::with_capacity(BUF, std::fs::File::open(source)?),
        &mut out,
        bytes,
    )
    .map_err(|e| anyhow!("encrypt: {e}"))?;
    out.flush()?;
    drop(out);
    let enc = t.elapsed();
    let t = Instant::now();
    decrypt_file(
        std::io::BufReader::with_capacity(BUF, std::fs::File::open(&encrypted)?),
        std::io::sink(),
        &info.key,
        info.plaintext_size,
        &info.sha256,
    )
    .map_err(|e| anyhow!("decrypt: {e}"))?;
    let dec = t.elapsed();
    std::fs::remove_file(&encrypted)?;
    let mb = bytes as f64 / 1e6;
    eprintln!(
        "# crypto only, one thread: encrypt file→file {:.0} MB/s, decrypt file→sink {:.0} MB/s",
        mb / enc.as_secs_f64(),
        mb / dec.as_secs_f64()
    );
    Ok(())
}

/// Writes `n` pseudo-random bytes (xorshift; incompressible) in 1 MiB chunks.
fn write_file(path: &Path, n: u64) -> anyhow::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut buf = vec![0u8; 1 << 20];
    let mut left = n;
    while left > 0 {
        for chunk in buf.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        let take = left.min(buf.len() as u64) as usize;
        f.write_all(&buf[..take])?;
        left -= take as u64;
    }
    f.flush()?;
    Ok(())
}

fn sha256_of(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(ctx.finish().as_ref().to_vec());
        }
        ctx.update(&buf[..n]);
    }
}
