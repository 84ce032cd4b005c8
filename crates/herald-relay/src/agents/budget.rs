//! Daily budgets per account for agent credentials (docs/agents.md, "Budgets"): a number of
//! requests, and a number of seconds spent waiting in `GET /v1/replies`. Days are UTC days of
//! the relay's clock; both budgets refill at midnight UTC. Over budget → 429
//! `budget_exceeded` (requests) or `poll_budget_exceeded` (wait seconds), with `Retry-After`
//! (seconds) and `resetsAt` (RFC 3339) in the body.
//!
//! Counters live in memory: a relay restart forgets the day's counts (the budgets protect the
//! devices and the relay from runaway agents; they are not billing).

use std::collections::HashMap;
use std::sync::Mutex;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use herald_protocol::{AccountId, ErrorBody, ErrorCode};

use crate::clock::format_time;
use crate::error::ApiError;

/// Default requests per account per UTC day.
pub const DEFAULT_REQUESTS_PER_DAY: u32 = 10_000;
/// Default seconds of reply waits per account per UTC day (one hour).
pub const DEFAULT_POLL_SECONDS_PER_DAY: u64 = 3_600;

/// The daily budgets, set in [`crate::RelayConfig`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentLimits {
    /// Requests by agent credentials (every `/v1/*` call; every `/mcp` call) per UTC day.
    pub requests_per_day: u32,
    /// Seconds spent waiting in `GET /v1/replies` per UTC day.
    pub poll_seconds_per_day: u64,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            requests_per_day: DEFAULT_REQUESTS_PER_DAY,
            poll_seconds_per_day: DEFAULT_POLL_SECONDS_PER_DAY,
        }
    }
}

/// Which budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetKind {
    Requests,
    PollSeconds,
}

/// A refusal for an exhausted budget: 429 with `Retry-After` and `resetsAt`.
#[derive(Debug, Clone)]
pub struct BudgetExceeded {
    pub kind: BudgetKind,
    pub now: DateTime<Utc>,
    pub resets_at: DateTime<Utc>,
}

impl BudgetExceeded {
    /// The error body (the MCP endpoint forwards it as is).
    pub fn body(&self) -> ErrorBody {
        let code = match self.kind {
            BudgetKind::Requests => ErrorCode::BudgetExceeded,
            BudgetKind::PollSeconds => ErrorCode::PollBudgetExceeded,
        };
        let mut body = ErrorBody::new(code);
        body.resets_at = Some(format_time(self.resets_at));
        body
    }

    /// Whole seconds until the reset, at least 1.
    pub fn retry_after(&self) -> i64 {
        let ms = (self.resets_at - self.now).num_milliseconds().max(0);
        ((ms + 999) / 1000).max(1)
    }
}

