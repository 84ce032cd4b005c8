//! Reconnect delays: exponential with full jitter, so many clients restarting together (a relay
//! restart) spread their reconnects instead of arriving as a storm.

use std::time::Duration;

/// Exponential backoff with full jitter between `base` and `cap`.
#[derive(Debug, Clone)]
pub struct Backoff {
    attempt: u32,
    base: Duration,
    cap: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            attempt: 0,
            base: Duration::from_millis(250),
            cap: Duration::from_secs(30),
        }
    }
}

impl Backoff {
    /// Back to the first delay (after a successful connect).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }

    /// The next delay: uniform in [0, min(cap, base · 2^attempt)].
    pub fn next_delay(&mut self) -> Duration {
        let exp = self.base.saturating_mul(1u32 << self.attempt.min(16));
        let ceiling = exp.min(self.cap);
        self.attempt = self.attempt.saturating_add(1);
        let r = u64::from_le_bytes(herald_crypto::random_bytes::<8>());
        let millis = ceiling.as_millis() as u64;
        Duration::from_millis(if millis == 0 { 0 } else { r % (millis + 1) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_stay_under_the_growing_ceiling_and_cap() {
        let mut b = Backoff::default();
        for attempt in 0..40u32 {
            let ceiling = Duration::from_millis(250)
                .saturating_mul(1u32 << attempt.min(16))
                .min(Duration::from_secs(30));
            assert!(
                b.next_delay() <= ceiling,
                "attempt {attempt} within its ceiling"
            );
        }
    }
}
