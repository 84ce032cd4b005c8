//! `fanout`: how long until every connected socket of an account has the sync nudge of one
//! new message.
//!
//! A `herald-relay` process (release build, separate process) on 127.0.0.1:0; one account
//! with real keys, `--devices` devices (100, the most an account may hold: MAX_DEVICES), each
//! with `--sockets-per-device` open `GET /ws` sockets (10), so 1,000 sockets that must ALL be
//! nudged for every message (a connection's sockets only hear of its own messages, so device
//! sockets are the case where one post reaches every socket). 10 per device is the relay's
//! per-credential socket cap (an 11th would replace the oldest; docs/protocol.md, `GET /ws`),
//! 1,000 is below its 1,200 per account. One connection posts pre-sealed messages one at a time; for
//! each, the bench takes the time from sending the POST, and from its 201, until the last
//! socket has read a `{"type":"sync","revision":N}` frame with N ≥ the message's revision.
//! The sockets are read by this process (2 tokio workers), so the figure includes reading
//! 1,000 frames on the same 2 cores as the relay.
//!
//! `cargo build --release -p herald-relay -p herald-bench && target/release/fanout`

use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context};
use clap::Parser;
use futures_util::StreamExt;
use herald_bench::relay_fixtures::{create_account, create_sender, enrol_device, seal_post};
use herald_bench::relay_process::{default_relay_bin, RelayProcess};
use herald_bench::{Report, Summary};
use herald_protocol::wire::{MessageRecord, ServerFrame};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

#[derive(Debug, Parser)]
#[command(about = "Sync nudge fan-out: time until every socket of an account is notified")]
struct Args {
    /// Devices of the account (the first included).
    #[arg(long, default_value_t = 100)]
    devices: usize,
    /// Open sockets per device.
    #[arg(long, default_value_t = 10)]
    sockets_per_device: usize,
    /// Timed posts.
    #[arg(long, default_value_t = 300)]
    iterations: usize,
    /// Pause between posts, in milliseconds.
    #[arg(long, default_value_t = 20)]
    pause_ms: u64,
    /// The herald-relay binary (default: next to this binary).
    #[arg(long)]
    relay_bin: Option<std::path::PathBuf>,
}

/// Target: all 1,000 sockets notified within 100 ms.
const TARGET_MS: f64 = 100.0;
/// Longest wait for one fan-out before the bench gives up.
const FANOUT_TIMEOUT: Duration = Duration::from_secs(10);

/// One sync frame read by socket `socket`.
struct Arrival {
    socket: usize,
    revision: u64,
    at: Instant,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let sockets = args.devices * args.sockets_per_device;
    // Each socket is a descriptor here and one in the relay (which inherits this limit).
    let nofile = rlimit::increase_nofile_limit((sockets as u64) * 2 + 1_024)?;
    ensure!(
        nofile as usize > sockets + 256,
        "RLIMIT_NOFILE is {nofile}: too low for {sockets} sockets"
    );
    let bin = match &args.relay_bin {
        Some(b) => b.clone(),
        None => default_relay_bin()?,
    };
    let dir = tempfile::tempdir()?;
    let relay = RelayProcess::start(&bin, &dir.path().join("relay"))?;
    let http = reqwest::Client::new();
    let account = create_account(&relay.url).await;
    let mut tokens = vec![account.device_token.clone()];
    for i in 1..args.devices {
        tokens.push(enrol_device(&http, &relay.url, &account, &format!("bench device {i}")).await?);
    }
    let sender = create_sender(&http, &relay.url, &account, "bench agent").await?;
    let posts = (0..args.iterations + 10)
        .map(|i| seal_post(&account.keys, &sender, i, 500))
        .collect::<anyhow::Result<Vec<_>>>()?;

