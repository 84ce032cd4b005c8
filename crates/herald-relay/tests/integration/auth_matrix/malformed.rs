//! Credentials that are not quite credentials: no token, another scheme, unknown tokens of
//! every prefix, a token under another kind's prefix, the whole connection token instead of
//! its bearer part. Each is 401 `unauthorized` on a device route, an agent route and `/mcp`
//! (whose challenge says `invalid_token` exactly when a bearer token was sent).

use reqwest::Method;
use serde_json::json;

use super::world::{Reply, World};

pub async fn malformed_credentials_are_unauthorized() {
    let w = World::new().await;
    let swap = |token: &str, from: &str, to: &str| token.replacen(from, to, 1);
    let cases: Vec<(String, &str, bool)> = vec![
        ("Bearer".into(), "no token", false),
        ("Bearer ".into(), "an empty token", false),
        ("Basic dXNlcjpwYXNz".into(), "another scheme", false),
        ("hds_abc".into(), "no scheme", false),
        ("Bearer hds_unknown".into(), "an unknown device token", true),
        (
            "Bearer hdr_unknown".into(),
            "an unknown connection token",
            true,
        ),
        ("Bearer hrk_unknown".into(), "an unknown agent key", true),
        (
            "Bearer hra_unknown".into(),
            "an unknown connector token",
            true,
        ),
        ("Bearer hdp_unknown".into(), "an unknown poll token", true),
        ("Bearer xyz_unknown".into(), "an unknown prefix", true),
        (
            format!("Bearer {}.c2VlZA.ZnA", w.a.connection.bearer),
            "the whole connection token instead of its bearer",
            true,
        ),
        (
            format!("Bearer {}", swap(&w.a.device_token, "hds_", "hdr_")),
            "a device token under the connection prefix",
            true,
        ),
        (
            format!("Bearer {}", swap(&w.a.connection.bearer, "hdr_", "hds_")),
            "a connection token under the device prefix",
            true,
        ),
        (
            format!("Bearer {}", swap(&w.a.agent_key, "hrk_", "hra_")),
            "an agent key under the connector prefix",
            true,
        ),
        (
            format!("Bearer {}", swap(&w.a.connector, "hra_", "hrk_")),
            "a connector token under the agent key prefix",
            true,
        ),
        (
            format!("Bearer {}", swap(&w.a.device_token, "hds_", "hrk_")),
            "a device token under the agent key prefix",
            true,
        ),
        (
            format!("Bearer {}x", w.a.device_token),
            "a device token with a byte more",
            true,
        ),
        (
            format!("Bearer {}", w.a.agent_key.to_uppercase()),
            "an agent key in upper case",
            true,
        ),
    ];
    for (header, why, token_sent) in &cases {
        for path in ["/keys", "/v1/status"] {
            let reply = Reply::of(
                w.request(Method::GET, path, None)
                    .header("Authorization", header.as_str()),
            )
            .await;
            expect_unauthorized(&reply, &format!("GET {path} with {why}"));
            assert_eq!(
                reply.headers.get("www-authenticate").map(|v| v.as_bytes()),
                Some(&b"Bearer"[..]),
                "GET {path} with {why}: WWW-Authenticate"
            );
        }
        let reply = Reply::of(
            w.request(Method::POST, "/mcp", None)
                .header("Authorization", header.as_str())
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
        )
        .await;
        expect_unauthorized(&reply, &format!("POST /mcp with {why}"));
        let mut challenge = format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
            w.relay.url
        );
        if *token_sent {
            challenge.push_str(", error=\"invalid_token\"");
        }
        assert_eq!(
            reply
                .headers
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok()),
            Some(challenge.as_str()),
            "POST /mcp with {why}: WWW-Authenticate"
        );
    }
    // The scheme is case-insensitive (RFC 9110): the same tokens in lower case pass.
    let reply = Reply::of(
        w.request(Method::GET, "/keys", None)
            .header("Authorization", format!("bearer {}", w.a.device_token)),
    )
    .await;
    assert_eq!(reply.status, 200, "a lower-case scheme: {}", reply.text);
    let reply = Reply::of(
        w.request(Method::GET, "/v1/status", None)
            .header("Authorization", format!("BEARER {}", w.a.agent_key)),
    )
    .await;
    assert_eq!(reply.status, 200, "an upper-case scheme: {}", reply.text);
    w.relay.shutdown().await;
}

fn expect_unauthorized(reply: &Reply, why: &str) {
    assert_eq!(reply.status, 401, "{why}: {}", reply.text);
    let body = reply.json();
    assert_eq!(body["error"], "unauthorized", "{why}: {}", reply.text);
    assert!(
        body["message"].is_string() && body["fields"].is_array(),
        "{why}: a catalog body: {}",
        reply.text
    );
}
