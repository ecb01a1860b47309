//! What the alert rules read, each a few index seeks or a walk back from the newest rows that
//! stops at the window's start: their cost does not grow with the number of messages kept.

use crate::db::{Db, Dialect, Row};
use crate::totals::MINUTE_MS;
use crate::{Reads, StoreError};

/// The routes of the queued messages, one seek each (a skip over the claim index).
const ROUTES: &str = "WITH RECURSIVE r(route) AS (
         SELECT (SELECT min(route) FROM queue INDEXED BY queue_claim WHERE status = 'queued')
         UNION ALL
         SELECT (SELECT min(route) FROM queue INDEXED BY queue_claim WHERE status = 'queued' AND route > r.route)
         FROM r WHERE r.route IS NOT NULL
     )
     SELECT route FROM r WHERE route IS NOT NULL";
/// The next priority a route's queued messages hold.
const NEXT_PRIORITY: &str = "SELECT min(priority) FROM queue INDEXED BY queue_claim
     WHERE status = 'queued' AND route IS NOT DISTINCT FROM ?1 AND priority > ?2";
/// The earliest due time of a route's queued messages of one priority.
const FIRST_DUE: &str = "SELECT min(next_attempt_at) FROM queue INDEXED BY queue_claim
     WHERE status = 'queued' AND route IS NOT DISTINCT FROM ?1 AND priority = ?2";

/// `sql` as `db` takes it: PostgreSQL has no `INDEXED BY` (it picks the claim index itself), so
/// there the clause is left out.
fn indexed(db: Db<'_>, sql: &'static str) -> String {
    match db.dialect() {
        Dialect::Sqlite => sql.to_owned(),
        Dialect::Postgres => sql.replace(" INDEXED BY queue_claim", ""),
    }
}

