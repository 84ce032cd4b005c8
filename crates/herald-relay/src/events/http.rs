//! One signed POST to a callback URL (docs/mcp.md, "Reply event"): the address checked at
//! request time and pinned ([`super::target`]), no proxy, no redirects followed, a short
//! timeout, and at most [`MAX_RESPONSE_BYTES`] of the answer read. Failures are reported only
//! as SEP-3415 categories, never with the endpoint's status line, headers or body.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, USER_AGENT};
use reqwest::{StatusCode, Url};

use super::target::{self, TargetError, UrlError};

/// Most bytes of an endpoint's answer the relay reads (enough for a challenge echo).
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024;

/// Why an attempt did not get a 2xx, as a `lastError` / `data.reason` category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Could not connect (refused, reset, unresolvable host).
    ConnectionRefused,
    /// No answer within the timeout.
    Timeout,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
    /// A 3xx or 4xx status (redirects are not followed).
    Http4xx(StatusCode),
    /// A 5xx status.
    Http5xx(StatusCode),
    /// The URL is no longer acceptable (its host now resolves to a refused address).
    Refused(UrlError),
}

impl Failure {
    /// The SEP-3415 category string.
    pub fn category(&self) -> &'static str {
        match self {
            Failure::ConnectionRefused | Failure::Refused(_) => "connection_refused",
            Failure::Timeout => "timeout",
            Failure::Tls => "tls_error",
            Failure::Http4xx(_) => "http_4xx",
            Failure::Http5xx(_) => "http_5xx",
        }
    }

    /// Whether retrying this delivery is pointless: the endpoint answered `410 Gone` or
    /// `413 Payload Too Large` (SEP-3415: non-retryable for that delivery).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Failure::Http4xx(StatusCode::GONE | StatusCode::PAYLOAD_TOO_LARGE)
        )
    }
}

/// A 2xx answer: at most [`MAX_RESPONSE_BYTES`] of its body.
#[derive(Debug)]
pub struct Accepted {
    pub body: Vec<u8>,
}

fn classify(error: &reqwest::Error) -> Failure {
    if error.is_timeout() {
        return Failure::Timeout;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        let text = e.to_string().to_ascii_lowercase();
        if text.contains("tls") || text.contains("certificate") || text.contains("handshake") {
            return Failure::Tls;
        }
        source = e.source();
    }
    Failure::ConnectionRefused
}

/// POSTs `body` (JSON) with `headers` to `url`. `allow_loopback` is the relay's
/// `--allow-loopback-webhooks`.
pub async fn post(
    url: &Url,
    allow_loopback: bool,
    timeout: Duration,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Vec<u8>,
) -> Result<Accepted, Failure> {
    let addr = match target::resolve(url, allow_loopback).await {
        Ok(addr) => addr,
        Err(TargetError::Refused(e)) => return Err(Failure::Refused(e)),
        Err(TargetError::Unresolvable) => return Err(Failure::ConnectionRefused),
    };
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(timeout)
        .timeout(timeout)
        .pool_max_idle_per_host(0);
    if let Some(url::Host::Domain(name)) = url.host() {
        // Connect to the address just checked; the name still goes in Host and SNI.
        builder = builder.resolve(name, addr);
    }
    let client = builder.build().map_err(|_| Failure::ConnectionRefused)?;
    let mut map = HeaderMap::new();
    map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    map.insert(
        USER_AGENT,
        HeaderValue::from_static(concat!("herald-relay/", env!("CARGO_PKG_VERSION"))),
    );
    for (name, value) in headers {
        map.insert(name, value);
    }
    let mut response = client
        .post(url.clone())
        .headers(map)
        .body(body)
        .send()
        .await
        .map_err(|e| classify(&e))?;
    let status = response.status();
    if status.is_server_error() {
        return Err(Failure::Http5xx(status));
    }
    if !status.is_success() {
        return Err(Failure::Http4xx(status));
    }
    let mut read = Vec::new();
    while read.len() < MAX_RESPONSE_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_RESPONSE_BYTES - read.len();
                read.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) => break,
            // The status was a 2xx: a broken body does not undo the acknowledgement.
            Err(_) => break,
        }
    }
    Ok(Accepted { body: read })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_410_and_413_are_final() {
        for (status, is_final) in [
            (410, true),
            (413, true),
            (400, false),
            (404, false),
            (429, false),
        ] {
            let f = Failure::Http4xx(StatusCode::from_u16(status).unwrap());
            assert_eq!(f.is_final(), is_final, "{status}");
            assert_eq!(f.category(), "http_4xx");
        }
        assert!(!Failure::Http5xx(StatusCode::BAD_GATEWAY).is_final());
        assert_eq!(Failure::Timeout.category(), "timeout");
    }
}
