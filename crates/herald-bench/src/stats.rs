//! Sample summaries: median, percentiles and spread of a set of durations or rates.

use serde::Serialize;
use std::time::Duration;

/// Order statistics of a non-empty sample, in the sample's own unit (milliseconds for
/// latencies, items per second for rates).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    pub min: f64,
    /// 50th percentile (nearest-rank).
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    /// Interquartile range (p75 − p25): the spread quoted in docs/benchmarks.md.
    pub iqr: f64,
}

impl Summary {
    /// Summarises `samples`; `None` when it is empty. NaNs sort last.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let rank = |p: f64| -> f64 {
            // Nearest-rank percentile: the smallest value with at least p% of samples ≤ it.
            let idx = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
            sorted[idx.clamp(1, sorted.len()) - 1]
        };
        Some(Summary {
            n: sorted.len(),
            min: sorted[0],
            p50: rank(50.0),
            p90: rank(90.0),
            p99: rank(99.0),
            max: sorted[sorted.len() - 1],
            iqr: rank(75.0) - rank(25.0),
        })
    }

    /// Summarises durations in milliseconds.
    pub fn of_durations(samples: &[Duration]) -> Option<Summary> {
        let ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        Summary::of(&ms)
    }
}

/// One measurement as printed by a bench binary: `{"bench", "case", "unit", "summary",
/// "extra"}` on one line of stdout.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// Binary name, e.g. `"ingest"`.
    pub bench: &'a str,
    /// The case within it, e.g. `"senders=64"`.
    pub case: String,
    /// Unit of the summary's values, e.g. `"ms"` or `"msg/s"`.
    pub unit: &'a str,
    pub summary: Summary,
    /// Anything else worth recording (database size, target, ratio to a peer).
    pub extra: serde_json::Value,
}

impl Report<'_> {
    /// Prints the JSON line and a short human line to stdout.
    pub fn print(&self) {
        let s = &self.summary;
        println!("{}", serde_json::to_string(self).unwrap_or_default());
        println!(
            "# {} {}: p50 {:.2} {u}, p90 {:.2}, p99 {:.2}, min {:.2}, max {:.2}, IQR {:.2} (n={})",
            self.bench,
            self.case,
            s.p50,
            s.p90,
            s.p99,
            s.min,
            s.max,
            s.iqr,
            s.n,
            u = self.unit
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Summary::of(&samples).unwrap();
        assert_eq!(
            (s.n, s.min, s.p50, s.p90, s.p99, s.max),
            (100, 1.0, 50.0, 90.0, 99.0, 100.0)
        );
        assert_eq!(s.iqr, 50.0);
    }

    #[test]
    fn one_sample_and_none() {
        let s = Summary::of(&[7.0]).unwrap();
        assert_eq!((s.p50, s.p99, s.iqr), (7.0, 7.0, 0.0));
        assert!(Summary::of(&[]).is_none());
    }
}