/// The time the oldest message due to be sent became due (its `next_attempt_at`), among the
/// messages waiting in the queue (scheduled ones count once their time has come). The claim index
/// orders them by route, then priority (kind and the message's own, 0 to 29), then due time: a
/// skip over the routes and the priorities each holds, and one seek for each pair, so the cost is
/// that of the pairs, not of the messages (the index is named: left to itself, SQLite reads the
/// routes' minimum by scanning every queued row in another).
pub fn oldest_due(conn: &impl Reads, now_ms: i64) -> Result<Option<i64>, StoreError> {
    let db = conn.db();
    let mut routes: Vec<Option<String>> = db.query(&indexed(db, ROUTES), &[], |r| r.get(0))?;
    // Rows queued by a version before routes have none until the next start gives them one.
    routes.push(None);
    let (next_priority, first_due) = (indexed(db, NEXT_PRIORITY), indexed(db, FIRST_DUE));
    let mut oldest: Option<i64> = None;
    for route in &routes {
        let mut priority = i64::MIN;
        while let Some(p) = db.one::<Option<i64>>(&next_priority, &[route, &priority])? {
            let due: Option<i64> = db.one(&first_due, &[route, &p])?;
            oldest = match (oldest, due.filter(|t| *t <= now_ms)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            priority = p;
        }
    }
    Ok(oldest)
}

/// Walks back from the newest row of `sql`, a page at a time (`sql` selects the row's id first,
/// takes the id to stay below as `?1` and the page's length as `?2`, newest first), handing each
/// row to `f` until it answers false or the rows run out: the walk reads only a page past where
/// it stops.
fn walk_back(
    db: Db<'_>,
    sql: &str,
    mut f: impl FnMut(&Row<'_, '_>) -> Result<bool, StoreError>,
) -> Result<(), StoreError> {
    let (mut below, mut page) = (i64::MAX, 16_i64);
    loop {
        let (mut seen, mut going, from) = (0, true, below);
        db.query(sql, &[&from, &page], |r| {
            seen += 1;
            if going {
                below = r.get(0)?;
                going = f(r)?;
            }
            Ok(())
        })?;
        if !going || seen < page {
            return Ok(());
        }
        page = (page * 4).min(4_096);
    }
}

/// Submits answered since `from_ms` (rounded down to its minute): accepted, refused (temporary,
/// throttled, permanent) and without an answer (timeout, link lost), from the per-minute totals.
pub fn submits_since(conn: &impl Reads, from_ms: i64) -> Result<SubmitCounts, StoreError> {
    let mut out = SubmitCounts::default();
    let rows: Vec<(String, i64)> = conn.db().query(
        "SELECT metric, sum(n) FROM activity_count WHERE grain = ?1 AND bucket >= ?2
             AND (metric = 'accepted' OR metric = 'refused' OR metric = 'unknown')
         GROUP BY metric",
        &[&MINUTE_MS, &(from_ms - from_ms.rem_euclid(MINUTE_MS))],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    for (metric, n) in rows {
        match metric.as_str() {
            "accepted" => out.accepted = n,
            "refused" => out.refused = n,
            _ => out.unknown = n,
        }
    }
    Ok(out)
}

/// Submits by how they were answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubmitCounts {
    pub accepted: i64,
    pub refused: i64,
    pub unknown: i64,
}

impl SubmitCounts {
    pub fn total(self) -> i64 {
        self.accepted + self.refused + self.unknown
    }
}

/// When the newest report was received (a receipt or a notification; not a reply from a
/// handset), if any. Walks back past the replies.
pub fn last_receipt_at(conn: &impl Reads) -> Result<Option<i64>, StoreError> {
    let mut last = None;
    walk_back(
        conn.db(),
        "SELECT id, received_at, kind = 'mo' FROM receipt WHERE id < ?1 ORDER BY id DESC LIMIT ?2",
        |r| {
            if r.get::<bool>(2)? {
                return Ok(true);
            }
            last = Some(r.get(1)?);
            Ok(false)
        },
    )?;
    Ok(last)
}

/// The longest walk back through the tries [`first_receipt_asked_after`] makes.
const TRIES_LOOKED_AT: usize = 200_000;

/// When the first try written after `after_ms` that asked for a final receipt whatever the
/// outcome (registered_delivery 1, or 0x11 with intermediate notifications; not "on failure
/// only", which a delivered message never answers) was accepted: the receipts-silent rule
/// measures from it. Walks back from the newest try and stops at `after_ms` (or after
/// [`TRIES_LOOKED_AT`] tries, taking the oldest seen).
pub fn first_receipt_asked_after(conn: &impl Reads, after_ms: i64) -> Result<Option<i64>, StoreError> {
    let mut first = None;
    let mut seen = 0;
    walk_back(
        conn.db(),
        "SELECT id, created_at, outcome = 'accepted' AND coalesce(registered_delivery, 0) & 3 = 1, responded_at
         FROM attempt WHERE id < ?1 ORDER BY id DESC LIMIT ?2",
        |r| {
            let created: i64 = r.get(1)?;
            if created <= after_ms || seen >= TRIES_LOOKED_AT {
                return Ok(false);
            }
            seen += 1;
            if r.get::<bool>(2)? {
                first = Some(r.get::<Option<i64>>(3)?.unwrap_or(created));
            }
            Ok(true)
        },
    )?;
    Ok(first)
}

/// One-time codes whose try's outcome is unknown and still waits for a person (open exceptions).
pub fn otp_outcome_unknown(conn: &impl Reads) -> Result<i64, StoreError> {
    conn.db().one(
        "SELECT count(*) FROM exception e JOIN message m ON m.id = e.message_id
         WHERE e.status = 'open' AND e.kind = 'outcome_unknown' AND m.kind = 'otp'",
        &[],
    )
}

/// Open exceptions.
pub fn open_exceptions(conn: &impl Reads) -> Result<i64, StoreError> {
    conn.db()
        .one("SELECT count(*) FROM exception WHERE status = 'open'", &[])
}

/// An API key whose webhook keeps failing: its name, and since when the oldest notification it
/// has not taken was first due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailingWebhook {
    pub key_name: String,
    pub since_ms: i64,
    pub waiting: i64,
    pub last_error: Option<String>,
}

