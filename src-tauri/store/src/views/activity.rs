//! The dashboard's charts: submits, receipts and receipt latency over a window of time, and what
//! became of the messages of each of the last 30 days.
//!
//! Summing a month of rows at a million messages on every refresh is far too slow, so the figures
//! come from running totals (schema version 5, `activity_*` tables), kept in the same transaction
//! as the rows they count by triggers and by the writer (`store::totals`), at exactly the bucket
//! widths the windows use: a window reads at most 60 buckets. Buckets are UTC; the UI
//! shows them in the user's time zone.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{snapshot, ViewError};
use crate::db::Db;
use crate::totals::{DAY_MS, HOUR_MS, MINUTE_MS};
use crate::Reads;

/// Days in the outcomes-by-day series, today included.
pub const OUTCOME_DAYS: usize = 30;

/// The span a chart covers, and the width of its buckets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActivityWindow {
    /// The last 60 minutes, by minute.
    #[default]
    Hour,
    /// The last 24 hours, by hour.
    Day,
    /// The last 30 days, by day.
    Month,
}

impl ActivityWindow {
    pub const ALL: [ActivityWindow; 3] = [ActivityWindow::Hour, ActivityWindow::Day, ActivityWindow::Month];

    /// A bucket's width in ms.
    pub const fn bucket_ms(self) -> i64 {
        match self {
            ActivityWindow::Hour => MINUTE_MS,
            ActivityWindow::Day => HOUR_MS,
            ActivityWindow::Month => DAY_MS,
        }
    }

    /// How many buckets the window has, the current (unfinished) one included.
    pub const fn buckets(self) -> usize {
        match self {
            ActivityWindow::Hour => 60,
            ActivityWindow::Day => 24,
            ActivityWindow::Month => 30,
        }
    }
}

/// One bucket of a window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ActivityBucket {
    /// The bucket's start (UTC, ms); it lasts `bucket_ms`.
    #[ts(type = "number")]
    pub start_ms: i64,
    /// Submit tries the SMSC accepted (submit_sm_resp OK; not delivery), by the time they were written.
    #[ts(type = "number")]
    pub accepted: i64,
    /// Submit tries the SMSC refused (temporary, throttled or permanent error).
    #[ts(type = "number")]
    pub refused: i64,
    /// Submit tries that got no answer (timeout, or the link dropped after the write).
    #[ts(type = "number")]
    pub unknown: i64,
    /// Reports received (repeats included), by receive time.
    #[ts(type = "number")]
    pub receipts: i64,
    /// Messages whose first final receipt arrived in the bucket: the latency sample size.
    #[ts(type = "number")]
    pub finals: i64,
    /// Median time from the accepted submit to the first final receipt (two significant digits);
    /// none when `finals` is 0.
    #[ts(type = "number | null")]
    pub latency_p50_ms: Option<i64>,
    /// 95th percentile of the same.
    #[ts(type = "number | null")]
    pub latency_p95_ms: Option<i64>,
}

/// What became of the messages created on one UTC day, as things stand now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct DayOutcomes {
    /// The day's start (UTC midnight, ms).
    #[ts(type = "number")]
    pub day_ms: i64,
    /// Messages created that day; the outcomes below add up to it.
    #[ts(type = "number")]
    pub created: i64,
    /// The network reported delivery (not proof that anyone read it).
    #[ts(type = "number")]
    pub delivered: i64,
    /// The network reported another final state: undeliverable, rejected, deleted, unknown, skipped.
    #[ts(type = "number")]
    pub failed: i64,
    /// The network reported the message expired.
    #[ts(type = "number")]
    pub expired: i64,
    /// No final receipt by the deadline.
    #[ts(type = "number")]
    pub no_receipt: i64,
    /// Failed, cancelled or expired in our queue before the SMSC accepted it.
    #[ts(type = "number")]
    pub not_sent: i64,
    /// Decided by an operator on an exception.
    #[ts(type = "number")]
    pub decided: i64,
    /// Still waiting: queued, sending, or accepted with no final receipt yet.
    #[ts(type = "number")]
    pub pending: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct Activity {
    pub window: ActivityWindow,
    /// The time the figures are for.
    #[ts(type = "number")]
    pub at_ms: i64,
    /// Each bucket's width.
    #[ts(type = "number")]
    pub bucket_ms: i64,
    /// The window's start (the first bucket's) and end (exclusive; the current bucket's end).
    #[ts(type = "number")]
    pub from_ms: i64,
    #[ts(type = "number")]
    pub to_ms: i64,
    /// Every bucket of the window, oldest first, empty ones included.
    pub buckets: Vec<ActivityBucket>,
    /// The last 30 UTC days, oldest first, today (unfinished) last.
    pub days: Vec<DayOutcomes>,
}

/// The charts for `window` ending with the bucket that holds `now_ms`.
pub fn activity_at(c: &impl Reads, window: ActivityWindow, now_ms: i64) -> Result<Activity, ViewError> {
    let span = Span::new(window, now_ms);
    snapshot(c.db(), |c| {
        let mut buckets = span.empty_buckets();
        add_counts(c, span, &mut buckets)?;
        add_latencies(c, span, &mut buckets)?;
        let days = day_outcomes(c, now_ms)?;
        Ok(Activity {
            window,
            at_ms: now_ms,
            bucket_ms: span.width,
            from_ms: span.from_ms,
            to_ms: span.to_ms,
            buckets,
            days,
        })
    })
}

/// Where a window's buckets lie in time: `count` buckets of `width` ms, from `from_ms` to `to_ms`
/// (exclusive), the last one holding the time the figures are for.
#[derive(Debug, Clone, Copy)]
struct Span {
    width: i64,
    count: usize,
    from_ms: i64,
    to_ms: i64,
}

