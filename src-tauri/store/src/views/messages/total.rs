//! How many messages a filter selects, for the list's "1,234 messages", on every first page.
//!
//! It must stay as cheap as the page at a million messages, so it is never a count of every
//! match:
//! - nothing filtered, a queue status alone, or a reported state alone: the running totals the
//!   dashboard reads (`view_count`, migration 3); a creation-time range alone: the messages created
//!   by minute, hour and day (`activity_count`, migration 12), as the dashboard's "created today".
//!   Exact, a few index lookups.
//! - the delivery report's filters (connection, route, country, sender, outcome, command status,
//!   receipt error code), with a kind or a range of whole hours or neither: the report's sums
//!   (`report_hour`, migration 26), the very figure the report shows. Exact, a range of that table.
//! - anything else: the matches are counted, but no further than [`TOTAL_CAP`] of them (then
//!   "more than 10,000") and among no more than [`COUNT_BUDGET`] candidates of the index that
//!   drives the page (then "at least" what was found): a rare combination cannot make it a scan of
//!   the whole table.

use rusqlite::{params_from_iter, Connection};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::filter::{destination, report_conditions, text_query, MessageFilter};
use super::plan::Plan;
use crate::db::Db;
use crate::views::dashboard::{counted, created_since};
use crate::views::{params, Arg, ViewError};
use crate::Reads;
use smsdesk_core::domain::DeliveryState;

/// The most matches counted: past it the total is "more than" this.
pub const TOTAL_CAP: u64 = 10_000;

/// The most candidates (entries of the index that drives the page) a count looks at.
pub const COUNT_BUDGET: i64 = 50_000;

/// How a total's `count` is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TotalBound {
    /// Exactly `count` messages.
    Exact,
    /// More than `count` (the count stopped at its cap, 10,000).
    MoreThan,
    /// At least `count`: counting stopped at its budget of candidates, and older messages were
    /// not looked at. Narrower filters give an exact figure.
    AtLeast,
}

/// How many messages a filter selects (see [`super::MessagePage::total`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessageTotal {
    #[ts(type = "number")]
    pub count: u64,
    pub bound: TotalBound,
}

impl MessageTotal {
    pub fn exact(count: u64) -> MessageTotal {
        MessageTotal {
            count,
            bound: TotalBound::Exact,
        }
    }
}

/// How many messages `f` selects, its cursor ignored (see the module documentation).
pub(super) fn total(c: Db<'_>, f: &MessageFilter) -> Result<MessageTotal, ViewError> {
    Counter { c, plans: None }.total(f, TOTAL_CAP, COUNT_BUDGET)
}

/// The total with another cap and budget of candidates (tests use small ones).
pub fn total_within(c: &impl Reads, f: &MessageFilter, cap: u64, budget: i64) -> Result<MessageTotal, ViewError> {
    Counter { c: c.db(), plans: None }.total(f, cap, budget)
}

/// The query plans SQLite picks (SQLite's alone) for the queries a total runs (none when running
/// totals answer), as it runs them, for tests that pin down that it reads an index range and never
/// the whole table.
pub fn total_query_plans(c: &Connection, f: &MessageFilter) -> Result<Vec<String>, ViewError> {
    let mut counter = Counter {
        c: Db::Sqlite(c),
        plans: Some((c, Vec::new())),
    };
    counter.total(f, TOTAL_CAP, COUNT_BUDGET)?;
    Ok(counter.plans.map(|(_, plans)| plans).unwrap_or_default())
}

/// Runs a total's queries, noting their plans when asked to (on SQLite).
struct Counter<'c> {
    c: Db<'c>,
    plans: Option<(&'c Connection, Vec<String>)>,
}