    let (tx, mut rx) = mpsc::unbounded_channel::<Arrival>();
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel::<()>();
    for socket in 0..sockets {
        let token = &tokens[socket / args.sockets_per_device];
        let mut request = relay.ws_url().into_client_request()?;
        request.headers_mut().insert(
            "Authorization",
            HeaderValue::from_str(&format!("Bearer {token}"))?,
        );
        // Small read buffers, as the relay's own: tungstenite zero-fills the whole read buffer
        // (128 KiB by default) on every read, which would bill this reader, not the relay.
        let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
        let (mut stream, _) =
            tokio_tungstenite::connect_async_with_config(request, Some(config), true)
                .await
                .with_context(|| format!("opening socket {socket}"))?;
        let (tx, ready_tx) = (tx.clone(), ready_tx.clone());
        tokio::spawn(async move {
            let mut ready = Some(ready_tx);
            while let Some(Ok(frame)) = stream.next().await {
                let Message::Text(text) = frame else { continue };
                let at = Instant::now();
                let Ok(ServerFrame::Sync { revision }) = serde_json::from_str(&text) else {
                    continue;
                };
                if let Some(ready) = ready.take() {
                    let _ = ready.send(()); // the frame sent on connect
                    continue;
                }
                let arrival = Arrival {
                    socket,
                    revision: revision.0,
                    at,
                };
                if tx.send(arrival).is_err() {
                    break;
                }
            }
        });
    }
    for _ in 0..sockets {
        tokio::time::timeout(FANOUT_TIMEOUT, ready_rx.recv())
            .await
            .context("a socket never got its first sync frame")?;
    }
    eprintln!(
        "# {sockets} sockets open ({} devices); relay RSS {:?} KiB",
        args.devices,
        relay.rss_kib()
    );

    let mut from_send = Vec::new();
    let mut from_ack = Vec::new();
    let mut first_from_send = Vec::new();
    for (i, post) in posts.into_iter().enumerate() {
        while rx.try_recv().is_ok() {} // nothing stale counts
        let sent = Instant::now();
        let resp = http
            .post(format!("{}/messages", relay.url))
            .bearer_auth(&post.bearer)
            .header("Idempotency-Key", &post.idempotency_key)
            .header("Content-Type", "application/json")
            .body(post.body)
            .send()
            .await?;
        let acked = Instant::now();
        ensure!(resp.status() == 201, "POST /messages: {}", resp.status());
        let record: MessageRecord = resp.json().await?;
        let (first, last) = wait_for_all(&mut rx, sockets, record.revision.0).await?;
        if i >= 10 {
            // The first ten are warm-up.
            from_send.push(last.duration_since(sent));
            from_ack.push(last.saturating_duration_since(acked));
            first_from_send.push(first.duration_since(sent));
        }
        tokio::time::sleep(Duration::from_millis(args.pause_ms)).await;
    }
    let extra = serde_json::json!({
        "sockets": sockets,
        "devices": args.devices,
        "sockets_per_device": args.sockets_per_device,
        "relay": "separate process",
        "target_ms": TARGET_MS,
    });
    for (case, samples) in [
        ("last socket, from POST sent", &from_send),
        ("last socket, from 201 received", &from_ack),
        ("first socket, from POST sent", &first_from_send),
    ] {
        Report {
            bench: "fanout",
            case: format!("sockets={sockets} {case}"),
            unit: "ms",
            summary: Summary::of_durations(samples).context("no samples")?,
            extra: extra.clone(),
        }
        .print();
    }
    relay.stop()?;
    Ok(())
}

/// Waits until every socket has read a frame with revision ≥ `revision`; returns the first
/// and the last such arrival.
async fn wait_for_all(
    rx: &mut mpsc::UnboundedReceiver<Arrival>,
    sockets: usize,
    revision: u64,
) -> anyhow::Result<(Instant, Instant)> {
    let mut seen = vec![false; sockets];
    let mut count = 0;
    let (mut first, mut last): (Option<Instant>, Option<Instant>) = (None, None);
    let deadline = tokio::time::Instant::now() + FANOUT_TIMEOUT;
    while count < sockets {
        let Ok(Some(a)) = tokio::time::timeout_at(deadline, rx.recv()).await else {
            bail!("only {count} of {sockets} sockets were nudged within {FANOUT_TIMEOUT:?}");
        };
        if a.revision < revision || seen[a.socket] {
            continue;
        }
        seen[a.socket] = true;
        count += 1;
        first = Some(first.map_or(a.at, |f| f.min(a.at)));
        last = Some(last.map_or(a.at, |l| l.max(a.at)));
    }
    match (first, last) {
        (Some(f), Some(l)) => Ok((f, l)),
        _ => bail!("no socket"),
    }
}
