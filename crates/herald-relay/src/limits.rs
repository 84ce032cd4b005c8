//! Budgets for the unauthenticated routes (docs/devices.md, "Limits"; docs/agents.md). A
//! recovery key id cannot be guessed (132 bits of hash over a key derived from 128 random
//! bits), so these are not what keeps backups safe; they keep a misbehaving client from filling
//! the relay with pairing requests or hammering lookups. Fixed one-minute windows on the relay's
//! clock, counted per client address ([`ClientIp`]: IPv4 address or IPv6 /64). Failed attempts
//! have no relay-wide ceiling: ids and tokens are high-entropy, so many addresses guessing
//! together gain nothing, and a shared ceiling would let a handful of addresses refuse every
//! genuine recovery lookup and enrolment. Budgets that create rows (pairing requests, OAuth
//! device authorizations) keep a relay-wide ceiling a hundred times the per-client one,
//! so it takes a hundred addresses to spend it. A refusal is 429 `rate_limited`
//! with `Retry-After` (seconds to the next window, [`retry_after`]).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::Mutex;

use axum::extract::{ConnectInfo, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use chrono::{DateTime, Utc};

use crate::state::AppState;

/// Length of a window.
const WINDOW_MS: i64 = 60_000;
/// Failed unauthenticated lookups and enrolments per client per window (unknown recovery key
/// id, bad certificate signature, unknown pairing poll token).
pub const MAX_FAILURES_PER_MINUTE: u32 = 120;
/// New pairing requests per client per window.
pub const MAX_PAIRINGS_PER_MINUTE: u32 = 60;
/// New pairing requests per window, all clients together (a hundred clients' worth).
pub const MAX_PAIRINGS_PER_MINUTE_TOTAL: u32 = 6_000;
/// Clients one budget tracks per window. Past it a client not yet seen this window is neither
/// counted nor refused (fail-open: reaching it takes that many addresses within one minute),
/// which bounds the memory of a budget without a relay-wide ceiling.
pub const MAX_TRACKED_CLIENTS: usize = 262_144;

/// The client a budget counts against: the peer's address (IPv6: its /64, what one host is
/// usually given), or with `trust_forwarded_for` the last address of `X-Forwarded-For` (the
/// one the relay's own reverse proxy appended). Without a peer address (the router served
/// without [`crate::serve`]) every request is one client, `0.0.0.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientIp(pub IpAddr);

impl ClientIp {
    fn key(self) -> IpAddr {
        match self.0 {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let s = v6.segments();
                    IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
                }
            },
        }
    }
}

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if state.config().trust_forwarded_for {
            if let Some(ip) = forwarded_for(parts) {
                return Ok(ClientIp(ip));
            }
        }
        Ok(ClientIp(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(addr)| addr.ip())
                .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED)),
        ))
    }
}

/// The last address of the last `X-Forwarded-For` header, if it parses.
fn forwarded_for(parts: &Parts) -> Option<IpAddr> {
    let last = parts
        .headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()?;
    let entry = last.to_str().ok()?.rsplit(',').next()?.trim();
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|a| a.ip()))
}

#[derive(Debug)]
struct Window {
    start: i64,
    total: u32,
    /// Spent units per client this window; at most [`MAX_TRACKED_CLIENTS`] entries, cleared
    /// every window.
    clients: HashMap<IpAddr, u32>,
}

/// One fixed-window counter per client, optionally under a relay-wide ceiling.
#[derive(Debug)]
pub struct Budget {
    per_client: u32,
    /// Relay-wide ceiling; `u32::MAX` for none.
    total: u32,
    window: Mutex<Window>,
}

impl Budget {
    /// `per_client` units per client and `total` for all clients per one-minute window.
    pub fn new(per_client: u32, total: u32) -> Budget {
        Budget {
            per_client,
            total,
            window: Mutex::new(Window {
                start: i64::MIN,
                total: 0,
                clients: HashMap::new(),
            }),
        }
    }

    /// `per_client` units per client per one-minute window and no relay-wide ceiling: one
    /// client spending its own budget never refuses another.
    pub fn per_client_only(per_client: u32) -> Budget {
        Budget::new(per_client, u32::MAX)
    }

    /// Whether the current window has room left for `client` (without spending any).
    pub fn available(&self, client: ClientIp, now: DateTime<Utc>) -> bool {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        roll(&mut w, now);
        let spent = w.clients.get(&client.key()).copied().unwrap_or(0);
        w.total < self.total && spent < self.per_client
    }

    /// Spends one unit of `client`'s; `false` when its window (or the relay's) is used up.
    pub fn spend(&self, client: ClientIp, now: DateTime<Utc>) -> bool {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        roll(&mut w, now);
        if w.total >= self.total {
            return false;
        }
        if w.clients.len() >= MAX_TRACKED_CLIENTS && !w.clients.contains_key(&client.key()) {
            return true;
        }
        let spent = w.clients.entry(client.key()).or_insert(0);
        if *spent >= self.per_client {
            return false;
        }
        *spent += 1;
        w.total = w.total.saturating_add(1);
        true
    }
}

