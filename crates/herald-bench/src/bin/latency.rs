//! `latency`: send → decrypted in the desktop core's cache and the UI event emitted, over
//! loopback (docs/benchmarks.md, "Device core and files").
//!
//! A real relay on 127.0.0.1:0, a device core created the way the desktop creates it, with
//! its background sync running (websocket + catch-up), and an agent connection sending sealed
//! messages with `AgentClient::send` (what `herald send` does). The clock starts just before
//! the agent's send call and stops when the core's event for that message id reaches the
//! subscriber the Tauri shell uses (`Core::subscribe`) and is serialized to JSON the way
//! `AppHandle::emit` serializes it. By then the message was verified, decrypted, validated,
//! re-sealed under the local key and committed to the cache.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use clap::Parser;
use herald_bench::device;
use herald_bench::{Report, Summary};
use herald_client::agent::SendOptions;
use herald_client::view::CoreEvent;
use herald_protocol::content::MessageContent;
use tokio::sync::mpsc;

#[derive(Debug, Parser)]
#[command(about = "Send → decrypted, cached and UI event emitted, over loopback")]
struct Args {
    /// Measured sends (after the warm-up).
    #[arg(long, default_value_t = 500)]
    sends: usize,
    /// Unmeasured sends first (connections, directory, caches warm).
    #[arg(long, default_value_t = 20)]
    warmup: usize,
    /// Pause between one message's event and the next send, in ms (independent samples).
    #[arg(long, default_value_t = 10)]
    gap_ms: u64,
    /// Markdown body size in bytes.
    #[arg(long, default_value_t = 2048)]
    body_bytes: usize,
    #[command(flatten)]
    relay: device::RelayArgs,
}

fn main() -> anyhow::Result<()> {
    let args = &Args::parse();
    let samples = args
        .relay
        .run("herald-bench-latency-", |url, _, dir| async move {
            run(args, &url, &dir).await
        })?;
    let summary = Summary::of_durations(&samples).context("no samples")?;
    Report {
        bench: "latency",
        case: format!("send→event body={}B", args.body_bytes),
        unit: "ms",
        summary,
        extra: serde_json::json!({
            "target": {"p50_ms": 30, "p99_ms": 100},
            "relay": args.relay.relay_kind(),
            "gap_ms": args.gap_ms,
            "warmup": args.warmup,
        }),
    }
    .print();
    Ok(())
}

async fn run(args: &Args, url: &str, dir: &std::path::Path) -> anyhow::Result<Vec<Duration>> {
    let account = device::create_account(url, &dir.join("device")).await?;
    let core = account.core.clone();
    let agent = account.agent;

    // The shell's side: every core event is received and serialized as `emit` would.
    let (arrived_tx, mut arrived) = mpsc::unbounded_channel::<(String, Instant)>();
    let mut events = core.subscribe();
    let (connected_tx, connected) = tokio::sync::oneshot::channel::<()>();
    let listener = tokio::spawn(async move {
        let mut connected_tx = Some(connected_tx);
        loop {
            let event = match events.recv().await {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            };
            let json = serde_json::to_string(&event).unwrap_or_default();
            let at = Instant::now();
            std::hint::black_box(&json);
            match event {
                CoreEvent::MessageUpserted {
                    message,
                    is_new: true,
                } => {
                    let _ = arrived_tx.send((message.id, at));
                }
                CoreEvent::SyncState {
                    connected: true, ..
                } => {
                    if let Some(tx) = connected_tx.take() {
                        let _ = tx.send(());
                    }
                }
                _ => {}
            }
        }
    });
    core.start_sync().map_err(|e| anyhow!("start sync: {e}"))?;
    tokio::time::timeout(Duration::from_secs(30), connected)
        .await
        .context("sync did not connect within 30 s")??;

    let mut early: HashMap<String, Instant> = HashMap::new();
    let mut samples = Vec::with_capacity(args.sends);
    for i in 0..args.warmup + args.sends {
        let content = MessageContent {
            title: format!("Latency probe {i}"),
            body: device::markdown_body(args.body_bytes, i as u64),
            ..Default::default()
        };
        let started = Instant::now();
        let record = agent
            .send(&content, SendOptions::default())
            .await
            .map_err(|e| anyhow!("send {i}: {e}"))?;
        let id = record.id.to_string();
        let at = loop {
            if let Some(at) = early.remove(&id) {
                break at;
            }
            match tokio::time::timeout(Duration::from_secs(30), arrived.recv()).await {
                Ok(Some((got, at))) if got == id => break at,
                Ok(Some((got, at))) => {
                    early.insert(got, at);
                }
                Ok(None) => bail!("the event listener stopped"),
                Err(_) => bail!("no event for message {i} within 30 s"),
            }
        };
        if i >= args.warmup {
            samples.push(at.saturating_duration_since(started));
        }
        if args.gap_ms > 0 {
            tokio::time::sleep(Duration::from_millis(args.gap_ms)).await;
        }
    }
    core.stop_sync();
    listener.abort();
    // The message really is in the cache, decrypted and readable.
    let inbox = core.inbox().await.map_err(|e| anyhow!("inbox: {e}"))?;
    let readable = inbox.iter().filter(|m| m.error.is_none()).count();
    if readable != args.warmup + args.sends {
        bail!(
            "{readable} readable messages cached, expected {}",
            args.warmup + args.sends
        );
    }
    Ok(samples)
}
