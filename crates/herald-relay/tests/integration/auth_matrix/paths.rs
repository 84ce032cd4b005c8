//! Path tricks around least privilege: an agent credential may call only `/v1/*` and `/mcp`,
//! a decision made on the request path. Requests are written by hand on a TCP socket, so no
//! client normalizes the path first; none of these may reach a device route.

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::world::World;

/// Sends `GET <path>` with `bearer` and returns the status code.
async fn raw_get(w: &World, path: &str, bearer: &str) -> u16 {
    let mut stream = tokio::net::TcpStream::connect(w.relay.addr)
        .await
        .expect("connecting to the relay");
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {bearer}\r\nConnection: close\r\n\r\n",
        w.relay.addr
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("writing the request");
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .await
        .expect("reading the answer");
    let text = String::from_utf8_lossy(&answer);
    text.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("an HTTP status line for {path}: {text}"))
}

pub async fn agent_credentials_cannot_path_trick_into_device_routes() {
    let w = World::new().await;
    let paths = [
        "/v1/../agent-keys",
        "/v1/%2e%2e/agent-keys",
        "/v1/%2E%2E/keys",
        "/v1/..%2fkeys",
        "/v1%2f..%2fkeys",
        "/mcp/../keys",
        "/mcp%2f..%2fkeys",
        "//agent-keys",
        "/.well-known/../messages",
        "/oauth/../connectors",
        "/V1/status/../../keys",
        "/agent-keys?/v1/",
        "/agent-keys#/v1/",
    ];
    for token in [&w.a.agent_key, &w.a.connector] {
        for path in paths {
            let status = raw_get(&w, path, token).await;
            assert!(
                matches!(status, 400 | 403 | 404),
                "an agent credential on {path}: {status} (must be refused or not found)"
            );
        }
        // The straight paths, for contrast: the device route refuses, the agent route answers.
        assert_eq!(raw_get(&w, "/agent-keys", token).await, 403);
        assert_eq!(raw_get(&w, "/v1/status", token).await, 200);
    }
    w.relay.shutdown().await;
}
