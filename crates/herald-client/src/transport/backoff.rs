//! Reconnect delays: exponential with full jitter, so many clients restarting together (a relay
//! restart) spread their reconnects instead of arriving as a storm.

use std::time::Duration;

/// How the sync task waits between reconnect attempts (docs/faults.md, "Relay faults"): the
/// ceiling starts at `base`, doubles after each failed attempt up to `cap`, and starts over once
/// a catch-up succeeded. Set with `Core::set_reconnect_backoff`.
///
/// The default (250 ms, 30 s, full jitter) is what every core uses unless told otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconnectBackoff {
    /// Ceiling of the first delay; must not be zero. Default 250 ms.
    pub base: Duration,
    /// Largest ceiling; at least `base`. Default 30 s.
    pub cap: Duration,
    /// Full jitter: each delay is uniform in [0, ceiling] (the default). `false` waits the
    /// ceiling itself, so clients that lost the relay together all retry together: only for
    /// measuring what the jitter buys (crates/herald-client/tests/faults_restart.rs).
    pub jitter: bool,
}

impl Default for ReconnectBackoff {
    fn default() -> Self {
        ReconnectBackoff {
            base: Duration::from_millis(250),
            cap: Duration::from_secs(30),
            jitter: true,
        }
    }
}

impl ReconnectBackoff {
    /// Checks the limits above; the error names the broken one (`Error::InvalidInput`).
    pub fn validate(&self) -> crate::Result<()> {
        if self.base.is_zero() {
            return Err(crate::Error::InvalidInput(
                "reconnect backoff base must be above zero".into(),
            ));
        }
        if self.cap < self.base {
            return Err(crate::Error::InvalidInput(
                "reconnect backoff cap must be at least its base".into(),
            ));
        }
        Ok(())
    }
}

/// Exponential backoff, with full jitter unless the policy turns it off, between `base` and `cap`.
#[derive(Debug, Clone, Default)]
pub struct Backoff {
    attempt: u32,
    policy: ReconnectBackoff,
}

impl Backoff {
    /// A backoff following `policy` (assumed valid: [`ReconnectBackoff::validate`]).
    pub fn new(policy: ReconnectBackoff) -> Self {
        Backoff { attempt: 0, policy }
    }

    /// Follows `policy` from the next delay on; the attempt count is kept.
    pub fn set_policy(&mut self, policy: ReconnectBackoff) {
        self.policy = policy;
    }

    /// Back to the first delay (after a successful connect).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }

    /// The next delay: uniform in [0, min(cap, base · 2^attempt)], or that ceiling itself
    /// without jitter.
    pub fn next_delay(&mut self) -> Duration {
        let exp = self
            .policy
            .base
            .saturating_mul(1u32 << self.attempt.min(16));
        let ceiling = exp.min(self.policy.cap);
        self.attempt = self.attempt.saturating_add(1);
        if !self.policy.jitter {
            return ceiling;
        }
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

    #[test]
    fn without_jitter_every_delay_is_the_ceiling_and_bad_policies_are_refused() {
        let policy = ReconnectBackoff {
            jitter: false,
            ..Default::default()
        };
        let mut b = Backoff::new(policy);
        let delays: Vec<u64> = (0..9).map(|_| b.next_delay().as_millis() as u64).collect();
        assert_eq!(
            delays,
            [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]
        );
        b.set_policy(ReconnectBackoff::default());
        assert!(b.next_delay() <= Duration::from_secs(30), "jittered again");
        assert!(ReconnectBackoff::default().validate().is_ok());
        let zero = ReconnectBackoff {
            base: Duration::ZERO,
            ..Default::default()
        };
        assert!(matches!(
            zero.validate(),
            Err(crate::Error::InvalidInput(_))
        ));
        let inverted = ReconnectBackoff {
            cap: Duration::from_millis(100),
            ..Default::default()
        };
        assert!(matches!(
            inverted.validate(),
            Err(crate::Error::InvalidInput(_))
        ));
    }
}
