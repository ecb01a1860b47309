//! The delivery report: messages created in a period, grouped by one or two dimensions, with the
//! same figures for the period of the same length just before and a series by hour or day.
//!
//! It reads the sums the writer keeps by hour and by every dimension (`report_hour`, see
//! `crate::reports`), never the messages: a month of a million messages is a few thousand rows.
//! Periods are whole hours (the sums' grain): `from_ms` is taken back and `to_ms` forward to the
//! hour, and the answer says which period it covers. Days start at midnight at
//! `utc_offset_minutes` (whole hours of offset keep days exact; a half-hour offset moves each day's
//! edge by that half hour).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::activity::percentile;
use super::{snapshot, ViewError};
use crate::db::Db;
use crate::reports::{DIMENSIONS, LATENCY_BEYOND, LATENCY_BOUNDS};
use crate::totals::{DAY_MS, HOUR_MS};
use crate::Reads;

/// The longest period a report covers (a little over a year).
pub const MAX_DAYS: i64 = 400;
/// The last millisecond of the year 9999: the latest time a report's period may name.
pub const LAST_MS: i64 = 253_402_300_799_999;
/// The longest period shown by hour.
pub const MAX_HOURLY_DAYS: i64 = 31;

/// What a report groups messages by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportDimension {
    Kind,
    Connection,
    Route,
    Country,
    Sender,
    Outcome,
    CommandStatus,
    ErrorCode,
}

impl ReportDimension {
    pub const ALL: [ReportDimension; 8] = [
        ReportDimension::Kind,
        ReportDimension::Connection,
        ReportDimension::Route,
        ReportDimension::Country,
        ReportDimension::Sender,
        ReportDimension::Outcome,
        ReportDimension::CommandStatus,
        ReportDimension::ErrorCode,
    ];

    /// Its column in `report_hour` (and its name in `by` and in the message list's filters).
    pub fn as_str(self) -> &'static str {
        DIMENSIONS[self as usize]
    }

    /// `by` as a query gives it: one or two names separated by a comma, or nothing.
    pub fn parse_list(by: Option<&str>) -> Result<Vec<ReportDimension>, ViewError> {
        let mut out = Vec::new();
        for name in by.unwrap_or("").split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let d = Self::ALL.into_iter().find(|d| d.as_str() == name).ok_or_else(|| {
                ViewError::InvalidFilter(format!("by: `{name}` is none of {}", DIMENSIONS.join(", ")))
            })?;
            if out.contains(&d) {
                return Err(ViewError::InvalidFilter(format!("by: `{name}` is given twice")));
            }
            out.push(d);
        }
        if out.len() > 2 {
            return Err(ViewError::InvalidFilter(
                "by: at most two dimensions at once".to_owned(),
            ));
        }
        Ok(out)
    }
}

/// The width of a chart bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportStep {
    Hour,
    Day,
}

/// What to report on. Read from a query string as is
/// (`?from_ms=…&to_ms=…&by=connection,country&step=day&utc_offset_minutes=60`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(default, rename_all = "snake_case")]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// The messages created at or after this time (ms since the epoch; taken back to the hour).
    #[ts(type = "number")]
    pub from_ms: i64,
    /// …and before this one (exclusive; taken forward to the hour).
    #[ts(type = "number")]
    pub to_ms: i64,
    /// One or two of kind, connection, route, country, sender, outcome, command_status,
    /// error_code, separated by a comma; none: one group of every message.
    pub by: Option<String>,
    /// `hour` or `day`; by default by hour for two days or less, else by day. By hour for at
    /// most 31 days.
    pub step: Option<ReportStep>,
    /// The office's offset from UTC, in minutes: where its days start. 0 when not given.
    pub utc_offset_minutes: Option<i32>,
}

