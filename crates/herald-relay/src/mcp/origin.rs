//! The relay's own origin (`scheme://host[:port]`), for the `resource_metadata` URL of a 401
//! and for checking a browser's `Origin` header. It is the origin of the configured public URL
//! when there is one, else `http://` plus the request's `Host` header.

use axum::http::header::{HOST, ORIGIN};
use axum::http::HeaderMap;

use crate::RelayConfig;

/// The relay's origin as seen by this request, without a trailing slash.
pub fn relay_origin(config: &RelayConfig, headers: &HeaderMap) -> String {
    if let Some(public) = config.public_url.as_deref() {
        if let Some((scheme, rest)) = public.split_once("://") {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            return format!("{scheme}://{authority}");
        }
    }
    let host = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{host}")
}

/// Lowercase, no trailing slash, no default port.
fn normalize(origin: &str) -> String {
    let lower = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    for (scheme, port) in [("http://", ":80"), ("https://", ":443")] {
        if lower.starts_with(scheme) {
            if let Some(stripped) = lower.strip_suffix(port) {
                return stripped.to_owned();
            }
        }
    }
    lower
}

/// True when the request has no `Origin` header (not a browser) or names the relay's own
/// origin. A foreign origin, `null`, or an unreadable value is refused.
pub fn origin_allowed(config: &RelayConfig, headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(ORIGIN).iter();
    let origin = match (values.next(), values.next()) {
        (None, _) => return true,
        (Some(v), None) => v,
        (Some(_), Some(_)) => return false,
    };
    match origin.to_str() {
        Ok(origin) => normalize(origin) == normalize(&relay_origin(config, headers)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn config(public_url: Option<&str>) -> RelayConfig {
        RelayConfig {
            data_dir: std::path::PathBuf::from("/nonexistent"),
            public_url: public_url.map(str::to_owned),
            ..Default::default()
        }
    }

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(HOST, HeaderValue::from_str(host).expect("host"));
        if let Some(o) = origin {
            h.insert(ORIGIN, HeaderValue::from_str(o).expect("origin"));
        }
        h
    }

    #[test]
    fn origin_comes_from_the_public_url_or_the_host() {
        let h = headers("127.0.0.1:9", None);
        assert_eq!(relay_origin(&config(None), &h), "http://127.0.0.1:9");
        assert_eq!(
            relay_origin(&config(Some("https://relay.example/base/")), &h),
            "https://relay.example"
        );
    }

    #[test]
    fn only_the_relays_own_origin_passes() {
        let cases = [
            (None, None, true),
            (None, Some("http://127.0.0.1:9"), true),
            (None, Some("HTTP://127.0.0.1:9/"), true),
            (None, Some("http://evil.example"), false),
            (None, Some("null"), false),
            (
                Some("https://relay.example"),
                Some("https://relay.example:443"),
                true,
            ),
            (
                Some("https://relay.example"),
                Some("http://127.0.0.1:9"),
                false,
            ),
        ];
        for (public, origin, want) in cases {
            let got = origin_allowed(&config(public), &headers("127.0.0.1:9", origin));
            assert_eq!(got, want, "{public:?} {origin:?}");
        }
    }
}
