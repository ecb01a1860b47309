//! What `GET /api/v1/metrics` reads: running totals (queue and states), the day totals of submits
//! and receipts, the receipt latency histogram, and counts of the evidence taken from where the
//! last scrape stopped (so that a scrape reads only what is new).

use std::collections::BTreeMap;

use crate::totals::DAY_MS;
use crate::{Reads, StoreError};

/// A running total of `view_count` for each value of `scope`.
pub fn totals(conn: &impl Reads, scope: &str) -> Result<Vec<(String, i64)>, StoreError> {
    conn.db().query(
        "SELECT value, max(n) FROM view_count WHERE scope = ?1 GROUP BY value ORDER BY value",
        &[&scope],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Submits by answer (accepted, refused, unknown) and receipts, summed over every day.
pub fn day_totals(conn: &impl Reads) -> Result<Vec<(String, i64)>, StoreError> {
    conn.db().query(
        "SELECT metric, sum(n) FROM activity_count WHERE grain = ?1 GROUP BY metric ORDER BY metric",
        &[&DAY_MS],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Receipt latencies over every day: (latency in ms, messages).
pub fn latencies(conn: &impl Reads) -> Result<Vec<(i64, i64)>, StoreError> {
    conn.db().query(
        "SELECT latency_ms, sum(n) FROM activity_latency WHERE grain = ?1 GROUP BY latency_ms ORDER BY latency_ms",
        &[&DAY_MS],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Open exceptions by kind.
pub fn open_exceptions(conn: &impl Reads) -> Result<Vec<(String, i64)>, StoreError> {
    conn.db().query(
        "SELECT kind, count(*) FROM exception WHERE status = 'open' GROUP BY kind ORDER BY kind",
        &[],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Counts kept between scrapes: how far the evidence was counted, and what it held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counted {
    /// Receipts counted: those with an id up to this.
    pub receipts_to: i64,
    /// Receipts by `stat` ("" for none: notices without one, unreadable ones); replies from
    /// handsets are not receipts.
    pub receipts: BTreeMap<String, i64>,
    /// Tries counted: those answered with an id up to this (the first still waiting stops it).
    pub tries_to: i64,
    /// Answered tries by (connection, command_status, outcome); tries never written to the SMSC
    /// (`not_sent`) are not submits.
    pub tries: BTreeMap<(String, i64, String), i64>,
}

/// Adds to `c` the receipts and answered tries written since it was last brought up to date.
pub fn count_new(conn: &impl Reads, c: &mut Counted) -> Result<(), StoreError> {
    let db = conn.db();
    let receipts_to: i64 = db.one("SELECT coalesce(max(id), 0) FROM receipt", &[])?;
    let receipts: Vec<(String, i64)> = db.query(
        "SELECT coalesce(stat, ''), count(*) FROM receipt WHERE id > ?1 AND id <= ?2 AND kind <> 'mo' GROUP BY 1",
        &[&c.receipts_to, &receipts_to],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    for (stat, n) in receipts {
        *c.receipts.entry(stat).or_default() += n;
    }
    c.receipts_to = receipts_to;
    // Tries change once, when answered: counted up to the first still waiting for its answer.
    let tries_to: i64 = db.one(
        "SELECT coalesce((SELECT min(id) - 1 FROM attempt WHERE outcome = 'pending'),
                         (SELECT max(id) FROM attempt), 0)",
        &[],
    )?;
    let tries: Vec<((String, i64, String), i64)> = db.query(
        "SELECT connection, coalesce(command_status, -1), outcome, count(*) FROM attempt
         WHERE id > ?1 AND id <= ?2 AND outcome <> 'not_sent' AND outcome <> 'pending' GROUP BY 1, 2, 3",
        &[&c.tries_to, &tries_to],
        |r| Ok(((r.get(0)?, r.get(1)?, r.get(2)?), r.get(3)?)),
    )?;
    for (key, n) in tries {
        *c.tries.entry(key).or_default() += n;
    }
    c.tries_to = c.tries_to.max(tries_to);
    Ok(())
}

/// The alerts firing, by rule.
pub fn firing(conn: &impl Reads) -> Result<Vec<(String, i64)>, StoreError> {
    conn.db().query(
        "SELECT rule, count(*) FROM alert WHERE resolved_at IS NULL GROUP BY rule ORDER BY rule",
        &[],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}
