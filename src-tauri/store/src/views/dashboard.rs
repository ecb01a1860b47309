//! The overview: queue depth by status, messages by state, open exceptions by kind, and how many
//! messages came in today and in the last 24 hours.
//!
//! Counting a million rows on every refresh is not cheap, so every figure comes from running
//! totals kept in the same transaction as the rows they count, or from an index range count over
//! a small range. The per-status and per-state totals come from `view_count` (migration 3). The
//! messages created since a time add up the messages created by day, hour and minute
//! (`activity_count`, metric 'created', migration 12): the whole days, hours and minutes after it,
//! at most a day's worth of rows of those tables, plus the messages of the minute it falls in,
//! counted in `message_created` (the shorter side of that minute: an index range count of at most
//! half a minute of messages). The cost does not grow with the number of messages of the day, and
//! the figure is the plain count's, exactly, at any time zone offset.

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{enum_at, snapshot, ViewError};
use crate::db::{Db, Dialect};
use crate::totals::{DAY_MS, HOUR_MS, MINUTE_MS};
use crate::Reads;
use smsdesk_core::domain::{DeliveryState, ExceptionKind, QueueStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct QueueCount {
    pub status: QueueStatus,
    #[ts(type = "number")]
    pub count: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct StateCount {
    pub state: DeliveryState,
    #[ts(type = "number")]
    pub count: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ExceptionCount {
    pub kind: ExceptionKind,
    #[ts(type = "number")]
    pub count: i64,
}

/// The database's backups, as the dashboard shows them. Not read from the database: the engine
/// fills it in from the backup folder ([`crate::backup::names`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct BackupStatus {
    /// When the newest backup in the backup folder was taken (of any kind smsdesk names), if any.
    #[ts(type = "number | null")]
    pub last_backup_ms: Option<i64>,
    /// Whether a backup is taken daily (`backup.keep_days` above 0).
    pub automatic: bool,
    /// Days a daily backup is kept.
    pub keep_days: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct Dashboard {
    /// The time the figures are for.
    #[ts(type = "number")]
    pub at_ms: i64,
    /// Where "today" starts: midnight at `utc_offset_minutes`.
    #[ts(type = "number")]
    pub today_start_ms: i64,
    pub utc_offset_minutes: i32,
    #[ts(type = "number")]
    pub messages_total: i64,
    #[ts(type = "number")]
    pub created_today: i64,
    #[ts(type = "number")]
    pub created_last_24h: i64,
    /// Every queue status, in a fixed order, zeros included.
    pub queue: Vec<QueueCount>,
    /// Every delivery state, zeros included; "pending" counts messages no receipt was applied to.
    pub states: Vec<StateCount>,
    /// Open exceptions of every kind, zeros included.
    pub open_exceptions: Vec<ExceptionCount>,
    #[ts(type = "number")]
    pub open_exceptions_total: i64,
    /// The last backup, and whether one is taken daily.
    pub backups: BackupStatus,
    /// What was spent today and this month, when connections have prices.
    pub spend: Option<crate::views::SpendNow>,
}

/// What the office spent today and this month (its local day), by the messages' estimated costs,
/// with its limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SpendNow {
    /// The currency of every amount ("EUR").
    pub currency: String,
    /// Amounts in the currency, such as "12.50".
    pub today: String,
    pub month: String,
    /// `guardrails.spend_day`, None when there is none.
    pub day_limit: Option<String>,
    pub month_limit: Option<String>,
}

/// The overview at `now_ms`, with "today" starting at midnight at `utc_offset_minutes`.
pub fn dashboard_at(c: &impl Reads, now_ms: i64, utc_offset_minutes: i32) -> Result<Dashboard, ViewError> {
    let offset = i64::from(utc_offset_minutes) * 60_000;
    let local = now_ms + offset;
    let today_start_ms = local - local.rem_euclid(DAY_MS) - offset;
    snapshot(c.db(), |c| {
        let counted = |scope: &str, value: &str| counted(c, scope, value);
        let messages_total = counted("message", "all")?;
        let queue = QueueStatus::ALL
            .iter()
            .map(|&status| {
                Ok(QueueCount {
                    status,
                    count: counted("queue", status.as_str())?,
                })
            })
            .collect::<Result<Vec<_>, ViewError>>()?;
        let mut states = DeliveryState::ALL
            .iter()
            .map(|&state| {
                Ok(StateCount {
                    state,
                    count: counted("projection", state.as_str())?,
                })
            })
            .collect::<Result<Vec<_>, ViewError>>()?;
        let projected: i64 = states.iter().map(|s| s.count).sum();
        if let Some(pending) = states.iter_mut().find(|s| s.state == DeliveryState::Pending) {
            pending.count += (messages_total - projected).max(0);
        }
        let mut open_exceptions: Vec<ExceptionCount> = ExceptionKind::ALL
            .iter()
            .map(|&kind| ExceptionCount { kind, count: 0 })
            .collect();
        let rows = c.query(OPEN_EXCEPTIONS, &[], |r| {
            Ok((enum_at::<ExceptionKind>(r, 0)?, r.get::<i64>(1)?))
        })?;
        for (kind, n) in rows {
            if let Some(e) = open_exceptions.iter_mut().find(|e| e.kind == kind) {
                e.count = n;
            }
        }
        Ok(Dashboard {
            at_ms: now_ms,
            today_start_ms,
            utc_offset_minutes,
            messages_total,
            created_today: created_since(c, today_start_ms, messages_total)?,
            created_last_24h: created_since(c, now_ms - DAY_MS, messages_total)?,
            queue,
            states,
            open_exceptions_total: open_exceptions.iter().map(|e| e.count).sum(),
            open_exceptions,
            backups: BackupStatus::default(),
            spend: None,
        })
    })
}

/// A running total of `view_count` (`scope`, `value`), zero when none was kept.
pub(crate) fn counted(c: Db<'_>, scope: &str, value: &str) -> Result<i64, ViewError> {
    Ok(c.one(COUNTED, &[&scope, &value])?)
}

/// A running total of `view_count`.
const COUNTED: &str = "SELECT coalesce(max(n), 0) FROM view_count WHERE scope = ?1 AND value = ?2";

/// The open exceptions by kind (few: an index range count).
const OPEN_EXCEPTIONS: &str = "SELECT kind, count(*) FROM exception WHERE status = 'open' GROUP BY kind";

/// The messages created in a bucket range of one width (`activity_count`, metric 'created').
const CREATED_IN_BUCKETS: &str = "SELECT coalesce(sum(n), 0) FROM activity_count
     WHERE grain = ?1 AND bucket >= ?2 AND bucket < ?3 AND metric = 'created'";

/// The messages created in a time range, counted in the index (for less than a minute).
const CREATED_IN_RANGE: &str = "SELECT count(*) FROM message INDEXED BY message_created
     WHERE created_at >= ?1 AND created_at < ?2";

/// [`CREATED_IN_RANGE`] on PostgreSQL, which has no INDEXED BY (its planner takes the index).
const CREATED_IN_RANGE_PG: &str = "SELECT count(*) FROM message WHERE created_at >= ?1 AND created_at < ?2";

/// How many messages were created at `t` or later, as `SELECT count(*) FROM message WHERE
/// created_at >= t` would say, from the totals: the minutes up to the next hour, the hours up to
/// the next day and the days after, each a short range of `activity_count`, and the part of the
/// minute `t` falls in counted in the index from whichever end of that minute is nearer.
/// `messages_total` is the count of every message (for a time before 1970, when no minute is
/// counted: buckets round towards zero there).
pub(crate) fn created_since(c: Db<'_>, t: i64, messages_total: i64) -> Result<i64, ViewError> {
    let in_range = match c.dialect() {
        Dialect::Sqlite => CREATED_IN_RANGE,
        Dialect::Postgres => CREATED_IN_RANGE_PG,
    };
    let range = |from: i64, to: i64| -> Result<i64, ViewError> { Ok(c.one(in_range, &[&from, &to])?) };
    if t <= 0 {
        return Ok(messages_total - range(i64::MIN, t)?);
    }
    let minute = t - t % MINUTE_MS;
    let (start, partial) = if t == minute {
        (minute, 0)
    } else if t - minute < minute + MINUTE_MS - t {
        // Nearer the minute's start: the whole minute, less what came before `t`.
        (minute, -range(minute, t)?)
    } else {
        (minute + MINUTE_MS, range(t, minute + MINUTE_MS)?)
    };
    let hour = ceil_to(start, HOUR_MS);
    let day = ceil_to(hour, DAY_MS);
    let sum = |grain: i64, from: i64, to: i64| -> Result<i64, ViewError> {
        Ok(c.one(CREATED_IN_BUCKETS, &[&grain, &from, &to])?)
    };
    Ok(partial + sum(MINUTE_MS, start, hour)? + sum(HOUR_MS, hour, day)? + sum(DAY_MS, day, i64::MAX)?)
}

/// The first multiple of `grain` at or after `t` (`t` positive).
fn ceil_to(t: i64, grain: i64) -> i64 {
    match t % grain {
        0 => t,
        r => t - r + grain,
    }
}

/// The query plans SQLite picks for the dashboard's queries (SQLite's alone), for tests that check that none of them
/// counts the messages row by row, and for whoever checks one by hand.
pub fn dashboard_query_plans(c: &Connection) -> Result<Vec<String>, ViewError> {
    let mut out = Vec::new();
    for sql in [COUNTED, OPEN_EXCEPTIONS, CREATED_IN_BUCKETS, CREATED_IN_RANGE] {
        let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let unknown = vec![rusqlite::types::Value::Null; stmt.parameter_count()];
        for row in stmt.query_map(rusqlite::params_from_iter(unknown), |r| r.get::<_, String>(3))? {
            out.push(row?);
        }
    }
    Ok(out)
}
