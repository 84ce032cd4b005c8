//! `herald-relay`: runs the relay on one address with one data directory. Logs go to stderr
//! (`RUST_LOG`); tokens, envelopes and bodies are never logged.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use herald_relay::{spawn, RelayConfig};
use tracing_subscriber::EnvFilter;

/// The longest `--header-timeout-secs` / `--body-timeout-secs` (an hour): larger values
/// would overflow the server's deadline arithmetic (`Instant + Duration`) on every request.
const MAX_TIMEOUT_SECS: u64 = 3_600;
/// The most `--max-connections`.
const MAX_CONNECTIONS: u64 = 1_000_000;
/// The most `--agent-requests-per-day`.
const MAX_REQUESTS_PER_DAY: i64 = 1_000_000_000;
/// The most `--agent-poll-seconds-per-day`.
const MAX_POLL_SECONDS_PER_DAY: u64 = 1_000_000_000;

#[derive(Debug, Parser)]
#[command(name = "herald-relay", version, about = "The Herald relay")]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "HERALD_RELAY_LISTEN", default_value = "127.0.0.1:8457")]
    listen: SocketAddr,
    /// Directory for relay.db.
    #[arg(long, env = "HERALD_RELAY_DATA_DIR")]
    data_dir: PathBuf,
    /// URL clients reach the relay at, when behind a proxy: an absolute http:// or https:// URL
    /// with a host, optionally a port and a path prefix (no query or fragment).
    #[arg(long, env = "HERALD_RELAY_PUBLIC_URL")]
    public_url: Option<String>,
    /// Requests agent credentials of one account may make per UTC day (docs/agents.md);
    /// 0..=1,000,000,000 (0: agents may make none).
    #[arg(long, env = "HERALD_RELAY_AGENT_REQUESTS_PER_DAY", default_value_t = herald_relay::agents::budget::DEFAULT_REQUESTS_PER_DAY,
        value_parser = clap::value_parser!(u32).range(0..=MAX_REQUESTS_PER_DAY))]
    agent_requests_per_day: u32,
    /// Seconds agents of one account may wait in GET /v1/replies per UTC day;
    /// 0..=1,000,000,000 (0: no waiting).
    #[arg(long, env = "HERALD_RELAY_AGENT_POLL_SECONDS_PER_DAY", default_value_t = herald_relay::agents::budget::DEFAULT_POLL_SECONDS_PER_DAY,
        value_parser = clap::value_parser!(u64).range(0..=MAX_POLL_SECONDS_PER_DAY))]
    agent_poll_seconds_per_day: u64,
    /// Allow reply-event webhooks to loopback addresses (127.0.0.0/8, ::1), over http too.
    /// For tests and local development only (docs/mcp.md, "Reply event").
    #[arg(long, env = "HERALD_RELAY_ALLOW_LOOPBACK_WEBHOOKS")]
    allow_loopback_webhooks: bool,
    /// Connections served at once, websockets included; more wait in the listen backlog.
    /// Default: three quarters of the open-file limit after 256 reserved, within 64..=16384
    /// (docs/protocol.md, "Connection limits"); 1..=1,000,000.
    #[arg(long, env = "HERALD_RELAY_MAX_CONNECTIONS",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_CONNECTIONS))]
    max_connections: Option<usize>,
    /// Seconds a client may take to send a request's headers (also how long an idle
    /// kept-alive connection stays open); 1..=3600.
    #[arg(long, env = "HERALD_RELAY_HEADER_TIMEOUT_SECS", default_value_t = herald_relay::http_server::DEFAULT_HEADER_READ_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=MAX_TIMEOUT_SECS))]
    header_timeout_secs: u64,
    /// Seconds a request body may go without sending a byte; 1..=3600.
    #[arg(long, env = "HERALD_RELAY_BODY_TIMEOUT_SECS", default_value_t = herald_relay::http_server::DEFAULT_BODY_IDLE_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=MAX_TIMEOUT_SECS))]
    body_timeout_secs: u64,
    /// Take the client's address for per-client budgets from the last X-Forwarded-For entry (the one the proxy added).
    /// Only behind a reverse proxy that sets that header (and strips clients' own); off by
    /// default, when the peer address is used.
    #[arg(long, env = "HERALD_RELAY_TRUST_FORWARDED_FOR")]
    trust_forwarded_for: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // RUST_LOG, under the guard that keeps dependencies' content-carrying levels off.
    herald_log::init(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")));
    let args = Args::parse();
    // Checked here rather than by clap, whose message would repeat a password in the URL.
    if let Some(public) = &args.public_url {
        if let Err(e) = herald_relay::public_url::parse_public_url(public) {
            eprintln!("error: --public-url (HERALD_RELAY_PUBLIC_URL): {e}");
            std::process::exit(2);
        }
    }
    // Serve as many connections as the hard open-file limit allows (the default connection
    // cap follows the soft limit).
    if let Err(e) = rlimit::increase_nofile_limit(u64::MAX) {
        tracing::warn!(error = %e, "could not raise the open-file limit");
    }
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let data_dir = args.data_dir.clone();
    let relay = spawn(
        RelayConfig {
            data_dir: args.data_dir,
            public_url: args.public_url,
            agent_limits: herald_relay::AgentLimits {
                requests_per_day: args.agent_requests_per_day,
                poll_seconds_per_day: args.agent_poll_seconds_per_day,
            },
            webhooks: herald_relay::WebhookConfig {
                allow_loopback: args.allow_loopback_webhooks,
                ..Default::default()
            },
            socket_limits: Default::default(),
            http_limits: herald_relay::http_server::HttpLimits {
                header_read_timeout: Duration::from_secs(args.header_timeout_secs),
                body_idle_timeout: Duration::from_secs(args.body_timeout_secs),
                max_connections: args.max_connections,
                ..Default::default()
            },
            trust_forwarded_for: args.trust_forwarded_for,
            ws_ping_interval: None,
            ws_write_timeout: None,
        },
        listener,
    )
    .await
    .with_context(|| {
        format!(
            "starting the relay with the data dir {}: pass a directory this user can create and write (--data-dir, HERALD_RELAY_DATA_DIR)",
            data_dir.display()
        )
    })?;
    tracing::info!(url = %relay.url(), "herald-relay ready");
    shutdown_signal().await;
    tracing::info!("shutting down");
    relay.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