/// The figures of a group (or of everything) over a period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ReportFigures {
    #[ts(type = "number")]
    pub messages: i64,
    /// Their parts (what the provider bills).
    #[ts(type = "number")]
    pub parts: i64,
    /// Messages by outcome; they add up to `messages`.
    #[ts(type = "number")]
    pub delivered: i64,
    #[ts(type = "number")]
    pub failed: i64,
    #[ts(type = "number")]
    pub expired: i64,
    #[ts(type = "number")]
    pub cancelled: i64,
    #[ts(type = "number")]
    pub no_receipt: i64,
    #[ts(type = "number")]
    pub unknown: i64,
    #[ts(type = "number")]
    pub pending: i64,
    /// delivered / messages × 100; null without messages.
    pub delivered_pct: Option<f64>,
    /// (failed + expired) / messages × 100.
    pub failed_pct: Option<f64>,
    /// no_receipt / messages × 100.
    pub no_receipt_pct: Option<f64>,
    /// From the SMSC's acceptance to the first final receipt: the upper bound of the latency
    /// bucket (1 s, 2 s, 5 s, 10 s, 20 s, 30 s, 1 min, 2 min, 5 min, 10 min, 30 min, 1 h, 2 h, 6 h,
    /// 24 h, then 7 days for anything longer) the median falls in; null without a receipt.
    #[ts(type = "number | null")]
    pub latency_p50_ms: Option<i64>,
    /// The same, for the 95th percentile.
    #[ts(type = "number | null")]
    pub latency_p95_ms: Option<i64>,
}

/// One bucket of a group's series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ReportPoint {
    #[ts(type = "number")]
    pub messages: i64,
    #[ts(type = "number")]
    pub delivered: i64,
    /// Failed and expired.
    #[ts(type = "number")]
    pub failed: i64,
    #[ts(type = "number")]
    pub no_receipt: i64,
}

/// One group: its value for each dimension of `by`, its figures now and over the period before,
/// and its series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ReportGroup {
    /// The value of each dimension, in the order of `by`, exactly as the message list's filter
    /// of that dimension takes it ("" for none).
    pub key: Vec<String>,
    /// A readable label for each value: an API key's name for `key:<id>`, a command status's
    /// name; otherwise the value itself.
    pub label: Vec<String>,
    pub figures: ReportFigures,
    /// The same group over the period of the same length just before.
    pub previous: ReportFigures,
    /// By bucket: `series[i]` is the bucket that starts at `buckets[i]`.
    pub series: Vec<ReportPoint>,
}

/// Delivery figures over a period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct DeliveryReport {
    /// The period covered: whole hours.
    #[ts(type = "number")]
    pub from_ms: i64,
    #[ts(type = "number")]
    pub to_ms: i64,
    /// The period compared with: the same length, just before.
    #[ts(type = "number")]
    pub previous_from_ms: i64,
    pub by: Vec<ReportDimension>,
    pub step: ReportStep,
    pub utc_offset_minutes: i32,
    /// Where each bucket of the series starts (ms).
    #[ts(type = "Array<number>")]
    pub buckets: Vec<i64>,
    pub total: ReportFigures,
    pub previous_total: ReportFigures,
    /// The groups, most messages first.
    pub groups: Vec<ReportGroup>,
}

/// Sums of one group over a period: messages by outcome, parts, latencies by bucket.
#[derive(Debug, Clone, Default)]
struct Sums {
    outcomes: BTreeMap<String, i64>,
    parts: i64,
    latencies: [i64; LATENCY_BOUNDS.len() + 1],
}

impl Sums {
    fn add(&mut self, row: &Row) {
        *self.outcomes.entry(row.outcome.clone()).or_default() += row.messages;
        self.parts += row.parts;
        for (sum, n) in self.latencies.iter_mut().zip(&row.latencies) {
            *sum += n;
        }
    }

    fn figures(&self) -> ReportFigures {
        let n = |o: &str| self.outcomes.get(o).copied().unwrap_or(0);
        let messages: i64 = self.outcomes.values().sum();
        let pct = |k: i64| (messages > 0).then(|| k as f64 * 100.0 / messages as f64);
        let histogram: Vec<(i64, i64)> = LATENCY_BOUNDS
            .iter()
            .copied()
            .chain([LATENCY_BEYOND])
            .zip(self.latencies.iter().copied())
            .collect();
        ReportFigures {
            messages,
            parts: self.parts,
            delivered: n("delivered"),
            failed: n("failed"),
            expired: n("expired"),
            cancelled: n("cancelled"),
            no_receipt: n("no_receipt"),
            unknown: n("unknown"),
            pending: n("pending"),
            delivered_pct: pct(n("delivered")),
            failed_pct: pct(n("failed") + n("expired")),
            no_receipt_pct: pct(n("no_receipt")),
            latency_p50_ms: percentile(&histogram, 50),
            latency_p95_ms: percentile(&histogram, 95),
        }
    }
}