fn roll(w: &mut Window, now: DateTime<Utc>) {
    let start = now.timestamp_millis().div_euclid(WINDOW_MS);
    if w.start != start {
        w.start = start;
        w.total = 0;
        w.clients.clear();
    }
}

/// Seconds from `now` to the next window (1..=60).
pub fn seconds_to_next_window(now: DateTime<Utc>) -> u64 {
    let into = now.timestamp_millis().rem_euclid(WINDOW_MS);
    u64::try_from((WINDOW_MS - into + 999) / 1000).unwrap_or(60)
}

/// Marks a `rate_limited` response (set by `ApiError`) for [`retry_after`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct RateLimited;

/// Response map (`axum::middleware::map_response_with_state`): a `rate_limited` refusal of
/// these budgets gets `Retry-After`, the seconds to the next window on the relay's clock.
pub(crate) async fn retry_after(State(state): State<AppState>, mut response: Response) -> Response {
    if response.extensions().get::<RateLimited>().is_some()
        && !response.headers().contains_key(header::RETRY_AFTER)
    {
        let secs = seconds_to_next_window(state.now());
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}

/// The relay's budgets.
#[derive(Debug)]
pub struct Limits {
    /// Failed unauthenticated attempts: per client only ([`MAX_FAILURES_PER_MINUTE`]).
    pub failures: Budget,
    /// New pairing requests: per client under a relay-wide ceiling.
    pub pairings: Budget,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            failures: Budget::per_client_only(MAX_FAILURES_PER_MINUTE),
            pairings: Budget::new(MAX_PAIRINGS_PER_MINUTE, MAX_PAIRINGS_PER_MINUTE_TOTAL),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> ClientIp {
        ClientIp(s.parse().unwrap())
    }

    #[test]
    fn a_budget_refills_each_window() {
        let budget = Budget::new(2, 10);
        let a = ip("192.0.2.1");
        let t0 = DateTime::<Utc>::from_timestamp_millis(120_000).unwrap();
        assert!(budget.spend(a, t0), "first unit");
        assert!(budget.spend(a, t0), "second unit");
        assert!(!budget.spend(a, t0), "the window is used up");
        assert!(!budget.available(a, t0), "and says so");
        let t1 = t0 + chrono::TimeDelta::seconds(60);
        assert!(budget.spend(a, t1), "the next window has room again");
    }

    #[test]
    fn clients_count_apart_under_a_relay_wide_ceiling() {
        let budget = Budget::new(2, 3);
        let t0 = DateTime::<Utc>::from_timestamp_millis(120_000).unwrap();
        let (a, b, c) = (ip("192.0.2.1"), ip("192.0.2.2"), ip("192.0.2.3"));
        assert!(
            budget.spend(a, t0) && budget.spend(a, t0),
            "a spends its two"
        );
        assert!(!budget.spend(a, t0), "a is used up");
        assert!(budget.available(b, t0), "b is not");
        assert!(budget.spend(b, t0), "b spends one");
        assert!(!budget.spend(c, t0), "the relay-wide ceiling holds for c");
    }

    #[test]
    fn without_a_ceiling_no_client_refuses_another() {
        let budget = Budget::per_client_only(2);
        let t0 = DateTime::<Utc>::from_timestamp_millis(120_000).unwrap();
        for n in 1..=200u8 {
            let noisy = ip(&format!("192.0.2.{n}"));
            assert!(budget.spend(noisy, t0) && budget.spend(noisy, t0));
            assert!(!budget.spend(noisy, t0), "{noisy:?} is used up");
        }
        let fresh = ip("198.51.100.1");
        assert!(budget.available(fresh, t0), "a fresh client is not refused");
        assert!(budget.spend(fresh, t0), "and spends its own");
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64() {
        let budget = Budget::new(1, 10);
        let t0 = DateTime::<Utc>::from_timestamp_millis(0).unwrap();
        assert!(budget.spend(ip("2001:db8:1:2::1"), t0));
        assert!(
            !budget.spend(ip("2001:db8:1:2::ffff"), t0),
            "same /64, same client"
        );
        assert!(budget.spend(ip("2001:db8:1:3::1"), t0), "another /64");
    }

    #[test]
    fn retry_after_counts_to_the_next_minute() {
        let at = |ms| DateTime::<Utc>::from_timestamp_millis(ms).unwrap();
        assert_eq!(seconds_to_next_window(at(120_000)), 60);
        assert_eq!(seconds_to_next_window(at(120_001)), 60);
        assert_eq!(seconds_to_next_window(at(179_000)), 1);
        assert_eq!(seconds_to_next_window(at(179_999)), 1);
    }
}