impl Span {
    fn new(window: ActivityWindow, now_ms: i64) -> Span {
        let width = window.bucket_ms();
        let count = window.buckets();
        let to_ms = floor(now_ms, width) + width;
        Span {
            width,
            count,
            from_ms: to_ms - width * count as i64,
            to_ms,
        }
    }

    /// Every bucket of the window, oldest first, all at zero.
    fn empty_buckets(self) -> Vec<ActivityBucket> {
        (0..self.count)
            .map(|i| ActivityBucket {
                start_ms: self.from_ms + self.width * i as i64,
                ..ActivityBucket::default()
            })
            .collect()
    }

    /// The index of the bucket that starts at `start`, if it is one of the window's.
    fn slot(self, start: i64) -> Option<usize> {
        usize::try_from((start - self.from_ms) / self.width)
            .ok()
            .filter(|&i| i < self.count)
    }
}

/// Adds the submit and receipt counts (`activity_count`) to the window's buckets.
fn add_counts(c: Db<'_>, span: Span, buckets: &mut [ActivityBucket]) -> Result<(), ViewError> {
    let rows = c.query(
        "SELECT bucket, metric, n FROM activity_count WHERE grain = ?1 AND bucket >= ?2 AND bucket < ?3",
        &[&span.width, &span.from_ms, &span.to_ms],
        |r| Ok((r.get::<i64>(0)?, r.get::<String>(1)?, r.get::<i64>(2)?)),
    )?;
    for (start, metric, n) in rows {
        let Some(b) = span.slot(start).map(|i| &mut buckets[i]) else {
            continue;
        };
        match metric.as_str() {
            "accepted" => b.accepted += n,
            "refused" => b.refused += n,
            "unknown" => b.unknown += n,
            "receipt" => b.receipts += n,
            _ => {}
        }
    }
    Ok(())
}

/// Sets each bucket's receipt latency (sample size and percentiles) from its histogram
/// (`activity_latency`).
fn add_latencies(c: Db<'_>, span: Span, buckets: &mut [ActivityBucket]) -> Result<(), ViewError> {
    let mut histograms: Vec<Vec<(i64, i64)>> = vec![Vec::new(); span.count];
    let rows = c.query(
        "SELECT bucket, latency_ms, n FROM activity_latency
         WHERE grain = ?1 AND bucket >= ?2 AND bucket < ?3 AND n > 0
         ORDER BY bucket, latency_ms",
        &[&span.width, &span.from_ms, &span.to_ms],
        |r| Ok((r.get::<i64>(0)?, r.get::<i64>(1)?, r.get::<i64>(2)?)),
    )?;
    for (start, latency, n) in rows {
        if let Some(i) = span.slot(start) {
            histograms[i].push((latency, n));
        }
    }
    for (b, h) in buckets.iter_mut().zip(&histograms) {
        b.finals = h.iter().map(|&(_, n)| n).sum();
        b.latency_p50_ms = percentile(h, 50);
        b.latency_p95_ms = percentile(h, 95);
    }
    Ok(())
}

/// What became of the messages of each of the last [`OUTCOME_DAYS`] UTC days up to the one that
/// holds `now_ms` (`activity_outcome`), oldest first; what no outcome accounts for is pending.
fn day_outcomes(c: Db<'_>, now_ms: i64) -> Result<Vec<DayOutcomes>, ViewError> {
    let today = floor(now_ms, DAY_MS);
    let days_from = today - DAY_MS * (OUTCOME_DAYS as i64 - 1);
    let mut days: Vec<DayOutcomes> = (0..OUTCOME_DAYS)
        .map(|i| DayOutcomes {
            day_ms: days_from + DAY_MS * i as i64,
            ..DayOutcomes::default()
        })
        .collect();
    let rows = c.query(
        "SELECT day, outcome, n FROM activity_outcome WHERE day >= ?1 AND day <= ?2",
        &[&days_from, &today],
        |r| Ok((r.get::<i64>(0)?, r.get::<String>(1)?, r.get::<i64>(2)?)),
    )?;
    for (day, outcome, n) in rows {
        let Some(d) = usize::try_from((day - days_from) / DAY_MS)
            .ok()
            .and_then(|i| days.get_mut(i))
        else {
            continue;
        };
        match outcome.as_str() {
            "created" => d.created += n,
            "delivered" => d.delivered += n,
            "failed" => d.failed += n,
            "expired" => d.expired += n,
            "no_receipt" => d.no_receipt += n,
            "not_sent" => d.not_sent += n,
            "decided" => d.decided += n,
            _ => {}
        }
    }
    for d in &mut days {
        let settled = d.delivered + d.failed + d.expired + d.no_receipt + d.not_sent + d.decided;
        d.pending = (d.created - settled).max(0);
    }
    Ok(days)
}

/// `t` rounded down to a multiple of `width` (UTC buckets, as the triggers store them).
fn floor(t: i64, width: i64) -> i64 {
    t - t.rem_euclid(width)
}

/// The nearest-rank percentile of a histogram sorted by value: the smallest value that at least
/// `p` % of the samples do not exceed.
pub fn percentile(histogram: &[(i64, i64)], p: i64) -> Option<i64> {
    let total: i64 = histogram.iter().map(|&(_, n)| n).sum();
    if total <= 0 {
        return None;
    }
    // ceil(p * total / 100), at least 1.
    let rank = ((p * total + 99) / 100).max(1);
    let mut seen = 0;
    for &(value, n) in histogram {
        seen += n;
        if seen >= rank {
            return Some(value);
        }
    }
    histogram.last().map(|&(v, _)| v)
}