/// One row of `report_hour`, with the values of the dimensions asked for.
struct Row {
    hour: i64,
    key: Vec<String>,
    outcome: String,
    messages: i64,
    parts: i64,
    latencies: Vec<i64>,
}

/// The period a query asks for, read and checked: whole hours, its step and its buckets.
struct Period {
    from: i64,
    to: i64,
    step: ReportStep,
    /// The office's offset from UTC, in minutes.
    offset: i64,
    buckets: Vec<i64>,
}

impl Period {
    fn of(q: &ReportQuery) -> Result<Period, ViewError> {
        let refuse = |why: String| Err(ViewError::InvalidFilter(why));
        let offset = i64::from(q.utc_offset_minutes.unwrap_or(0));
        if offset.abs() > 14 * 60 {
            return refuse("utc_offset_minutes must be within ±840 (14 hours)".to_owned());
        }
        for (name, t) in [("from_ms", q.from_ms), ("to_ms", q.to_ms)] {
            if !(0..=LAST_MS).contains(&t) {
                return refuse(format!("{name} ({t}) is not a time between 1970 and 9999"));
            }
        }
        let from = q.from_ms.div_euclid(HOUR_MS) * HOUR_MS;
        let to = (q.to_ms + HOUR_MS - 1).div_euclid(HOUR_MS) * HOUR_MS;
        if to <= from {
            return refuse(format!("from_ms ({}) must be before to_ms ({})", q.from_ms, q.to_ms));
        }
        if to - from > MAX_DAYS * DAY_MS {
            return refuse(format!("a report covers at most {MAX_DAYS} days"));
        }
        let by_hour = to - from <= 2 * DAY_MS;
        let step = q
            .step
            .unwrap_or(if by_hour { ReportStep::Hour } else { ReportStep::Day });
        if step == ReportStep::Hour && to - from > MAX_HOURLY_DAYS * DAY_MS {
            return refuse(format!(
                "by hour, a report covers at most {MAX_HOURLY_DAYS} days; ask by day"
            ));
        }
        let mut p = Period {
            from,
            to,
            step,
            offset,
            buckets: Vec::new(),
        };
        let width = match step {
            ReportStep::Hour => HOUR_MS,
            ReportStep::Day => DAY_MS,
        };
        p.buckets = std::iter::successors(Some(p.bucket_of(from)), |b| Some(b + width))
            .take_while(|b| *b < to)
            .collect();
        Ok(p)
    }

    /// Where the bucket that holds `hour` starts: the hour, or midnight at the office's offset.
    fn bucket_of(&self, hour: i64) -> i64 {
        match self.step {
            ReportStep::Hour => hour,
            ReportStep::Day => (hour + self.offset * 60_000).div_euclid(DAY_MS) * DAY_MS - self.offset * 60_000,
        }
    }

    /// The index in `buckets` of the bucket that holds `hour`.
    fn index_of(&self, hour: i64) -> usize {
        let start = self.bucket_of(hour);
        self.buckets.partition_point(|b| *b <= start).saturating_sub(1)
    }
}

