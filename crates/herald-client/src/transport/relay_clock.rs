//! The relay's clock as this client sees it: every relay response carries a `Date` header from
//! the relay's clock (1-second resolution); the offset from the local clock is kept here so
//! deadlines and expiry are judged by the relay's time, not this machine's (docs/faults.md,
//! "Relay time only"). Until a response was seen, the local clock stands in.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use reqwest::header::{HeaderMap, DATE};

/// Offset of the relay's clock from the local one, shared by clones of a `RelayHttp`.
#[derive(Debug, Clone, Default)]
pub struct RelayClock {
    inner: Arc<Offset>,
}

#[derive(Debug, Default)]
struct Offset {
    known: AtomicBool,
    /// relay time − local time, in milliseconds.
    millis: AtomicI64,
}

impl RelayClock {
    /// Records the offset from a response's `Date` header, read at `local_now` (headers
    /// without a parsable `Date` are ignored). The header has whole seconds, so the offset
    /// is good to about a second plus the request's latency.
    pub fn observe(&self, headers: &HeaderMap, local_now: DateTime<Utc>) {
        let Some(date) = headers
            .get(DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| DateTime::parse_from_rfc2822(v).ok())
        else {
            return;
        };
        let offset = date.with_timezone(&Utc) - local_now;
        self.inner
            .millis
            .store(offset.num_milliseconds(), Ordering::Relaxed);
        self.inner.known.store(true, Ordering::Release);
    }

    /// The relay's clock's offset from the local clock, once a response was seen.
    pub fn offset(&self) -> Option<TimeDelta> {
        self.inner
            .known
            .load(Ordering::Acquire)
            .then(|| TimeDelta::milliseconds(self.inner.millis.load(Ordering::Relaxed)))
    }

    /// The relay's current time (the local clock plus the last offset seen).
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.offset().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn the_offset_follows_the_date_header() {
        let clock = RelayClock::default();
        assert_eq!(clock.offset(), None, "unknown before a response");
        let local = DateTime::parse_from_rfc3339("2026-11-30T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let mut headers = HeaderMap::new();
        headers.insert(
            DATE,
            HeaderValue::from_static("Mon, 30 Nov 2026 07:50:00 GMT"),
        );
        clock.observe(&headers, local);
        assert_eq!(clock.offset(), Some(TimeDelta::minutes(-10)));
        headers.insert(DATE, HeaderValue::from_static("yesterday"));
        clock.observe(&headers, local);
        assert_eq!(
            clock.offset(),
            Some(TimeDelta::minutes(-10)),
            "a bad header changes nothing"
        );
    }
}
