//! Budgets for the unauthenticated device routes (docs/devices.md, "Limits"). A recovery key
//! id cannot be guessed (132 bits of hash over a key derived from 128 random bits), so these
//! are not what keeps backups safe; they keep a misbehaving client from filling the relay
//! with pairing requests or hammering lookups. Fixed one-minute windows on the relay's clock,
//! counted per relay (behind a proxy every client shares one address anyway).

use std::sync::Mutex;

use chrono::{DateTime, Utc};

/// Length of a window.
const WINDOW_MS: i64 = 60_000;
/// Failed unauthenticated lookups and enrolments per window (unknown recovery key id, bad
/// certificate signature, unknown pairing poll token).
pub const MAX_FAILURES_PER_MINUTE: u32 = 120;
/// New pairing requests per window.
pub const MAX_PAIRINGS_PER_MINUTE: u32 = 60;

/// One fixed-window counter.
#[derive(Debug)]
pub struct Budget {
    max: u32,
    window: Mutex<(i64, u32)>,
}

impl Budget {
    pub const fn new(max: u32) -> Budget {
        Budget {
            max,
            window: Mutex::new((i64::MIN, 0)),
        }
    }

    /// Whether the current window has room left (without spending any).
    pub fn available(&self, now: DateTime<Utc>) -> bool {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        roll(&mut w, now);
        w.1 < self.max
    }

    /// Spends one unit; `false` when the window is used up.
    pub fn spend(&self, now: DateTime<Utc>) -> bool {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        roll(&mut w, now);
        if w.1 >= self.max {
            return false;
        }
        w.1 += 1;
        true
    }
}

fn roll(w: &mut (i64, u32), now: DateTime<Utc>) {
    let start = now.timestamp_millis().div_euclid(WINDOW_MS);
    if w.0 != start {
        *w = (start, 0);
    }
}

/// The relay's budgets.
#[derive(Debug)]
pub struct Limits {
    pub failures: Budget,
    pub pairings: Budget,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            failures: Budget::new(MAX_FAILURES_PER_MINUTE),
            pairings: Budget::new(MAX_PAIRINGS_PER_MINUTE),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_refills_each_window() {
        let budget = Budget::new(2);
        let t0 = DateTime::<Utc>::from_timestamp_millis(120_000).unwrap();
        assert!(budget.spend(t0), "first unit");
        assert!(budget.spend(t0), "second unit");
        assert!(!budget.spend(t0), "the window is used up");
        assert!(!budget.available(t0), "and says so");
        let t1 = t0 + chrono::TimeDelta::seconds(60);
        assert!(budget.spend(t1), "the next window has room again");
    }
}