/// The report `q` asks for.
pub fn delivery_report(c: &impl Reads, q: &ReportQuery) -> Result<DeliveryReport, ViewError> {
    let by = ReportDimension::parse_list(q.by.as_deref())?;
    let period = Period::of(q)?;
    let previous_from = period.from - (period.to - period.from);
    snapshot(c.db(), |c| {
        let mut now: BTreeMap<Vec<String>, (Sums, Vec<ReportPoint>)> = BTreeMap::new();
        let mut total = Sums::default();
        for row in rows(c, &by, period.from, period.to)? {
            total.add(&row);
            let (sums, series) = now
                .entry(row.key.clone())
                .or_insert_with(|| (Sums::default(), vec![ReportPoint::default(); period.buckets.len()]));
            sums.add(&row);
            series[period.index_of(row.hour)].add(&row);
        }
        let mut before: BTreeMap<Vec<String>, Sums> = BTreeMap::new();
        let mut previous_total = Sums::default();
        for row in rows(c, &by, previous_from, period.from)? {
            previous_total.add(&row);
            before.entry(row.key.clone()).or_default().add(&row);
        }
        let mut groups = Vec::with_capacity(now.len());
        for (key, (sums, series)) in now {
            groups.push(ReportGroup {
                label: labels(c, &by, &key)?,
                previous: before.get(&key).map(Sums::figures).unwrap_or_default(),
                figures: sums.figures(),
                key,
                series,
            });
        }
        groups.sort_by(|a, b| {
            b.figures
                .messages
                .cmp(&a.figures.messages)
                .then_with(|| a.key.cmp(&b.key))
        });
        Ok(DeliveryReport {
            from_ms: period.from,
            to_ms: period.to,
            previous_from_ms: previous_from,
            by: by.clone(),
            step: period.step,
            utc_offset_minutes: period.offset as i32,
            buckets: period.buckets.clone(),
            total: total.figures(),
            previous_total: previous_total.figures(),
            groups,
        })
    })
}

impl ReportPoint {
    fn add(&mut self, row: &Row) {
        self.messages += row.messages;
        match row.outcome.as_str() {
            "delivered" => self.delivered += row.messages,
            "failed" | "expired" => self.failed += row.messages,
            "no_receipt" => self.no_receipt += row.messages,
            _ => {}
        }
    }
}

/// The rows of `report_hour` from `from` to `to` that count something, with the values of the
/// dimensions of `by` (the caller adds them up: a month is tens of thousands of rows, which Rust
/// sums faster than a GROUP BY that must sort them first).
fn rows(c: Db<'_>, by: &[ReportDimension], from: i64, to: i64) -> Result<Vec<Row>, ViewError> {
    let dims: String = by.iter().map(|d| format!("CAST({} AS TEXT), ", d.as_str())).collect();
    let latencies: Vec<String> = (0..=LATENCY_BOUNDS.len()).map(|i| format!("l{i}")).collect();
    let sql = format!(
        "SELECT hour, {dims}outcome, messages, parts, {}
         FROM report_hour WHERE hour >= ?1 AND hour < ?2 AND messages <> 0",
        latencies.join(", ")
    );
    let n = by.len();
    Ok(c.query(&sql, &[&from, &to], |r| {
        Ok(Row {
            hour: r.get(0)?,
            key: (0..n).map(|i| r.get(1 + i)).collect::<Result<_, _>>()?,
            outcome: r.get(1 + n)?,
            messages: r.get(2 + n)?,
            parts: r.get(3 + n)?,
            latencies: (0..=LATENCY_BOUNDS.len())
                .map(|i| r.get(4 + n + i))
                .collect::<Result<_, _>>()?,
        })
    })?)
}

/// A readable label for each value of a group's key.
fn labels(c: Db<'_>, by: &[ReportDimension], key: &[String]) -> Result<Vec<String>, ViewError> {
    by.iter()
        .zip(key)
        .map(|(d, value)| {
            Ok(match d {
                ReportDimension::Sender => match value.strip_prefix("key:").and_then(|id| id.parse::<i64>().ok()) {
                    Some(id) => c
                        .query_opt("SELECT name FROM api_key WHERE id = ?1", &[&id], |r| r.get::<String>(0))?
                        .unwrap_or_else(|| value.clone()),
                    None => value.strip_prefix("person:").unwrap_or(value).to_owned(),
                },
                ReportDimension::CommandStatus => match value.parse::<i64>() {
                    Ok(code) if code >= 0 => {
                        let info = smsdesk_core::command_status::describe(code as u32);
                        format!("0x{code:08X} {}", info.name)
                    }
                    _ => String::new(),
                },
                _ => value.clone(),
            })
        })
        .collect()
}