/// The API keys whose webhook has notifications waiting after a failed try.
pub fn failing_webhooks(conn: &impl Reads) -> Result<Vec<FailingWebhook>, StoreError> {
    conn.db().query(
        "SELECT k.name, min(d.created_at), count(*),
                (SELECT last_error FROM webhook_delivery x WHERE x.api_key_id = d.api_key_id
                     AND x.status = 'pending' AND x.attempts > 0 ORDER BY x.next_attempt_at DESC LIMIT 1)
         FROM webhook_delivery d JOIN api_key k ON k.id = d.api_key_id
         WHERE d.status = 'pending' AND d.attempts > 0
         GROUP BY d.api_key_id, k.name ORDER BY k.name",
        &[],
        |r| {
            Ok(FailingWebhook {
                key_name: r.get(0)?,
                since_ms: r.get(1)?,
                waiting: r.get(2)?,
                last_error: r.get(3)?,
            })
        },
    )
}

/// Numbers put on the opt-out list by their own reply since `since_ms` (walks back from the
/// newest entry).
pub fn opt_outs_by_reply_since(conn: &impl Reads, since_ms: i64) -> Result<i64, StoreError> {
    let mut n = 0;
    walk_back(
        conn.db(),
        "SELECT id, created_at, reason = 'reply' FROM opt_out WHERE id < ?1 ORDER BY id DESC LIMIT ?2",
        |r| {
            if r.get::<i64>(1)? < since_ms {
                return Ok(false);
            }
            n += i64::from(r.get::<bool>(2)?);
            Ok(true)
        },
    )?;
    Ok(n)
}

/// A day's figures for the daily summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DayFigures {
    /// Messages handed in, by kind (otp, transactional, bulk).
    pub by_kind: Vec<(String, i64)>,
    /// Those messages by where they stand now (delivered, failed, expired, cancelled,
    /// no_receipt, unknown, pending).
    pub by_outcome: Vec<(String, i64)>,
    /// The most frequent reasons of their failures: (SMPP command status, receipt error code,
    /// messages), most first.
    pub failure_reasons: Vec<(i64, String, i64)>,
    pub exceptions_opened: i64,
    pub exceptions_closed: i64,
    pub opt_outs: i64,
}

