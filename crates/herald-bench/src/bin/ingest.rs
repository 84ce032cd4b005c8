//! `ingest`: relay ingest throughput and latency, durable, with N concurrent senders.
//!
//! A `herald-relay` process (release build, separate process) on 127.0.0.1:0 with a fresh data
//! dir; one account with real keys and one connection per sender. Every message is sealed
//! with herald-crypto as the agent SDK seals it (about `--body-chars` of Markdown), BEFORE the
//! timed section, so the timing is the relay's: HTTP parsing, authentication, envelope checks,
//! the SQLite transaction and its commit (WAL, `synchronous=FULL`: a 201 means the message is
//! in the fsynced WAL). Each sender posts its share one request at a time (keep-alive HTTP/1.1)
//! with a fresh Idempotency-Key and checks for 201.
//!
//! With `--prefill 0,100000,1000000` the same is repeated on databases that already hold that
//! many messages (copies of a real posted row with new ids, keys and revisions, written
//! straight into relay.db while the relay is stopped), to show how ingest cost grows.
//!
//! `cargo build --release -p herald-relay -p herald-bench && target/release/ingest`

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context};
use clap::Parser;
use herald_bench::relay_fixtures::{create_account, create_sender, seal_post, SealedPost, Sender};
use herald_bench::relay_process::{default_relay_bin, RelayProcess};
use herald_bench::{Report, Summary};
use herald_crypto::AccountKeys;

#[derive(Debug, Parser)]
#[command(about = "Relay ingest: durable POST /messages throughput and latency")]
struct Args {
    /// Concurrent senders (each one connection, one request in flight).
    #[arg(long, value_delimiter = ',', default_value = "8,64")]
    senders: Vec<usize>,
    /// Messages per timed run.
    #[arg(long, default_value_t = 10_000)]
    messages: usize,
    /// Timed runs per concurrency.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Untimed messages sent first at each concurrency.
    #[arg(long, default_value_t = 1_000)]
    warmup: usize,
    /// Markdown characters per message body.
    #[arg(long, default_value_t = 1_000)]
    body_chars: usize,
    /// Stored messages before measuring; one fresh relay per value.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    prefill: Vec<usize>,
    /// The herald-relay binary (default: next to this binary).
    #[arg(long)]
    relay_bin: Option<std::path::PathBuf>,
}

/// Target: ≥ 3,000 messages/s and p99 ≤ 50 ms at 8 and 64 senders.
const TARGET_RATE: f64 = 3_000.0;
const TARGET_P99_MS: f64 = 50.0;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let bin = match &args.relay_bin {
        Some(b) => b.clone(),
        None => default_relay_bin()?,
    };
    for &prefill in &args.prefill {
        run_size(&args, &bin, prefill).await?;
    }
    Ok(())
}

async fn run_size(args: &Args, bin: &Path, prefill: usize) -> anyhow::Result<()> {
    let dir = tempfile::Builder::new()
        .prefix("herald-ingest-")
        .tempdir_in(
            std::env::var_os("HERALD_BENCH_DIR")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(std::env::temp_dir),
        )?;
    let data = dir.path().join("relay");
    let mut relay = RelayProcess::start(bin, &data)?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(1024)
        .build()?;
    let account = create_account(&relay.url).await;
    let max_senders = args.senders.iter().copied().max().unwrap_or(1);
    let mut senders = Vec::with_capacity(max_senders);
    for i in 0..max_senders {
        senders
            .push(create_sender(&http, &relay.url, &account, &format!("bench agent {i}")).await?);
    }
    let keys = account.keys;
    // One real message per sender: the templates of the prefill rows.
    let first = seal_all(&keys, &senders, senders.len(), args.body_chars, 0)?;
    post_all(&http, &relay.url, first, senders.len()).await?;
    if prefill > 0 {
        relay.stop()?;
        let t = Instant::now();
        fill(&data.join("relay.db"), prefill)?;
        eprintln!(
            "# filled {prefill} messages in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        relay = RelayProcess::start(bin, &data)?;
    }
    let mut seq = senders.len();
    for &concurrency in &args.senders {
        let warm = seal_all(
            &keys,
            &senders[..concurrency],
            args.warmup,
            args.body_chars,
            seq,
        )?;
        seq += args.warmup;
        post_all(&http, &relay.url, warm, concurrency).await?;
        let mut rates = Vec::new();
        let mut latencies = Vec::new();
        let mut cpu_per_msg = Vec::new();
        for _ in 0..args.runs {
            let posts = seal_all(
                &keys,
                &senders[..concurrency],
                args.messages,
                args.body_chars,
                seq,
            )?;
            seq += args.messages;
            let cpu = relay.cpu_time();
            let t = Instant::now();
            let lat = post_all(&http, &relay.url, posts, concurrency).await?;
            let wall = t.elapsed();
            if let (Some(before), Some(after)) = (cpu, relay.cpu_time()) {
                cpu_per_msg.push((after - before).as_secs_f64() * 1e6 / args.messages as f64);
            }
            rates.push(args.messages as f64 / wall.as_secs_f64());
            latencies.extend(lat);
        }
        let db = db_bytes(&data);
        let extra = serde_json::json!({
            "prefill": prefill,
            "senders": concurrency,
            "messages_per_run": args.messages,
            "runs": args.runs,
            "body_chars": args.body_chars,
            "db_bytes": db,
            "relay_rss_kib": relay.rss_kib(),
            "relay_cpu_us_per_msg": Summary::of(&cpu_per_msg).map(|s| s.p50),
            "relay": "separate process",
            "target": {"rate": TARGET_RATE, "p99_ms": TARGET_P99_MS},
        });
        let case = format!("prefill={prefill} senders={concurrency}");
        Report {
            bench: "ingest",
            case: format!("{case} throughput"),
            unit: "msg/s",
            summary: Summary::of(&rates).context("no runs")?,
            extra: extra.clone(),
        }
        .print();
        Report {
            bench: "ingest",
            case: format!("{case} latency"),
            unit: "ms",
            summary: Summary::of_durations(&latencies).context("no requests")?,
            extra,
        }
        .print();
    }
    relay.stop()?;
    Ok(())
}

/// Seals `n` messages, sender `i % senders.len()` for message `i`, on two threads (both
/// cores). Untimed.
fn seal_all(
    keys: &AccountKeys,
    senders: &[Sender],
    n: usize,
    chars: usize,
    first_seq: usize,
) -> anyhow::Result<Vec<SealedPost>> {
    const THREADS: usize = 2;
    let mut all = std::thread::scope(|scope| -> anyhow::Result<Vec<(usize, SealedPost)>> {
        let handles: Vec<_> = (0..THREADS)
            .map(|h| {
                scope.spawn(move || {
                    (h..n)
                        .step_by(THREADS)
                        .map(|i| {
                            let sender = &senders[i % senders.len()];
                            seal_post(keys, sender, first_seq + i, chars).map(|p| (i, p))
                        })
                        .collect::<anyhow::Result<Vec<_>>>()
                })
            })
            .collect();
        let mut all = Vec::with_capacity(n);
        for h in handles {
            all.extend(
                h.join()
                    .map_err(|_| anyhow::anyhow!("sealing panicked"))??,
            );
        }
        Ok(all)
    })?;
    all.sort_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, p)| p).collect())
}

