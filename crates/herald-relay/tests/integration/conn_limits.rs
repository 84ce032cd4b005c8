//! Connection-level limits (docs/protocol.md, "Connection limits"), against a real relay on
//! 127.0.0.1:0 over real sockets: request heads must arrive in time and fit the read buffer,
//! idle kept-alive connections are closed, a stalled request body fails, connections past the
//! cap wait for a free slot; a websocket client may not send big frames and must answer pings;
//! the unauthenticated budgets count per client address.

use crate::agent_common;
use crate::common;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use common::*;
use futures_util::StreamExt;
use herald_protocol::ErrorCode;
use herald_relay::http_server::HttpLimits;
use herald_relay::{RelayConfig, RunningRelay};
use herald_testkit::{fixtures, Api, Reply};
use serde_json::json;
use tempfile::TempDir;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

/// Bound for anything the relay must do "soon" (a bound, not a delay).
const BOUND: Duration = Duration::from_secs(30);

/// A relay with `config` (its data directory filled in) and a frozen manual clock.
async fn start(config: RelayConfig) -> (RunningRelay, TempDir) {
    let started = agent_common::ManualRelay::start(config).await;
    (started.relay, started.dir)
}

fn http(limits: HttpLimits) -> RelayConfig {
    RelayConfig {
        http_limits: limits,
        ..Default::default()
    }
}

/// Reads until the relay closes the connection (EOF or reset); returns what arrived. Panics
/// when the connection is still open after [`BOUND`].
async fn read_to_close(stream: &mut (impl AsyncRead + Unpin)) -> Vec<u8> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(BOUND, stream.read(&mut buf))
            .await
            .expect("the relay closes the connection in time")
        {
            Ok(0) | Err(_) => return seen,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
}

/// Writes `bytes` on a new connection to a relay with `limits`, then reads until the relay
/// closes it; returns what arrived.
async fn written_until_closed(limits: HttpLimits, bytes: &[u8]) -> String {
    let (relay, _dir) = start(http(limits)).await;
    let mut stream = TcpStream::connect(relay.local_addr()).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let seen = read_to_close(&mut stream).await;
    relay.shutdown().await;
    String::from_utf8_lossy(&seen).into_owned()
}

