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

    /// Full jitter: delays cover the whole range [0, ceiling], so clients that lost the relay
    /// together come back spread out (crates/herald-client/tests/faults_restart.rs).
    #[test]
    fn delays_are_spread_over_the_whole_range_up_to_the_cap() {
        let sample = |attempt: u32| -> Vec<Duration> {
            (0..2000)
                .map(|_| {
                    let mut b = Backoff::default();
                    for _ in 0..attempt {
                        b.next_delay();
                    }
                    b.next_delay()
                })
                .collect()
        };
        let first = sample(0);
        let min = first.iter().min().unwrap();
        let max = first.iter().max().unwrap();
        let mean = first.iter().sum::<Duration>() / first.len() as u32;
        assert!(
            *min < Duration::from_millis(25),
            "some retry almost at once: {min:?}"
        );
        assert!(
            *max > Duration::from_millis(225),
            "some wait the whole 250 ms: {max:?}"
        );
        assert!(
            (Duration::from_millis(100)..Duration::from_millis(150)).contains(&mean),
            "uniform over [0, 250 ms]: mean {mean:?}"
        );
        let capped = sample(30);
        assert!(
            capped.iter().all(|d| *d <= Duration::from_secs(30)),
            "never beyond the 30 s cap"
        );
        assert!(
            capped.iter().any(|d| *d > Duration::from_secs(25)),
            "the cap is reached"
        );
        assert!(
            capped.iter().any(|d| *d < Duration::from_secs(5)),
            "still jittered at the cap"
        );
        let mut b = Backoff::default();
        for _ in 0..10 {
            b.next_delay();
        }
        b.reset();
        assert!(
            b.next_delay() <= Duration::from_millis(250),
            "reset starts over at the first ceiling"
        );
    }
}
