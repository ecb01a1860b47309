//! The message list: one row per message, newest first, filtered, in cursor pages.
//!
//! How a page is found, so that it stays fast on a million messages:
//! - One index *drives* the page, walked newest first from the cursor: the full-text index when
//!   `q` is given, else the destination index for an exact destination, else the API key's index
//!   for a key's own messages, else `queue (status, message_id)` for a status, else `projection
//!   (state, message_id)` for a state other than pending, else the message table itself. The order
//!   is the message id, so the page needs no sort and stops as soon as it is full.
//! - A destination prefix (without words) is a range of the destination index, which is ordered by
//!   number, not id. Its entries after the cursor are first counted in that index alone (no row
//!   read), up to one more than [`SCAN_BUDGET`]: none, and the page is empty at once; no more than
//!   the budget, and the range drives: its ids are sorted newest first (the one sort a page may
//!   make: of ids only, at most the budget of them) and rows are read in that order until the page
//!   is full, so the matches of a rare prefix come on the first page however old they are. A larger
//!   range has many matches: the page is driven as if there were no prefix, which is checked on
//!   each row; should that find none within the budget (the matches are all older), the newest of
//!   the range's ids, up to the budget, drive the page instead: a prefix alone never gives an empty
//!   page while it has matches.
//! - A destination suffix (its last digits) is a range of `message_destination_suffix`, an index
//!   on the destination's last 16 characters reversed (migration 16), so an ending is a beginning
//!   there: it drives a page exactly as a prefix's range does.
//! - A creation-time range narrows whichever index drives to an id range (two lookups in
//!   `message_created`), as long as creation times have followed ids; should the clock ever have
//!   been set back, it is checked row by row instead (the writer counts the steps back).
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
//! The first page (no cursor) also says how many messages the filter selects ([`MessageTotal`]):
//! from running totals when it can, else counted with a cap and a budget (see `total`).
//!
//! The parts: `filter` reads what to list ([`MessageFilter`], [`destination`]); `plan` picks the
//! driving index and builds the queries; `summary` reads one row ([`MessageSummary`]); `total`
//! counts for the first page; this file runs the queries for a page, a count or their query plans.

mod driver;
mod filter;
mod plan;
mod summary;
mod total;

use rusqlite::{params_from_iter, Connection};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{cursor, params, snapshot, Arg, ViewError};
use crate::db::{Db, Dialect};
use crate::Reads;
use plan::Plan;
use summary::summary_row;

pub use filter::{destination, Destination, MessageFilter};
pub use summary::MessageSummary;
pub use total::{total_query_plans, total_within, MessageTotal, TotalBound, COUNT_BUDGET, TOTAL_CAP};

pub(crate) use summary::summary;

/// How many candidate rows one page may look at before it stops and hands back a cursor.
pub const SCAN_BUDGET: i64 = 20_000;

const LIST: &str = "messages";

/// One page of messages, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessagePage {
    pub items: Vec<MessageSummary>,
    /// Pass back as `cursor` for the next page; `None` when there is nothing more.
    pub next_cursor: Option<String>,
    /// The page stopped at its scan budget before it was full: there may be more matches past
    /// `next_cursor` even though this page has fewer items than asked.
    pub scan_limited: bool,
    /// On the first page (no `cursor`), how many messages the filter selects in all; `null` on the
    /// pages after it. Exact when nothing is filtered, or only a queue status, a reported state or
    /// a creation-time range (running totals); otherwise counted, up to 10,000 (`more_than`) and
    /// among at most the newest 50,000 candidates (`at_least` when it stopped there).
    #[ts(optional = nullable)]
    pub total: Option<MessageTotal>,
}

/// A page of messages, newest first (see the module documentation for how it stays fast).
pub fn list_messages(c: &impl Reads, f: &MessageFilter) -> Result<MessagePage, ViewError> {
    list_with_budget(c, f, SCAN_BUDGET)
}

/// How many messages a filter selects in all (its cursor and limit are ignored). Unlike a page,
/// this reads every match: for exports and reports, not for every screen refresh.
pub fn count_messages(c: &impl Reads, f: &MessageFilter) -> Result<u64, ViewError> {
    let f = MessageFilter {
        cursor: None,
        ..f.clone()
    };
    let dialect = c.db().dialect();
    // A prefix counts its range of the destination index rather than every message.
    let mut plan = match Plan::by_range(&f, SCAN_BUDGET, dialect)? {
        Some(plan) => plan,
        None => Plan::new(&f, SCAN_BUDGET, dialect)?,
    };
    snapshot(c.db(), |c| {
        if !plan.bound_dates(c)? {
            return Ok(0);
        }
        let n: i64 = match plan.count_query() {
            None => c.one(
                "SELECT coalesce(max(n), 0) FROM view_count WHERE scope = 'message' AND value = 'all'",
                &[],
            )?,
            Some((sql, args)) => c.one(&sql, &params(&args))?,
        };
        Ok(n.max(0) as u64)
    })
}