/// The figures of the messages created in [from_ms, to_ms) (whole UTC hours: the report's
/// totals), and of the exceptions and opt-outs of that time.
pub fn day_figures(conn: &impl Reads, from_ms: i64, to_ms: i64) -> Result<DayFigures, StoreError> {
    let db = conn.db();
    let pairs = |sql: &str| db.query(sql, &[&from_ms, &to_ms], |r| Ok((r.get(0)?, r.get(1)?)));
    let count = |sql: &str| db.one(sql, &[&from_ms, &to_ms]);
    Ok(DayFigures {
        by_kind: pairs(
            "SELECT kind, sum(messages) FROM report_hour WHERE hour >= ?1 AND hour < ?2 GROUP BY kind ORDER BY kind",
        )?,
        by_outcome: pairs(
            "SELECT outcome, sum(messages) FROM report_hour WHERE hour >= ?1 AND hour < ?2
             GROUP BY outcome ORDER BY outcome",
        )?,
        failure_reasons: db.query(
            "SELECT command_status, error_code, sum(messages) AS n FROM report_hour
             WHERE hour >= ?1 AND hour < ?2 AND outcome = 'failed'
             GROUP BY command_status, error_code ORDER BY n DESC, command_status LIMIT 5",
            &[&from_ms, &to_ms],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?,
        exceptions_opened: count("SELECT count(*) FROM exception WHERE created_at >= ?1 AND created_at < ?2")?,
        exceptions_closed: count("SELECT count(*) FROM exception WHERE resolved_at >= ?1 AND resolved_at < ?2")?,
        opt_outs: count("SELECT count(*) FROM opt_out WHERE created_at >= ?1 AND created_at < ?2")?,
    })
}

/// Messages waiting in the queue (scheduled ones included), from the running totals.
pub fn queued(conn: &impl Reads) -> Result<i64, StoreError> {
    conn.db().one(
        "SELECT coalesce(max(n), 0) FROM view_count WHERE scope = 'queue' AND value = 'queued'",
        &[],
    )
}

#[cfg(test)]
mod tests {
    use rusqlite::params;

    use super::*;
    use crate::Store;

    /// A queued message: `id`, its route (None: queued before routes), priority and due time.
    fn queued(c: &rusqlite::Connection, id: i64, route: Option<&str>, priority: i64, due: i64) {
        c.execute(
            "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
                 kind, priority, registered_delivery, connection)
             VALUES (?1, ?2, 'api', '+33612345678', '+33612345678', 'x', 'gsm7', 1, 'bulk', ?3, 1, 'sandbox')",
            params![id, due, priority],
        )
        .unwrap();
        c.execute(
            "INSERT INTO queue (message_id, status, priority, next_attempt_at, attempts, updated_at, route)
             VALUES (?1, 'queued', ?2, ?3, 0, ?3, ?4)",
            params![id, priority, due, route],
        )
        .unwrap();
    }

    #[test]
    fn the_oldest_due_message_is_found_on_every_route_and_priority_and_a_future_one_is_not_due() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("smsdesk.db");
        Store::open(&path).unwrap().shutdown();
        let c = rusqlite::Connection::open(&path).unwrap();
        let now = 1_780_000_000_000;
        assert_eq!(oldest_due(&c, now).unwrap(), None);
        // Within-kind priorities (kind × 10 + 0..9), on two routes and none.
        queued(&c, 1, Some("default"), 15, now - 60_000);
        queued(&c, 2, Some("default"), 25, now - 600_000);
        queued(&c, 3, Some("premium"), 5, now - 120_000);
        queued(&c, 4, None, 17, now - 300_000);
        queued(&c, 5, Some("premium"), 0, now + 3_600_000);
        assert_eq!(
            oldest_due(&c, now).unwrap(),
            Some(now - 600_000),
            "a bulk message of priority 25"
        );
        c.execute("UPDATE queue SET status = 'accepted' WHERE message_id = 2", [])
            .unwrap();
        assert_eq!(
            oldest_due(&c, now).unwrap(),
            Some(now - 300_000),
            "one queued before routes"
        );
        c.execute("UPDATE queue SET status = 'accepted' WHERE message_id IN (1, 3, 4)", [])
            .unwrap();
        assert_eq!(oldest_due(&c, now).unwrap(), None, "the scheduled one is not due yet");
        assert_eq!(oldest_due(&c, now + 3_600_000).unwrap(), Some(now + 3_600_000));
    }

    #[test]
    fn the_oldest_due_message_is_looked_for_by_seeks_in_the_claim_index_never_by_a_scan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("smsdesk.db");
        Store::open(&path).unwrap().shutdown();
        let c = rusqlite::Connection::open(&path).unwrap();
        for (sql, args) in [(ROUTES, 0), (NEXT_PRIORITY, 2), (FIRST_DUE, 2)] {
            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let detail = |r: &rusqlite::Row<'_>| r.get::<_, String>(3);
            let plan: Vec<String> = match args {
                0 => stmt.query_map([], detail).unwrap().collect::<Result<_, _>>().unwrap(),
                _ => stmt
                    .query_map(params![None::<String>, 0], detail)
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap(),
            };
            assert!(
                plan.iter()
                    .filter(|p| p.contains("queue"))
                    .all(|p| p.contains("INDEX queue_claim")),
                "{sql}: {plan:?}"
            );
        }
    }
}

#[cfg(test)]
#[path = "alert_facts_tests.rs"]
mod on_both_tests;
