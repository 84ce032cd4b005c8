//! The request head limits of docs/protocol.md ("Connection limits"), exactly, against a real
//! relay over raw TCP: a head of 65,536 bytes is served and one of 65,537 refused with `431`
//! however it arrives (all at once or in pieces); 100 header lines are served and 101 refused;
//! what hyper answers itself (`400`, `431`) carries the shared error body.

use crate::agent_common;

use std::time::Duration;

use herald_relay::{RelayConfig, RunningRelay};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Bound for the relay to answer and close (a bound, not a delay).
const BOUND: Duration = Duration::from_secs(30);
/// The documented head limit.
const MAX_HEAD: usize = 64 * 1024;

async fn start() -> (RunningRelay, TempDir) {
    let started = agent_common::ManualRelay::start(RelayConfig::default()).await;
    (started.relay, started.dir)
}

/// A `GET /health` head of exactly `size` bytes (one padding header; `Connection: close`).
fn head_of(size: usize) -> Vec<u8> {
    let start = "GET /health HTTP/1.1\r\nHost: relay\r\nConnection: close\r\nX-Pad: ";
    let end = "\r\n\r\n";
    let pad = size - start.len() - end.len();
    format!("{start}{}{end}", "a".repeat(pad)).into_bytes()
}

/// A `GET /health` head with `lines` header lines in all.
fn head_with_lines(lines: usize) -> Vec<u8> {
    let mut head = String::from("GET /health HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n");
    for i in 2..lines {
        head.push_str(&format!("X-H{i}: {i}\r\n"));
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// Sends `bytes` (in pieces of `piece` bytes with a pause between them, or at once when
/// `piece` is 0) on a new connection, then reads until the relay closes it.
async fn exchange(relay: &RunningRelay, bytes: &[u8], piece: usize) -> String {
    let mut stream = TcpStream::connect(relay.local_addr()).await.unwrap();
    let (mut read, mut write) = stream.split();
    let writer = async move {
        if piece == 0 {
            let _ = write.write_all(bytes).await;
        } else {
            for chunk in bytes.chunks(piece) {
                if write.write_all(chunk).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
    };
    let reader = async move {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match tokio::time::timeout(BOUND, read.read(&mut buf))
                .await
                .expect("the relay answers and closes in time")
            {
                Ok(0) | Err(_) => return seen,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    };
    let ((), seen) = tokio::join!(writer, reader);
    String::from_utf8_lossy(&seen).into_owned()
}

fn status(answer: &str) -> &str {
    answer.get(9..12).unwrap_or("")
}

/// A refusal of an oversized head: `431`, or nothing when the relay's close (with the excess
/// still unread) reset the connection before the answer was read.
fn refused(answer: &str) -> bool {
    answer.is_empty() || status(answer) == "431"
}

#[tokio::test]
async fn the_head_size_limit_is_exact() {
    let (relay, _dir) = start().await;
    for piece in [0, 7_000] {
        let at = exchange(&relay, &head_of(MAX_HEAD), piece).await;
        assert_eq!(
            status(&at),
            "200",
            "65,536 bytes are served (piece {piece}): {at}"
        );
        let over = exchange(&relay, &head_of(MAX_HEAD + 1), piece).await;
        assert!(
            refused(&over),
            "65,537 bytes are refused (piece {piece}): {over}"
        );
        // The size the issue found accepted.
        let big = exchange(&relay, &head_of(112 * 1024), piece).await;
        assert!(refused(&big), "112 KiB is refused (piece {piece}): {big}");
    }
    relay.shutdown().await;
}

#[tokio::test]
async fn the_header_count_limit_is_exact() {
    let (relay, _dir) = start().await;
    let at = exchange(&relay, &head_with_lines(100), 0).await;
    assert_eq!(status(&at), "200", "100 header lines are served: {at}");
    let over = exchange(&relay, &head_with_lines(101), 0).await;
    assert_eq!(status(&over), "431", "101 header lines are refused: {over}");
    relay.shutdown().await;
}

#[tokio::test]
async fn what_hyper_answers_itself_carries_the_shared_body() {
    let (relay, _dir) = start().await;
    let over = exchange(&relay, &head_with_lines(101), 0).await;
    assert_eq!(status(&over), "431", "{over}");
    let long_target = format!(
        "GET /{} HTTP/1.1\r\nHost: relay\r\n\r\n",
        "a".repeat(65_534)
    );
    let too_long = exchange(&relay, long_target.as_bytes(), 0).await;
    let malformed = exchange(&relay, b"GET /health HTTP/1.1\r\nBad Header\r\n\r\n", 0).await;
    assert_eq!(status(&malformed), "400", "{malformed}");
    for (answer, code, status_code) in [
        (&over, "request_head_too_large", "431"),
        // The target counts toward the head: hyper's 414 (over 65,534 bytes) is not reached.
        (&too_long, "request_head_too_large", "431"),
        (&malformed, "bad_request", "400"),
    ] {
        // A long target may see a reset before its answer (the excess is unread).
        if answer.is_empty() && std::ptr::eq(answer, &too_long) {
            continue;
        }
        assert_eq!(status(answer), status_code, "{answer}");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
        let lower = head.to_ascii_lowercase();
        assert!(lower.contains("content-type: application/json"), "{answer}");
        assert!(
            lower.contains(&format!("content-length: {}", body.len())),
            "{answer}"
        );
        assert!(lower.contains("connection: close"), "{answer}");
        let parsed: herald_protocol::ErrorBody =
            serde_json::from_str(body).unwrap_or_else(|e| panic!("the shared body: {e}: {body}"));
        assert_eq!(parsed.error, code, "{answer}");
        assert!(!parsed.message.is_empty(), "{answer}");
    }
    let parsed: herald_protocol::ErrorBody =
        serde_json::from_str(over.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert!(
        parsed.message.contains("65536 bytes") && parsed.message.contains("100 header lines"),
        "the limits are named: {}",
        parsed.message
    );
    // Keep-alive and ordinary answers are untouched.
    let fine = exchange(&relay, &head_of(1_000), 0).await;
    assert_eq!(status(&fine), "200", "{fine}");
    let (_, body) = fine.split_once("\r\n\r\n").expect("a head");
    assert!(body.starts_with('{'), "the /health body itself: {fine}");
    relay.shutdown().await;
}