impl Counter<'_> {
    fn total(&mut self, f: &MessageFilter, cap: u64, budget: i64) -> Result<MessageTotal, ViewError> {
        if let Some(n) = maintained(self.c, f)? {
            return Ok(MessageTotal::exact(n.max(0) as u64));
        }
        self.bounded(f, cap, budget)
    }

    /// One value of one row of `sql`, if it has a row (its plan noted first when asked).
    fn value(&mut self, sql: &str, args: Vec<Arg>) -> Result<Option<i64>, ViewError> {
        if let Some((conn, plans)) = &mut self.plans {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
            let rows = stmt.query_map(params_from_iter(args.iter()), |r| r.get::<_, String>(3))?;
            for row in rows {
                plans.push(row?);
            }
        }
        Ok(self.c.query_opt(sql, &params(&args), |r| r.get(0))?)
    }

    /// The matches counted up to `cap` (one more, to know there are more) among at most `budget`
    /// candidates.
    fn bounded(&mut self, f: &MessageFilter, cap: u64, budget: i64) -> Result<MessageTotal, ViewError> {
        let f = MessageFilter {
            cursor: None,
            ..f.clone()
        };
        let dialect = self.c.dialect();
        let mut plan = match Plan::by_range(&f, budget, dialect)? {
            Some(plan) => plan,
            None => Plan::new(&f, budget, dialect)?,
        };
        if !plan.bound_dates(self.c)? {
            return Ok(MessageTotal::exact(0));
        }
        let over_cap = cap.min(i64::MAX as u64 - 1) as i64 + 1;
        if plan.is_range() && !plan.has_residual() {
            // Every entry of the range matches: they are counted in the index alone, no row
            // read, and no further than the cap.
            let (sql, params) = plan.range_count_upto(over_cap);
            let n = self.value(&sql, params)?.unwrap_or(0).max(0) as u64;
            return Ok(match n > cap {
                true => MessageTotal {
                    count: cap,
                    bound: TotalBound::MoreThan,
                },
                false => MessageTotal::exact(n),
            });
        }
        let complete = if plan.is_range() {
            let (sql, params) = plan.range_probe();
            let entries = self.value(&sql, params)?.unwrap_or(0);
            plan.range_within_budget(entries)
        } else if let Some((sql, params)) = plan.floor_query() {
            let floor = self.value(&sql, params)?;
            plan.set_floor(floor);
            floor.is_none()
        } else {
            true
        };
        let (sql, mut params) = plan.bounded_count_query();
        params.push(Arg::Int(over_cap));
        let n = self.value(&sql, params)?.unwrap_or(0).max(0) as u64;
        Ok(if n > cap {
            MessageTotal {
                count: cap,
                bound: TotalBound::MoreThan,
            }
        } else if !complete {
            MessageTotal {
                count: n,
                bound: TotalBound::AtLeast,
            }
        } else {
            MessageTotal::exact(n)
        })
    }
}

/// The total from the delivery report's sums, for report filters with no queue status or
/// reported state and a range of whole hours (or none); `None` otherwise.
fn by_report(c: Db<'_>, f: &MessageFilter) -> Result<Option<i64>, ViewError> {
    let whole = |t: Option<i64>| t.is_none_or(|t| t % crate::totals::HOUR_MS == 0);
    if f.status.is_some() || f.state.is_some() || !whole(f.from_ms) || !whole(f.to_ms) {
        return Ok(None);
    }
    let (mut sql, mut args) = report_conditions(f, "h")?;
    if let Some(k) = f.kind {
        sql.push("h.kind = ?".to_owned());
        args.push(Arg::Text(k.as_str().to_owned()));
    }
    if let Some(from) = f.from_ms {
        sql.push("h.hour >= ?".to_owned());
        args.push(Arg::Int(from));
    }
    if let Some(to) = f.to_ms {
        sql.push("h.hour < ?".to_owned());
        args.push(Arg::Int(to));
    }
    let n = c.one(
        &format!(
            "SELECT coalesce(sum(h.messages), 0) FROM report_hour h WHERE {}",
            sql.join(" AND ")
        ),
        &params(&args),
    )?;
    Ok(Some(n))
}

/// The total from running totals, when `f` filters by nothing but one queue status, one reported
/// state or a creation-time range; `None` otherwise.
fn maintained(c: Db<'_>, f: &MessageFilter) -> Result<Option<i64>, ViewError> {
    let words = text_query(f, c.dialect())?.is_some();
    let number = f.destination.as_deref().and_then(destination).is_some();
    if words || number || f.channel.is_some() || f.only_key.is_some() {
        return Ok(None);
    }
    if f.by_report() {
        return by_report(c, f);
    }
    if f.kind.is_some() {
        return Ok(None);
    }
    let dated = f.from_ms.is_some() || f.to_ms.is_some();
    let all = || counted(c, "message", "all");
    Ok(match (f.status, f.state, dated) {
        (None, None, false) => Some(all()?),
        (Some(status), None, false) => Some(counted(c, "queue", status.as_str())?),
        (None, Some(DeliveryState::Pending), false) => {
            // As the dashboard counts it: a message no receipt was applied to has no projection.
            let projected: i64 = DeliveryState::ALL
                .iter()
                .map(|s| counted(c, "projection", s.as_str()))
                .sum::<Result<i64, ViewError>>()?;
            Some(counted(c, "projection", DeliveryState::Pending.as_str())? + (all()? - projected).max(0))
        }
        (None, Some(state), false) => Some(counted(c, "projection", state.as_str())?),
        (None, None, true) => {
            let total = all()?;
            let from = match f.from_ms {
                Some(t) => created_since(c, t, total)?,
                None => total,
            };
            let after = match f.to_ms {
                Some(t) => created_since(c, t, total)?,
                None => 0,
            };
            Some(from - after)
        }
        _ => None,
    })
}
