//! The overview: queue depth by status, messages by state, open exceptions by kind, and how many
//! messages came in today and in the last 24 hours.
//!
//! Counting a million rows on every refresh is not cheap, so the per-status and per-state totals
//! come from `view_count`, a small table kept in step by triggers (migration 3) in the same
//! transaction as every change; the other figures are index range counts over small ranges.

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{snapshot, ViewError};
use crate::Text;
use smsdesk_core::domain::{DeliveryState, ExceptionKind, QueueStatus};

const DAY_MS: i64 = 86_400_000;

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
}

/// The overview at `now_ms`, with "today" starting at midnight at `utc_offset_minutes`.
pub fn dashboard_at(c: &Connection, now_ms: i64, utc_offset_minutes: i32) -> Result<Dashboard, ViewError> {
    let offset = i64::from(utc_offset_minutes) * 60_000;
    let local = now_ms + offset;
    let today_start_ms = local - local.rem_euclid(DAY_MS) - offset;
    snapshot(c, |c| {
        let counted = |scope: &str, value: &str| -> Result<i64, ViewError> {
            Ok(
                c.prepare_cached("SELECT coalesce(max(n), 0) FROM view_count WHERE scope = ?1 AND value = ?2")?
                    .query_row(params![scope, value], |r| r.get(0))?,
            )
        };
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
        let mut stmt = c.prepare_cached("SELECT kind, count(*) FROM exception WHERE status = 'open' GROUP BY kind")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, Text<ExceptionKind>>(0)?.0, r.get::<_, i64>(1)?)))? {
            let (kind, n) = row?;
            if let Some(e) = open_exceptions.iter_mut().find(|e| e.kind == kind) {
                e.count = n;
            }
        }
        let since = |t: i64| -> Result<i64, ViewError> {
            Ok(c.prepare_cached("SELECT count(*) FROM message WHERE created_at >= ?1")?
                .query_row([t], |r| r.get(0))?)
        };
        Ok(Dashboard {
            at_ms: now_ms,
            today_start_ms,
            utc_offset_minutes,
            messages_total,
            created_today: since(today_start_ms)?,
            created_last_24h: since(now_ms - DAY_MS)?,
            queue,
            states,
            open_exceptions_total: open_exceptions.iter().map(|e| e.count).sum(),
            open_exceptions,
        })
    })
}
