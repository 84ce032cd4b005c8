//! A large file through the real relay in bounded memory: the agent encrypts and uploads it,
//! the device downloads, decrypts, verifies and saves it, and the SHA-256 of what was saved
//! equals the original's. Peak resident memory of this process (relay, agent and device all
//! run in it) may grow by less than 64 MB over the round trip.
//!
//! Its own test binary with one test, so nothing else runs in the process while the peak is
//! measured: `/proc/self/clear_refs` resets the peak (VmHWM) to the current size first.

mod core_setup;

use std::io::{Read, Write};
use std::path::Path;
use std::time::Instant;

use herald_client::agent::SendOptions;
use herald_protocol::content::MessageContent;

/// The file's size: 100 MB, the largest attachment.
const FILE_BYTES: u64 = herald_protocol::content::MAX_ATTACHMENT_BYTES;
/// Allowed growth of the peak resident set over the round trip.
const MAX_GROWTH_KB: u64 = 64 * 1024;

/// A `/proc/self/status` value in kB.
fn status_kb(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{key} in /proc/self/status"))
}

/// Writes `n` pseudo-random bytes (xorshift; incompressible enough) in 1 MiB chunks.
fn write_file(path: &Path, n: u64) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
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
        f.write_all(&buf[..take]).expect("write");
        left -= take as u64;
    }
    f.flush().expect("flush");
}

fn sha256_of(path: &Path) -> Vec<u8> {
    let mut f = std::fs::File::open(path).expect("open");
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).expect("read");
        if n == 0 {
            return ctx.finish().as_ref().to_vec();
        }
        ctx.update(&buf[..n]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_100_mb_file_round_trips_in_bounded_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let relay = core_setup::spawn_relay(&dir.path().join("relay")).await;
    let core = core_setup::open_core(&dir.path().join("device"), "Test laptop");
    core.create_account(&relay.url()).await.expect("account");
    let agent = core_setup::connect_agent(&core, &relay.url(), "Agent").await;
    let source = dir.path().join("big.bin");
    write_file(&source, FILE_BYTES);
    let original = sha256_of(&source);

    // Warm up every path once with a small file, so first-use allocations are not counted.
    let small = dir.path().join("small.bin");
    write_file(&small, 300_000);
    let warm: MessageContent =
        serde_json::from_value(serde_json::json!({"title": "warm-up"})).unwrap();
    let sent = agent
        .send(
            &warm,
            SendOptions {
                attachments: vec![small],
                ..Default::default()
            },
        )
        .await
        .expect("warm-up send");
    core.sync_once().await.expect("sync");
    let warm_view = core.message(&sent.id.to_string()).await.expect("view");
    core.save_attachment(
        &sent.id.to_string(),
        &warm_view.attachments[0].id,
        &dir.path().join("small.out"),
    )
    .await
    .expect("warm-up save");

    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak resident set");
    let before = status_kb("VmRSS:");
    let started = Instant::now();
    let content: MessageContent =
        serde_json::from_value(serde_json::json!({"title": "Big file"})).unwrap();
    let record = agent
        .send(
            &content,
            SendOptions {
                attachments: vec![source.clone()],
                ..Default::default()
            },
        )
        .await
        .expect("100 MB sent");
    let uploaded = started.elapsed();
    core.sync_once().await.expect("sync");
    let id = record.id.to_string();
    let view = core.message(&id).await.expect("view");
    assert_eq!(
        view.attachments[0].size, FILE_BYTES,
        "the size the device sees"
    );
    let dest = dir.path().join("big.out");
    core.save_attachment(&id, &view.attachments[0].id, &dest)
        .await
        .expect("100 MB saved");
    let total = started.elapsed();
    let peak = status_kb("VmHWM:");
    let growth = peak.saturating_sub(before);
    eprintln!(
        "100 MB round trip: upload {:.1} s, total {:.1} s; resident {before} kB before, peak {peak} kB (+{growth} kB)",
        uploaded.as_secs_f64(),
        total.as_secs_f64()
    );
    assert_eq!(sha256_of(&dest), original, "the saved file is the original");
    assert!(
        growth < MAX_GROWTH_KB,
        "peak resident memory grew by {growth} kB, more than {MAX_GROWTH_KB} kB"
    );
    relay.shutdown().await;
}