impl IntoResponse for BudgetExceeded {
    fn into_response(self) -> Response {
        let mut response = (StatusCode::TOO_MANY_REQUESTS, axum::Json(self.body())).into_response();
        if let Ok(v) = HeaderValue::from_str(&self.retry_after().to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    }
}

/// What an agent route answers when it refuses: a catalog error or an exhausted budget.
#[derive(Debug)]
pub enum Refusal {
    Api(ApiError),
    Budget(BudgetExceeded),
}

impl From<ApiError> for Refusal {
    fn from(e: ApiError) -> Self {
        Refusal::Api(e)
    }
}

impl From<BudgetExceeded> for Refusal {
    fn from(e: BudgetExceeded) -> Self {
        Refusal::Budget(e)
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Api(e) => e.into_response(),
            Refusal::Budget(e) => e.into_response(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct DayUse {
    day: NaiveDate,
    requests: u32,
    poll_seconds: u64,
}

/// The counters of every account.
pub(crate) struct Budgets {
    limits: AgentLimits,
    days: Mutex<HashMap<AccountId, DayUse>>,
}

fn next_midnight(now: DateTime<Utc>) -> DateTime<Utc> {
    let tomorrow = now.date_naive() + TimeDelta::days(1);
    tomorrow
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(now)
}

impl Budgets {
    pub fn new(limits: AgentLimits) -> Budgets {
        Budgets {
            limits,
            days: Mutex::new(HashMap::new()),
        }
    }

    fn with_today<T>(
        &self,
        account: &AccountId,
        now: DateTime<Utc>,
        f: impl FnOnce(&mut DayUse) -> T,
    ) -> T {
        let today = now.date_naive();
        let mut days = self.days.lock().unwrap_or_else(|e| e.into_inner());
        // Yesterday's counters of other accounts are dropped as days roll.
        if days.values().any(|d| d.day != today) && days.len() > 1024 {
            days.retain(|_, d| d.day == today);
        }
        let entry = days.entry(account.clone()).or_insert(DayUse {
            day: today,
            requests: 0,
            poll_seconds: 0,
        });
        if entry.day != today {
            *entry = DayUse {
                day: today,
                requests: 0,
                poll_seconds: 0,
            };
        }
        f(entry)
    }

    fn exceeded(kind: BudgetKind, now: DateTime<Utc>) -> BudgetExceeded {
        BudgetExceeded {
            kind,
            now,
            resets_at: next_midnight(now),
        }
    }

    /// Spends one request of the account's day.
    pub fn charge_request(
        &self,
        account: &AccountId,
        now: DateTime<Utc>,
    ) -> Result<(), BudgetExceeded> {
        let max = self.limits.requests_per_day;
        self.with_today(account, now, |d| {
            if d.requests >= max {
                return Err(Self::exceeded(BudgetKind::Requests, now));
            }
            d.requests += 1;
            Ok(())
        })
    }

    /// Reserves up to `wanted` seconds of waiting; returns how many were granted (fewer when
    /// the day has fewer left). Refused when none are left.
    pub fn reserve_poll(
        &self,
        account: &AccountId,
        wanted: u64,
        now: DateTime<Utc>,
    ) -> Result<(u64, NaiveDate), BudgetExceeded> {
        let max = self.limits.poll_seconds_per_day;
        self.with_today(account, now, |d| {
            let left = max.saturating_sub(d.poll_seconds);
            if left == 0 {
                return Err(Self::exceeded(BudgetKind::PollSeconds, now));
            }
            let granted = wanted.min(left);
            d.poll_seconds += granted;
            Ok((granted, d.day))
        })
    }

    /// Gives back unused reserved seconds (same day only).
    pub fn refund_poll(&self, account: &AccountId, seconds: u64, day: NaiveDate) {
        let mut days = self.days.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = days.get_mut(account) {
            if d.day == day {
                d.poll_seconds = d.poll_seconds.saturating_sub(seconds);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn requests_run_out_and_refill_at_midnight() {
        let b = Budgets::new(AgentLimits {
            requests_per_day: 2,
            poll_seconds_per_day: 10,
        });
        let a = AccountId::from_random(&[1; 16]);
        let other = AccountId::from_random(&[2; 16]);
        let t = at("2026-10-02T23:59:30Z");
        assert!(b.charge_request(&a, t).is_ok());
        assert!(b.charge_request(&a, t).is_ok());
        let refused = b
            .charge_request(&a, t)
            .expect_err("the third is over budget");
        assert_eq!(
            refused.resets_at,
            at("2026-10-03T00:00:00Z"),
            "resets at midnight UTC"
        );
        assert_eq!(refused.retry_after(), 30, "Retry-After in whole seconds");
        assert!(
            b.charge_request(&other, t).is_ok(),
            "budgets are per account"
        );
        assert!(
            b.charge_request(&a, at("2026-10-03T00:00:00Z")).is_ok(),
            "a new day has a full budget"
        );
    }

    #[test]
    fn poll_seconds_are_clamped_and_refunded() {
        let b = Budgets::new(AgentLimits {
            requests_per_day: 100,
            poll_seconds_per_day: 10,
        });
        let a = AccountId::from_random(&[1; 16]);
        let t = at("2026-10-02T12:00:00Z");
        let (granted, day) = b.reserve_poll(&a, 8, t).unwrap();
        assert_eq!(granted, 8);
        let (granted, _) = b.reserve_poll(&a, 8, t).unwrap();
        assert_eq!(granted, 2, "clamped to what is left");
        let e = b.reserve_poll(&a, 1, t).expect_err("none left");
        assert_eq!(e.kind, BudgetKind::PollSeconds);
        b.refund_poll(&a, 5, day);
        assert_eq!(
            b.reserve_poll(&a, 60, t).unwrap().0,
            5,
            "refunded seconds are usable"
        );
    }
}