/// [`list_messages`] with another scan budget (tests use a small one).
pub fn list_with_budget(c: &impl Reads, f: &MessageFilter, budget: i64) -> Result<MessagePage, ViewError> {
    let dialect = c.db().dialect();
    let by_range = Plan::by_range(f, budget, dialect)?;
    let plan = Plan::new(f, budget, dialect)?;
    snapshot(c.db(), |c| {
        let mut page = page_of(c, by_range, plan)?;
        if f.cursor.is_none() {
            page.total = Some(total::total(c, f)?);
        }
        Ok(page)
    })
}

/// The page `plan` gives, or `by_range` for a destination range that is small enough (or the
/// only way to matches older than the budget reaches).
fn page_of(c: Db<'_>, by_range: Option<Plan>, mut plan: Plan) -> Result<MessagePage, ViewError> {
    let Some(mut ranged) = by_range else {
        return match plan.bound_dates(c)? {
            true => page(c, &plan),
            false => Ok(MessagePage::default()),
        };
    };
    if !ranged.bound_dates(c)? {
        return Ok(MessagePage::default());
    }
    let entries = range_entries(c, &ranged)?;
    if entries == 0 {
        return Ok(MessagePage::default());
    }
    if ranged.range_within_budget(entries) {
        return page(c, &ranged);
    }
    // More entries than the budget: matches are many, and the message ids find them faster
    // than a sort of the whole range would; but should they all be older than the budget
    // reaches, the range's newest (a sort of all its ids) give the page instead of nothing.
    if !plan.bound_dates(c)? {
        return Ok(MessagePage::default());
    }
    let by_id = page(c, &plan)?;
    if by_id.items.is_empty() && by_id.scan_limited {
        return page(c, &ranged);
    }
    Ok(by_id)
}

/// How many entries the destination range (a prefix's or a suffix's) has after the cursor, up to
/// one more than the budget.
fn range_entries(c: Db<'_>, plan: &Plan) -> Result<i64, ViewError> {
    let (sql, args) = plan.range_probe();
    Ok(c.one(&sql, &params(&args))?)
}

/// The page a plan gives: its rows down to where the scan budget ends, when rows may be skipped.
fn page(c: Db<'_>, plan: &Plan) -> Result<MessagePage, ViewError> {
    let floor: Option<i64> = match plan.floor_query() {
        Some((sql, args)) => c.query_opt(&sql, &params(&args), |r| r.get(0))?,
        None => None,
    };
    let (sql, args) = plan.page_query(floor);
    let mut items = c.query(&sql, &params(&args), summary_row)?;

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
        total: None,
    })
}

/// The query plans SQLite picks (SQLite's alone) for a filter's queries (for a destination prefix, the count of its
/// range; then the budget probe and the page of the plan that range chooses), for tests that pin
/// down index use and for whoever checks one by hand.
pub fn query_plans(conn: &Connection, f: &MessageFilter) -> Result<Vec<String>, ViewError> {
    let c = Db::Sqlite(conn);
    let mut queries: Vec<(String, Vec<Arg>)> = Vec::new();
    let by_id = |c: Db<'_>| -> Result<Plan, ViewError> {
        let mut plan = Plan::new(f, SCAN_BUDGET, Dialect::Sqlite)?;
        plan.bound_dates(c)?;
        Ok(plan)
    };
    let plan = match Plan::by_range(f, SCAN_BUDGET, Dialect::Sqlite)? {
        Some(mut ranged) => {
            ranged.bound_dates(c)?;
            queries.push(ranged.range_probe());
            let entries = range_entries(c, &ranged)?;
            match ranged.range_within_budget(entries) {
                true => ranged,
                false => by_id(c)?,
            }
        }
        None => by_id(c)?,
    };
    queries.extend(plan.floor_query());
    queries.push(plan.page_query(Some(1)));
    let mut out = Vec::new();
    for (sql, params) in queries {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let rows = stmt.query_map(params_from_iter(params), |r| r.get::<_, String>(3))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}
