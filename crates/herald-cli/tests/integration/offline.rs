//! A headless device whose relay is out of reach (issue 15, "Offline terminal"):
//! `herald inbox list|show` read the cache, say on stderr that the relay is unreachable and
//! when the device last synced, and return within a few seconds whether the relay is stopped
//! (connection refused) or hung (accepts connections and never answers).

use crate::common;

use std::net::SocketAddr;
use std::process::Output;
use std::time::{Duration, Instant};

use common::*;

/// Longer than the CLI's 3 s reach plus start-up, far below the 40 s a hung relay cost.
const BOUND: Duration = Duration::from_secs(15);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs a device command against the unreachable relay: it succeeds within [`BOUND`] and says
/// why it shows the cache.
fn offline(home: &std::path::Path, args: &[&str], url: &str) -> Output {
    let started = Instant::now();
    let out = run(herald(home).args(args));
    let took = started.elapsed();
    let err = text(&out.stderr);
    assert!(
        out.status.success(),
        "{args:?} succeeds from the cache: {err}"
    );
    assert!(
        took < BOUND,
        "{args:?} returned within {BOUND:?}, took {took:?}"
    );
    assert!(
        err.contains("the relay is unreachable"),
        "{args:?} says so: {err}"
    );
    assert!(
        err.contains("last synced 20"),
        "{args:?} says when it synced: {err}"
    );
    assert!(err.contains(url), "{args:?} names the relay: {err}");
    out
}

#[test]
fn inbox_reads_the_cache_when_the_relay_is_stopped_or_hung() {
    let s = setup();
    let url = s.relay.url.clone();
    ok_stdout(agent(&s).args([
        "send",
        "--title",
        "Kept while offline",
        "--body",
        "cached body",
    ]));
    let id = wait_for_title(&s, "Kept while offline")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let Setup { relay, home, .. } = s;
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .parse()
        .expect("the relay's address");
    drop(relay);
    // The port stays ours: bound, not listening, so a connection is refused (and no other
    // test of this binary can take the port before the hung case below).
    let port =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("a socket");
    port.set_reuse_address(true).expect("SO_REUSEADDR");
    port.bind(&addr.into())
        .expect("the relay's port is free again");

    // Stopped: the connection is refused.
    let list = offline(home.path(), &["inbox", "list"], &url);
    assert!(text(&list.stdout).contains("Kept while offline"), "listed");
    let json = offline(home.path(), &["inbox", "list", "--json"], &url);
    let cached: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(cached[0]["id"], id.as_str(), "the cached message: {cached}");
    let show = offline(home.path(), &["inbox", "show", &id], &url);
    assert!(text(&show.stdout).contains("cached body"), "shown in full");
    // Not in the cache: it says so, and that the relay could not be asked.
    let missing =
        run(herald(home.path()).args(["inbox", "show", "msg_00000000000000000000000000"]));
    let err = text(&missing.stderr);
    assert_eq!(missing.status.code(), Some(1), "{err}");
    assert!(
        err.contains("msg_00000000000000000000000000 is not in this device's cache")
            && err.contains("the relay is unreachable"),
        "{err}"
    );

    // Hung: the port accepts connections (the kernel completes them) and never answers.
    port.listen(16).expect("listening on the relay's port");
    let hung: std::net::TcpListener = port.into();
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in hung.incoming().take(16) {
            match stream {
                Ok(s) => open.push(s),
                Err(_) => break,
            }
        }
        open
    });
    let list = offline(home.path(), &["inbox", "list"], &url);
    assert!(text(&list.stdout).contains("Kept while offline"), "listed");
    let show = offline(home.path(), &["inbox", "show", &id], &url);
    assert!(text(&show.stdout).contains("cached body"), "shown in full");
    let err = text(&show.stderr);
    assert!(err.contains("no answer within 3 s"), "why: {err}");
    drop(held);
}
