//! The message list: one row per message, newest first, filtered, in cursor pages.
//!
//! How a page is found, so that it stays fast on a million messages:
//! - One index *drives* the page, walked newest first from the cursor: the full-text index when
//!   `q` is given, else the destination index for an exact destination, else `queue (status,
//!   message_id)` for a status, else `projection (state, message_id)` for a state other than
//!   pending, else the message table itself. The order is always the message id, so a page never
//!   needs a sort and stops as soon as it is full.
//! - A creation-time range narrows whichever index drives to an id range (two lookups in
//!   `message_created`), as long as creation times have followed ids; should the clock ever have
//!   been set back, it is checked row by row instead (migration 3 keeps count).
//! - Every other filter is checked on the driven rows. So that a rare combination cannot turn one
//!   request into a scan of the whole table, a page looks at no more than [`SCAN_BUDGET`]
//!   candidates: when it stops there it comes back with fewer items than asked (possibly none),
//!   `scan_limited` set, and a `next_cursor` that continues where it stopped. Follow `next_cursor`
//!   until it is `None`; every message that matches is returned exactly once.
//!
//! Paging is by id, newest first: messages created after the first page have higher ids and never
//! shift later pages. (A message whose status or state changes between two requests can of course
//! leave or enter a filtered list; it is still never returned twice.)
//!
//! The parts: `filter` reads what to list ([`MessageFilter`], [`destination`]); `plan` picks the
//! driving index and builds the queries; `summary` reads one row ([`MessageSummary`]); this file
//! runs the queries for a page, a count or their query plans.

mod filter;
mod plan;
mod summary;

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{cursor, snapshot, ViewError};
use plan::Plan;
use summary::summary_row;

pub use filter::{destination, Destination, MessageFilter};
pub use summary::MessageSummary;

pub(crate) use summary::summary;

/// How many candidate rows one page may look at before it stops and hands back a cursor.
pub const SCAN_BUDGET: i64 = 20_000;

const LIST: &str = "messages";

/// One page of messages, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessagePage {
    pub items: Vec<MessageSummary>,
    /// Pass back as `cursor` for the next page; `None` when there is nothing more.
    pub next_cursor: Option<String>,
    /// The page stopped at its scan budget before it was full: there may be more matches past
    /// `next_cursor` even though this page has fewer items than asked.
    pub scan_limited: bool,
}

/// A page of messages, newest first (see the module documentation for how it stays fast).
pub fn list_messages(c: &Connection, f: &MessageFilter) -> Result<MessagePage, ViewError> {
    list_with_budget(c, f, SCAN_BUDGET)
}

/// How many messages a filter selects in all (its cursor and limit are ignored). Unlike a page,
/// this reads every match: for exports and reports, not for every screen refresh.
pub fn count_messages(c: &Connection, f: &MessageFilter) -> Result<u64, ViewError> {
    let mut plan = Plan::new(
        &MessageFilter {
            cursor: None,
            ..f.clone()
        },
        SCAN_BUDGET,
    )?;
    snapshot(c, |c| {
        if !plan.bound_dates(c)? {
            return Ok(0);
        }
        let n: i64 = match plan.count_query() {
            None => c
                .prepare_cached("SELECT coalesce(max(n), 0) FROM view_count WHERE scope = 'message' AND value = 'all'")?
                .query_row([], |r| r.get(0))?,
            Some((sql, params)) => c
                .prepare_cached(&sql)?
                .query_row(params_from_iter(params), |r| r.get(0))?,
        };
        Ok(n.max(0) as u64)
    })
}

/// [`list_messages`] with another scan budget (tests use a small one).
pub fn list_with_budget(c: &Connection, f: &MessageFilter, budget: i64) -> Result<MessagePage, ViewError> {
    let mut plan = Plan::new(f, budget)?;
    snapshot(c, |c| {
        if !plan.bound_dates(c)? {
            return Ok(MessagePage {
                items: Vec::new(),
                next_cursor: None,
                scan_limited: false,
            });
        }
        let floor: Option<i64> = match plan.floor_query() {
            Some((sql, params)) => c
                .prepare_cached(&sql)?
                .query_row(params_from_iter(params), |r| r.get(0))
                .optional()?,
            None => None,
        };
        let (sql, params) = plan.page_query(floor);
        let mut items = c
            .prepare_cached(&sql)?
            .query_map(params_from_iter(params), summary_row)?
            .collect::<Result<Vec<_>, _>>()?;

        let (next_cursor, scan_limited) = if items.len() > plan.limit {
            items.truncate(plan.limit);
            (items.last().map(|m| cursor::encode(LIST, m.id)), false)
        } else if let Some(floor) = floor {
            (Some(cursor::encode(LIST, floor)), true)
        } else {
            (None, false)
        };
        Ok(MessagePage {
            items,
            next_cursor,
            scan_limited,
        })
    })
}

/// The query plans SQLite picks for a filter's queries (the budget probe, then the page), for
/// tests that pin down index use and for whoever checks one by hand.
pub fn query_plans(c: &Connection, f: &MessageFilter) -> Result<Vec<String>, ViewError> {
    let mut plan = Plan::new(f, SCAN_BUDGET)?;
    plan.bound_dates(c)?;
    let mut queries: Vec<(String, Vec<Value>)> = plan.floor_query().into_iter().collect();
    queries.push(plan.page_query(Some(1)));
    let mut out = Vec::new();
    for (sql, params) in queries {
        let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let rows = stmt.query_map(params_from_iter(params), |r| r.get::<_, String>(3))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}