/// A 500 ms budget for a request head, and so for an idle kept-alive connection.
fn short_head_timeout() -> HttpLimits {
    HttpLimits {
        header_read_timeout: Duration::from_millis(500),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_request_head_that_never_ends_is_cut_off() {
    // A slowloris: a head that is never finished.
    written_until_closed(
        short_head_timeout(),
        b"GET /health HTTP/1.1\r\nHost: relay\r\nX-Slow: 1\r\n",
    )
    .await;
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed() {
    let text = written_until_closed(
        short_head_timeout(),
        b"GET /health HTTP/1.1\r\nHost: relay\r\n\r\n",
    )
    .await;
    assert!(
        text.starts_with("HTTP/1.1 200"),
        "the request is answered before the idle connection is closed: {text}"
    );
}

#[tokio::test]
async fn a_request_head_over_the_buffer_is_refused() {
    let (relay, _dir) = start(RelayConfig::default()).await;
    let mut stream = TcpStream::connect(relay.local_addr()).await.unwrap();
    let (mut read, mut write) = stream.split();
    // 200 KB of one header, never finished: over the 64 KiB buffer.
    let writer = async move {
        let _ = write.write_all(b"GET /health HTTP/1.1\r\nX-Big: ").await;
        let chunk = vec![b'a'; 8192];
        for _ in 0..25 {
            if write.write_all(&chunk).await.is_err() {
                break;
            }
        }
    };
    let reader = async move { read_to_close(&mut read).await };
    let ((), seen) = tokio::join!(writer, reader);
    let text = String::from_utf8_lossy(&seen);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 431"),
        "431 or a closed connection: {text}"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn a_stalled_request_body_fails() {
    // An unauthenticated route that reads its body; 10 of 1,000 bytes, then nothing.
    let text = written_until_closed(
        HttpLimits {
            body_idle_timeout: Duration::from_millis(500),
            ..Default::default()
        },
        b"POST /accounts HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n\
          Content-Length: 1000\r\n\r\n{\"account\"",
    )
    .await;
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 4"),
        "an error or a closed connection: {text}"
    );
}

#[tokio::test]
async fn connections_past_the_cap_wait_for_a_free_slot() {
    let (relay, _dir) = start(http(HttpLimits {
        max_connections: Some(2),
        header_read_timeout: Duration::from_secs(300),
        ..Default::default()
    }))
    .await;
    let addr = relay.local_addr();
    let held_a = TcpStream::connect(addr).await.unwrap();
    let mut held_b = TcpStream::connect(addr).await.unwrap();
    // Both slots are taken once the relay answers on the second connection.
    held_b
        .write_all(b"GET /health HTTP/1.1\r\nHost: relay\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 512];
    let n = tokio::time::timeout(BOUND, held_b.read(&mut buf))
        .await
        .expect("the second connection is served")
        .unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));

    let third = tokio::spawn(async move {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET /health HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        read_to_close(&mut s).await
    });
    // Not served while both slots are held (a correct relay can never answer here).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !third.is_finished(),
        "a third connection is not served past the cap"
    );
    drop(held_a);
    let seen = tokio::time::timeout(BOUND, third)
        .await
        .expect("served once a slot is free")
        .unwrap();
    assert!(
        String::from_utf8_lossy(&seen).starts_with("HTTP/1.1 200"),
        "the waiting connection is answered"
    );
    drop(held_b);
    relay.shutdown().await;
}

#[tokio::test]
async fn a_big_websocket_frame_closes_the_socket_with_1009_unread() {
    let (relay, _dir) = start(RelayConfig::default()).await;
    let url = relay.url();
    let ws = format!("{}/ws", url.replacen("http", "ws", 1));
    let account = fixtures::create_account(&url).await;
    let mut socket = connect_ws(&ws, &account.device_token).await;
    next_sync(&mut socket).await;
    // Only the header of a masked binary frame announcing 8 MiB (under tungstenite's 16 MiB
    // default): the relay must refuse it from the header alone, without waiting for (or
    // buffering) the payload.
    let mut header = vec![0x82, 0x80 | 127];
    header.extend_from_slice(&(8u64 * 1024 * 1024).to_be_bytes());
    header.extend_from_slice(&[1, 2, 3, 4]);
    match socket.get_mut() {
        tokio_tungstenite::MaybeTlsStream::Plain(tcp) => tcp.write_all(&header).await.unwrap(),
        _ => unreachable!("plain ws"),
    }
    let code = loop {
        match tokio::time::timeout(BOUND, socket.next())
            .await
            .expect("the relay closes the socket in time")
        {
            Some(Ok(Message::Close(frame))) => break frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            None | Some(Err(_)) => break None,
        }
    };
    assert_eq!(code, Some(1009), "closed with 1009, message too big");
    relay.shutdown().await;
}

#[tokio::test]
async fn a_socket_that_stops_answering_pings_is_dropped_and_its_device_offline() {
    let (relay, _dir) = start(RelayConfig {
        ws_ping_interval: Some(Duration::from_millis(200)),
        ..Default::default()
    })
    .await;
    let url = relay.url();
    let ws = format!("{}/ws", url.replacen("http", "ws", 1));
    let account = fixtures::create_account(&url).await;
    let key = agent_common::agent_key(&url, &account.device_token, "status reader").await;
    let status = |url: String, key: String| async move {
        Api::new(&url)
            .bearer(&key)
            .get("/v1/status")
            .await
            .ok::<serde_json::Value>(200, "the agent reads the status")["online"]
            .clone()
    };
    let mut socket = connect_ws(&ws, &account.device_token).await;
    next_sync(&mut socket).await;
    // A live client: reading the socket answers the relay's pings (tungstenite pongs while it
    // reads), however long the status call below takes.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let reader = tokio::spawn(async move {
        let mut stopped = stopped;
        loop {
            tokio::select! {
                _ = &mut stopped => return socket,
                frame = socket.next() => {
                    assert!(matches!(frame, Some(Ok(_))), "a live socket stays open: {frame:?}");
                }
            }
        }
    });
    assert_eq!(
        status(url.clone(), key.key.clone()).await,
        json!(true),
        "online while the socket is open"
    );
    stop.send(()).unwrap();
    let mut socket = reader.await.unwrap();
    // The client stops reading: from here on no pong goes back (a frozen process).
    let deadline = tokio::time::Instant::now() + BOUND;
    loop {
        if status(url.clone(), key.key.clone()).await == json!(false) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the silent socket is dropped in time"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // And the socket is closed: reading now meets the Close frame (1001), or the reset of
    // answering a ping on a socket the relay has already dropped.
    loop {
        match tokio::time::timeout(BOUND, socket.next())
            .await
            .expect("the socket ends in time")
        {
            Some(Ok(Message::Close(frame))) => {
                assert_eq!(frame.map(|f| u16::from(f.code)), Some(1001), "going away");
                break;
            }
            Some(Ok(_)) => continue,
            None | Some(Err(_)) => break,
        }
    }
    relay.shutdown().await;
}