/// Posts `posts` with `concurrency` tasks (task `t` sends posts `t, t + c, …`, which all
/// belong to sender `t`); returns every request's latency. Fails on any non-201.
async fn post_all(
    http: &reqwest::Client,
    url: &str,
    posts: Vec<SealedPost>,
    concurrency: usize,
) -> anyhow::Result<Vec<Duration>> {
    let mut queues: Vec<Vec<SealedPost>> = (0..concurrency).map(|_| Vec::new()).collect();
    for (i, p) in posts.into_iter().enumerate() {
        queues[i % concurrency].push(p);
    }
    let endpoint = format!("{url}/messages");
    let tasks: Vec<_> = queues
        .into_iter()
        .map(|queue| {
            let (http, endpoint) = (http.clone(), endpoint.clone());
            tokio::spawn(async move {
                let mut lat = Vec::with_capacity(queue.len());
                for post in queue {
                    let t = Instant::now();
                    let resp = http
                        .post(&endpoint)
                        .bearer_auth(&post.bearer)
                        .header("Idempotency-Key", &post.idempotency_key)
                        .header("Content-Type", "application/json")
                        .body(post.body)
                        .send()
                        .await?;
                    let status = resp.status();
                    let body = resp.bytes().await?;
                    lat.push(t.elapsed());
                    ensure!(
                        status == 201,
                        "POST /messages: {status}: {}",
                        String::from_utf8_lossy(&body)
                    );
                }
                anyhow::Ok(lat)
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await??);
    }
    Ok(all)
}

/// relay.db plus its WAL, in bytes.
fn db_bytes(data: &Path) -> u64 {
    ["relay.db", "relay.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(data.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

/// Writes `n` more messages into a stopped relay's database: copies of the posted rows
/// (round-robin over them, so the same senders and envelope sizes) with fresh message ids,
/// revisions after the account's current one, and an idempotency row each, in transactions of
/// 20,000 rows. `synchronous=OFF` here: filling is set-up, not what is measured.
fn fill(db: &Path, n: usize) -> anyhow::Result<()> {
    let mut conn = rusqlite::Connection::open(db)?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    let templates: Vec<(String, String, String)> = {
        let mut stmt = conn.prepare(
            "SELECT m.id, m.account_id, i.scope FROM messages m
             JOIN idempotency i ON i.message_id = m.id ORDER BY m.revision",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    ensure!(!templates.is_empty(), "no message to copy");
    let account = templates[0].1.clone();
    let mut revision: i64 = conn.query_row(
        "SELECT revision FROM accounts WHERE id = ?1",
        [&account],
        |r| r.get(0),
    )?;
    let mut done = 0;
    while done < n {
        let tx = conn.transaction()?;
        {
            let mut copy = tx.prepare(
                "INSERT INTO messages (id, account_id, revision, kind, status, expects_answer,
                    sender_type, sender_id, sender_name, created_at_ms, expires_at_ms, reply_to,
                    thread_id, thread_sequence, size, envelope)
                 SELECT ?1, account_id, ?2, kind, status, expects_answer, sender_type, sender_id,
                    sender_name, created_at_ms, expires_at_ms, reply_to, ?1, 0, size, envelope
                 FROM messages WHERE id = ?3",
            )?;
            let mut idem = tx.prepare(
                "INSERT INTO idempotency (scope, key, request_hash, message_id, created_at_ms)
                 VALUES (?1, ?2, ?3, ?4, 0)",
            )?;
            for _ in 0..(n - done).min(20_000) {
                let (template, _, scope) = &templates[done % templates.len()];
                let id = herald_crypto::new_message_id();
                revision += 1;
                copy.execute(rusqlite::params![id.as_str(), revision, template])?;
                idem.execute(rusqlite::params![
                    scope,
                    herald_crypto::new_bearer("idk_"),
                    &herald_crypto::random_bytes::<32>()[..],
                    id.as_str(),
                ])?;
                done += 1;
            }
        }
        tx.execute(
            "UPDATE accounts SET revision = ?2 WHERE id = ?1",
            rusqlite::params![account, revision],
        )?;
        tx.commit()?;
    }
    conn.pragma_update(None, "wal_checkpoint", "TRUNCATE")?;
    Ok(())
}
