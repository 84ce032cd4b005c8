//! Which callback URLs the relay POSTs to (docs/mcp.md, "Reply event", SSRF limits).
//!
//! - `https://` only, with a host, no user name or password, no fragment, at most
//!   [`MAX_URL_CHARS`] characters.
//! - The host is resolved at every request (subscribe-time verification and each delivery
//!   attempt), every address it resolves to must be globally routable (not in the IANA IPv4 or
//!   IPv6 special-purpose registries: loopback, private, shared, link-local, documentation,
//!   benchmarking, multicast, reserved, IPv4-mapped, 6to4, Teredo, NAT64…), and the request is
//!   made to that checked address (the host name goes in `Host` and TLS SNI), so DNS cannot
//!   change between the check and the connection.
//! - With the relay's `--allow-loopback-webhooks` flag (tests and local development only),
//!   a URL whose host resolves only to loopback addresses (127.0.0.0/8, ::1) is allowed, over
//!   `http://` too. Private and link-local addresses stay refused.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::Url;

/// Longest callback URL accepted, in characters.
pub const MAX_URL_CHARS: usize = 2048;
/// How long a host name may take to resolve.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a callback URL is refused before any request (answered as `InvalidParams`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("delivery.url is not an absolute URL of at most 2048 characters")]
    Malformed,
    #[error("delivery.url must use https")]
    NotHttps,
    #[error("delivery.url may not carry a user name, password or fragment")]
    Extras,
    #[error("delivery.url resolves to an address that is not publicly routable")]
    NotPublic,
}

/// Why a request could not be made to a callback URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error(transparent)]
    Refused(#[from] UrlError),
    /// The host did not resolve (or not in time).
    #[error("the callback host does not resolve")]
    Unresolvable,
}

/// Checks the form of a callback URL and returns it normalized. `allow_loopback` lets
/// `http://` through (the address check comes at [`resolve`]).
pub fn parse(raw: &str, allow_loopback: bool) -> Result<Url, UrlError> {
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(UrlError::Malformed);
    }
    let url = Url::parse(raw).map_err(|_| UrlError::Malformed)?;
    match url.scheme() {
        "https" => {}
        "http" if allow_loopback => {}
        _ => return Err(UrlError::NotHttps),
    }
    if url.host().is_none() {
        return Err(UrlError::Malformed);
    }
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err(UrlError::Extras);
    }
    Ok(url)
}

/// Resolves the URL's host and returns the one address to connect to, after checking every
/// address it resolved to. Plain `http` passes only to loopback, and only with
/// `allow_loopback`.
pub async fn resolve(url: &Url, allow_loopback: bool) -> Result<SocketAddr, TargetError> {
    let port = url.port_or_known_default().ok_or(UrlError::Malformed)?;
    let addrs: Vec<SocketAddr> = match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![SocketAddr::new(IpAddr::V4(ip), port)],
        Some(url::Host::Ipv6(ip)) => vec![SocketAddr::new(IpAddr::V6(ip), port)],
        Some(url::Host::Domain(name)) => {
            tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, port)))
                .await
                .map_err(|_| TargetError::Unresolvable)?
                .map_err(|_| TargetError::Unresolvable)?
                .collect()
        }
        None => return Err(UrlError::Malformed.into()),
    };
    let first = *addrs.first().ok_or(TargetError::Unresolvable)?;
    let all_loopback = addrs.iter().all(|a| is_loopback(a.ip()));
    let ok = if url.scheme() == "http" {
        allow_loopback && all_loopback
    } else {
        addrs
            .iter()
            .all(|a| is_public(a.ip()) || (allow_loopback && is_loopback(a.ip())))
    };
    if ok {
        Ok(first)
    } else {
        Err(UrlError::NotPublic.into())
    }
}

