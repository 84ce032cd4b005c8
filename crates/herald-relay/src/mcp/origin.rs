//! The relay's public base URL and origin, one computation for everything that names the
//! relay: the `resource_metadata` URL of a 401 from `/mcp`, the `/.well-known` metadata
//! documents, and the check of a browser's `Origin` header.
//!
//! The base is the configured public URL (`--public-url`) normalized: scheme and host
//! lowercased, the scheme's default port dropped, any path prefix kept without its trailing
//! `/` (`https://Relay.Example:443/herald/` → `https://relay.example/herald`). The relay
//! refuses to start with an unusable one ([`crate::public_url`]). Without a public URL (or, in
//! a state built without that check, an unusable one) it is `http://` plus the request's
//! `Host` header, lowercased, when that header is a valid `host[:port]`: a host of
//! letters, digits, `-`, `.`, `_`, `~`, or an IPv4 address, or a bracketed IPv6 literal (hex
//! digits, `:` and `.`), then an optional port of 1 to 5 digits. A missing or invalid `Host`
//! gives [`DEFAULT_BASE`].

use axum::http::header::{HOST, ORIGIN};
use axum::http::HeaderMap;

use crate::RelayConfig;

/// The base used when there is no public URL and the request's `Host` is missing or invalid.
pub const DEFAULT_BASE: &str = "http://localhost";

/// The relay's public base URL as seen by this request, without a trailing slash (see the
/// module documentation). Paths such as `/mcp` and `/.well-known/…` are appended to it.
pub fn public_base(config: &RelayConfig, headers: &HeaderMap) -> String {
    if let Some(base) = config.public_url.as_deref().and_then(configured_base) {
        return base;
    }
    match headers.get(HOST).and_then(|h| h.to_str().ok()) {
        Some(host) if valid_host(host) => format!("http://{}", host.to_ascii_lowercase()),
        _ => DEFAULT_BASE.to_owned(),
    }
}

/// The relay's origin (`scheme://host[:port]`) as seen by this request: [`public_base`]
/// without its path.
pub fn relay_origin(config: &RelayConfig, headers: &HeaderMap) -> String {
    let base = public_base(config, headers);
    match url::Url::parse(&base) {
        Ok(url) => url.origin().ascii_serialization(),
        Err(_) => base,
    }
}

/// The normalized base of a configured public URL, or `None` when it is not an absolute
/// http(s) URL with a host.
fn configured_base(public: &str) -> Option<String> {
    // The relay refuses to start with an invalid one (crate::public_url); a state built
    // around that check still never names a foreign base.
    let url = crate::public_url::parse_public_url(public).ok()?;
    let origin = url.origin().ascii_serialization();
    Some(format!("{origin}{}", url.path().trim_end_matches('/')))
}

/// True when `host` is a valid `host[:port]` (see the module documentation).
pub fn valid_host(host: &str) -> bool {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let Some((literal, after)) = rest.split_once(']') else {
            return false;
        };
        let literal_ok = !literal.is_empty()
            && literal.contains(':')
            && literal
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        if !literal_ok {
            return false;
        }
        match after {
            "" => return true,
            _ => match after.strip_prefix(':') {
                Some(port) => ("x", Some(port)),
                None => return false,
            },
        }
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let name_ok = !name.is_empty()
        && name.len() <= 253
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    let port_ok = match port {
        None => true,
        Some(p) => {
            (1..=5).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u32>().is_ok_and(|n| n <= 65_535)
        }
    };
    name_ok && port_ok
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
    fn the_base_is_normalized_and_keeps_the_path() {
        let h = headers("127.0.0.1:9", None);
        let cases = [
            (
                "https://Relay.Example:443/herald/",
                "https://relay.example/herald",
            ),
            ("HTTP://relay.example:80", "http://relay.example"),
            (
                "https://relay.example:8443/a/b",
                "https://relay.example:8443/a/b",
            ),
            ("not a url", "http://127.0.0.1:9"),
        ];
        for (public, want) in cases {
            assert_eq!(public_base(&config(Some(public)), &h), want, "{public}");
        }
        assert_eq!(
            relay_origin(&config(Some("https://Relay.Example:443/herald/")), &h),
            "https://relay.example"
        );
    }

    #[test]
    fn only_a_valid_host_is_used() {
        for good in [
            "localhost",
            "Relay.Example:8080",
            "10.0.0.1",
            "[::1]:9",
            "[::1]",
            "a_b~c",
        ] {
            assert!(valid_host(good), "{good}");
        }
        for bad in [
            "",
            "a\", error=\"x",
            "a b",
            "a:",
            "a:99999",
            "a:1:2",
            "[::1",
            "[zz]",
            "[::1]x",
            "user@host",
            "a,b",
        ] {
            assert!(!valid_host(bad), "{bad}");
        }
        let mut h = HeaderMap::new();
        h.insert(HOST, HeaderValue::from_static("a\", error=\"x"));
        assert_eq!(public_base(&config(None), &h), DEFAULT_BASE);
        assert_eq!(public_base(&config(None), &HeaderMap::new()), DEFAULT_BASE);
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