/// GETs an unknown recovery key id from `local` (a loopback address) until refused.
async fn exhaust_failures(url: &str, local: IpAddr, forwarded: Option<&str>) -> usize {
    let client = client_from(local);
    // More attempts than any per-client budget allows.
    for n in 1..=200 {
        let reply = Reply::read(unknown_key_lookup(&client, url, forwarded).send().await).await;
        if reply.status() == 429 {
            let retry: u64 = reply
                .header("retry-after")
                .expect("a 429 carries Retry-After")
                .parse()
                .unwrap();
            assert!((1..=60).contains(&retry), "Retry-After {retry}");
            reply.error(ErrorCode::RateLimited, "past the budget");
            return n;
        }
        reply.error(ErrorCode::NotFound, "within the budget");
    }
    panic!("never refused");
}

/// One unknown-key lookup from `local` (with an optional `X-Forwarded-For`): its status.
async fn lookup(url: &str, local: IpAddr, forwarded: Option<&str>) -> u16 {
    Reply::read(
        unknown_key_lookup(&client_from(local), url, forwarded)
            .send()
            .await,
    )
    .await
    .status()
}

/// An HTTP client whose connections leave from `local` (herald-testkit's `Api` cannot choose
/// its source address, so these requests are built here and read with `Reply::read`).
fn client_from(local: IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(local)
        .build()
        .unwrap()
}

/// A GET of a fresh unknown recovery key id (with an optional `X-Forwarded-For`).
fn unknown_key_lookup(
    client: &reqwest::Client,
    url: &str,
    forwarded: Option<&str>,
) -> reqwest::RequestBuilder {
    let unknown = herald_crypto::RecoveryKey::generate().recipient().key_id;
    let req = client.get(format!("{url}/keys/backup/{unknown}"));
    match forwarded {
        Some(f) => req.header("X-Forwarded-For", f),
        None => req,
    }
}

const ONE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
const TWO: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

#[tokio::test]
async fn one_noisy_client_does_not_lock_others_out() {
    let (relay, _dir) = start(RelayConfig::default()).await;
    let url = relay.url();
    exhaust_failures(&url, ONE, None).await;
    assert_eq!(lookup(&url, ONE, None).await, 429, "the noisy client waits");
    assert_eq!(
        lookup(&url, TWO, None).await,
        404,
        "another address still has its budget"
    );
    // Without the opt-in, X-Forwarded-For is the client's own claim and ignored.
    assert_eq!(
        lookup(&url, ONE, Some("198.51.100.9")).await,
        429,
        "a forged X-Forwarded-For buys nothing"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn many_clients_spending_their_failures_do_not_refuse_a_genuine_recovery() {
    let (relay, _dir) = start(RelayConfig::default()).await;
    let url = relay.url();
    let account = herald_testkit::real::create_account(&url).await;
    // Eleven addresses spend their whole failure budgets: more failures in all (11 × 120) than
    // any relay-wide ceiling of ten clients' worth would allow.
    for last in 10..=20 {
        let noisy = IpAddr::V4(Ipv4Addr::new(127, 0, 0, last));
        exhaust_failures(&url, noisy, None).await;
        assert_eq!(lookup(&url, noisy, None).await, 429, "{noisy} waits");
    }
    let fresh = client_from(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 30)));
    let key_id = account.recovery.recipient().key_id;
    Reply::read(
        fresh
            .get(format!("{url}/keys/backup/{key_id}"))
            .send()
            .await,
    )
    .await
    .expect_status(200, "a fresh client's genuine recovery lookup is served");
    Reply::read(unknown_key_lookup(&fresh, &url, None).send().await)
        .await
        .error(ErrorCode::NotFound, "and its own budget is untouched");
    relay.shutdown().await;
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_address_is_the_client() {
    let (relay, _dir) = start(RelayConfig {
        trust_forwarded_for: true,
        ..Default::default()
    })
    .await;
    let url = relay.url();
    // The proxy appends the address it saw; what the client sent before it is not trusted.
    exhaust_failures(&url, ONE, Some("203.0.113.5, 198.51.100.7")).await;
    assert_eq!(
        lookup(&url, ONE, Some("198.51.100.7")).await,
        429,
        "the same client behind the proxy"
    );
    assert_eq!(
        lookup(&url, ONE, Some("198.51.100.8")).await,
        404,
        "another client behind the same proxy"
    );
    relay.shutdown().await;
}