/// 127.0.0.0/8, ::1, and IPv4-mapped loopback.
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// Globally routable: outside every block of the IANA special-purpose registries (blocks
/// with some globally reachable members, such as 192.0.0.0/24, are refused whole).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    const BLOCKED: &[([u8; 4], u32)] = &[
        ([0, 0, 0, 0], 8),       // "this network"
        ([10, 0, 0, 0], 8),      // private
        ([100, 64, 0, 0], 10),   // shared address space (CGN)
        ([127, 0, 0, 0], 8),     // loopback
        ([169, 254, 0, 0], 16),  // link-local
        ([172, 16, 0, 0], 12),   // private
        ([192, 0, 0, 0], 24),    // IETF protocol assignments
        ([192, 0, 2, 0], 24),    // documentation
        ([192, 31, 196, 0], 24), // AS112
        ([192, 52, 193, 0], 24), // AMT
        ([192, 88, 99, 0], 24),  // 6to4 relay anycast
        ([192, 168, 0, 0], 16),  // private
        ([192, 175, 48, 0], 24), // direct delegation AS112
        ([198, 18, 0, 0], 15),   // benchmarking
        ([198, 51, 100, 0], 24), // documentation
        ([203, 0, 113, 0], 24),  // documentation
        ([224, 0, 0, 0], 4),     // multicast
        ([240, 0, 0, 0], 4),     // reserved, broadcast
    ];
    !BLOCKED.iter().any(|(net, prefix)| in_v4(ip, *net, *prefix))
}

fn in_v6(ip: Ipv6Addr, net: [u16; 8], prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(ip) & mask == u128::from(Ipv6Addr::from(net)) & mask
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // Only global unicast (2000::/3) can be public; everything else (::, ::1, IPv4-mapped,
    // NAT64 64:ff9b::/96, discard 100::/64, fc00::/7, fe80::/10, ff00::/8) is not.
    if !in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        return false;
    }
    const BLOCKED: &[([u16; 8], u32)] = &[
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), // IETF protocol assignments (Teredo, ORCHID…)
        ([0x2001, 0x0db8, 0, 0, 0, 0, 0, 0], 32), // documentation
        ([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), // 6to4
        ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), // documentation (RFC 9637)
    ];
    !BLOCKED.iter().any(|(net, prefix)| in_v6(ip, *net, *prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_globally_routable_addresses_are_public() {
        for (ip, public) in [
            ("93.184.216.34", true),
            ("1.1.1.1", true),
            ("127.0.0.1", false),
            ("10.1.2.3", false),
            ("172.16.0.1", false),
            ("172.32.0.1", true),
            ("192.168.1.1", false),
            ("169.254.169.254", false),
            ("100.64.0.1", false),
            ("0.0.0.0", false),
            ("224.0.0.1", false),
            ("255.255.255.255", false),
            ("198.18.0.1", false),
            ("2606:4700:4700::1111", true),
            ("::1", false),
            ("::", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:93.184.216.34", false),
            ("fe80::1", false),
            ("fc00::1", false),
            ("fd12:3456::1", false),
            ("ff02::1", false),
            ("2001:db8::1", false),
            ("2002:c000:0204::1", false),
            ("64:ff9b::a00:1", false),
        ] {
            let parsed: IpAddr = ip.parse().unwrap();
            assert_eq!(is_public(parsed), public, "{ip}");
        }
        assert!(is_loopback("::ffff:127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn url_forms() {
        for (raw, loopback_flag, want) in [
            ("https://hooks.example.com/h/1", false, Ok(())),
            (
                "http://hooks.example.com/h/1",
                false,
                Err(UrlError::NotHttps),
            ),
            ("http://127.0.0.1:9/h", true, Ok(())),
            ("ftp://example.com/", true, Err(UrlError::NotHttps)),
            ("https://user:pw@example.com/", false, Err(UrlError::Extras)),
            ("https://example.com/#frag", false, Err(UrlError::Extras)),
            ("not a url", false, Err(UrlError::Malformed)),
        ] {
            assert_eq!(parse(raw, loopback_flag).map(|_| ()), want, "{raw}");
        }
    }

    #[tokio::test]
    async fn loopback_needs_the_flag_and_private_never_passes() {
        let url = |s: &str| Url::parse(s).unwrap();
        assert!(resolve(&url("https://127.0.0.1/h"), false).await.is_err());
        assert!(resolve(&url("https://127.0.0.1/h"), true).await.is_ok());
        assert!(resolve(&url("http://127.0.0.1:8080/h"), true).await.is_ok());
        assert!(resolve(&url("https://10.0.0.1/h"), true).await.is_err());
        assert!(resolve(&url("https://[fe80::1]/h"), true).await.is_err());
        assert!(
            resolve(&url("http://93.184.216.34/h"), true).await.is_err(),
            "http only to loopback"
        );
        assert!(resolve(&url("https://93.184.216.34/h"), false)
            .await
            .is_ok());
    }
}
